package io.coll4j.kernel.span;

import io.coll4j.kernel.memory.Aliasing;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What the thread ranks of one process share about a team that spans processes: the {@link ProcessSpan},
 * the layout (T_q local ranks in process q; global rank = first(q) + local id with first(q) = T_0 + … + T_(q−1),
 * so a process's ranks are one contiguous block of every rank-indexed buffer), each local rank's native
 * scratch, and the choice between the leader-based and the multi-leader allreduce (docs/design.md, "Across
 * processes"). A team built with {@code mpi()} has one T everywhere (<em>even</em>); a sub-team across
 * processes from {@code split} may hold different numbers of ranks in its processes, and the algorithms whose
 * blocks follow the process layout then take the v-forms of MPI's calls with per-process counts.
 */
public final class SpanGroup implements AutoCloseable {
    /** Read once, at class initialisation: not a property lookup on every spanned allreduce. */
    private static final String FORCED_ALLREDUCE = System.getProperty("coll4j.mpi.allreduce", "auto");

    private final ProcessSpan span;
    private final int localSize;
    /** Ranks of every process, in process order, and the global id of each process's local rank 0 (one more: the total). */
    private final int[] counts;
    private final int[] firsts;
    /** firsts[process()]: a global id is one add, as it was with process × T. */
    private final int base;
    /** Every process holds localSize ranks (the layout of a team built with mpi()). */
    private final boolean even;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment[] scratch;
    private final MemorySegment[] results;
    /** The process's two shared results (by call parity) of the shared-view collectives, grown by local rank 0. */
    private final MemorySegment[] shared = new MemorySegment[2];
    /** The view of a shared result of 0 bytes. */
    static final MemorySegment EMPTY_VIEW = MemorySegment.ofArray(new byte[0]).asReadOnly();
    private final HierarchicalCost cost;
    /** Local rank 0's 32 bytes for {@link SpanCheck}: native, as MPI needs, and never resized. */
    private final MemorySegment checkCell;

    /** The even layout: {@code localSize} ranks in every process of {@code span}. */
    public SpanGroup(ProcessSpan span, int localSize, HierarchicalCost cost) {
        this(span, equalCounts(span.processes(), localSize), cost);
    }

    /**
     * {@code counts[q]} ranks in process q of {@code span} (each at least 1; this process's entry is its local
     * size): the same array in every process.
     */
    public SpanGroup(ProcessSpan span, int[] counts, HierarchicalCost cost) {
        if (counts.length != span.processes()) {
            throw new IllegalArgumentException("counts: " + counts.length + " entries for " + span.processes() + " processes");
        }
        this.span = span;
        this.checkCell = arena.allocate(32, 8);
        this.counts = counts.clone();
        this.firsts = new int[counts.length + 1];
        boolean same = true;
        for (int q = 0; q < counts.length; q++) {
            if (counts[q] < 1) {
                throw new IllegalArgumentException("counts: process " + q + " holds " + counts[q] + " ranks");
            }
            firsts[q + 1] = firsts[q] + counts[q];
            same &= counts[q] == counts[0];
        }
        this.even = same;
        this.localSize = counts[span.process()];
        this.base = firsts[span.process()];
        this.scratch = new MemorySegment[localSize];
        this.results = new MemorySegment[localSize];
        this.cost = cost;
    }

    public ProcessSpan span() {
        return span;
    }

    public int localSize() {
        return localSize;
    }

    public int processes() {
        return span.processes();
    }

    public int process() {
        return span.process();
    }

    public int globalSize() {
        return firsts[counts.length];
    }

    public int globalId(int localId) {
        return base + localId;
    }

    /** True when every process holds the same number of ranks. */
    public boolean even() {
        return even;
    }

    /** True when every process holds one rank: per-rank arrays are per-process arrays, and MPI's call is the whole collective. */
    boolean oneEach() {
        return firsts[counts.length] == counts.length;
    }

    /** Ranks of process {@code q}. */
    public int count(int q) {
        return counts[q];
    }

    /** The global id of process {@code q}'s local rank 0 ({@code q == processes()}: the total). */
    public int first(int q) {
        return firsts[q];
    }

    /** The most ranks any process holds. */
    public int maxCount() {
        int m = 0;
        for (int c : counts) {
            m = Math.max(m, c);
        }
        return m;
    }

    /** The process that holds global rank {@code g}. */
    public int processOf(int g) {
        if (even) {
            return g / localSize;
        }
        int q = java.util.Arrays.binarySearch(firsts, g);
        return q >= 0 ? q : -q - 2;   // the last first(q) <= g
    }

    /**
     * {count, start} in bytes of every process's block when each rank contributes {@code bytesPerRank}: the
     * counts and displacements of the leaders' v-calls over a rank-ordered buffer.
     */
    long[][] processBlocks(long bytesPerRank) {
        long[] c = new long[counts.length];
        long[] d = new long[counts.length];
        for (int q = 0; q < counts.length; q++) {
            c[q] = counts[q] * bytesPerRank;
            d[q] = firsts[q] * bytesPerRank;
        }
        return new long[][]{c, d};
    }

    /** Each process's sum of the per-rank {@code perRank} (global rank order) times {@code unit}: the leaders' MPI counts. */
    long[] processSums(long[] perRank, long unit) {
        long[] c = new long[counts.length];
        for (int q = 0; q < counts.length; q++) {
            c[q] = sum(perRank, firsts[q], counts[q]) * unit;
        }
        return c;
    }

    private static int[] equalCounts(int processes, int each) {
        int[] c = new int[processes];
        java.util.Arrays.fill(c, each);
        return c;
    }

    public HierarchicalCost cost() {
        return cost;
    }

    /**
     * The allreduce for {@code bytes}: multi-leader when MPI allows concurrent calls, every process holds the
     * same number of ranks, more than one, and its predicted time is lower; {@code -Dcoll4j.mpi.allreduce=leader|multi-leader} forces
     * one (multi-leader still needs THREAD_MULTIPLE). The same inputs give the same answer in every process.
     */
    public boolean multiLeader(long bytes) {
        // uneven: no per-local-rank communicators (local rank j is not in every process), and the choice must not
        // depend on this process's T
        if (!even || localSize == 1 || span.threadLevel() != ProcessSpan.ThreadLevel.MULTIPLE) {
            return false;
        }
        if (!FORCED_ALLREDUCE.equals("auto")) {
            return FORCED_ALLREDUCE.equals("multi-leader");
        }
        return MultiLeaderAllreduce.cost(cost, processes(), localSize, bytes)
                < LeaderAllreduce.cost(cost, processes(), localSize, bytes);
    }

    /** The cell local rank 0 exchanges the mismatch check word in ({@link SpanCheck}). */
    MemorySegment checkCell() {
        return checkCell;
    }

    /**
     * Local rank {@code localId}'s native scratch of at least {@code bytes}, grown by doubling and reused
     * across calls. Only that rank's thread calls this; the segment lives in a shared arena because its
     * peers read it inside a local collective. Replaced segments stay allocated until {@link #close}.
     */
    public MemorySegment scratch(int localId, long bytes) {
        return grow(scratch, localId, bytes);
    }

    /**
     * A second buffer of local rank {@code localId}, as {@link #scratch}: where a rank with no receive buffer
     * of the right size (reduce off the root, reduce-scatter) takes a whole result while the algorithm uses
     * the scratch.
     */
    public MemorySegment result(int localId, long bytes) {
        return grow(results, localId, bytes);
    }

    /**
     * The process's shared result of {@code parity}, at least {@code bytes} (local rank 0 only, before the
     * local steps that fill it; a replaced buffer stays allocated until {@link #close}, so an old view still
     * reads memory).
     */
    MemorySegment shared(int parity, long bytes) {
        return grow(shared, parity, bytes);
    }

    /**
     * A read-only view of the first {@code bytes} of the shared result of {@code parity}, for any local rank after
     * the local barrier that follows local rank 0's {@link #shared} (the barrier orders that write before this read).
     */
    MemorySegment sharedView(int parity, long bytes) {
        return bytes == 0 ? EMPTY_VIEW : shared[parity].asSlice(0, bytes).asReadOnly();
    }

    private MemorySegment grow(MemorySegment[] slots, int localId, long bytes) {
        MemorySegment s = slots[localId];
        if (s == null || s.byteSize() < bytes) {
            long size = Math.max(bytes, s == null ? 4096 : 2 * s.byteSize());
            s = slots[localId] = arena.allocate(size, 64);
        }
        return s.asSlice(0, bytes);
    }

    /**
     * A zeroed native buffer of a request's own, {@code bytes} long ({@link RequestBuffers}: MPI reads native memory
     * only, and the blocking calls' scratch is reused by the next call while a request may still be in flight).
     */
    public static MemorySegment requestBuffer(long bytes) {
        return RequestBuffers.take(bytes);
    }

    /** {@code n} counts of {@code each} (bytes or elements): the equal blocks of gather, scatter and alltoall. */
    static long[] equal(int n, long each) {
        long[] c = new long[n];
        java.util.Arrays.fill(c, each);
        return c;
    }

    /** The packed start of every block: the prefix sums of {@code counts} (times {@code unit}). */
    static long[] starts(long[] counts, int from, int n, long unit) {
        long[] d = new long[n];
        for (int i = 1; i < n; i++) {
            d[i] = d[i - 1] + counts[from + i - 1] * unit;
        }
        return d;
    }

    /** The sum of {@code counts[from .. from + n)}. */
    static long sum(long[] counts, int from, int n) {
        long s = 0;
        for (int i = from; i < from + n; i++) {
            s += counts[i];
        }
        return s;
    }

    /** True when {@code inner} starts exactly {@code at} bytes into {@code outer} (the in-place forms). */
    static boolean startsAt(MemorySegment inner, MemorySegment outer, long at) {
        return Aliasing.sameStart(inner, 0, outer, at);
    }

    /** Frees the scratch and lets the span finalise when this was its last team. */
    @Override
    public void close() {
        arena.close();
        span.close();
    }
}
