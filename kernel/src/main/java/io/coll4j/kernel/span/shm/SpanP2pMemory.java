package io.coll4j.kernel.span.shm;

import io.coll4j.kernel.p2p.P2pMemory;

import java.lang.foreign.MemorySegment;

/**
 * What point-to-point between the ranks of a {@link SharedMemorySpan}'s processes needs of the mapping: the span's
 * blocks of this process's region (given back at its close) and each process's ring directory. The whole team's span
 * keeps its directories at the start of each process's region, where every process finds them without asking; a
 * sub-team's span took a block of each of its processes' regions when it was split and allgathered their offsets
 * ({@link SharedMemorySpan#split}), since its ranks are numbered apart from the team's.
 */
final class SpanP2pMemory implements P2pMemory {
    private final SharedMemorySpan span;
    private final Mapping m;
    private final int[] members;
    private final int me;
    /** Per process of the span (its index in the span), the offset of its ring directory. */
    private final long[] directories;

    SpanP2pMemory(SharedMemorySpan span, Mapping m, int[] members, int me, long[] directories) {
        this.span = span;
        this.m = m;
        this.members = members;
        this.me = me;
        this.directories = directories;
    }

    @Override
    public MemorySegment memory() {
        return m.seg;
    }

    @Override
    public int process() {
        return me;
    }

    @Override
    public long take(long bytes, boolean zeroed) {
        return span.takeBlock(bytes, zeroed);
    }

    @Override
    public void give(long at, long bytes) {
        span.giveBlock(at, bytes);
    }

    @Override
    public long offsetOf(MemorySegment s, long bytes) {
        return m.offsetOf(s, 0, bytes);
    }

    @Override
    public long directory(int process) {
        return directories[process];
    }

    @Override
    public void checkPeers(String what) {
        m.lock.lock();
        try {
            // started = now: the team's own timeout bounds point-to-point waits (Endpoint.check)
            m.check(members, "point-to-point " + what, System.nanoTime());
        } finally {
            m.lock.unlock();
        }
    }
}
