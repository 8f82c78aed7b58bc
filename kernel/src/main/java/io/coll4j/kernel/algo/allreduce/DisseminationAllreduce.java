package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.barrier.DisseminationBarrier;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.algo.PackageCrossing;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * Dissemination / recursive-doubling allreduce with HMPI's non-power-of-two handling [HMPI §2.3, Eq. 6–7].
 *
 * <p>Topology [HMPI §2.3, Fig. 5]: the algorithm runs on the package-major numbering of the ranks
 * ({@link TeamLayout#packageMajor}: package groups one after another), so with q ranks per package (a
 * power of two) the first log2 q rounds pair ranks of one package and only the last ⌈log2 s⌉ rounds cross
 * packages, whatever the placement (compact placement: the numbering is the identity). Below, r and the
 * partners are package-major indices; excess ranks take the tail of that order, so an excess rank's
 * partner may sit on another package (HMPI lets it copy from a thread of its own socket instead).
 *
 * <p>Overview, p' = the largest power of two ≤ p, R = log2 p':
 * <pre>
 *   excess rank e ≥ p' hands its vector to partner e − p' and waits for the result;
 *   every rank r < p' starts from x_r (folded with its excess partner's: x_r op x_e);
 *   round k = 0..R−1: exchange the running value with r xor 2^k and combine, LOWER BLOCK FIRST;
 *   r returns the value and hands it to its excess partner.
 * </pre>
 * Combining the lower-ranked block first at every step makes the two partners of a round compute the
 * same bits (it is the same expression), so every rank gets bitwise the same result — a guarantee
 * MPI implementations of recursive doubling do not give. The reduction order is the balanced tree
 * {@code ((x0 op x1) op (x2 op x3)) op …} over the power-of-two set, each leaf being {@code x_r op x_e}.
 *
 * <p>Messages up to 48 bytes are pushed: a rank writes its running value into the payload of its
 * partner's recursive-doubling line k and publishes it there (one line transfer per round, no buffer
 * a peer could still read when the rank returns). Larger ones are pulled from per-round slots of the
 * sender's scratch ({@code slot k} = value entering round k, published as ARRIVE step k); a rank's slots
 * are reused two collectives later, after the runtime's lag check. With {@code reproducible(true)}
 * every rank instead reads all send buffers and folds them in rank order.
 */
public final class DisseminationAllreduce extends AbstractAlgorithm {
    public static final String NAME = "dissemination";

    /**
     * Peer-written control lines per rank (the recursive-doubling lines, after the dissemination
     * barrier's): ⌈log2 p⌉. With v the rank's package-major index ({@link TeamLayout#packageMajorIndex}),
     * line {@code line(p, k)} of rank v, for {@code k < log2 p'}, is written only by {@code v xor 2^k}; the
     * last, {@code k = ⌈log2 p⌉ − 1} when p is not a power of two, only by v's fold partner {@code v ± p'}
     * [HMPI §2.3] — one fixed writer each for the team's life, as the control block requires.
     */
    public static int peerLines(int p) {
        return DisseminationBarrier.rounds(p);
    }

    /** Recursive-doubling line {@code k}: after the dissemination barrier's lines. */
    static int line(int p, int k) {
        return ControlBlock.FIRST_PEER_LINE + DisseminationBarrier.peerLines(p) + k;
    }

