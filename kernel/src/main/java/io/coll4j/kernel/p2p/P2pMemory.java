package io.coll4j.kernel.p2p;

import java.lang.foreign.MemorySegment;

/**
 * What point-to-point between ranks of different processes needs from the shared mapping they all map
 * ({@code SharedMemorySpan.p2pMemory()}): the mapping, blocks of this process's region of it, each process's ring
 * directory, and the processes' liveness. Offsets are the mapping's: every process reaches the same bytes at the same
 * offset through its own view.
 */
public interface P2pMemory {
    /** This process's view of the whole mapping. */
    MemorySegment memory();

    /** This process's index in the mapping team. */
    int process();

    /**
     * The offset of a page-aligned block of {@code bytes} of this process's region (zeroed when {@code zeroed}), or -1
     * when the region has no free block that large.
     */
    long take(long bytes, boolean zeroed);

    /** Gives back a block of {@link #take}. */
    void give(long at, long bytes);

    /** Where {@code bytes} of {@code s} lie in the mapping, or -1 when they do not all lie in it. */
    long offsetOf(MemorySegment s, long bytes);

    /**
     * The offset of process {@code process}'s ring directory: per local rank d of that process, per global rank s of
     * the team, a long — the offset of the ring from s to d once s created it, 0 before.
     */
    long directory(int process);

    /**
     * Throws {@link io.coll4j.TeamAbortedException} when a process of the team died, closed its team or aborted the
     * job (checked at most every 50 ms); {@code what} names the wait for the message.
     */
    void checkPeers(String what);
}
