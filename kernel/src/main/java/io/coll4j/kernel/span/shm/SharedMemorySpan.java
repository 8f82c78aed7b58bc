package io.coll4j.kernel.span.shm;

import io.coll4j.kernel.p2p.P2pMemory;
import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link ProcessSpan} between the JVM processes of one host through one file of /dev/shm mapped into each
 * ({@link Mapping}), without MPI: the span of {@code Team.builder().processes(n, index).name(job)}.
 *
 * <p>Each communicator is a {@link Channel} of the mapping: collectives run the round protocol of {@link Ops} —
 * every process copies its slice into its own slot, then reads its peers' slots, two slots per process so the
 * copy-in of slice k overlaps the peers' reading of slice k − 1 [YHCCL §3.3]; reductions fold in ascending process
 * order with the project's reducers (bitwise the same result in every process). Point-to-point messages go through a
 * mailbox per ordered pair of processes.
 *
 * <p>Threads: {@link ThreadLevel#MULTIPLE}: any thread may call at any time. Each call only queues its operation and
 * moves queued operations under the mapping's lock, never holding it while it waits, so two threads in different
 * communicators (sub-teams, the multi-leader allreduce's per-local-rank channels) never block each other.
 *
 * <p>Non-blocking forms: the operation is queued on its channel and moved only when this process polls — by its
 * {@link Pending#test()}, or while any blocking call of this mapping waits (as MPI progresses every request inside
 * any call). A {@code Pending} therefore completes in its test; every process posts a channel's operations in the
 * same order, as the SPI requires, so the rounds of queued operations meet in every process.
 *
 * <p>Buffers: memory from {@link #allocate} ({@code rank.allocate}) lies in the mapping, and the peers read (and an
 * allreduce's push writes) it in place, found by offset; any other buffer, heap or native, is staged through the
 * slots ({@link Ops.Coll}); a staged allreduce folds replicated (every process folds every slice) or movement-avoiding
 * (each folds its block of every slice, then copies the others' out: {@link MaSlicedFold}), priced per call by
 * {@link StagedAllreduce} and forced with {@code -Dcoll4j.shm.allreduce=replicated|ma-sliced}.
 *
 * <p>Faults: a waiting process looks at the mapping's abort word and at its peers' pids (every 50 ms, on the slow path
 * of each wait): a dead peer or an abort ends the wait with {@link io.coll4j.TeamAbortedException} naming the process
 * and its ranks; the team timeout with a {@link io.coll4j.CollectiveTimeoutException}. A process in another collective
 * than its peers gets a {@link io.coll4j.CollectiveMismatchException} from the first round's descriptors.
 */
public final class SharedMemorySpan implements ProcessSpan {
    private static final int WORLD = 0;
    private static final int REQUESTS = 1;
    /** Channels per span: world, requests, rooted; then one per local rank (perLocalRank). */
    static final int CHANNELS = 3;

    /** The per-local-rank channels of a span of {@code localRanks} ranks per process: none for one (or uneven: 1). */
    static int perLocalChannels(int localRanks) {
        return localRanks > 1 ? localRanks : 0;
    }

    private final Mapping m;
    /** Global process index of each process of this span, and this process's index among them. */
    private final int[] members;
    private final int me;
    private final Channel world;
    private final Channel requests;
    /**
     * The blocking reduce's channel: a reduce whose root is not local rank 0 of its process is called from the root's
     * thread there (LeaderReduce) while local rank 0 may already be in the next collective's world call, so the two
     * would meet the world channel in different orders in different processes; reduces among themselves keep one
     * order (the root's thread posts its reduce before it contributes to any later local step).
     */
    private final Channel rooted;
    /** Per local rank j, the channel of the multi-leader algorithms' communicator j (empty for one rank per process). */
    private final Channel[] perLocal;
    private final boolean sub;
    private final String host;
    private boolean closed;
    /** The span of the MPI job that started these processes ({@link #closeAfter}), or null. */
    private ProcessSpan launcher;
    /** The blocks {@link #allocate} took for this span's team: offset → bytes, given back at close. */
    private final java.util.HashMap<Long, Long> blocks = new java.util.HashMap<>();
    /**
     * Per process of the span, the offset of its ring directory (point-to-point), or null: none. The team's span keeps
     * each at the start of the process's region; a sub-team's span gets its own at the split ({@link #shareDirectories}).
     */
    private long[] directories;
    private P2pMemory p2pMemory;
    /** The fold of a staged allreduce: {@link StagedAllreduce#AUTO} (priced per call) or one forced by -Dcoll4j.shm.allreduce. */
    private int allreduceMode = StagedAllreduce.fromProperty();

    private SharedMemorySpan(Mapping m, int[] members, int me, int firstChannel, int localRanks, boolean sub) {
        this.m = m;
        this.members = members;
        this.me = me;
        this.world = new Channel(m, firstChannel);
        this.requests = new Channel(m, firstChannel + 1);
        this.rooted = new Channel(m, firstChannel + 2);
        this.perLocal = new Channel[perLocalChannels(localRanks)];
        for (int j = 0; j < perLocal.length; j++) {
            perLocal[j] = new Channel(m, firstChannel + CHANNELS + j);
        }
        this.sub = sub;
        this.host = localHost();
        // the ring directory of point-to-point across processes (P2pMemory.directory): the first block of this
        // process's region, so every process knows where each other's lies without asking
        if (!sub && m.region.take(directoryBytes(localRanks), new boolean[1]) == m.region.start()) {
            directories = new long[members.length];
            for (int p = 0; p < members.length; p++) {
                directories[p] = m.regionsAt + p * m.region.bytes();
            }
        }
    }

    /** Bytes of each process's ring directory: a long per local rank and global rank of the team. */
    private long directoryBytes(int localRanks) {
        return 8L * localRanks * localRanks * members.length;
    }

    /**
     * Creates (index 0) or joins the job's mapping and checks that every process has the same number of ranks.
     *
     * @throws IllegalStateException when the mapping cannot be made or joined within {@code timeout}
     */
    public static SharedMemorySpan open(String job, int processes, int index, int localRanks, Duration timeout) {
        return open(job, processes, index, localRanks, timeout, 0);
    }

    /**
     * {@link #open(String, int, int, int, Duration)} with {@code regionBytes} of the mapping for each process's
     * {@link #allocate} (0: the default, a quarter of /dev/shm's free space shared among the processes; process 0's
     * value is every process's).
     */
    public static SharedMemorySpan open(String job, int processes, int index, int localRanks, Duration timeout,
                                        long regionBytes) {
        if (regionBytes < 0) {
            throw new IllegalArgumentException("sharedMemory: bytes per process must be >= 0 (0: the default), got " + regionBytes);
        }
        Mapping m = Mapping.open(job, processes, index, localRanks, timeout, regionBytes);
        int[] all = new int[processes];
        for (int p = 0; p < processes; p++) {
            all[p] = p;
        }
        SharedMemorySpan s = new SharedMemorySpan(m, all, index, 0, localRanks, false);
        boolean ok = false;
        try {
            // every process must give the team the same width: global ids are process × width + local id
            long[] w = new long[processes];
            w[index] = localRanks;
            s.allgather(WORLD, null, MemorySegment.ofArray(w), 1, DType.I64);
            for (int p = 0; p < processes; p++) {
                if (w[p] != localRanks) {
                    throw new IllegalArgumentException("ranks: every process of a processes(n, i) team must have the same "
                            + "number of ranks; process " + p + " has " + w[p] + ", this one (" + index + ") " + localRanks);
                }
            }
            ok = true;
            return s;
        } finally {
            if (!ok) {
                s.close();
            }
        }
    }

    private static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "localhost";
        }
    }

    /** Forces the fold of staged allreduces ({@link StagedAllreduce#AUTO}, REPLICATED or MA_SLICED): the tests' contenders. */
    void allreduceMode(int mode) {
        this.allreduceMode = mode;
    }

    /** The mapping's file (unlinked once every process has mapped it). */
    public String path() {
        return m.path.toString();
    }

    @Override
    public int processes() {
        return members.length;
    }

    @Override
    public int process() {
        return me;
    }

    @Override
    public String host(int process) {
        return host;
    }

    @Override
    public ThreadLevel threadLevel() {
        return ThreadLevel.MULTIPLE;
    }

    @Override
    public String describe() {
        return "shared mapping " + m.path + " (unlinked once mapped), " + members.length + " processes"
                + (sub ? " (a sub-team's channels)" : "") + ", slices of " + (m.slotBytes >> 10) + " KiB, "
                + StagedAllreduce.describe(allreduceMode, members.length, m.slotBytes)
                + (launcher != null ? ", its name agreed through MPI (every process of the MPI job on this host)" : ", no MPI");
    }

    @Override
    public int world() {
        return WORLD;
    }

    @Override
    public int requests() {
        return REQUESTS;
    }

    @Override
    public int perLocalRank(int localRank) {
        if (localRank < 0 || localRank >= perLocal.length) {
            throw new IllegalStateException("shared mapping: no per-local-rank communicator " + localRank + " (this span has "
                    + perLocal.length + ")");
        }
        return CHANNELS + localRank;
    }

    /** The channel of a blocking reduce on {@code comm} ({@link #rooted} for the world). */
    private Channel reduceChannel(int comm) {
        return comm == WORLD ? rooted : channel(comm);
    }

    private Channel channel(int comm) {
        return switch (comm) {
            case WORLD -> world;
            case REQUESTS -> requests;
            default -> {
                if (comm >= CHANNELS && comm - CHANNELS < perLocal.length) {
                    yield perLocal[comm - CHANNELS];
                }
                throw new IllegalArgumentException("shared mapping: no communicator " + comm);
            }
        };
    }

    private void run(Object key, Mapping.Step s) {
        m.post(key, s);
        m.await(s);
    }

    private Pending pending(Object key, Mapping.Step s) {
        m.post(key, s);
        long posted = System.nanoTime();
        return () -> m.poll(s, posted);
    }

    private static Reducer reducer(DType dtype, Op op) {
        return Reducer.of(dtype, op);
    }

    // ---- the collectives as steps, shared by the blocking and non-blocking forms ----

    /** Where {@code len} bytes of {@code s} from {@code off} lie in the mapping, or -1 (not all inside it, or none). */
    private long at(MemorySegment s, long off, long len) {
        return s == null ? -1 : m.offsetOf(s, off, len);
    }

    /**
     * A fold's stream is read in place when it lies in the mapping and not where this process writes its result:
     * the peers read slice k of it while this process folds slice k (in place it is staged, as before).
     */
    private long foldSource(MemorySegment src, long bytes, MemorySegment dst, long dstOff, long dstBytes) {
        long s = at(src, 0, bytes);
        long d = at(dst, dstOff, dstBytes);
        return s >= 0 && (d < 0 || s + bytes <= d || d + dstBytes <= s) ? s : -1;
    }

    private Mapping.Step allreduceStep(Channel ch, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                       Reducer r, String what) {
        long bytes = count * dtype.size();
        MemorySegment src = send == null ? recv : send;
        Ops.Pieces mine = Ops.Pieces.of(src, 0, bytes);
        long desc = allreduceDesc(count, dtype, op);
        int fold = (int) ((desc >>> 32) & 0xff);
        Ops.Fold f = fold == StagedAllreduce.MA_SLICED ? new MaSlicedFold(ch, members, me, desc, mine, recv, r, dtype.size())
                : new Ops.Fold(ch, members, me, desc, mine, what, recv, 0, 0, bytes, r, dtype.size());
        f.readInPlace(foldSource(src, bytes, recv, 0, bytes)).inlineUpTo(bytes);
        return op == Op.USER ? f : f.offer(at(recv, 0, bytes), at(src, 0, bytes));
    }

    /** Every process prices the same size and count alike; the descriptor carries the pick (a mismatch otherwise). */
    private long allreduceDesc(long count, DType dtype, Op op) {
        int fold = StagedAllreduce.pick(allreduceMode, count * dtype.size(), members.length, m.slotBytes, op == Op.USER);
        return Ops.desc(Ops.ALLREDUCE, dtype.ordinal(), op.ordinal(), fold, count);
    }

    /** An allreduce run by {@link InlineCall}: true when it ran there (the result native, the channel's queue empty). */
    private boolean inlineAllreduce(Channel ch, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                    Reducer r, String what) {
        InlineCall c = recv.isNative() ? InlineCall.of(ch, members, me, count * dtype.size()) : null;
        return c != null && c.allreduce(allreduceDesc(count, dtype, op), send == null ? recv : send, recv,
                count * dtype.size(), dtype.size(), r, what);
    }

    private Mapping.Step reduceStep(Channel ch, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op,
                                    Reducer r, int root, String what) {
        long bytes = count * dtype.size();
        boolean isRoot = root == me;
        MemorySegment src = send == null ? recv : send;
        Ops.Pieces mine = Ops.Pieces.of(src, 0, bytes);
        long desc = Ops.desc(Ops.REDUCE, dtype.ordinal(), op.ordinal(), root, count);
        return new Ops.Fold(ch, members, me, desc, mine, what, isRoot ? recv : null, 0, 0, isRoot ? bytes : 0, r, dtype.size())
                .readInPlace(foldSource(src, bytes, isRoot ? recv : null, 0, bytes)).inlineUpTo(bytes);
    }

    private Mapping.Step reduceScatterStep(Channel ch, MemorySegment send, MemorySegment recv, long recvCount, DType dtype,
                                           Op op, Reducer r, String what) {
        long block = recvCount * dtype.size();
        Ops.Pieces mine = Ops.Pieces.of(send, 0, block * members.length);
        long desc = Ops.desc(Ops.REDUCE_SCATTER, dtype.ordinal(), op.ordinal(), 0, recvCount);
        return new Ops.Fold(ch, members, me, desc, mine, what, recv, 0, block * me, block * me + block, r, dtype.size())
                .readInPlace(foldSource(send, block * members.length, recv, 0, block)).inlineUpTo(block * members.length);
    }

    private Mapping.Step bcastStep(Channel ch, MemorySegment buf, long count, DType dtype, int root) {
        long bytes = count * dtype.size();
        return new Ops.Bcast(ch, members, me, Ops.desc(Ops.BCAST, dtype.ordinal(), 0, root, count), buf, bytes, root)
                .readInPlace(me == root ? at(buf, 0, bytes) : -1).inlineUpTo(bytes);
    }

    private Mapping.Step allgatherStep(Channel ch, MemorySegment send, MemorySegment recv, long count, DType dtype) {
        long block = count * dtype.size();
        long[] counts = new long[members.length];
        long[] displs = new long[members.length];
        for (int p = 0; p < members.length; p++) {
            counts[p] = block;
            displs[p] = block * p;
        }
        // the peers read this process's block while it writes the others' (in place: other blocks of the same buffer)
        Ops.Pieces mine = send == null ? Ops.Pieces.of(recv, block * me, block) : Ops.Pieces.of(send, 0, block);
        return new Ops.Gather(ch, members, me, Ops.desc(Ops.ALLGATHER, dtype.ordinal(), 0, 0, count), mine, "allgather",
                recv, counts, displs, -1, send == null)
                .readInPlace(send == null ? at(recv, block * me, block) : at(send, 0, block)).inlineUpTo(block);
    }

    private Mapping.Step gathervStep(Channel ch, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts,
                                     long[] displs, int root) {
        boolean inPlace = send == null && root == me;
        Ops.Pieces mine = inPlace ? Ops.Pieces.of(recv, displs[me], counts[me]) : Ops.Pieces.of(send, 0, sendBytes);
        return new Ops.Gather(ch, members, me, Ops.desc(Ops.GATHERV, 0, 0, root, 0), mine, "gatherv", recv, counts, displs,
                root, inPlace).readInPlace(inPlace ? at(recv, displs[me], counts[me]) : at(send, 0, sendBytes));
    }

    private Mapping.Step allgathervStep(Channel ch, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts,
                                        long[] displs) {
        boolean inPlace = send == null;
        Ops.Pieces mine = inPlace ? Ops.Pieces.of(recv, displs[me], counts[me]) : Ops.Pieces.of(send, 0, sendBytes);
        return new Ops.Gather(ch, members, me, Ops.desc(Ops.ALLGATHERV, 0, 0, 0, 0), mine, "allgatherv", recv, counts,
                displs, -1, inPlace).readInPlace(inPlace ? at(recv, displs[me], counts[me]) : at(send, 0, sendBytes));
    }

    private Mapping.Step scattervStep(Channel ch, MemorySegment send, long[] counts, long[] displs, MemorySegment recv,
                                      long recvBytes, int root) {
        int k = members.length;
        Ops.Pieces mine;
        Runnable atFinish = null;
        if (root == me) {
            mine = new Ops.Pieces(k + 1).add(Ops.header(counts), 0, 8L * k);
            for (int q = 0; q < k; q++) {
                mine.add(send, displs[q], counts[q]);
            }
            if (recv != null) {
                long own = Math.min(counts[me], recvBytes);
                atFinish = () -> MemorySegment.copy(send, displs[me], recv, 0, own);
            }
        } else {
            mine = Ops.Pieces.empty();
        }
        return new Ops.Scatter(ch, members, me, Ops.desc(Ops.SCATTERV, 0, 0, root, 0), mine, "scatterv", recv,
                new long[]{0}, root, atFinish);
    }

    private Mapping.Step alltoallvStep(Channel ch, MemorySegment send, long[] sendCounts, long[] sendDispls,
                                       MemorySegment recv, long[] recvDispls) {
        int k = members.length;
        Ops.Pieces mine = new Ops.Pieces(k + 1).add(Ops.header(sendCounts), 0, 8L * k);
        for (int q = 0; q < k; q++) {
            mine.add(send, sendDispls[q], sendCounts[q]);
        }
        return new Ops.Scatter(ch, members, me, Ops.desc(Ops.ALLTOALLV, 0, 0, 0, 0), mine, "alltoallv", recv, recvDispls,
                -1, null);
    }

    private Mapping.Step barrierStep(Channel ch) {
        return new Ops.Gather(ch, members, me, Ops.desc(Ops.BARRIER, 0, 0, 0, 0), Ops.Pieces.empty(), "barrier", null,
                new long[members.length], new long[members.length], -1, false).inlineUpTo(0);
    }

    private record Pair(Channel ch, int peer, boolean send) {
    }

    private Mapping.Step sendStep(Channel ch, MemorySegment buf, long bytes, int dest) {
        return new Ops.Send(ch, members[me], members[dest], buf, bytes);
    }

    private Mapping.Step recvStep(Channel ch, MemorySegment buf, long bytes, int source) {
        return new Ops.Recv(ch, members[me], members[source], buf, bytes);
    }

    // ---- blocking ----

    @Override
    public void allreduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        Channel ch = channel(comm);
        Reducer r = reducer(dtype, op);
        if (!inlineAllreduce(ch, send, recv, count, dtype, op, r, "allreduce")) {
            run(ch, allreduceStep(ch, send, recv, count, dtype, op, r, "allreduce"));
        }
    }

    @Override
    public void bcast(int comm, MemorySegment buf, long count, DType dtype, int rootProcess) {
        Channel ch = channel(comm);
        long bytes = count * dtype.size();
        InlineCall c = InlineCall.of(ch, members, me, bytes);
        if (c == null || !c.bcast(Ops.desc(Ops.BCAST, dtype.ordinal(), 0, rootProcess, count), buf, bytes, rootProcess)) {
            run(ch, bcastStep(ch, buf, count, dtype, rootProcess));
        }
    }

    @Override
    public void reduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int rootProcess) {
        Channel ch = reduceChannel(comm);
        run(ch, reduceStep(ch, send, recv, count, dtype, op, reducer(dtype, op), rootProcess, "reduce"));
    }

    @Override
    public void reduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        Channel ch = channel(comm);
        run(ch, reduceScatterStep(ch, send, recv, recvCount, dtype, op, reducer(dtype, op), "reduce_scatter_block"));
    }

    @Override
    public void allreduce(int comm, MemorySegment send, MemorySegment recv, long count, UserOp op) {
        Channel ch = channel(comm);
        String what = "allreduce (user op " + op.name() + ")";
        if (!inlineAllreduce(ch, send, recv, count, op.dtype(), Op.USER, op.reducer(), what)) {
            run(ch, allreduceStep(ch, send, recv, count, op.dtype(), Op.USER, op.reducer(), what));
        }
    }

    @Override
    public void reduce(int comm, MemorySegment send, MemorySegment recv, long count, UserOp op, int rootProcess) {
        Channel ch = reduceChannel(comm);
        run(ch, reduceStep(ch, send, recv, count, op.dtype(), Op.USER, op.reducer(), rootProcess,
                "reduce (user op " + op.name() + ")"));
    }

    @Override
    public void reduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        Channel ch = channel(comm);
        run(ch, reduceScatterStep(ch, send, recv, recvCount, op.dtype(), Op.USER, op.reducer(),
                "reduce_scatter_block (user op " + op.name() + ")"));
    }

    @Override
    public void allgather(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype) {
        Channel ch = channel(comm);
        run(ch, allgatherStep(ch, send, recv, count, dtype));
    }

    @Override
    public void barrier(int comm) {
        Channel ch = channel(comm);
        InlineCall c = InlineCall.of(ch, members, me, 0);
        if (c == null || !c.barrier(Ops.desc(Ops.BARRIER, 0, 0, 0, 0))) {
            run(ch, barrierStep(ch));
        }
    }

    @Override
    public void gatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs,
                        int rootProcess) {
        Channel ch = channel(comm);
        run(ch, gathervStep(ch, send, sendBytes, recv, counts, displs, rootProcess));
    }

    @Override
    public void scatterv(int comm, MemorySegment send, long[] counts, long[] displs, MemorySegment recv, long recvBytes,
                         int rootProcess) {
        Channel ch = channel(comm);
        run(ch, scattervStep(ch, send, counts, displs, recv, recvBytes, rootProcess));
    }

    @Override
    public void allgatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs) {
        Channel ch = channel(comm);
        run(ch, allgathervStep(ch, send, sendBytes, recv, counts, displs));
    }

    @Override
    public void alltoallv(int comm, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                          long[] recvCounts, long[] recvDispls) {
        Channel ch = channel(comm);
        run(ch, alltoallvStep(ch, send, sendCounts, sendDispls, recv, recvDispls));
    }

    @Override
    public void send(int comm, MemorySegment buf, long bytes, int dest) {
        Channel ch = channel(comm);
        run(new Pair(ch, dest, true), sendStep(ch, buf, bytes, dest));
    }

    @Override
    public void recv(int comm, MemorySegment buf, long bytes, int source) {
        Channel ch = channel(comm);
        run(new Pair(ch, source, false), recvStep(ch, buf, bytes, source));
    }

    // ---- non-blocking: queued on the channel, moved by every poll of this mapping ----

    @Override
    public Pending iallreduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        Channel ch = channel(comm);
        return pending(ch, allreduceStep(ch, send, recv, count, dtype, op, reducer(dtype, op), "iallreduce"));
    }

    @Override
    public Pending ibcast(int comm, MemorySegment buf, long count, DType dtype, int rootProcess) {
        Channel ch = channel(comm);
        return pending(ch, bcastStep(ch, buf, count, dtype, rootProcess));
    }

    @Override
    public Pending ireduce(int comm, MemorySegment buf, long count, DType dtype, Op op, int rootProcess) {
        Channel ch = channel(comm);
        return pending(ch, reduceStep(ch, null, buf, count, dtype, op, reducer(dtype, op), rootProcess, "ireduce"));
    }

    @Override
    public Pending ireduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        Channel ch = channel(comm);
        return pending(ch, reduceScatterStep(ch, send, recv, recvCount, dtype, op, reducer(dtype, op), "ireduce_scatter_block"));
    }

    @Override
    public Pending iallgather(int comm, MemorySegment recv, long count, DType dtype) {
        Channel ch = channel(comm);
        return pending(ch, allgatherStep(ch, null, recv, count, dtype));
    }

    @Override
    public Pending ibarrier(int comm) {
        Channel ch = channel(comm);
        return pending(ch, barrierStep(ch));
    }

    @Override
    public Pending igatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs,
                            int rootProcess) {
        Channel ch = channel(comm);
        return pending(ch, gathervStep(ch, send, sendBytes, recv, counts, displs, rootProcess));
    }

    @Override
    public Pending iscatterv(int comm, MemorySegment send, long[] counts, long[] displs, MemorySegment recv, long recvBytes,
                             int rootProcess) {
        Channel ch = channel(comm);
        return pending(ch, scattervStep(ch, send, counts, displs, recv, recvBytes, rootProcess));
    }

    @Override
    public Pending iallgatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs) {
        Channel ch = channel(comm);
        return pending(ch, allgathervStep(ch, send, sendBytes, recv, counts, displs));
    }

    @Override
    public Pending isend(int comm, MemorySegment buf, long bytes, int dest) {
        Channel ch = channel(comm);
        return pending(new Pair(ch, dest, true), sendStep(ch, buf, bytes, dest));
    }

    @Override
    public Pending irecv(int comm, MemorySegment buf, long bytes, int source) {
        Channel ch = channel(comm);
        return pending(new Pair(ch, source, false), recvStep(ch, buf, bytes, source));
    }

    @Override
    public Pending ialltoallv(int comm, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                              long[] recvCounts, long[] recvDispls) {
        Channel ch = channel(comm);
        return pending(ch, alltoallvStep(ch, send, sendCounts, sendDispls, recv, recvDispls));
    }

    /**
     * Collective over this span's processes: an allgather of (color, key), then process 0 reserves fresh channels
     * per color in the mapping (an atomic counter there, so splits of other sub-teams never take the same ones) and
     * broadcasts the first (three per color: world, requests, rooted); each color's processes, ordered by key then index, get a span over those channels.
     */
    @Override
    public ProcessSpan split(int color, int key, int localRanks) {
        int k = members.length;
        long[] ck = new long[3 * k];
        ck[3 * me] = color;
        ck[3 * me + 1] = key;
        ck[3 * me + 2] = localRanks;
        allgather(WORLD, null, MemorySegment.ofArray(ck), 3, DType.I64);
        // every color's channels, in color order: 3, plus one per local rank of its widest process
        TreeMap<Long, Integer> colors = new TreeMap<>();
        for (int p = 0; p < k; p++) {
            if (ck[3 * p] >= 0) {
                colors.merge(ck[3 * p], perLocalChannels((int) ck[3 * p + 2]), Math::max);
            }
        }
        int first = 0;
        int need = 0;
        for (Map.Entry<Long, Integer> e : colors.entrySet()) {
            if (e.getKey() < color) {
                first += CHANNELS + e.getValue();
            }
            need += CHANNELS + e.getValue();
        }
        long[] base = {-1};
        String failure = null;
        if (me == 0 && need > 0) {
            try {
                base[0] = m.reserveChannels(need);
            } catch (IllegalStateException e) {
                failure = e.getMessage();
            }
        }
        bcast(WORLD, MemorySegment.ofArray(base), 1, DType.I64, 0);
        if (color < 0) {
            return null;
        }
        if (base[0] < 0) {
            throw new IllegalStateException(failure != null ? failure : "shared mapping: no channels left for a split");
        }
        List<Integer> group = new ArrayList<>();
        for (int p = 0; p < k; p++) {
            if (ck[3 * p] == color) {
                group.add(p);
            }
        }
        group.sort((a, b) -> ck[3 * a + 1] != ck[3 * b + 1] ? Long.compare(ck[3 * a + 1], ck[3 * b + 1]) : Integer.compare(a, b));
        int[] sub = new int[group.size()];
        int mine = -1;
        for (int i = 0; i < sub.length; i++) {
            sub[i] = members[group.get(i)];
            if (group.get(i) == me) {
                mine = i;
            }
        }
        m.retain();
        SharedMemorySpan s = new SharedMemorySpan(m, sub, mine, (int) base[0] + first, colors.get((long) color) > 0 ? localRanks : 1, true);
        s.allreduceMode = allreduceMode;
        boolean even = true;
        for (int p : group) {
            even &= ck[3 * p + 2] == localRanks;
        }
        if (even) {
            // point-to-point on the sub-team (TeamSplit passes width 1 for an uneven one, on which PointToPoint refuses:
            // its numbers are not process × width + local id)
            s.shareDirectories(localRanks);
        }
        return s;
    }

    /**
     * Prints {@code why} on stderr and marks the mapping aborted, so every other process's wait ends within one liveness
     * check (50 ms) with a {@link io.coll4j.TeamAbortedException} quoting it. Unlike MPI's, it returns: the caller (the
     * team) then throws its own failure in this process, which ends only if the application lets it.
     */
    @Override
    public void abort(String why) {
        System.err.println(why);
        m.markAborted(why);
    }

    /**
     * {@code bytes} of this process's region of the mapping, zeroed, page aligned: the collectives read and write such
     * buffers of every process in place (docs/design.md, "The shared-mapping span"). Given back when the span closes.
     *
     * @throws IllegalArgumentException when the region has no free block that large
     */
    @Override
    public synchronized MemorySegment allocate(long bytes) {
        if (closed) {
            throw new IllegalStateException("shared mapping: the span is closed");
        }
        if (bytes == 0) {
            return m.seg.asSlice(m.region.start(), 0);
        }
        long at = takeBlock(bytes, true);
        if (at < 0) {
            throw new IllegalArgumentException("bytes: " + bytes + " bytes do not fit this process's region of the shared "
                    + "mapping (" + m.region.bytes() + " bytes, largest free block " + m.region.largestFree()
                    + "); Team.builder().sharedMemory(bytes) sizes it");
        }
        return m.seg.asSlice(at, bytes);
    }

    /**
     * What point-to-point between the processes' ranks needs of the mapping ({@link P2pMemory}), or null where it has
     * none: a region too small for a ring directory.
     */
    public synchronized P2pMemory p2pMemory() {
        if (p2pMemory == null && directories != null) {
            p2pMemory = new SpanP2pMemory(this, m, members, me, directories);
        }
        return p2pMemory;
    }

    /**
     * A sub-team's ring directories (called by every process of the new span, inside {@link #split}): a zeroed block of
     * each process's region, the offsets allgathered on the span's world channel. A process whose region has no room
     * leaves the sub-team without point-to-point in every process.
     */
    private void shareDirectories(int localRanks) {
        long[] at = new long[members.length];
        at[me] = takeBlock(directoryBytes(localRanks), true);
        allgather(WORLD, null, MemorySegment.ofArray(at), 1, DType.I64);
        for (long a : at) {
            if (a < 0) {
                return;
            }
        }
        synchronized (this) {   // read by p2pMemory, perhaps on another rank's thread
            directories = at;
        }
    }

    synchronized long takeBlock(long bytes, boolean zeroed) {
        if (closed) {
            throw new IllegalStateException("shared mapping: the span is closed");
        }
        boolean[] used = new boolean[1];
        long at = m.region.take(bytes, used);
        if (at >= 0) {
            blocks.put(at, bytes);
            if (zeroed && used[0]) {
                m.seg.asSlice(at, bytes).fill((byte) 0);
            }
        }
        return at;
    }

    synchronized void giveBlock(long at, long bytes) {
        Long taken = closed ? null : blocks.remove(at);
        if (taken != null) {
            // the length this span took there, whatever the caller passes: a block given back longer than it was taken
            // would free its neighbour while it is in use
            m.region.give(at, taken);
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (var e : blocks.entrySet()) {
            m.region.give(e.getKey(), e.getValue());
        }
        blocks.clear();
        m.release();
        if (launcher != null) {
            launcher.close();
        }
    }

    /**
     * Makes this span the transport of an MPI job whose processes all run on this host: {@code launcher} (the job's
     * MPI span, which agreed on the mapping's name) stays open while the team lives, so MPI is finalised only after
     * the mapping is released, and closes with this span.
     */
    public synchronized void closeAfter(ProcessSpan launcher) {
        if (this.launcher != null) {
            throw new IllegalStateException("shared mapping: the span already closes after " + this.launcher.describe());
        }
        this.launcher = launcher;
    }
}
