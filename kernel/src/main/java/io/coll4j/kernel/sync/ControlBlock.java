package io.coll4j.kernel.sync;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The team's control state in native memory: for every rank a block of {@link #lines()} flag lines,
 * plus a few team-wide lines. Each line is {@link #LINE} = 128 bytes.
 *
 * <p><b>One writer per line, always the same one.</b> The first {@link #FIRST_PEER_LINE} lines of a
 * rank's block are written only by that rank. The {@link #peerLines()} lines after them are written by
 * other ranks (push-style algorithms signal a partner on the partner's line); which algorithm uses which
 * of them, and which rank writes each, is the layout of the algorithm that owns them. That layout must
 * give every line one fixed writer for every collective of the team's life: a line written by different
 * ranks in successive collectives could see a late write of collective s land after an early write of
 * s+1 and move its stamp backwards; with one fixed writer, program order keeps every line's stamps
 * increasing.
 *
 * <pre>
 * line layout (bytes): two 64-byte halves, one per parity of the sequence number
 *   0  stamp   long, getAcquire / setRelease: the flag itself (see {@link Stamp}), every collective
 *   8  sig     long, plain: signature of the collective that wrote the stamp (mismatch detection);
 *              written before the stamp's release, so a reader's acquire of the stamp makes it visible
 *  16  payload 48 bytes: the even collectives' inline payload ({@link #INLINE_BYTES})
 *  64  stamp   the odd collectives' stamp, written just before the one at 0
 *  72  sig     its signature
 *  80  payload 48 bytes: the odd collectives' inline payload
 * </pre>
 *
 * <p>Why each parity has a header of its own ({@link #halfOffset}): a waiter of collective s polls the
 * 64-byte cache line that also holds s's payload, so one cache-line transfer carries flag and data in
 * every collective. With one stamp at 0 for both parities, an odd collective's reader took the stamp's
 * line, then missed again on the payload's line (two dependent transfers), and consecutive collectives
 * wrote the same line the peer had just read. A C ping-pong of the three layouts was fastest with a
 * header per half, alternating [PAMI §3.4: two alternating buffers] (the numbers: docs/measurements.md). The stamp at 0
 * keeps the line's latest stamp for every collective (waits for another collective's entry, diagnostics).
 */
public final class ControlBlock {
    /**
     * Bytes per line: two 64-byte cache lines, because the adjacent-line (spatial) prefetcher fetches
     * lines in 128-byte pairs and would otherwise create false sharing between neighbours.
     */
    public static final int LINE = 128;
    /** Offset of the stamp in a line. */
    public static final int STAMP = 0;
    /** Offset of the signature in a line. */
    public static final int SIG = 8;
    /** Offset of the inline payload in a half. */
    public static final int PAYLOAD = 16;
    /** Inline payload bytes per parity half (each 64-byte half: stamp, signature, payload). */
    public static final int INLINE_BYTES = 48;
    /** Bytes of a parity half: one cache line, the odd half's header at {@code lineOffset + HALF}. */
    public static final int HALF = 64;

    /** Per-rank line: the collective the rank last entered (stamp = Stamp.of(seq, 0)) and its signature. */
    public static final int ANNOUNCE = 0;
    /** Per-rank line: "my contribution / partial result is ready" stamps (up phase, slices). */
    public static final int ARRIVE = 1;
    /** Per-rank line: "my result is ready" stamps (down phase). */
    public static final int RELEASE = 2;
    /** Per-rank line: "I have finished reading peers' buffers" stamps. */
    public static final int DONE = 3;
    /** Per-rank line: second pipeline/handshake line for algorithms that need one more. */
    public static final int AUX = 4;
    /** First of the per-rank lines written by peers (see the class comment); {@link #peerLines()} of them. */
    public static final int FIRST_PEER_LINE = 5;

    /** Team-wide line: the central barrier's arrival counter (incremented atomically by every rank). */
    public static final int CENTRAL = 0;
    private static final int GLOBAL_LINES = 1;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final MemorySegment segment;
    private final int ranks;
    private final int linesPerRank;
    private final int peerLines;
    private final long globalBase;

    /**
     * Allocates the control block for {@code ranks} ranks in {@code arena}, 128-byte aligned, zeroed, with
     * {@code peerLines} peer-written lines per rank after the rank's own.
     */
    public ControlBlock(Arena arena, int ranks, int peerLines) {
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1, got " + ranks);
        }
        if (peerLines < 0) {
            throw new IllegalArgumentException("peerLines must be >= 0, got " + peerLines);
        }
        this.ranks = ranks;
        this.peerLines = peerLines;
        this.linesPerRank = FIRST_PEER_LINE + peerLines;
        this.globalBase = (long) ranks * linesPerRank * LINE;
        this.segment = arena.allocate(globalBase + (long) GLOBAL_LINES * LINE, LINE);
    }

    /** Peer-written lines per rank, from {@link #FIRST_PEER_LINE} on. */
    public int peerLines() {
        return peerLines;
    }

    /** Human name of a per-rank line index, for diagnostics. */
    public String lineName(int line) {
        return switch (line) {
            case ANNOUNCE -> "ANNOUNCE";
            case ARRIVE -> "ARRIVE";
            case RELEASE -> "RELEASE";
            case DONE -> "DONE";
            case AUX -> "AUX";
            default -> "PEER[" + (line - FIRST_PEER_LINE) + "]";
        };
    }

    public MemorySegment segment() {
        return segment;
    }

    public int ranks() {
        return ranks;
    }

    public int lines() {
        return linesPerRank;
    }

    public long bytes() {
        return segment.byteSize();
    }

    /** Byte offset of {@code line} of {@code rank}. */
    public long offset(int rank, int line) {
        return ((long) rank * linesPerRank + line) * LINE;
    }

    /** Byte offset of team-wide line {@code line}. */
    public long globalOffset(int line) {
        return globalBase + (long) line * LINE;
    }

    /** Byte offset of the inline payload half for {@code seq}'s parity in the line at {@code lineOffset}. */
    public static long payloadOffset(long lineOffset, long seq) {
        return halfOffset(lineOffset, seq) + PAYLOAD;
    }

    /**
     * Byte offset of the half of {@code seq}'s parity in the line at {@code lineOffset}: a stamp, signature
     * and payload of their own, laid out as a line's, so {@link #stampAcquire}, {@link #sig} and
     * {@link #publish} take it as a line offset.
     */
    public static long halfOffset(long lineOffset, long seq) {
        return lineOffset + (seq & 1) * HALF;
    }

    /** Acquire-load of the stamp at {@code lineOffset}: pairs with {@link #publish}'s release. */
    public long stampAcquire(long lineOffset) {
        return (long) LONG.getAcquire(segment, lineOffset + STAMP);
    }

    /** Opaque load of the stamp (re-check after reading the signature; ordered by a preceding loadLoadFence). */
    public long stampOpaque(long lineOffset) {
        return (long) LONG.getOpaque(segment, lineOffset + STAMP);
    }

    /** Plain load of the signature; valid after an acquire of the stamp it was published with. */
    public long sig(long lineOffset) {
        return (long) LONG.get(segment, lineOffset + SIG);
    }

    /**
     * Publishes {@code stamp} with signature {@code sig}: the signature and every earlier write of the
     * publishing thread (data, payload, buffer references) become visible to any thread whose
     * {@link #stampAcquire} reads this stamp or a later one.
     */
    public void publish(long lineOffset, long stamp, long sig) {
        LONG.set(segment, lineOffset + SIG, sig);
        // release: pairs with the getAcquire in stampAcquire (the waiter's side)
        LONG.setRelease(segment, lineOffset + STAMP, stamp);
    }

    /** Atomic add on a team-wide counter line (full fence: volatile semantics). Returns the new value. */
    public long addAndGet(long lineOffset, long delta) {
        return (long) LONG.getAndAdd(segment, lineOffset + STAMP, delta) + delta;
    }
}
