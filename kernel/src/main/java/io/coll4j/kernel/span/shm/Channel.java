package io.coll4j.kernel.span.shm;

import java.lang.foreign.MemorySegment;

/**
 * One communicator of a {@link SharedMemorySpan} in the mapping: a round counter pair per process (arrive, done),
 * two data slots per process (rounds alternate between them), and a mailbox per ordered pair of processes for
 * point-to-point messages. Counters are indexed by global process index; a channel belongs to one span for its
 * whole life (its counters start at zero when the file is created), so rounds never need resetting.
 *
 * <p>A round r of a collective: each process copies its slice in and publishes arrive = r + 1 in the line of r's
 * parity, beside the round's descriptor and either the round's header (where each slice lies, {@link Ops.Coll}) or,
 * for a small collective, its whole payload ({@link #INLINE} bytes): one line carries flag, descriptor and header or
 * data; waits until every peer has arrived at r + 1; reads the slices it needs from their
 * slots or lines; publishes done = r + 1. With two slots a process copies slice k in while its peers still read
 * slice k − 1: YHCCL's pipelined copy-in to shared slices [YHCCL §3.3].
 *
 * <p>The slot and line of r's parity are free when round r starts without looking at the peers' done lines: this
 * process finished round r − 1, so it saw every peer arrive at r, and each peer published arrive = r after it read
 * round r − 2 (program order, the arrive a release store, this process's read of it an acquire). A round therefore
 * costs one line hand-over each way, the arrive line; reading the peers' done lines at every round start was a
 * second one. The done lines are read only by an owner whose buffers its peers read in place (the drain).
 */
final class Channel {
    /** Bytes of control lines per process: the two arrive lines (round parity) and the done line. */
    static final long PROCESS_LINES = 192;
    /** Where a round's descriptor and inline payload sit in its arrive line. */
    static final long LINE_DESC = 8;
    static final long LINE_DATA = 16;
    /** The payload a round carries in its arrive line (the rest of the line after the arrive word and descriptor). */
    static final long INLINE = 64 - LINE_DATA;

    final Mapping m;
    final int id;
    private final long base;
    private final long ctrl;
    private final int n;
    /** The next round this process runs on this channel (guarded by the mapping's lock). */
    long round;
    /** Chunks this process has sent to / received from each process through the mailboxes (guarded by the lock). */
    final long[] sent;
    final long[] received;
    /** The blocking calls this process runs on the channel outside its queue ({@link InlineCall#of}). */
    InlineCall inline;

    Channel(Mapping m, int id) {
        this.m = m;
        this.id = id;
        this.base = m.channelBase(id);
        this.n = m.processes;
        this.ctrl = Mapping.ctrlBytes(n);
        this.sent = new long[n];
        this.received = new long[n];
    }

    MemorySegment seg() {
        return m.seg;
    }

    /** Process p's arrive line of round {@code round}'s parity. */
    long line(int p, long round) {
        return base + PROCESS_LINES * p + 64 * (round & 1);
    }

    private long doneAt(int p) {
        return base + PROCESS_LINES * p + 128;
    }

    private long fullAt(int s, int d) {
        return base + PROCESS_LINES * n + 128L * ((long) s * n + d);
    }

    private long ackAt(int s, int d) {
        return fullAt(s, d) + 64;
    }

    long slot(int p, long round) {
        return base + ctrl + (2L * p + (round & 1)) * m.slotBytes;
    }

    long mailbox(int s, int d) {
        return base + ctrl + 2L * n * m.slotBytes + ((long) s * n + d) * m.mailBytes;
    }

    /**
     * Publishes that this process's slice of round value − 1 is in its slot or line (release: pairs with the peers'
     * getAcquire in allArrived, so the descriptor, payload and slot written before it are visible with it).
     */
    void arrive(int p, long value) {
        Mapping.LONG.setRelease(m.seg, line(p, value - 1), value);
    }

    /** Publishes that this process has read every slot of round value − 1 (release: pairs with allDone's getAcquire). */
    void done(int p, long value) {
        Mapping.LONG.setRelease(m.seg, doneAt(p), value);
    }

    /**
     * Whether every member arrived at {@code value} (acquire: their slot contents are then visible); if not, {@code s}
     * waits on the first member's arrive line that has not ({@link Mapping.Step#waitOn}).
     */
    boolean allArrived(int[] members, long value, Mapping.Step s) {
        for (int p : members) {
            long at = line(p, value - 1);
            if ((long) Mapping.LONG.getAcquire(m.seg, at) < value) {
                s.waitOn(at, value);
                return false;
            }
        }
        return true;
    }

    /**
     * Whether every member finished reading up to round value − 1 (acquire: their reads of this slot are over); if
     * not, {@code s} waits on the first done line that is behind.
     */
    boolean allDone(int[] members, long value, Mapping.Step s) {
        for (int p : members) {
            long at = doneAt(p);
            if ((long) Mapping.LONG.getAcquire(m.seg, at) < value) {
                s.waitOn(at, value);
                return false;
            }
        }
        return true;
    }

    /** Chunks published by s for d (acquire: pairs with the sender's setRelease in publish, the data is then visible). */
    long full(int s, int d) {
        return (long) Mapping.LONG.getAcquire(m.seg, fullAt(s, d));
    }

    void publish(int s, int d, long value) {
        Mapping.LONG.setRelease(m.seg, fullAt(s, d), value);
    }

    /** Chunks d has consumed from s (acquire: pairs with the receiver's setRelease in ack; the mailbox is free again). */
    long acked(int s, int d) {
        return (long) Mapping.LONG.getAcquire(m.seg, ackAt(s, d));
    }

    void ack(int s, int d, long value) {
        Mapping.LONG.setRelease(m.seg, ackAt(s, d), value);
    }
}
