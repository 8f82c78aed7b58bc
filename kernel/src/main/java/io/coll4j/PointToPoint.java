package io.coll4j;

import static io.coll4j.ArraySegments.of;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.p2p.Endpoint;
import io.coll4j.kernel.p2p.P2pEngine;
import io.coll4j.kernel.p2p.P2pMemory;
import io.coll4j.kernel.p2p.P2pRequest;
import io.coll4j.kernel.span.MessageTransport;
import io.coll4j.kernel.span.SpanGroup;
import io.coll4j.kernel.span.shm.SharedMemorySpan;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Point-to-point messages between the ranks of a team ({@link Rank#p2p()}): MPI's {@code MPI_Send},
 * {@code MPI_Recv}, {@code MPI_Isend}, {@code MPI_Irecv}, {@code MPI_Sendrecv(_replace)}, {@code MPI_Probe} and
 * {@code MPI_Iprobe}, with MPI's semantics.
 *
 * <ul>
 * <li><b>Messages</b> are bytes: a segment's whole content ({@code buf.byteSize()} bytes; slice it for less), the
 * first {@code count × dtype.size()} bytes in the collectives' form, an array's elements (whole or a range), or a
 * {@code ByteBuffer}'s remaining bytes (its position is not moved). Heap and native segments alike; a segment must
 * be accessible from every rank's thread (not confined).</li>
 * <li><b>Matching</b>: a receive names a source rank or {@link #ANY_SOURCE} and a tag (≥ 0) or {@link #ANY_TAG}; a
 * message takes the earliest posted receive that matches it, a receive the earliest arrived message it matches.
 * Messages from one rank to another are non-overtaking: two that the same receive could match are received in the
 * order they were sent. Ranks and messages are the team's: a sub-team's numbers on a sub-team, and a message sent on
 * one team never matches a receive on another (its parent included).</li>
 * <li><b>Receive buffers</b> may be larger than the message ({@link MessageStatus#bytes()} says how much came); a
 * message longer than the buffer fails that receive with a {@link MessageTruncatedException} (MPI_ERR_TRUNCATE)
 * on the receiver only, after the buffer got what fits; the message is consumed and nothing else is lost.</li>
 * <li><b>Completion</b>: a blocking send returns when its buffer may be reused: at once for messages up to the
 * eager limit (copied into the pair's ring), when the receiver has copied it for larger ones (one copy, straight
 * from this buffer: a large send waits for its receive, as MPI allows). Use {@link #isend} and {@link #sendrecv}
 * where two ranks send to each other first. A receive returns when the message is in its buffer.</li>
 * <li><b>Memory effects</b>: the sender's actions before a send happen-before the receiver's return from the
 * matching receive (or the completion of its request); for a message received by rendezvous, the receiver's copy
 * happens-before the sender's return.</li>
 * <li><b>Progress</b>: a rank's messages move when that rank calls into point-to-point (any call, or a
 * {@link MessageRequest}'s {@code isDone}/{@code await}); requests are this rank's thread's only.</li>
 * <li><b>Errors</b>: bad ranks, tags, counts and buffers are an {@link IllegalArgumentException} before anything is
 * sent. A wait that nothing completes within the team timeout — a receive never matched, a large send never
 * received — throws {@link CollectiveTimeoutException} naming the peer (and where its thread is) and aborts the
 * team; a peer whose {@code team.run} body returned without the message is reported within milliseconds the same
 * way. An abort of the team (a rank that threw, a close) ends every wait with the collectives' exceptions. An
 * interrupted wait is a {@link CollectiveInterruptedException} (team aborted), as in a collective.</li>
 * <li><b>Allocation</b>: blocking calls on segments allocate nothing per message (requests, queue entries and
 * buffers of unexpected messages are pooled); an {@code isend}/{@code irecv} allocates its request, an array or
 * {@code ByteBuffer} form its segment view.</li>
 * </ul>
 * On a team of {@code Team.builder().processes(n, i)} messages go between the ranks of every process, through the
 * shared mapping (the same calls, matching and order; a peer process that dies fails the waits on it with a
 * {@link TeamAbortedException}); on an {@code mpi()} team the same, through the shared mapping when the job is on
 * one host, else through MPI's messages (a message to another process's rank at most 2^31 − 1 bytes); a sub-team of
 * either too, through its own rings, when it holds as many ranks in each of its processes; on an uneven one every
 * method throws {@link UnsupportedOperationException} saying so.
 * docs/design.md, "Point-to-point", has the protocols and their costs.
 */
public final class PointToPoint {
    /** Matches a message from any rank ({@code MPI_ANY_SOURCE}). */
    public static final int ANY_SOURCE = Endpoint.ANY;
    /** Matches a message with any tag ({@code MPI_ANY_TAG}). */
    public static final int ANY_TAG = Endpoint.ANY;
    /** The missing neighbour off a non-periodic edge of a {@link CartesianTopology} ({@code MPI_PROC_NULL}). */
    public static final int PROC_NULL = -2;

    private final Rank rank;
    private final int id;
    private final int size;
    private final Endpoint ep;
    /** Why this team has no point-to-point (null: it has). */
    private final String refusal;

    PointToPoint(Rank rank, TeamContext context, int id, SpanGroup span) {
        this.rank = rank;
        if (span == null) {
            this.id = id;
            this.size = context.size();
            this.ep = P2pEngine.of(context).endpoint(id);
            this.refusal = null;
            return;
        }
        this.id = span.globalId(id);
        this.size = span.globalSize();
        P2pMemory memory = span.span() instanceof SharedMemorySpan s ? s.p2pMemory() : null;
        Endpoint e = null;
        String why = null;
        if (memory != null && span.even()) {
            e = P2pEngine.acrossProcesses(context, memory, span.processes(), id);
        } else if (!(span.span() instanceof SharedMemorySpan) && span.even()) {
            // MPI's messages to the other processes' ranks (every process agrees on the crossover: it sizes the
            // messages that carry their payload); the span refuses, saying why, where it cannot
            try {
                long eagerMax = P2pEngine.eagerMaxOfProcess();
                MessageTransport t = span.span().messages(context.size(), eagerMax);
                if (t != null) {
                    e = P2pEngine.overTransport(context, t, span.processes(), span.process(), eagerMax, id);
                }
            } catch (UnsupportedOperationException u) {
                why = u.getMessage();
            }
        }
        this.ep = e;
        this.refusal = ep != null ? null : why != null ? why
                : "point-to-point across processes is not available on a sub-team (split) whose processes hold different"
                  + " numbers of its ranks (its ranks are numbered process by process, as many in each); it is on the team"
                  + " of Team.builder().processes(n, i) or mpi() itself and on their sub-teams that hold as many ranks in"
                  + " each of their processes";
    }

    // ---------------------------------------------------------------- segments

    /** Sends the whole of {@code buf} to rank {@code dest} with {@code tag} ({@code MPI_Send}). */
    public void send(MemorySegment buf, int dest, int tag) {
        checkUsable();
        dest(dest);
        tag(tag);
        Arguments.readable("buf", buf, 0, id);
        ep.send(buf, buf.byteSize(), dest, tag);
    }

    /** Sends the first {@code count} elements of {@code dtype} of {@code buf} (the collectives' form). */
    public void send(MemorySegment buf, long count, DType dtype, int dest, int tag) {
        send(prefix("buf", buf, count, dtype, false), dest, tag);
    }

    /** Receives a message from {@code source} (or {@link #ANY_SOURCE}) with {@code tag} (or {@link #ANY_TAG}) into {@code buf}. */
    public void recv(MemorySegment buf, int source, int tag) {
        recv(buf, source, tag, null);
    }

    /**
     * Receives into {@code buf} ({@code MPI_Recv}) and fills {@code status} (may be null) with the message's source,
     * tag and size.
     *
     * @throws MessageTruncatedException when the message is longer than {@code buf}
     */
    public void recv(MemorySegment buf, int source, int tag, MessageStatus status) {
        checkUsable();
        source(source);
        recvTag(tag);
        Arguments.writable("buf", buf, 0, id);
        P2pRequest r = ep.recv(buf, buf.byteSize(), source, tag);
        if (status != null) {
            status.set(r.matchedSource(), r.matchedTag(), r.matchedBytes());
        }
    }

    /** Receives at most {@code count} elements of {@code dtype} into {@code buf} (the collectives' form). */
    public void recv(MemorySegment buf, long count, DType dtype, int source, int tag, MessageStatus status) {
        recv(prefix("buf", buf, count, dtype, true), source, tag, status);
    }

    /** {@code MPI_Isend} of the whole of {@code buf}: the buffer must not be written until the request is complete. */
    public MessageRequest isend(MemorySegment buf, int dest, int tag) {
        checkUsable();
        dest(dest);
        tag(tag);
        Arguments.readable("buf", buf, 0, id);
        return ep.isend(buf, buf.byteSize(), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of the first {@code count} elements of {@code dtype}. */
    public MessageRequest isend(MemorySegment buf, long count, DType dtype, int dest, int tag) {
        return isend(prefix("buf", buf, count, dtype, false), dest, tag);
    }

    /** {@code MPI_Irecv} into {@code buf}: its {@link MessageRequest#status()} tells what came once complete. */
    public MessageRequest irecv(MemorySegment buf, int source, int tag) {
        checkUsable();
        source(source);
        recvTag(tag);
        Arguments.writable("buf", buf, 0, id);
        return ep.irecv(buf, buf.byteSize(), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into at most {@code count} elements of {@code dtype}. */
    public MessageRequest irecv(MemorySegment buf, long count, DType dtype, int source, int tag) {
        return irecv(prefix("buf", buf, count, dtype, true), source, tag);
    }

    /**
     * Sends {@code send} to {@code dest} and receives into {@code recv} from {@code source} at once
     * ({@code MPI_Sendrecv}): never deadlocks against a peer doing the same. The buffers must not overlap.
     */
    public void sendrecv(MemorySegment send, int dest, int sendTag, MemorySegment recv, int source, int recvTag,
                         MessageStatus status) {
        checkUsable();
        dest(dest);
        tag(sendTag);
        source(source);
        recvTag(recvTag);
        Arguments.readable("send", send, 0, id);
        Arguments.writable("recv", recv, 0, id);
        if (io.coll4j.kernel.memory.Aliasing.overlap(send, send.byteSize(), recv, recv.byteSize())) {
            throw new IllegalArgumentException("send and recv overlap: use sendrecvReplace for one buffer");
        }
        P2pRequest r = ep.sendrecv(send, send.byteSize(), dest, sendTag, recv, recv.byteSize(), source, recvTag);
        if (status != null) {
            status.set(r.matchedSource(), r.matchedTag(), r.matchedBytes());
        }
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} without a status. */
    public void sendrecv(MemorySegment send, int dest, int sendTag, MemorySegment recv, int source, int recvTag) {
        sendrecv(send, dest, sendTag, recv, source, recvTag, null);
    }

    /**
     * Sends the whole of {@code buf} and receives into it ({@code MPI_Sendrecv_replace}): the message received
     * (at most {@code buf.byteSize()} bytes) goes through a scratch buffer of this rank and replaces the buffer's
     * first bytes once the send is complete.
     */
    public void sendrecvReplace(MemorySegment buf, int dest, int sendTag, int source, int recvTag, MessageStatus status) {
        checkUsable();
        dest(dest);
        tag(sendTag);
        source(source);
        recvTag(recvTag);
        Arguments.writable("buf", buf, 0, id);
        P2pRequest r = ep.sendrecvReplace(buf, buf.byteSize(), dest, sendTag, source, recvTag);
        if (status != null) {
            status.set(r.matchedSource(), r.matchedTag(), r.matchedBytes());
        }
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} without a status. */
    public void sendrecvReplace(MemorySegment buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(buf, dest, sendTag, source, recvTag, null);
    }

    /**
     * Waits until a message from {@code source} with {@code tag} (wildcards allowed) can be received and returns its
     * status, without receiving it ({@code MPI_Probe}): the next receive with the status's source and tag gets it.
     */
    public MessageStatus probe(int source, int tag) {
        checkUsable();
        source(source);
        recvTag(tag);
        return ep.probe(source, tag);
    }

    /** {@link #probe} without waiting: the status of a matching message, or null when none has arrived ({@code MPI_Iprobe}). */
    public MessageStatus iprobe(int source, int tag) {
        checkUsable();
        source(source);
        recvTag(tag);
        return ep.iprobe(source, tag);
    }

    /** The number of ranks messages can be sent to (the team's size). */
    public int size() {
        return size;
    }

    /** Messages up to this many bytes are sent eagerly (the send completes at once); larger ones by rendezvous. */
    public long eagerLimit() {
        checkUsable();
        return ep.eagerMax();
    }

    // ---------------------------------------------------------------- ByteBuffers: the remaining bytes, position kept

    /** {@link #send(MemorySegment, int, int)} of the buffer's remaining bytes. */
    public void send(ByteBuffer buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the buffer's remaining bytes (its position is not moved). */
    public void recv(ByteBuffer buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the buffer's remaining bytes. */
    public MessageRequest isend(ByteBuffer buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the buffer's remaining bytes. */
    public MessageRequest irecv(ByteBuffer buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of buffers. */
    public void sendrecv(ByteBuffer send, int dest, int sendTag, ByteBuffer recv, int source, int recvTag,
                         MessageStatus status) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, status);
    }

    // ---- byte[]

    /** {@link #send(MemorySegment, int, int)} of the whole array. */
    public void send(byte[] buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #send(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public void send(byte[] buf, int offset, int count, int dest, int tag) {
        send(of(buf, offset, count), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the whole array. */
    public void recv(byte[] buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #recv(MemorySegment, int, int)} into the whole array. */
    public void recv(byte[] buf, int source, int tag) {
        recv(of(buf), source, tag, null);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into {@code count} elements from {@code offset}. */
    public void recv(byte[] buf, int offset, int count, int source, int tag, MessageStatus status) {
        recv(of(buf, offset, count), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the whole array. */
    public MessageRequest isend(byte[] buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public MessageRequest isend(byte[] buf, int offset, int count, int dest, int tag) {
        return isend(of(buf, offset, count), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the whole array. */
    public MessageRequest irecv(byte[] buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into {@code count} elements from {@code offset}. */
    public MessageRequest irecv(byte[] buf, int offset, int count, int source, int tag) {
        return irecv(of(buf, offset, count), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of whole arrays. */
    public void sendrecv(byte[] send, int dest, int sendTag, byte[] recv, int source, int recvTag) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, null);
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} of the whole array. */
    public void sendrecvReplace(byte[] buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(of(buf), dest, sendTag, source, recvTag, null);
    }

    // ---- short[]

    /** {@link #send(MemorySegment, int, int)} of the whole array. */
    public void send(short[] buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #send(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public void send(short[] buf, int offset, int count, int dest, int tag) {
        send(of(buf, offset, count), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the whole array. */
    public void recv(short[] buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #recv(MemorySegment, int, int)} into the whole array. */
    public void recv(short[] buf, int source, int tag) {
        recv(of(buf), source, tag, null);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into {@code count} elements from {@code offset}. */
    public void recv(short[] buf, int offset, int count, int source, int tag, MessageStatus status) {
        recv(of(buf, offset, count), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the whole array. */
    public MessageRequest isend(short[] buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public MessageRequest isend(short[] buf, int offset, int count, int dest, int tag) {
        return isend(of(buf, offset, count), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the whole array. */
    public MessageRequest irecv(short[] buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into {@code count} elements from {@code offset}. */
    public MessageRequest irecv(short[] buf, int offset, int count, int source, int tag) {
        return irecv(of(buf, offset, count), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of whole arrays. */
    public void sendrecv(short[] send, int dest, int sendTag, short[] recv, int source, int recvTag) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, null);
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} of the whole array. */
    public void sendrecvReplace(short[] buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(of(buf), dest, sendTag, source, recvTag, null);
    }

    // ---- char[]

    /** {@link #send(MemorySegment, int, int)} of the whole array. */
    public void send(char[] buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #send(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public void send(char[] buf, int offset, int count, int dest, int tag) {
        send(of(buf, offset, count), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the whole array. */
    public void recv(char[] buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #recv(MemorySegment, int, int)} into the whole array. */
    public void recv(char[] buf, int source, int tag) {
        recv(of(buf), source, tag, null);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into {@code count} elements from {@code offset}. */
    public void recv(char[] buf, int offset, int count, int source, int tag, MessageStatus status) {
        recv(of(buf, offset, count), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the whole array. */
    public MessageRequest isend(char[] buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public MessageRequest isend(char[] buf, int offset, int count, int dest, int tag) {
        return isend(of(buf, offset, count), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the whole array. */
    public MessageRequest irecv(char[] buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into {@code count} elements from {@code offset}. */
    public MessageRequest irecv(char[] buf, int offset, int count, int source, int tag) {
        return irecv(of(buf, offset, count), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of whole arrays. */
    public void sendrecv(char[] send, int dest, int sendTag, char[] recv, int source, int recvTag) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, null);
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} of the whole array. */
    public void sendrecvReplace(char[] buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(of(buf), dest, sendTag, source, recvTag, null);
    }

    // ---- int[]

    /** {@link #send(MemorySegment, int, int)} of the whole array. */
    public void send(int[] buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #send(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public void send(int[] buf, int offset, int count, int dest, int tag) {
        send(of(buf, offset, count), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the whole array. */
    public void recv(int[] buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #recv(MemorySegment, int, int)} into the whole array. */
    public void recv(int[] buf, int source, int tag) {
        recv(of(buf), source, tag, null);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into {@code count} elements from {@code offset}. */
    public void recv(int[] buf, int offset, int count, int source, int tag, MessageStatus status) {
        recv(of(buf, offset, count), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the whole array. */
    public MessageRequest isend(int[] buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public MessageRequest isend(int[] buf, int offset, int count, int dest, int tag) {
        return isend(of(buf, offset, count), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the whole array. */
    public MessageRequest irecv(int[] buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into {@code count} elements from {@code offset}. */
    public MessageRequest irecv(int[] buf, int offset, int count, int source, int tag) {
        return irecv(of(buf, offset, count), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of whole arrays. */
    public void sendrecv(int[] send, int dest, int sendTag, int[] recv, int source, int recvTag) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, null);
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} of the whole array. */
    public void sendrecvReplace(int[] buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(of(buf), dest, sendTag, source, recvTag, null);
    }

    // ---- long[]

    /** {@link #send(MemorySegment, int, int)} of the whole array. */
    public void send(long[] buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #send(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public void send(long[] buf, int offset, int count, int dest, int tag) {
        send(of(buf, offset, count), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the whole array. */
    public void recv(long[] buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #recv(MemorySegment, int, int)} into the whole array. */
    public void recv(long[] buf, int source, int tag) {
        recv(of(buf), source, tag, null);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into {@code count} elements from {@code offset}. */
    public void recv(long[] buf, int offset, int count, int source, int tag, MessageStatus status) {
        recv(of(buf, offset, count), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the whole array. */
    public MessageRequest isend(long[] buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public MessageRequest isend(long[] buf, int offset, int count, int dest, int tag) {
        return isend(of(buf, offset, count), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the whole array. */
    public MessageRequest irecv(long[] buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into {@code count} elements from {@code offset}. */
    public MessageRequest irecv(long[] buf, int offset, int count, int source, int tag) {
        return irecv(of(buf, offset, count), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of whole arrays. */
    public void sendrecv(long[] send, int dest, int sendTag, long[] recv, int source, int recvTag) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, null);
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} of the whole array. */
    public void sendrecvReplace(long[] buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(of(buf), dest, sendTag, source, recvTag, null);
    }

    // ---- float[]

    /** {@link #send(MemorySegment, int, int)} of the whole array. */
    public void send(float[] buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #send(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public void send(float[] buf, int offset, int count, int dest, int tag) {
        send(of(buf, offset, count), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the whole array. */
    public void recv(float[] buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #recv(MemorySegment, int, int)} into the whole array. */
    public void recv(float[] buf, int source, int tag) {
        recv(of(buf), source, tag, null);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into {@code count} elements from {@code offset}. */
    public void recv(float[] buf, int offset, int count, int source, int tag, MessageStatus status) {
        recv(of(buf, offset, count), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the whole array. */
    public MessageRequest isend(float[] buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public MessageRequest isend(float[] buf, int offset, int count, int dest, int tag) {
        return isend(of(buf, offset, count), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the whole array. */
    public MessageRequest irecv(float[] buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into {@code count} elements from {@code offset}. */
    public MessageRequest irecv(float[] buf, int offset, int count, int source, int tag) {
        return irecv(of(buf, offset, count), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of whole arrays. */
    public void sendrecv(float[] send, int dest, int sendTag, float[] recv, int source, int recvTag) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, null);
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} of the whole array. */
    public void sendrecvReplace(float[] buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(of(buf), dest, sendTag, source, recvTag, null);
    }

    // ---- double[]

    /** {@link #send(MemorySegment, int, int)} of the whole array. */
    public void send(double[] buf, int dest, int tag) {
        send(of(buf), dest, tag);
    }

    /** {@link #send(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public void send(double[] buf, int offset, int count, int dest, int tag) {
        send(of(buf, offset, count), dest, tag);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into the whole array. */
    public void recv(double[] buf, int source, int tag, MessageStatus status) {
        recv(of(buf), source, tag, status);
    }

    /** {@link #recv(MemorySegment, int, int)} into the whole array. */
    public void recv(double[] buf, int source, int tag) {
        recv(of(buf), source, tag, null);
    }

    /** {@link #recv(MemorySegment, int, int, MessageStatus)} into {@code count} elements from {@code offset}. */
    public void recv(double[] buf, int offset, int count, int source, int tag, MessageStatus status) {
        recv(of(buf, offset, count), source, tag, status);
    }

    /** {@link #isend(MemorySegment, int, int)} of the whole array. */
    public MessageRequest isend(double[] buf, int dest, int tag) {
        return isend(of(buf), dest, tag);
    }

    /** {@link #isend(MemorySegment, int, int)} of {@code count} elements from {@code offset}. */
    public MessageRequest isend(double[] buf, int offset, int count, int dest, int tag) {
        return isend(of(buf, offset, count), dest, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into the whole array. */
    public MessageRequest irecv(double[] buf, int source, int tag) {
        return irecv(of(buf), source, tag);
    }

    /** {@link #irecv(MemorySegment, int, int)} into {@code count} elements from {@code offset}. */
    public MessageRequest irecv(double[] buf, int offset, int count, int source, int tag) {
        return irecv(of(buf, offset, count), source, tag);
    }

    /** {@link #sendrecv(MemorySegment, int, int, MemorySegment, int, int, MessageStatus)} of whole arrays. */
    public void sendrecv(double[] send, int dest, int sendTag, double[] recv, int source, int recvTag) {
        sendrecv(of(send), dest, sendTag, of(recv), source, recvTag, null);
    }

    /** {@link #sendrecvReplace(MemorySegment, int, int, int, int, MessageStatus)} of the whole array. */
    public void sendrecvReplace(double[] buf, int dest, int sendTag, int source, int recvTag) {
        sendrecvReplace(of(buf), dest, sendTag, source, recvTag, null);
    }

    // ---------------------------------------------------------------- neighborhood collectives (MPI-3)

    /**
     * This rank's neighborhood collectives on {@code topo} (a {@link CartesianTopology} or a {@link GraphTopology}
     * covering the team): allgather, alltoall and their v-forms, blocking and non-blocking.
     *
     * @throws IllegalArgumentException when the topology does not cover exactly this team's ranks
     */
    public Neighborhood neighborhood(NeighborTopology topo) {
        checkUsable();
        return new Neighborhood(this, ep, id, size, topo);
    }

    /** {@code neighborhood(topo).allgather(send, recv)}: see {@link Neighborhood#allgather}. */
    public void neighborAllgather(NeighborTopology topo, MemorySegment send, MemorySegment recv) {
        neighborhood(topo).allgather(send, recv);
    }

    /** {@code neighborhood(topo).alltoall(send, recv)}: see {@link Neighborhood#alltoall}. */
    public void neighborAlltoall(NeighborTopology topo, MemorySegment send, MemorySegment recv) {
        neighborhood(topo).alltoall(send, recv);
    }

    // ---------------------------------------------------------------- checks

    /** On the rank's own thread, on a team where messages work, not aborted: every call's first check. */
    void checkUsable() {
        rank.checkThread();
        if (ep == null) {
            throw new UnsupportedOperationException(refusal);
        }
        ep.checkAborted();
    }

    private void dest(int dest) {
        if (dest < 0 || dest >= size) {
            throw new IllegalArgumentException("dest " + dest + " is out of range: the team has ranks 0.." + (size - 1));
        }
    }

    private void source(int source) {
        if (source != ANY_SOURCE && (source < 0 || source >= size)) {
            throw new IllegalArgumentException("source " + source + " is out of range: the team has ranks 0.." + (size - 1)
                    + " (or ANY_SOURCE)");
        }
    }

    private static void tag(int tag) {
        if (tag < 0) {
            throw new IllegalArgumentException("tag must be >= 0, got " + tag);
        }
    }

    private static void recvTag(int tag) {
        if (tag < 0 && tag != ANY_TAG) {
            throw new IllegalArgumentException("tag must be >= 0 or ANY_TAG, got " + tag);
        }
    }

    private MemorySegment prefix(String name, MemorySegment buf, long count, DType dtype, boolean writable) {
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        long bytes = Arguments.bytes(count, dtype, 1);
        if (writable) {
            Arguments.writable(name, buf, bytes, id);
        } else {
            Arguments.readable(name, buf, bytes, id);
        }
        return buf.byteSize() == bytes ? buf : buf.asSlice(0, bytes);
    }

}
