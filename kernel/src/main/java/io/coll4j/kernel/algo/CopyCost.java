package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;

import java.util.List;
import java.util.Locale;

/**
 * The terms the copy-only collectives (bcast, allgather) build their {@code cost} from, in the
 * {@link MachineModel}'s parameters. A copy of m bytes by one core costs m/b [HMPI §2.1]; which b
 * depends on where the copy's working set W lives and on the store kind the algorithm uses, exactly as
 * the adaptive-copy rule decides it [YHCCL §4.2, Alg. 1]:
 * <ul>
 *   <li>{@link #copyOut} — into a buffer not re-read soon (a receive buffer): temporal in cache when
 *       W ≤ C, non-temporal stores to DRAM when W &gt; C;</li>
 *   <li>{@link #copyIn} — into a staging buffer re-read at once (temporal whatever W is): the source
 *       streams from DRAM when W &gt; C;</li>
 *   <li>{@link #dram} — HMPI's congestion term {@code B·d·m} [HMPI §2.1]: when W &gt; C every byte that
 *       reaches DRAM shares the package's total bandwidth; in cache it is 0 (caches are fast enough to
 *       serve a large fan-out [HMPI §2.2]).</li>
 * </ul>
 * An algorithm's time is its synchronisation latencies plus the larger of its critical path of copies
 * (per core) and its DRAM traffic (all cores together).
 */
public final class CopyCost {
    private CopyCost() {
    }

    /** One core copying {@code bytes} into a buffer not re-read soon, in a collective of working set {@code ws}. */
    public static double copyOut(MachineModel m, long bytes, long ws) {
        return bytes / (ws > m.cacheCapacity() ? m.ntCopyBandwidth() : m.copyBandwidthCached());
    }

    /** One core copying {@code bytes} into a staging buffer that stays in cache (temporal stores). */
    public static double copyIn(MachineModel m, long bytes, long ws) {
        return bytes / (ws > m.cacheCapacity() ? m.copyBandwidthStream() : m.copyBandwidthCached());
    }

    /** All cores together moving {@code bytes} to or from DRAM: 0 while the working set fits the cache. */
    public static double dram(MachineModel m, long bytes, long ws) {
        return ws > m.cacheCapacity() ? bytes / m.memoryBandwidth() : 0;
    }

    /** One flag hand-over inside an LLC group (a_α): a modified line moved to the waiting core. */
    public static double flag(MachineModel m) {
        return m.lineLatencySameL3();
    }

    /**
     * Polling {@code n} peers' flags that are (mostly) already set: the lines arrive with overlapping
     * misses, about a quarter of a hand-over each.
     */
    public static double poll(MachineModel m, int n) {
        return n * m.lineLatencySameL3() / 4;
    }

    /**
     * The two hand-overs on the critical path of a one-copy exchange (direct and push allgather, allgatherv,
     * alltoall): every peer's ANNOUNCE before the first copy, and the DONE round before returning (peers
     * read or write my buffers until then).
     */
    public static double announceAndDone(MachineModel m, int p) {
        return 2 * flag(m) + 2 * poll(m, p - 1);
    }

    /**
     * One rank's copies when it pushes {@code bytes}, {@code foreign} of them into other ranks' buffers. In
     * cache the pushed lines stay in the writer's cache and each reader fetches them after the call — the
     * copy a pull algorithm makes inside the call — so they are counted again; beyond the cache they leave
     * with non-temporal stores and the reader finds them in DRAM as it would anyway.
     */
    public static double pushedCopies(MachineModel m, long bytes, long foreign, long ws) {
        double out = copyOut(m, bytes, ws);
        return ws > m.cacheCapacity() ? out : out + copyOut(m, foreign, ws);
    }

    /**
     * A one-copy exchange: call overhead, {@link #announceAndDone}, and the larger of one rank's copies and
     * all ranks' DRAM traffic; on one rank just the copy of its own {@code bytes}.
     */
    public static double exchange(MachineModel m, int p, long bytes, long ws, double copies, long dramBytes) {
        if (p == 1) {
            return m.callOverhead() + copyOut(m, bytes, ws);
        }
        return m.callOverhead() + announceAndDone(m, p) + Math.max(copies, dram(m, dramBytes, ws));
    }

    // ---- lines another core wrote during the call ----

