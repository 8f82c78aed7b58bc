package io.coll4j.mpi;

import io.coll4j.kernel.span.MessageTransport;
import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * {@link ProcessSpan} over MPI: one MPI process per coll4j process, the world communicator, and per
 * local rank j a communicator of the processes' local ranks j (split once per team width, collectively,
 * in team-build order — which is why every process must build its teams in the same order). A sub-team
 * that spans processes ({@link #split}) gets a span of its own over a sub-communicator, with its own
 * per-local-rank communicators, all freed when it closes.
 *
 * <p>MPI reads and writes native memory only: a heap segment is staged through a per-thread native
 * buffer (copied in before an input is read, out after an output is written).
 */
final class MpiProcessSpan implements ProcessSpan {
    private static final int HOST_BYTES = 64;

    private final MpiSession mpi;
    /** This span's communicator: 0 (the world) or a sub-team's, made by {@link #split}. */
    private final int comm;
    /** Processes of {@link #comm} and this one's index in it. */
    private final int size;
    private final int rank;
    /** True for a sub-team's span: it frees its communicators when it closes, and MPI stays up. */
    private final boolean sub;
    private final String[] hosts;
    private final int[] perLocal;
    /**
     * The communicator of this team's requests (SpanRequest): a copy of {@link #comm}, so MPI's rule that every process
     * issues a communicator's collectives in the same order binds the requests among themselves (SpanQueue keeps
     * that) and not against the blocking calls, which a chain's later stages may meet in another order in
     * another process.
     */
    private final int requests;
    /** The team's (or sub-team's) own copy of its communicator for point-to-point ({@link MpiMessages}). */
    private final int p2pComm;
    private MpiMessages messages;
    private boolean closed;
    private final ThreadLocal<Staging> staging = ThreadLocal.withInitial(Staging::new);
    /** What native segments pass through: never stages (its buffers stay unallocated), so one serves every thread. */
    private static final Staging NATIVE = new Staging();

    MpiProcessSpan(MpiSession mpi, int localRanks) {
        this.mpi = mpi;
        this.comm = 0;
        this.size = mpi.size;
        this.rank = mpi.rank;
        this.sub = false;
        // shared: under FUNNELED the MPI thread, not this one, reads and writes these segments
        try (Arena a = Arena.ofShared()) {
            // every process must give the team the same width: global ids are process × width + local id
            MemorySegment w = a.allocate(ValueLayout.JAVA_INT, 2);
            w.setAtIndex(ValueLayout.JAVA_INT, 0, localRanks);
            w.setAtIndex(ValueLayout.JAVA_INT, 1, -localRanks);
            allreduce(world(), null, w, 2, DType.I32, Op.MAX);
            int max = w.getAtIndex(ValueLayout.JAVA_INT, 0);
            int min = -w.getAtIndex(ValueLayout.JAVA_INT, 1);
            if (max != min) {
                throw new IllegalArgumentException("ranks: every process of an mpi() team must have the same number of ranks; "
                        + "processes asked for " + min + " to " + max + " (this one " + localRanks + ")");
            }
            MemorySegment names = a.allocate((long) HOST_BYTES * mpi.size);
            MemorySegment mine = names.asSlice((long) HOST_BYTES * mpi.rank, HOST_BYTES);
            int rc = mpi.call("MPI_Get_processor_name", () -> (int) MpiShim.PROCESSOR_NAME.invokeExact(mine, HOST_BYTES));
            mpi.check(rc, "MPI_Get_processor_name");
            allgather(world(), null, names, HOST_BYTES / 4, DType.I32);
            hosts = new String[mpi.size];
            for (int p = 0; p < mpi.size; p++) {
                hosts[p] = names.asSlice((long) HOST_BYTES * p, HOST_BYTES).getString(0, StandardCharsets.UTF_8);
            }
        }
        perLocal = mpi.level == ThreadLevel.MULTIPLE && mpi.size > 1
                ? mpi.perLocalRank.computeIfAbsent(localRanks, t -> split(0, t)) : null;
        // the team's own copies of its communicator for its requests and its point-to-point messages (every process
        // builds its teams in the same order)
        requests = commSplit(comm, 0, rank);
        p2pComm = commSplit(comm, 0, rank);
    }

    /**
     * The span of sub-communicator {@code comm} of {@code parent}, for a sub-team of {@code localRanks} ranks
     * per process. Collective over {@code comm}: every member process builds it right after the split.
     */
    private MpiProcessSpan(MpiSession mpi, MpiProcessSpan parent, int comm, int localRanks) {
        this.mpi = mpi;
        this.comm = comm;
        this.size = mpi.intOut("MPI_Comm_size", comm, false);
        this.rank = mpi.intOut("MPI_Comm_rank", comm, true);
        this.sub = true;
        try (Arena a = Arena.ofShared()) {
            // the parent index of every member process names its host
            MemorySegment index = a.allocate(ValueLayout.JAVA_INT, size);
            index.setAtIndex(ValueLayout.JAVA_INT, rank, parent.rank);
            allgather(comm, null, index, 1, DType.I32);
            hosts = new String[size];
            for (int p = 0; p < size; p++) {
                hosts[p] = parent.hosts[index.getAtIndex(ValueLayout.JAVA_INT, p)];
            }
        }
        perLocal = mpi.level == ThreadLevel.MULTIPLE && localRanks > 1 ? split(comm, localRanks) : null;
        requests = commSplit(comm, 0, rank);
        p2pComm = commSplit(comm, 0, rank);
    }

    /** One communicator per local rank j of {@code localRanks}: {@code MPI_Comm_split(base, color = j, key = process)}. */
    private int[] split(int base, int localRanks) {
        int[] comms = new int[localRanks];
        for (int j = 0; j < localRanks; j++) {
            comms[j] = commSplit(base, j, rank);
        }
        return comms;
    }

    /** MPI_Comm_split of {@code base}; the new communicator's index, or -1 for a negative color (MPI_UNDEFINED). */
    private int commSplit(int base, int color, int key) {
        int[] out = new int[1];
        int rc = mpi.call("MPI_Comm_split", () -> {
            try (Arena a = Arena.ofShared()) {   // shared: under FUNNELED the MPI thread writes it
                MemorySegment p = a.allocate(ValueLayout.JAVA_INT);
                int r = (int) MpiShim.COMM_SPLIT.invokeExact(base, color, key, p);
                out[0] = p.get(ValueLayout.JAVA_INT, 0);
                return r;
            }
        });
        mpi.check(rc, "MPI_Comm_split");
        return out[0];
    }

    /**
     * MPI_Comm_split of this span's communicator: every process of the span calls it (one thread each, in the
     * same order); the processes passing the same {@code color} get a span over them ordered by {@code key},
     * the others null.
     */
    @Override
    public ProcessSpan split(int color, int key, int localRanks) {
        int c = commSplit(comm, color, key);
        return c < 0 ? null : new MpiProcessSpan(mpi, this, c, localRanks);
    }

    @Override
    public int processes() {
        return size;
    }

    @Override
    public int process() {
        return rank;
    }

    @Override
    public String host(int process) {
        return hosts[process];
    }

    @Override
    public ThreadLevel threadLevel() {
        return mpi.level;
    }

    @Override
    public String describe() {
        return "MPI, " + size + " processes" + (sub ? " (a sub-team's communicator)" : "") + ", " + switch (mpi.level) {
            case MULTIPLE -> "MPI_THREAD_MULTIPLE (every local rank may call MPI)";
            case SERIALIZED -> "MPI_THREAD_SERIALIZED (any rank calls MPI, one at a time)";
            case FUNNELED -> "MPI_THREAD_FUNNELED (calls funnelled through one thread)";
            case SINGLE -> "MPI_THREAD_SINGLE (one rank per process; coll4j keeps MPI to one thread at a time)";
        };
    }

    @Override
    public int world() {
        return comm;
    }

    @Override
    public int requests() {
        return requests;
    }

    @Override
    public int perLocalRank(int localRank) {
        if (perLocal == null) {
            throw new IllegalStateException("per-local-rank communicators need MPI_THREAD_MULTIPLE and more than one process");
        }
        return perLocal[localRank];
    }

    /** The carried check word of local rank 0's next small collective ({@link CarriedWord}). */
    private final CarriedWord word = new CarriedWord();

    @Override
    public void carry(long descriptor, long count) {
        word.carry(descriptor, count);
    }

    @Override
    public void uncarry() {
        word.clear();
    }

    /** Fills the cell with the carried words and clears them; the cell goes to coll4j_mpi_*_tag or *_chk. */
    private MemorySegment takeCarried() {
        return word.take();
    }

    /** The result of a carried call: a differing word is a CollectiveMismatchException, another error MPI's. */
    private void checkCarried(int rc, String what) {
        word.throwIfMismatch(rc, rank);
        if (rc != 0) {
            mpi.check(rc, what);
        }
    }

    /** A shim call that carries the check word in {@code w} (coll4j_mpi_*_tag). */
    @FunctionalInterface
    private interface TaggedCall {
        int run(MemorySegment w) throws Throwable;
    }

    /**
     * Whether a call on {@code comm} takes the carried word: only the carrying thread's (local rank 0's) calls on the
     * team's communicator, where every process makes the same sequence of collective calls (a multi-leader
     * algorithm's other local ranks call MPI on their own communicators, in an order that differs between processes;
     * a reduce whose root is not its process's local rank 0 takes the separate check instead, see Rank.spanCheck).
     */
    private boolean carries(int comm) {
        // another local rank's call (a rooted collective's root, a multi-leader's own communicator) never takes it
        return comm == this.comm && word.heldByCaller();
    }

    /**
     * {@code tagged} with the carried word when this call is the first of a carried collective on this process, else
     * {@code plain}; either way an error is thrown, a differing word as {@link io.coll4j.CollectiveMismatchException}.
     */
    private void carriedOrPlain(int comm, String what, TaggedCall tagged, MpiSession.MpiCall plain) {
        if (carries(comm)) {
            MemorySegment w = takeCarried();
            checkCarried(mpi.call(what, () -> tagged.run(w)), what);
        } else {
            mpi.check(mpi.call(what, plain), what);
        }
    }

    @Override
    public void allreduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        if (carries(comm)) {
            allreduceCarried(comm, send, recv, count, dtype, op);
            return;
        }
        if (mpi.inline() && recv.isNative() && (send == null || send.isNative())) {
            // the latency path (8 B: MPI's own ~0.2 µs): no staging, lambda or hand-off, two release stores for
            // the watchdog. Small enough for C2 to inline into the caller (the staged path is a call of its own):
            // compiled together with its other branches it was not, which cost a call per allreduce
            MemorySegment in = send == null ? MemorySegment.NULL : send;
            MpiSession.InFlight f = mpi.enter("MPI_Allreduce");
            int rc;
            try {
                rc = (int) MpiShim.ALLREDUCE.invokeExact(comm, in, recv, count, dtype.ordinal(), op.ordinal());
            } catch (Throwable t) {
                throw new IllegalStateException("MPI_Allreduce: " + t, t);
            } finally {
                mpi.exit(f);
            }
            if (rc != 0) {
                mpi.check(rc, "MPI_Allreduce");
            }
            return;
        }
        allreduceStaged(comm, send, recv, count, dtype, op);
    }

    /**
     * {@link #allreduce} with the carried check word inside the payload as extra elements of the call's dtype and op
     * (coll4j_mpi_allreduce_tag; a header where no exact encoding exists), below SpanCheck's size.
     */
    private void allreduceCarried(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        MemorySegment w = takeCarried();
        int d = dtype.ordinal();
        int o = op.ordinal();
        if (mpi.inline() && recv.isNative() && (send == null || send.isNative())) {
            MemorySegment in = send == null ? MemorySegment.NULL : send;
            MpiSession.InFlight f = mpi.enter("MPI_Allreduce");
            int rc;
            try {
                rc = (int) MpiShim.ALLREDUCE_TAG.invokeExact(comm, in, recv, count, d, o, w);
            } catch (Throwable t) {
                throw new IllegalStateException("MPI_Allreduce: " + t, t);
            } finally {
                mpi.exit(f);
            }
            checkCarried(rc, "MPI_Allreduce");
            return;
        }
        long bytes = count * dtype.size();
        Staging s = staging(send, recv);
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, bytes);
        MemorySegment out = s.inOut(1, recv, bytes, send == null);
        int rc = mpi.call("MPI_Allreduce", () -> (int) MpiShim.ALLREDUCE_TAG.invokeExact(comm, in, out, count, d, o, w));
        checkCarried(rc, "MPI_Allreduce");
        s.out(out, recv, bytes);
    }

    /** Heap operands (staged through native buffers), or every call under FUNNELED (handed to the MPI thread). */
    private void allreduceStaged(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        long bytes = count * dtype.size();
        Staging s = staging(send, recv);
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, bytes);
        MemorySegment out = s.inOut(1, recv, bytes, send == null);
        int d = dtype.ordinal();
        int o = op.ordinal();
        int rc = mpi.call("MPI_Allreduce", () -> (int) MpiShim.ALLREDUCE.invokeExact(comm, in, out, count, d, o));
        mpi.check(rc, "MPI_Allreduce");
        s.out(out, recv, bytes);
    }

    @Override
    public void bcast(int comm, MemorySegment buf, long count, DType dtype, int rootProcess) {
        long bytes = count * dtype.size();
        Staging s = staging(buf, null);
        MemorySegment b = s.inOut(0, buf, bytes, rootProcess == rank);
        int d = dtype.ordinal();
        int rc;
        if (carries(comm)) {
            MemorySegment w = takeCarried();
            rc = mpi.call("MPI_Bcast", () -> (int) MpiShim.BCAST_CHK.invokeExact(comm, b, count, d, rootProcess, w));
            checkCarried(rc, "MPI_Bcast");
        } else {
            rc = mpi.call("MPI_Bcast", () -> (int) MpiShim.BCAST.invokeExact(comm, b, count, d, rootProcess));
            mpi.check(rc, "MPI_Bcast");
        }
        s.out(b, buf, bytes);
    }

    @Override
    public void reduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int rootProcess) {
        long bytes = count * dtype.size();
        Staging s = staging(send, recv);
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, bytes);
        MemorySegment out = recv == null ? MemorySegment.NULL : s.inOut(1, recv, bytes, send == null);
        int d = dtype.ordinal();
        int o = op.ordinal();
        carriedOrPlain(comm, "MPI_Reduce", w -> (int) MpiShim.REDUCE_TAG.invokeExact(comm, in, out, count, d, o, rootProcess, w),
                () -> (int) MpiShim.REDUCE.invokeExact(comm, in, out, count, d, o, rootProcess));
        if (recv != null) {
            s.out(out, recv, bytes);
        }
    }

    @Override
    public void reduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        long bytes = recvCount * dtype.size();
        Staging s = staging(send, recv);
        MemorySegment in = s.in(0, send, bytes * size);
        MemorySegment out = s.inOut(1, recv, bytes, false);
        int d = dtype.ordinal();
        int o = op.ordinal();
        carriedOrPlain(comm, "MPI_Reduce_scatter_block",
                w -> (int) MpiShim.REDUCE_SCATTER_BLOCK_TAG.invokeExact(comm, in, out, recvCount, d, o, w),
                () -> (int) MpiShim.REDUCE_SCATTER_BLOCK.invokeExact(comm, in, out, recvCount, d, o));
        s.out(out, recv, bytes);
    }

    /*
     * The reductions with a commutative UserOp: its MPI op (UserOpUpcalls) through the shim's *_user calls. The
     * check for an exception the function threw runs inside the call, on the thread that made the downcall (the
     * funnel thread when funnelled), which is where the upcall ran.
     */

    @Override
    public void allreduce(int comm, MemorySegment send, MemorySegment recv, long count, UserOp op) {
        long bytes = count * op.dtype().size();
        Staging s = staging(send, recv);
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, bytes);
        MemorySegment out = s.inOut(1, recv, bytes, send == null);
        int d = op.dtype().ordinal();
        int u = mpi.userOps.index(op);
        int rc = mpi.call("MPI_Allreduce", () -> mpi.userOps.rethrow(op, "MPI_Allreduce",
                (int) MpiShim.ALLREDUCE_USER.invokeExact(comm, in, out, count, d, u)));
        mpi.check(rc, "MPI_Allreduce");
        s.out(out, recv, bytes);
    }

    @Override
    public void reduce(int comm, MemorySegment send, MemorySegment recv, long count, UserOp op, int rootProcess) {
        long bytes = count * op.dtype().size();
        Staging s = staging(send, recv);
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, bytes);
        MemorySegment out = recv == null ? MemorySegment.NULL : s.inOut(1, recv, bytes, send == null);
        int d = op.dtype().ordinal();
        int u = mpi.userOps.index(op);
        int rc = mpi.call("MPI_Reduce", () -> mpi.userOps.rethrow(op, "MPI_Reduce",
                (int) MpiShim.REDUCE_USER.invokeExact(comm, in, out, count, d, u, rootProcess)));
        mpi.check(rc, "MPI_Reduce");
        if (recv != null) {
            s.out(out, recv, bytes);
        }
    }

    @Override
    public void reduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, UserOp op) {
        long bytes = recvCount * op.dtype().size();
        Staging s = staging(send, recv);
        MemorySegment in = s.in(0, send, bytes * size);
        MemorySegment out = s.inOut(1, recv, bytes, false);
        int d = op.dtype().ordinal();
        int u = mpi.userOps.index(op);
        int rc = mpi.call("MPI_Reduce_scatter_block", () -> mpi.userOps.rethrow(op, "MPI_Reduce_scatter_block",
                (int) MpiShim.REDUCE_SCATTER_BLOCK_USER.invokeExact(comm, in, out, recvCount, d, u)));
        mpi.check(rc, "MPI_Reduce_scatter_block");
        s.out(out, recv, bytes);
    }

    @Override
    public void allgather(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype) {
        long bytes = count * dtype.size();
        Staging s = staging(send, recv);
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, bytes);
        MemorySegment out = s.inOut(1, recv, bytes * size, send == null);
        int d = dtype.ordinal();
        carriedOrPlain(comm, "MPI_Allgather", w -> (int) MpiShim.ALLGATHER_TAG.invokeExact(comm, in, out, count, d, w),
                () -> (int) MpiShim.ALLGATHER.invokeExact(comm, in, out, count, d));
        s.out(out, recv, bytes * size);
    }

    @Override
    public void barrier(int comm) {
        if (carries(comm)) {
            // the barrier as an allreduce of nothing but the word (two u64 under BAND): it synchronises as the barrier
            // does and compares the calls on the way
            MemorySegment w = takeCarried();
            int rc = mpi.call("MPI_Barrier", () -> (int) MpiShim.ALLREDUCE_TAG.invokeExact(comm, MemorySegment.NULL,
                    MemorySegment.NULL, 0L, DType.U64.ordinal(), Op.BAND.ordinal(), w));
            checkCarried(rc, "MPI_Barrier");
            return;
        }
        int rc = mpi.call("MPI_Barrier", () -> (int) MpiShim.BARRIER.invokeExact(comm));
        mpi.check(rc, "MPI_Barrier");
    }

    @Override
    public void gatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs,
                        int rootProcess) {
        boolean root = rootProcess == rank;
        long extent = root ? extent(counts, displs) : 0;
        Staging s = staging.get();   // the count arrays are staged whatever the segments
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, sendBytes);
        MemorySegment out = root ? s.inOut(1, recv, extent, send == null) : MemorySegment.NULL;
        MemorySegment c = root ? s.longs(2, counts) : MemorySegment.NULL;
        MemorySegment d = root ? s.longs(3, displs) : MemorySegment.NULL;
        carriedOrPlain(comm, "MPI_Gatherv",
                w -> (int) MpiShim.GATHERV_BYTES_TAG.invokeExact(comm, in, sendBytes, out, c, d, rootProcess, w),
                () -> (int) MpiShim.GATHERV_BYTES.invokeExact(comm, in, sendBytes, out, c, d, rootProcess));
        if (root) {
            s.out(out, recv, extent);
        }
    }

    @Override
    public void scatterv(int comm, MemorySegment send, long[] counts, long[] displs, MemorySegment recv, long recvBytes,
                         int rootProcess) {
        boolean root = rootProcess == rank;
        Staging s = staging.get();   // the count arrays are staged whatever the segments
        MemorySegment in = root ? s.in(0, send, extent(counts, displs)) : MemorySegment.NULL;
        MemorySegment out = recv == null ? MemorySegment.NULL : s.inOut(1, recv, recvBytes, false);
        MemorySegment c = root ? s.longs(2, counts) : MemorySegment.NULL;
        MemorySegment d = root ? s.longs(3, displs) : MemorySegment.NULL;
        carriedOrPlain(comm, "MPI_Scatterv",
                w -> (int) MpiShim.SCATTERV_BYTES_TAG.invokeExact(comm, in, c, d, out, recvBytes, rootProcess, w),
                () -> (int) MpiShim.SCATTERV_BYTES.invokeExact(comm, in, c, d, out, recvBytes, rootProcess));
        if (recv != null) {
            s.out(out, recv, recvBytes);
        }
    }

    @Override
    public void allgatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs) {
        long extent = extent(counts, displs);
        Staging s = staging.get();   // the count arrays are staged whatever the segments
        MemorySegment in = send == null ? MemorySegment.NULL : s.in(0, send, sendBytes);
        MemorySegment out = s.inOut(1, recv, extent, send == null);
        MemorySegment c = s.longs(2, counts);
        MemorySegment d = s.longs(3, displs);
        carriedOrPlain(comm, "MPI_Allgatherv",
                w -> (int) MpiShim.ALLGATHERV_BYTES_TAG.invokeExact(comm, in, sendBytes, out, c, d, w),
                () -> (int) MpiShim.ALLGATHERV_BYTES.invokeExact(comm, in, sendBytes, out, c, d));
        s.out(out, recv, extent);
    }

    @Override
    public void alltoallv(int comm, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                          long[] recvDispls) {
        long extent = extent(recvCounts, recvDispls);
        Staging s = staging.get();   // the count arrays are staged whatever the segments
        MemorySegment in = s.in(0, send, extent(sendCounts, sendDispls));
        MemorySegment out = s.inOut(1, recv, extent, false);
        MemorySegment sc = s.longs(2, sendCounts);
        MemorySegment sd = s.longs(3, sendDispls);
        MemorySegment rc = s.longs(4, recvCounts);
        MemorySegment rd = s.longs(5, recvDispls);
        carriedOrPlain(comm, "MPI_Alltoallv",
                w -> (int) MpiShim.ALLTOALLV_BYTES_TAG.invokeExact(comm, in, sc, sd, out, rc, rd, w),
                () -> (int) MpiShim.ALLTOALLV_BYTES.invokeExact(comm, in, sc, sd, out, rc, rd));
        s.out(out, recv, extent);
    }

    /** The bytes a counts/displacements pair spans: the end of its furthest block. */
    private static long extent(long[] counts, long[] displs) {
        long end = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                end = Math.max(end, displs[i] + counts[i]);
            }
        }
        return end;
    }

    @Override
    public void send(int comm, MemorySegment buf, long bytes, int dest) {
        MemorySegment b = staging(buf, null).in(0, buf, bytes);
        // point to point is never carried: in a chain each process receives from one and sends to another, so the
        // word taken by the first call would travel on one hop and not the next
        int rc = mpi.call("MPI_Send", () -> (int) MpiShim.SEND.invokeExact(comm, b, bytes, dest));
        mpi.check(rc, "MPI_Send");
    }

    @Override
    public void recv(int comm, MemorySegment buf, long bytes, int source) {
        Staging s = staging(buf, null);
        MemorySegment b = s.inOut(1, buf, bytes, false);
        int rc = mpi.call("MPI_Recv", () -> (int) MpiShim.RECV.invokeExact(comm, b, bytes, source));
        mpi.check(rc, "MPI_Recv");
        s.out(b, buf, bytes);
    }

    /*
     * The non-blocking forms: the request's own native buffers (MpiPending), never the per-thread staging above,
     * which the next blocking call would overwrite while MPI still reads it.
     */

    @Override
    public Pending iallreduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op) {
        long bytes = count * dtype.size();
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment in = send == null ? MemorySegment.NULL : m.stage("send", send, bytes, true, false);
        MemorySegment out = m.stage("recv", recv, bytes, send == null, true);
        int d = dtype.ordinal();
        int o = op.ordinal();
        return MpiPending.post(mpi, "MPI_Iallreduce", m,
                slot -> (int) MpiShim.IALLREDUCE.invokeExact(comm, in, out, count, d, o, slot));
    }

    @Override
    public Pending ibcast(int comm, MemorySegment buf, long count, DType dtype, int rootProcess) {
        long bytes = count * dtype.size();
        boolean root = rootProcess == rank;
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment b = m.stage("buf", buf, bytes, root, !root);
        int d = dtype.ordinal();
        return MpiPending.post(mpi, "MPI_Ibcast", m,
                slot -> (int) MpiShim.IBCAST.invokeExact(comm, b, count, d, rootProcess, slot));
    }

    @Override
    public Pending ireduce(int comm, MemorySegment buf, long count, DType dtype, Op op, int rootProcess) {
        long bytes = count * dtype.size();
        boolean root = rootProcess == rank;
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment b = m.stage("buf", buf, bytes, true, root);
        // at the root in place (send NULL = MPI_IN_PLACE, the contribution in recv); elsewhere b is the send buffer
        MemorySegment in = root ? MemorySegment.NULL : b;
        MemorySegment out = root ? b : MemorySegment.NULL;
        int d = dtype.ordinal();
        int o = op.ordinal();
        return MpiPending.post(mpi, "MPI_Ireduce", m,
                slot -> (int) MpiShim.IREDUCE.invokeExact(comm, in, out, count, d, o, rootProcess, slot));
    }

    @Override
    public Pending ireduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op) {
        long bytes = recvCount * dtype.size();
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment in = m.stage("send", send, bytes * size, true, false);
        MemorySegment out = m.stage("recv", recv, bytes, false, true);
        int d = dtype.ordinal();
        int o = op.ordinal();
        return MpiPending.post(mpi, "MPI_Ireduce_scatter_block", m,
                slot -> (int) MpiShim.IREDUCE_SCATTER_BLOCK.invokeExact(comm, in, out, recvCount, d, o, slot));
    }

    @Override
    public Pending iallgather(int comm, MemorySegment recv, long count, DType dtype) {
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment out = m.stage("recv", recv, count * dtype.size() * size, true, true);
        int d = dtype.ordinal();
        return MpiPending.post(mpi, "MPI_Iallgather", m,
                slot -> (int) MpiShim.IALLGATHER.invokeExact(comm, MemorySegment.NULL, out, count, d, slot));
    }

    @Override
    public Pending ibarrier(int comm) {
        return MpiPending.post(mpi, "MPI_Ibarrier", new MpiPending.Buffers(),
                slot -> (int) MpiShim.IBARRIER.invokeExact(comm, slot));
    }

    /*
     * The non-blocking data-movement calls move bytes, as the blocking ones. Their counts and displacements are
     * copied into one native array of the call's own (auto: the shim converts them into ints of the request's
     * slot while posting, so MPI never reads this copy later), which the funnel thread may read. A staged output
     * is filled from the user's segment first: MPI writes only the blocks, and the gaps between them go back too.
     */

    @Override
    public Pending igatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs,
                            int rootProcess) {
        boolean root = rootProcess == rank;
        long extent = root ? extent(counts, displs) : 0;
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment in = send == null ? MemorySegment.NULL : m.stage("send", send, sendBytes, true, false);
        MemorySegment out = root ? m.stage("recv", recv, extent, true, true) : MemorySegment.NULL;
        MemorySegment a = root ? longs(counts, displs) : MemorySegment.NULL;
        MemorySegment c = root ? a : MemorySegment.NULL;
        MemorySegment d = root ? a.asSlice(8L * size) : MemorySegment.NULL;
        return MpiPending.post(mpi, "MPI_Igatherv", m,
                slot -> (int) MpiShim.IGATHERV_BYTES.invokeExact(comm, in, sendBytes, out, c, d, rootProcess, slot));
    }

    @Override
    public Pending iscatterv(int comm, MemorySegment send, long[] counts, long[] displs, MemorySegment recv, long recvBytes,
                             int rootProcess) {
        boolean root = rootProcess == rank;
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment in = root ? m.stage("send", send, extent(counts, displs), true, false) : MemorySegment.NULL;
        MemorySegment out = recv == null ? MemorySegment.NULL : m.stage("recv", recv, recvBytes, false, true);
        MemorySegment a = root ? longs(counts, displs) : MemorySegment.NULL;
        MemorySegment c = root ? a : MemorySegment.NULL;
        MemorySegment d = root ? a.asSlice(8L * size) : MemorySegment.NULL;
        return MpiPending.post(mpi, "MPI_Iscatterv", m,
                slot -> (int) MpiShim.ISCATTERV_BYTES.invokeExact(comm, in, c, d, out, recvBytes, rootProcess, slot));
    }

    @Override
    public Pending iallgatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs) {
        long extent = extent(counts, displs);
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment in = send == null ? MemorySegment.NULL : m.stage("send", send, sendBytes, true, false);
        MemorySegment out = m.stage("recv", recv, extent, true, true);
        MemorySegment a = longs(counts, displs);
        MemorySegment d = a.asSlice(8L * size);
        return MpiPending.post(mpi, "MPI_Iallgatherv", m,
                slot -> (int) MpiShim.IALLGATHERV_BYTES.invokeExact(comm, in, sendBytes, out, a, d, slot));
    }

    @Override
    public Pending ialltoallv(int comm, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                              long[] recvCounts, long[] recvDispls) {
        long extent = extent(recvCounts, recvDispls);
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment in = m.stage("send", send, extent(sendCounts, sendDispls), true, false);
        MemorySegment out = m.stage("recv", recv, extent, true, true);
        MemorySegment a = longs(sendCounts, sendDispls, recvCounts, recvDispls);
        long n = 8L * size;
        MemorySegment sd = a.asSlice(n);
        MemorySegment rc = a.asSlice(2 * n);
        MemorySegment rd = a.asSlice(3 * n);
        return MpiPending.post(mpi, "MPI_Ialltoallv", m,
                slot -> (int) MpiShim.IALLTOALLV_BYTES.invokeExact(comm, in, a, sd, out, rc, rd, slot));
    }

    @Override
    public Pending isend(int comm, MemorySegment buf, long bytes, int dest) {
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment b = m.stage("buf", buf, bytes, true, false);
        return MpiPending.post(mpi, "MPI_Isend", m,
                slot -> (int) MpiShim.ISEND.invokeExact(comm, b, bytes, dest, slot));
    }

    @Override
    public Pending irecv(int comm, MemorySegment buf, long bytes, int source) {
        MpiPending.Buffers m = new MpiPending.Buffers();
        MemorySegment b = m.stage("buf", buf, bytes, false, true);
        return MpiPending.post(mpi, "MPI_Irecv", m,
                slot -> (int) MpiShim.IRECV.invokeExact(comm, b, bytes, source, slot));
    }

    /** The arrays one after the other in one native segment (auto: any thread may read it while posting). */
    private static MemorySegment longs(long[]... arrays) {
        int n = arrays[0].length;
        MemorySegment a = Arena.ofAuto().allocate(8L * n * arrays.length, 8);
        for (int k = 0; k < arrays.length; k++) {
            MemorySegment.copy(arrays[k], 0, a, ValueLayout.JAVA_LONG, 8L * n * k, n);
        }
        return a;
    }

    /** This thread's staging buffers when {@code a} or {@code b} is a heap segment; else no thread-local lookup at all. */
    private Staging staging(MemorySegment a, MemorySegment b) {
        return (a == null || a.isNative()) && (b == null || b.isNative()) ? NATIVE : staging.get();
    }

    @Override
    public boolean requestsInFlight() {
        return MpiSession.live() && MpiPending.anyInFlight();
    }

    @Override
    public synchronized MessageTransport messages(int localRanks, long eagerMax) {
        return messages != null ? messages : (messages = MpiMessages.of(mpi, p2pComm, localRanks, rank, eagerMax));
    }

    @Override
    public void abort(String why) {
        mpi.abort(why);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!sub) {
            mpi.close();
            return;
        }
        if (perLocal != null) {
            for (int c : perLocal) {
                mpi.free(c);
            }
        }
        mpi.free(requests);
        mpi.free(p2pComm);
        mpi.free(comm);
    }

    /**
     * Native stand-ins for heap segments: two per thread (an input and an output), and four for count arrays,
     * grown as needed. In an automatic arena: under FUNNELED the MPI thread, not the caller, reads them.
     */
    private static final class Staging {
        private final Arena arena = Arena.ofAuto();
        private final MemorySegment[] buffers = new MemorySegment[6];

        private MemorySegment buffer(int i, long bytes) {
            if (buffers[i] == null || buffers[i].byteSize() < bytes) {
                buffers[i] = arena.allocate(Math.max(bytes, 64), 64);
            }
            return buffers[i].asSlice(0, bytes);
        }

        /** {@code seg} itself when native, else a native copy of its first {@code bytes}. */
        MemorySegment in(int i, MemorySegment seg, long bytes) {
            if (seg.isNative()) {
                return seg;
            }
            MemorySegment b = buffer(i, bytes);
            MemorySegment.copy(seg, 0, b, 0, bytes);
            return b;
        }

        /** {@code seg} itself when native, else a native buffer, holding a copy of it when {@code copyIn}. */
        MemorySegment inOut(int i, MemorySegment seg, long bytes, boolean copyIn) {
            if (seg.isNative()) {
                return seg;
            }
            MemorySegment b = buffer(i, bytes);
            if (copyIn) {
                MemorySegment.copy(seg, 0, b, 0, bytes);
            }
            return b;
        }

        /** A native copy of {@code values} in buffer {@code i} (the v-collectives' counts and displacements). */
        MemorySegment longs(int i, long[] values) {
            MemorySegment b = buffer(i, 8L * values.length);
            MemorySegment.copy(values, 0, b, ValueLayout.JAVA_LONG, 0, values.length);
            return b;
        }

        /** Copies a staged output back into its heap segment. */
        void out(MemorySegment staged, MemorySegment seg, long bytes) {
            if (!seg.isNative()) {
                MemorySegment.copy(staged, 0, seg, 0, bytes);
            }
        }
    }
}
