package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * The processes a team spans and the inter-process collectives between them: coll4j's internal SPI to an
 * inter-process transport (docs/design.md, "Across processes"). {@code coll4j-mpi} implements it over MPI;
 * {@link #open} finds that implementation with {@link ServiceLoader}, so the kernel never links MPI. The kernel's
 * own {@link io.coll4j.kernel.span.shm.SharedMemorySpan} implements it between the JVMs of one host through a
 * shared mapping ({@code Team.Builder.processes(n, index)}).
 *
 * <p>Collectives take a communicator handle: {@link #world()} (every process, index = process index) or
 * {@link #perLocalRank(int)} (the processes' local rank j, for the multi-leader algorithms). Segments may
 * be heap or native; {@code send == null} means in place. A failed call throws {@link IllegalStateException}
 * naming the call; nothing can then be assumed about the other processes, so callers end the job with
 * {@link #abort}.
 */
public interface ProcessSpan {

    /** How MPI may be called from this process's threads. */
    enum ThreadLevel {
        /** Any thread, concurrently: several local ranks drive MPI at once (multi-leader). */
        MULTIPLE,
        /**
         * Any thread, one at a time (a lock around every call): no funnel hand-off and none of the library's
         * internal locking of THREAD_MULTIPLE — the lowest latency for leader-based algorithms.
         */
        SERIALIZED,
        /** Only one thread: every call is funnelled through the thread that initialised MPI, one at a time. */
        FUNNELED,
        /**
         * MPI initialised without thread support (one rank per process): calls run on the caller's thread under
         * a lock, as {@link #SERIALIZED}, and the library skips its own locking altogether.
         */
        SINGLE
    }

    int processes();

    /** This process's index, 0 .. processes()-1 (its rank in the world communicator). */
    int process();

    /** Host name of process {@code process}. */
    String host(int process);

    ThreadLevel threadLevel();

    /** One line naming the transport, its library and thread level. */
    String describe();

    int world();

    /**
     * The communicator of the team's requests (SpanRequest): every process, as {@link #world()}, but with an order
     * of collectives of its own (MPI orders collectives per communicator), so the requests' MPI calls need not
     * interleave with the blocking ones alike in every process.
     */
    int requests();

    /** The communicator joining local rank {@code localRank} of every process; only under {@link ThreadLevel#MULTIPLE}. */
    int perLocalRank(int localRank);

    /*
     * The reductions take every dtype and every op with coll4j's semantics (Op, DType), bitwise where the local
     * fold is, except AVG (callers fold it as SUM and divide once, by the global count) and USER (the
     * overloads with a UserOp below).
     */

    void allreduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    void bcast(int comm, MemorySegment buf, long count, DType dtype, int rootProcess);

    /** {@code recv} is used at the root only; there {@code send == null} means the contribution is in {@code recv}. */
    void reduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int rootProcess);

    /** MPI_Reduce_scatter_block: process i gets block i ({@code recvCount} elements) of the reduced {@code send}. */
    void reduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op);

    /*
     * The same three reductions with a commutative UserOp: the transport runs the op's function on the elements
     * of its dtype (for MPI: an MPI_Op made once per UserOp from an upcall stub, called on the thread that calls
     * MPI as inout = in op inout). An exception the function throws is caught there, the collective completes,
     * and the call then throws an IllegalStateException with it as the cause, on this process only.
     */

    void allreduce(int comm, MemorySegment send, MemorySegment recv, long count, UserOp op);

    void reduce(int comm, MemorySegment send, MemorySegment recv, long count, UserOp op, int rootProcess);

    void reduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, UserOp op);

    /** {@link #allreduce(int, MemorySegment, MemorySegment, long, DType, Op)}, or with {@code user} when {@code op} is USER. */
    default void allreduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, UserOp user) {
        if (op == Op.USER) {
            allreduce(comm, send, recv, count, user);
        } else {
            allreduce(comm, send, recv, count, dtype, op);
        }
    }

    /** {@link #reduce(int, MemorySegment, MemorySegment, long, DType, Op, int)}, or with {@code user} when {@code op} is USER. */
    default void reduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, UserOp user,
                        int rootProcess) {
        if (op == Op.USER) {
            reduce(comm, send, recv, count, user, rootProcess);
        } else {
            reduce(comm, send, recv, count, dtype, op, rootProcess);
        }
    }

    /** {@link #reduceScatterBlock(int, MemorySegment, MemorySegment, long, DType, Op)}, or with {@code user} when {@code op} is USER. */
    default void reduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op,
                                    UserOp user) {
        if (op == Op.USER) {
            reduceScatterBlock(comm, send, recv, recvCount, user);
        } else {
            reduceScatterBlock(comm, send, recv, recvCount, dtype, op);
        }
    }

    /** {@code send == null}: in place, this process's block of {@code recv} holds its contribution. */
    void allgather(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype);

    void barrier(int comm);

    /*
     * The data-movement calls move bytes (every dtype, nothing reduced); counts and displacements are in bytes,
     * one per process of the communicator.
     */

    /** MPI_Gatherv to {@code rootProcess}; {@code counts}/{@code displs} are read at the root only, where {@code send == null} means in place. */
    void gatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs, int rootProcess);

    /** MPI_Scatterv from {@code rootProcess}; {@code send}, {@code counts}, {@code displs} at the root only, where {@code recv == null} means in place. */
    void scatterv(int comm, MemorySegment send, long[] counts, long[] displs, MemorySegment recv, long recvBytes, int rootProcess);

    /** MPI_Allgatherv; {@code send == null} means in place (this process's block of {@code recv} holds its part). */
    void allgatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs);

    /** MPI_Alltoallv; {@code send} and {@code recv} distinct. */
    void alltoallv(int comm, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                   long[] recvDispls);

    /** Blocking point-to-point: {@code bytes} of {@code buf} to process {@code dest} of {@code comm}. */
    void send(int comm, MemorySegment buf, long bytes, int dest);

    /** Blocking point-to-point: {@code bytes} from process {@code source} of {@code comm} into {@code buf}. */
    void recv(int comm, MemorySegment buf, long bytes, int source);

    /*
     * Non-blocking forms (MPI_I*), for the spanned requests (SpanRequest): each posts the collective and returns
     * at once; the returned Pending completes it. Counts must fit MPI's int (the requests refuse larger ones at
     * issue). Segments must stay untouched until the Pending reports done; heap segments are staged through a
     * native buffer of the request's own, copied back when it completes. Callers post them in the same order in
     * every process, as MPI requires of the collectives on one communicator.
     */

    /** An inter-process collective in flight. */
    interface Pending {
        /** MPI_Test: true once complete (its outputs then in place); a failed call throws IllegalStateException. */
        boolean test();
    }

    /** {@code send == null}: in place. */
    Pending iallreduce(int comm, MemorySegment send, MemorySegment recv, long count, DType dtype, Op op);

    Pending ibcast(int comm, MemorySegment buf, long count, DType dtype, int rootProcess);

    /** In place at the root ({@code buf} holds its contribution and receives the result); elsewhere {@code buf} is sent. */
    Pending ireduce(int comm, MemorySegment buf, long count, DType dtype, Op op, int rootProcess);

    /** {@code send} (P blocks of {@code recvCount}) and {@code recv} distinct. */
    Pending ireduceScatterBlock(int comm, MemorySegment send, MemorySegment recv, long recvCount, DType dtype, Op op);

    /** In place: this process's block of {@code recv} holds its part. */
    Pending iallgather(int comm, MemorySegment recv, long count, DType dtype);

    Pending ibarrier(int comm);

    /*
     * The non-blocking data-movement calls: bytes, counts and displacements as in the blocking ones above, each
     * count and displacement within MPI's int.
     */

    /** MPI_Igatherv to {@code rootProcess}; {@code counts}/{@code displs} read at the root only, where {@code send == null} means in place. */
    Pending igatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs,
                     int rootProcess);

    /** MPI_Iscatterv from {@code rootProcess}; {@code send}, {@code counts}, {@code displs} at the root only, where {@code recv == null} means in place. */
    Pending iscatterv(int comm, MemorySegment send, long[] counts, long[] displs, MemorySegment recv, long recvBytes,
                      int rootProcess);

    /** MPI_Iallgatherv; {@code send == null} means in place. */
    Pending iallgatherv(int comm, MemorySegment send, long sendBytes, MemorySegment recv, long[] counts, long[] displs);

    /** MPI_Isend of {@code bytes} of {@code buf} to process {@code dest} (tag 0): the chain of a reproducible fold. */
    Pending isend(int comm, MemorySegment buf, long bytes, int dest);

    /** MPI_Irecv of {@code bytes} from process {@code source} into {@code buf} (tag 0). */
    Pending irecv(int comm, MemorySegment buf, long bytes, int source);

    /** MPI_Ialltoallv; {@code send} and {@code recv} distinct. */
    Pending ialltoallv(int comm, MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
                       long[] recvCounts, long[] recvDispls);

    /**
     * {@code MPI_Comm_split} of {@link #world()} for a sub-team that spans processes: collective over every
     * process of this span — one thread per process calls it, every process in the same order. The processes
     * passing the same {@code color} get a span of their own over them, indexed in {@code key} order, with
     * per-local-rank communicators for {@code localRanks} ranks per process (under {@link ThreadLevel#MULTIPLE}; 1,
     * none, for a sub-team whose processes hold different numbers of ranks, which never runs the multi-leader allreduce);
     * a negative color (MPI_UNDEFINED) gets null. Its {@link #close} frees its communicators and leaves this
     * span open.
     */
    ProcessSpan split(int color, int key, int localRanks);

    /**
     * Ends the job after printing {@code why} on stderr. MPI's ends every process and does not return; the shared
     * mapping's ({@link io.coll4j.kernel.span.shm.SharedMemorySpan}) marks the mapping aborted, so every other
     * process's wait throws within one liveness check, and returns: the caller then throws its own failure.
     */
    void abort(String why);

    /**
     * The collective local rank 0 is about to run, when it is too small for {@link SpanCheck}'s separate check:
     * {@code descriptor} and {@code count} as {@link SpanCheck#verify} takes them. The transport folds it into the
     * team's history and, if the collective's first call on {@link #world()} is an allreduce, reduce, allgather,
     * barrier or bcast, sends both with that call's payload, so a mismatch ends as a {@link io.coll4j.CollectiveMismatchException} instead of a
     * wrong result; the next carried call clears it.
     */
    default void carry(long descriptor, long count) {
    }

    /**
     * {@code bytes} of memory every process of the span reaches (zeroed), which the span's collectives read and write
     * in place, or null when the span has none (MPI): {@code rank.allocate} then takes the team's own arena.
     */
    default MemorySegment allocate(long bytes) {
        return null;
    }

    /** Clears what {@link #carry} left for a call that did not come (the separate check is about to run). */
    default void uncarry() {
    }

    /**
     * The point-to-point transport between this span's processes for a team of {@code localRanks} ranks per process
     * and a crossover of {@code eagerMax} bytes (every process passes the same), made at the team's first
     * point-to-point call; null when the span has none (the shared mapping's point-to-point is its rings).
     *
     * @throws UnsupportedOperationException saying why when the span has one but not for this team
     */
    default MessageTransport messages(int localRanks, long eagerMax) {
        return null;
    }

    /** Called by every team that opened this span when it closes; the last one finalises the transport. */
    void close();

    /**
     * True while the transport may still write memory a request of a closed team was posted on: a request left
     * un-awaited (MPI may progress it in any later MPI call) while the transport is not finalised. The team then
     * leaves its memory allocated ({@link SpanMemory}) rather than free what MPI may still write.
     */
    default boolean requestsInFlight() {
        return false;
    }

    /** What {@code coll4j-mpi} registers: opens the span for a team of {@code localRanks} thread ranks per process. */
    interface Provider {
        ProcessSpan open(int localRanks, Duration timeout);
    }

    /**
     * The span of the installed provider.
     *
     * @throws IllegalStateException when no provider is on the path (coll4j-mpi missing), or the provider's
     *                               own reason (no MPI, not launched by mpirun, ...)
     */
    static ProcessSpan open(int localRanks, Duration timeout) {
        Iterator<Provider> it = ServiceLoader.load(Provider.class, ProcessSpan.class.getClassLoader()).iterator();
        if (!it.hasNext()) {
            it = ServiceLoader.load(Provider.class).iterator();
        }
        if (!it.hasNext()) {
            throw new IllegalStateException("Team.Builder.mpi(): no inter-process transport found; add io.coll4j:coll4j-mpi "
                    + "to the class or module path");
        }
        return it.next().open(localRanks, timeout);
    }
}