    public DisseminationAllreduce() {
        super(Collective.ALLREDUCE, NAME, "recursive doubling, excess ranks folded in first (any p)", "[HMPI §2.3, Eq. 6-7]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, 2 * bytes);
        }
        int pw = Integer.highestOneBit(p);
        int rounds = Integer.numberOfTrailingZeros(pw);
        if (Transfers.inline(bytes)) {
            // pushed in the partner's line: one hand-over per round, folds of a few elements
            return m.callOverhead() + (rounds + (p > pw ? 2 : 0)) * m.lineLatencySameL3();
        }
        long ws = (long) p * bytes * (rounds + 3);
        // [HMPI Eq. 6-7] copy-in to slot 0, per round a_α + one k = 2 fold of the full vector (all p ranks at
        // once, the slot written with temporal stores: B_α·4pm in DRAM), copy-out; excess ranks add a fold
        // before and a copy after. A round's fold starts with a_α for the first line of the partner's slot
        // [HMPI §2.1: a + b·m]. Beyond the cache a copy moves 2pm, not 3pm: these whole-message copies are
        // MemorySegment.copy calls of megabytes, which stream without reading the destination for ownership
        // (docs/design.md, "Copy engine"); with 3pm the rows beyond the cache were priced over (docs/measurements.md)
        double copy = Math.max(m.copyTime(bytes, ws), m.dramTime(2L * p * bytes, ws));
        // the partner wrote its slot during this call: the fold pulls those lines one transfer each
        double round = 2 * m.lineLatencySameL3() + Math.max(CopyCost.foldPeerWritten(m, m.foldTime(bytes, 2, ws),
                bytes, ws / p, ws), m.dramTime(4L * p * bytes, ws));
        double excess = p > pw ? 2 * m.lineLatencySameL3() + copy : 0;
        return m.callOverhead() + 2 * copy + rounds * round + excess;
    }

    /**
     * On several packages [HMPI Eq. 6]: each package's DRAM serves its ranks, and the last ⌈log2 s⌉ rounds
     * cross packages, every rank moving its full vector (p·s bytes per round, hand-overs at a_β).
     */
    @Override
    public PackageCrossing crossing(MachineModel m, TeamShape shape, long bytes) {
        double rounds = crossRounds(shape);
        return new PackageCrossing(rounds * shape.ranks() * bytes, rounds);
    }

    private static double crossRounds(TeamShape shape) {
        return shape.packages() < 2 ? 0 : 32 - Integer.numberOfLeadingZeros(shape.packages() - 1);
    }