    /**
     * Pulling {@code bytes} of lines a peer core wrote during this call (its fold's output, a block it
     * pushed into my buffer), when that peer touches {@code touchedPerCore} bytes per call in a collective of
     * working set {@code ws}. Such a line is still modified in the writer's private cache, so each costs a
     * line transfer between cores, not the streaming b_α (HMPI's a and b depend on the line's state
     * [HMPI §2.1]; here the prefetcher cannot run ahead of a writer that still owns the lines); consecutive ones
     * overlap, several in flight ({@link MachineModel#peerLinePrice}). Only the lines still in the writer's L2 cost this (the
     * rest went to the shared LLC, from where a read streams like any other): all of them while the writer
     * touches at most half its L2 per call, then a share L2 / (2·touched), so the pulls cost at most half an
     * L2 of lines however large the message. Measured on 2 ranks ({@code --consume} less the bare loop, push
     * against replicated; the numbers: docs/measurements.md), the measured share fell faster than this beyond
     * the L2: it overprices the largest in-cache messages, where the pull is then smaller than the copy
     * it replaces anyway. (A share falling with the square of the overflow fits better, but makes a larger
     * message cost less than a smaller one.) 0 beyond the cache (W &gt; C): the writer's stores were
     * non-temporal, every reader finds the lines in DRAM whoever wrote them.
     */
    public static double peerWritten(MachineModel m, long bytes, long touchedPerCore, long ws) {
        if (bytes <= 0 || ws > m.cacheCapacity()) {
            return 0;
        }
        return pulls(bytes, m.peerLinePrice(), Math.min(1.0, m.l2Bytes() / (2.0 * Math.max(1, touchedPerCore))));
    }

    /**
     * Pulling {@code bytes} of lines a peer wrote with temporal stores shortly before — a staging slot or a
     * folded slice read one step of a sliced algorithm after it was written — when the writer has touched
     * {@code touchedSinceWrite} bytes of its own work in between: {@link #peerWritten}'s price per line, the share
     * still in the writer's L2 being {@code L2 / (2·touchedSinceWrite)} at most 1. Unlike {@link #peerWritten} the
     * working set does not matter: W &gt; C makes a collective's stores to receive buffers non-temporal, not its
     * stores to scratch slots and to the owners' own result blocks, which the peers read from the writer's cache
     * at any size. {@code staged-sliced} with these pulls at 0 beyond the cache was priced well under its
     * 16–64 MiB rows; priced by one step's footprint it came close (the numbers: docs/measurements.md).
     */
    public static double peerWrittenRecently(MachineModel m, long bytes, long touchedSinceWrite) {
        if (bytes <= 0) {
            return 0;
        }
        return pulls(bytes, m.peerLinePrice(), Math.min(1.0, m.l2Bytes() / (2.0 * Math.max(1, touchedSinceWrite))));
    }

    /** {@code bytes} of lines pulled at {@code perLine} each, {@code share} of them from the writer's L2. */
    private static double pulls(long bytes, double perLine, double share) {
        return Math.ceil(bytes / 64.0) * perLine * share;
    }

    /**
     * A copy-out of {@code bytes} that a peer wrote during this call ({@link #copyOut} of a buffer not
     * re-read soon): the copy itself plus the {@link #peerWritten} pulls of its source lines. HMPI writes a
     * transfer as {@code a + b·m} with a and b depending on the line's state [HMPI §2.1]: a line modified in
     * another core's cache costs its transfer on top of the streaming rate, not instead of it. With the larger
     * of the two (as this was) every algorithm that pulls what a peer wrote during the call was priced under
     * from 16 KiB to 1 MiB, while push and replicated, which pull nothing, were priced right (the numbers:
     * docs/measurements.md).
     */
    public static double copyOutPeerWritten(MachineModel m, long bytes, long touchedPerCore, long ws) {
        return copyOut(m, bytes, ws) + peerWritten(m, bytes, touchedPerCore, ws);
    }

    /**
     * A fold ({@code foldTime}, already priced) whose {@code bytes} of sources a peer wrote during this call:
     * the fold plus the {@link #peerWritten} pulls, for the same reason as {@link #copyOutPeerWritten}.
     */
    public static double foldPeerWritten(MachineModel m, double foldTime, long bytes, long touchedPerCore, long ws) {
        return foldTime + peerWritten(m, bytes, touchedPerCore, ws);
    }

