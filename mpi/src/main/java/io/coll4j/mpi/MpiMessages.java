package io.coll4j.mpi;

import io.coll4j.kernel.span.MessageTransport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Point-to-point between the ranks of an {@code mpi()} team whose processes share no mapping (other hosts, or
 * {@code -Dcoll4j.mpi.sharedMapping=false}): the kernel's endpoints send to other processes' ranks and poll for their
 * messages here (docs/design.md, "Point-to-point over MPI"). On the team's own copy of its communicator, so no
 * collective's message matches one. A message to local rank d of process q starts with a 16-byte envelope {source's
 * local id, tag, bytes} on MPI tag 2d, so the user's tags (any int, the library's negative ones included) never meet
 * MPI's tag bound (32767 guaranteed) and the team may have up to 16383 ranks per process:
 * <ul>
 * <li>up to the crossover the payload travels in the envelope's message (one {@code MPI_Isend} from a copy the shim
 * owns until it completes: the send completes at once for the caller's buffer); the receiver's poll
 * ({@code MPI_Improbe} on tag 2d from any process, {@code MPI_Mrecv} into a buffer of its own) hands the kernel the
 * payload, which it copies into the matched receive or an unexpected envelope's pooled buffer;</li>
 * <li>above it the payload follows on tag 2d + 1 ({@code MPI_Isend} straight from the caller's native buffer; a heap
 * buffer is copied into native memory first), posted together with the envelope under the shim's lock, so the
 * payloads from one process to d come in the order of their envelopes. The receiver takes the payload's
 * {@code MPI_Message} with {@code MPI_Improbe} right after its envelope and leaves it in MPI until a receive matches:
 * then {@code MPI_Imrecv} straight into a native receive buffer (a heap one, or a truncating receive, through a
 * native copy).</li>
 * </ul>
 * MPI keeps one (source process, tag, communicator) in order, so the envelopes of one rank to another come in the
 * order sent, and the kernel's queues give MPI's matching order across the local rings and this transport. Every call
 * goes through {@link MpiSession#call} (the serialising lock, or the funnel thread); a rank's messages move when it
 * calls into point-to-point, as the local rings' do.
 */
final class MpiMessages implements MessageTransport {
    private static final long ENVELOPE = 16;
    private static final long LARGE = 1L << 41;
    private static final int SLOT_BITS = 20;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    private static final int LOCAL_SHIFT = 42;

    private final MpiSession mpi;
    private final int comm;
    private final int width;
    private final int first;
    private final long eagerMax;
    /** Per local rank (its thread's only): the envelope and small payload it sends, and the one its poll receives. */
    private final MemorySegment[] out;
    private final MemorySegment[] in;
    /** Per local rank: three longs the shim writes (at 0) and two ints (at 32). Global: the funnel thread writes them. */
    private final MemorySegment[] cells;
    /** Per local rank: a large message's envelope whose payload MPI has not matched yet (source process, or -1). */
    private final int[] parkedProcess;
    private final int[] parkedSource;
    private final int[] parkedTag;
    private final long[] parkedBytes;
    /** Native copies of heap buffers of large sends in flight, by token. */
    private final ConcurrentHashMap<Long, Arena> staged = new ConcurrentHashMap<>();

    /**
     * The transport of a team (or an even sub-team) of {@code width} ranks per process, this process {@code process},
     * on communicator {@code comm} (the team's own copy), with a crossover of {@code eagerMax} bytes.
     *
     * @throws UnsupportedOperationException with more than 16383 ranks per process
     */
    static MpiMessages of(MpiSession mpi, int comm, int width, int process, long eagerMax) {
        return new MpiMessages(mpi, comm, width, process, eagerMax);
    }

    private MpiMessages(MpiSession mpi, int comm, int width, int process, long eagerMax) {
        if (width > 16383) {
            throw new UnsupportedOperationException("point-to-point over MPI: at most 16383 ranks per process (two MPI tags"
                    + " per rank within MPI's guaranteed 32767), the team has " + width);
        }
        this.mpi = mpi;
        this.comm = comm;
        this.width = width;
        this.first = process * width;
        this.eagerMax = eagerMax;
        this.out = new MemorySegment[width];
        this.in = new MemorySegment[width];
        this.cells = new MemorySegment[width];
        this.parkedProcess = new int[width];
        this.parkedSource = new int[width];
        this.parkedTag = new int[width];
        this.parkedBytes = new long[width];
        java.util.Arrays.fill(parkedProcess, -1);
        for (int d = 0; d < width; d++) {
            out[d] = Arena.global().allocate(ENVELOPE + eagerMax, 64);
            in[d] = Arena.global().allocate(ENVELOPE + eagerMax, 64);
            cells[d] = Arena.global().allocate(64, 64);
        }
    }

    /** The address of native {@code s} as a segment of no particular scope: the funnel thread may pass it to MPI. */
    private static MemorySegment raw(MemorySegment s, long bytes) {
        return MemorySegment.ofAddress(s.address()).reinterpret(bytes);
    }

    @Override
    public long send(int source, int dest, int tag, MemorySegment buf, long bytes) {
        int local = source - first;
        int q = dest / width;
        int t = 2 * (dest % width);
        MemorySegment env = out[local];
        MemorySegment cell = cells[local];
        env.set(ValueLayout.JAVA_INT, 0, local);
        env.set(ValueLayout.JAVA_INT, 4, tag);
        env.set(ValueLayout.JAVA_LONG, 8, bytes);
        if (bytes <= eagerMax) {
            MemorySegment.copy(buf, 0, env, ENVELOPE, bytes);
            long total = ENVELOPE + bytes;
            mpi.check(mpi.call("MPI_Isend", () -> (int) MpiShim.P2P_ISEND.invokeExact(comm, env, total, q, t,
                    cell.asSlice(32, 4))), "MPI_Isend");
            return ((long) local << LOCAL_SHIFT) | cell.get(ValueLayout.JAVA_INT, 32);
        }
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("point-to-point over MPI: a message to another process's rank is at most "
                    + Integer.MAX_VALUE + " bytes (MPI's int count), got " + bytes);
        }
        Arena copy = null;
        MemorySegment payload;
        if (buf.isNative()) {
            payload = raw(buf, bytes);
        } else {
            copy = Arena.ofShared();
            payload = copy.allocate(bytes, 64);
            MemorySegment.copy(buf, 0, payload, 0, bytes);
        }
        MemorySegment p = payload;
        int rc = mpi.call("MPI_Isend", () -> (int) MpiShim.P2P_ISEND_LARGE.invokeExact(comm, env, p, bytes, q, t,
                cell.asSlice(32, 8)));
        if (rc != 0 && copy != null) {
            copy.close();
        }
        mpi.check(rc, "MPI_Isend");
        long token = ((long) local << LOCAL_SHIFT) | LARGE | ((long) cell.get(ValueLayout.JAVA_INT, 32) << SLOT_BITS)
                | cell.get(ValueLayout.JAVA_INT, 36);
        if (copy != null) {
            staged.put(token, copy);
        }
        return token;
    }

    /** MPI_Test of request slot {@code slot} with local rank {@code local}'s cell; true (and the slot freed) when complete. */
    private boolean test(int local, int slot) {
        MemorySegment flag = cells[local].asSlice(40, 4);
        mpi.check(mpi.call("MPI_Test", () -> (int) MpiShim.TEST.invokeExact(slot, flag)), "MPI_Test");
        return flag.get(ValueLayout.JAVA_INT, 0) != 0;
    }

    @Override
    public boolean sent(long token) {
        int local = (int) (token >>> LOCAL_SHIFT);
        if ((token & LARGE) == 0) {
            return test(local, (int) (token & SLOT_MASK));
        }
        if (!test(local, (int) (token & SLOT_MASK))) {
            return false;
        }
        // the payload was received, so its envelope was (the receiver takes the payload after it): its send completes
        // within MPI's next progress, and its slot is tested until then (it is freed by the test that finds it done)
        while (!test(local, (int) ((token >>> SLOT_BITS) & SLOT_MASK))) {
            Thread.onSpinWait();
        }
        Arena copy = staged.remove(token);
        if (copy != null) {
            copy.close();
        }
        return true;
    }

    @Override
    public boolean poll(int localRank, Arrival into) {
        MemorySegment cell = cells[localRank];
        int t = 2 * localRank;
        if (parkedProcess[localRank] < 0) {
            MemorySegment buf = in[localRank];
            long cap = ENVELOPE + eagerMax;
            int rc = mpi.call("MPI_Improbe", () -> (int) MpiShim.P2P_POLL.invokeExact(comm, t, buf, cap, cell));
            long count = cell.get(ValueLayout.JAVA_LONG, 16);
            if (rc != 0 && count > cap) {
                throw new IllegalStateException("point-to-point over MPI: a message of " + (count - ENVELOPE) + " bytes came"
                        + " whole from process " + cell.get(ValueLayout.JAVA_LONG, 8) + ", whose crossover is larger than"
                        + " this process's " + eagerMax + " bytes: every process of the job needs the same -Dcoll4j.p2p.eagerMax");
            }
            mpi.check(rc, "MPI_Improbe");
            if (cell.get(ValueLayout.JAVA_LONG, 0) == 0) {
                return false;
            }
            int process = (int) cell.get(ValueLayout.JAVA_LONG, 8);
            int source = process * width + buf.get(ValueLayout.JAVA_INT, 0);
            int tag = buf.get(ValueLayout.JAVA_INT, 4);
            long bytes = buf.get(ValueLayout.JAVA_LONG, 8);
            if (count == ENVELOPE + bytes) {
                into.source = source;
                into.tag = tag;
                into.bytes = bytes;
                into.payload = buf.asSlice(ENVELOPE, bytes);
                into.handle = -1;
                return true;
            }
            // a large message: its payload follows on t + 1; until MPI has matched it, no later envelope is taken
            parkedProcess[localRank] = process;
            parkedSource[localRank] = source;
            parkedTag[localRank] = tag;
            parkedBytes[localRank] = bytes;
        }
        int process = parkedProcess[localRank];
        mpi.check(mpi.call("MPI_Improbe", () -> (int) MpiShim.P2P_PROBE_PAYLOAD.invokeExact(comm, process, t + 1, cell)),
                "MPI_Improbe");
        if (cell.get(ValueLayout.JAVA_LONG, 0) == 0) {
            return false;
        }
        if (cell.get(ValueLayout.JAVA_LONG, 16) != parkedBytes[localRank]) {
            throw new IllegalStateException("point-to-point over MPI: the payload from process " + process + " has "
                    + cell.get(ValueLayout.JAVA_LONG, 16) + " bytes where its envelope said " + parkedBytes[localRank]);
        }
        parkedProcess[localRank] = -1;
        into.source = parkedSource[localRank];
        into.tag = parkedTag[localRank];
        into.bytes = parkedBytes[localRank];
        into.payload = null;
        into.handle = cell.get(ValueLayout.JAVA_LONG, 8);
        return true;
    }

    @Override
    public long receive(int localRank, long handle, long bytes, MemorySegment buf, long n) {
        int slot = (int) handle;
        if (n == bytes && buf.isNative()) {
            // MPI_Imrecv straight into the receive's buffer, completed by received()
            MemorySegment b = raw(buf, bytes);
            mpi.check(mpi.call("MPI_Imrecv", () -> (int) MpiShim.P2P_MRECV.invokeExact(slot, b, bytes, 0)), "MPI_Imrecv");
            return ((long) localRank << LOCAL_SHIFT) | slot;
        }
        // a heap buffer, or a truncating receive: the whole payload into native memory, then what fits
        try (Arena a = Arena.ofShared()) {
            MemorySegment whole = a.allocate(Math.max(1, bytes), 64);
            mpi.check(mpi.call("MPI_Mrecv", () -> (int) MpiShim.P2P_MRECV.invokeExact(slot, whole, bytes, 1)), "MPI_Mrecv");
            MemorySegment.copy(whole, 0, buf, 0, n);
        }
        return -1;
    }

    @Override
    public boolean received(long token) {
        return test((int) (token >>> LOCAL_SHIFT), (int) (token & SLOT_MASK));
    }
}