    static long stride(long bytes) {
        return (bytes + 63) & ~63L;
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        long bytes = call.bytes();
        int p = call.size();
        int pw = Integer.highestOneBit(p);
        if (call.reproducible()) {
            return bytes;
        }
        if (Transfers.inline(bytes) || call.team().layout().packageMajorIndex(call.rank()) >= pw) {
            return 0;
        }
        return (Integer.numberOfTrailingZeros(pw) + 1) * stride(bytes);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    /**
     * Inline and not reproducible: round 0 (or the excess hand-off) publishes the value and the check word into the
     * partner's line first; nothing else of the call is read.
     */
    @Override
    public boolean announcesAfterFirstPublish(CollectiveCall call) {
        return Transfers.inline(call.bytes()) && !call.reproducible();
    }

    @Override
    public void run(CollectiveCall call) {
        if (Transfers.alone(call)) {
            return;
        }
        if (call.reproducible()) {
            ReplicatedAllreduce.foldAll(call, call.scratch(), false);   // rank order: bitwise the reference
        } else if (Transfers.inline(call.bytes())) {
            runPush(call);
        } else {
            runPull(call);
        }
    }

    /** Inline messages: values are pushed into the partner's recursive-doubling line. */
    private static void runPush(CollectiveCall call) {
        int p = call.size();
        TeamLayout layout = call.team().layout();
        int r = layout.packageMajorIndex(call.rank());
        int pw = Integer.highestOneBit(p);
        int rounds = Integer.numberOfTrailingZeros(pw);
        int base = line(p, 0);
        int spare = line(p, peerLines(p) - 1);
        long bytes = call.bytes();
        long count = call.count();
        MemorySegment ctl = call.control();
        Reducer red = call.reducer();
        if (r >= pw) {
            int partner = layout.packageMajor(r - pw);
            Transfers.copy(call, call.send(), 0, ctl, call.inlinePayload(partner, spare), bytes, false);
            // release: my vector, into my partner's spare line (I am its only writer)
            call.publishTo(partner, spare, 0);
            call.awaitFrom(partner, spare, 0);
            call.record("copy", partner);
            Transfers.copy(call, ctl, call.inlinePayload(call.rank(), spare), call.recv(), 0, bytes, false);
            return;
        }
        // No staging copies: round 0 sends straight from my send buffer (or from the running value after the
        // excess fold), the last round folds straight into recv, and only the rounds between keep the running
        // value in my private line (an 8-byte allreduce at p = 2 is then one copy out, one hand-over, one fold)
        MemorySegment local = call.local();
        MemorySegment src = call.send();
        boolean hasExcess = r + pw < p;
        if (hasExcess) {
            int e = layout.packageMajor(r + pw);
            call.awaitFrom(e, spare, 0);
            call.record("fold", e);
            red.reduce(local, 0, src, 0, ctl, call.inlinePayload(call.rank(), spare), count);   // x_r op x_e: lower first
            src = local;
        }
        for (int k = 0; k < rounds; k++) {
            int vq = r ^ (1 << k);
            int q = layout.packageMajor(vq);
            Transfers.copy(call, src, 0, ctl, call.inlinePayload(q, base + k), bytes, false);
            // release: my running value, in q's line k (q xor 2^k = me is its only writer)
            call.publishTo(q, base + k, 0);
            call.awaitFrom(q, base + k, 0);
            call.record("fold", q);
            long in = call.inlinePayload(call.rank(), base + k);
            // recv may be my send buffer (in place): it is read no more once round 0 has sent it
            MemorySegment dst = k == rounds - 1 ? call.recv() : local;
            if (r < vq) {
                red.reduce(dst, 0, src, 0, ctl, in, count);
            } else {
                red.reduce(dst, 0, ctl, in, src, 0, count);
            }
            src = dst;
        }
        if (hasExcess) {
            int e = layout.packageMajor(r + pw);
            Transfers.copy(call, src, 0, ctl, call.inlinePayload(e, spare), bytes, false);
            call.publishTo(e, spare, 0);
        }
    }

    /** Larger messages: each rank keeps the value entering round k in slot k of its scratch. */
    private static void runPull(CollectiveCall call) {
        int p = call.size();
        TeamLayout layout = call.team().layout();
        int r = layout.packageMajorIndex(call.rank());
        int pw = Integer.highestOneBit(p);
        int rounds = Integer.numberOfTrailingZeros(pw);
        long bytes = call.bytes();
        long count = call.count();
        long stride = stride(bytes);
        Reducer red = call.reducer();
        if (r >= pw) {
            int partner = layout.packageMajor(r - pw);
            // my send buffer (published with the announce) is read by my partner before it publishes RELEASE
            call.await(partner, ControlBlock.RELEASE, 0);
            call.record("copy", partner);
            Transfers.copy(call, call.peerScratch(partner), rounds * stride, call.recv(), 0, bytes, false);
            return;
        }
        MemorySegment slots = call.scratch();
        boolean hasExcess = r + pw < p;
        if (hasExcess) {
            int e = layout.packageMajor(r + pw);
            call.await(e, ControlBlock.ANNOUNCE, 0);
            call.record("fold", e);
            red.reduce(slots, 0, call.send(), 0, call.peerSend(e), 0, count);
        } else {
            Transfers.copy(call, call.send(), 0, slots, 0, bytes, false);
        }
        for (int k = 0; k < rounds; k++) {
            int vq = r ^ (1 << k);
            int q = layout.packageMajor(vq);
            // release: slot k holds my value entering round k
            call.publish(ControlBlock.ARRIVE, k);
            call.await(q, ControlBlock.ARRIVE, k);
            call.record("fold", q);
            MemorySegment theirs = call.peerScratch(q);
            long in = k * stride;
            long out = (k + 1) * stride;
            if (r < vq) {
                red.reduce(slots, out, slots, in, theirs, in, count);
            } else {
                red.reduce(slots, out, theirs, in, slots, in, count);
            }
        }
        if (hasExcess) {
            // release: the result in slot `rounds`, for my excess partner
            call.publish(ControlBlock.RELEASE, 0);
        }
        Transfers.copy(call, slots, rounds * stride, call.recv(), 0, bytes, false);
    }

}