    /**
     * What a caller that reads its result after the call (an application does) pays for the
     * {@code peerBytes} of it another core wrote last, over reading its own lines: the pulls of
     * {@link #peerWritten} less the in-cache read it would make anyway. The selector adds it to the cost of
     * algorithms that write their peers' results (docs/design.md, "Machine model and selection"). The reader
     * comes after the whole call, when the writer has touched everything else it touches, so the share still
     * in the writer's L2 falls faster than for a pull inside the call: with the square of the overflow,
     * L2² / (2·touched²), which follows the measured shares (push against replicated; the numbers:
     * docs/measurements.md; the linear share of a pull inside the call made {@code auto} pick replicated at
     * 1 MiB, where push was faster).
     * Decreasing beyond 512 KiB, but never by more than the call's own cost grows.
     *
     * <p>That fall assumes the lines that leave the writer's L2 land where the reader finds them cheaply: an L3 both
     * share. The {@code otherLlcShare} of the peers that sit under another L3 keep theirs in their own L3 (a
     * non-inclusive L3 takes the L2's victims), from where each still costs a transfer between caches: for them the
     * full price holds until the working set outgrows the caches and the writer streams past them. Measured on the
     * 2-vCPU EPYC guest whose two cores report an L3 each (push against replicated, --consume less the bare loop, p =
     * 2): 10–12 ns per peer-written line at 256 KiB, 512 KiB, 1 MiB and 2 MiB alike, none at 4 MiB (W &gt; C: push
     * streams), where the shared-L3 share gives 1/2 to 1/32 (the numbers: docs/measurements.md).
     */
    public static double consumedPeerLines(MachineModel m, long peerBytes, long touchedPerCore, long ws, double otherLlcShare) {
        if (peerBytes <= 0 || ws > m.cacheCapacity()) {
            return 0;
        }
        double overflow = (double) m.l2Bytes() / Math.max(1, touchedPerCore);
        double share = otherLlcShare + (1 - otherLlcShare) * Math.min(1.0, overflow * overflow / 2);
        return Math.max(0, pulls(peerBytes, m.consumedLinePrice(), share) - peerBytes / m.copyBandwidthCached());
    }

    // ---- between packages: HMPI's beta terms ----

    /**
     * HMPI's β terms [HMPI §2.1] for a team on {@code shape}: {@code crossingBytes} (all ranks together)
     * moved between packages at B_β ({@code crossPackageBandwidth}), and {@code rounds} dependent hand-overs
     * that cross packages and so cost a_β instead of a_α. 0 on one package.
     */
    public static double crossPackage(MachineModel m, TeamShape shape, double crossingBytes, double rounds) {
        if (shape.packages() < 2) {
            return 0;
        }
        return crossingBytes / m.crossPackageBandwidth()
                + rounds * Math.max(0, m.lineLatencyCrossPackage() - m.lineLatencySameL3());
    }

    /**
     * Bytes a flat algorithm moves between packages when each of its {@code passes} all-to-all passes has
     * every rank read (or write) {@code (p − 1)/p} of {@code bytes} from its peers: the remote peers' share
     * of {@code passes·(p − 1)·bytes}.
     */
    public static double allToAllCrossing(TeamShape shape, long bytes, int passes) {
        return passes * (shape.ranks() - 1.0) * bytes * shape.remotePeerShare();
    }

    /** The {@link #crossPackage} term as {@code explain} prints it (nothing on one package). */
    public static List<String> crossPackageTerms(MachineModel m, TeamShape shape, double crossingBytes, double rounds) {
        if (shape.packages() < 2) {
            return List.of();
        }
        return List.of(String.format(Locale.ROOT, "beta: %.0f B between packages / B_beta = %.1f us, %.0f hand-overs at a_beta = %.2f us (%s)",
                crossingBytes, crossingBytes / m.crossPackageBandwidth() * 1e6, rounds,
                rounds * Math.max(0, m.lineLatencyCrossPackage() - m.lineLatencySameL3()) * 1e6, shape));
    }

    /** {@code first} followed by the {@link #crossPackageTerms}. */
    public static List<String> withCrossPackageTerms(MachineModel m, TeamShape shape, double crossingBytes, double rounds,
                                                     String first) {
        List<String> out = new java.util.ArrayList<>();
        out.add(first);
        out.addAll(crossPackageTerms(m, shape, crossingBytes, rounds));
        return List.copyOf(out);
    }
}
