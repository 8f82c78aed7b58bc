package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.sliced.StagedSlices;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * {@code ma-socket}: the socket-aware two-level allreduce of [YHCCL §3.3 (socket-aware optimization), §3.4]. The package (socket) is the
 * unit whose links are scarce, so the reduction first stays inside each package and only one partial per
 * package crosses: with k ranks per package and G packages, rank (g, i) — the i-th rank of package g —
 * owns block i of k line-aligned blocks.
 *
 * <pre>
 * 1. intra-package reduce-scatter: (g, i) folds block i of its package's k send buffers (ascending rank)
 *    into its scratch partial P(g, i) in ONE k-ary pass           → publish ARRIVE (release: P(g, i) is written)
 * 2. inter-package: (g, i) awaits ARRIVE of its counterparts (h, i), h = 0..G−1, and folds P(0, i) …
 *    P(G−1, i) (ascending package) into block i of its receive buffer → publish RELEASE (block i is final)
 * 3. intra-package allgather: (g, i) copies block j from (g, j)'s receive buffer (NT iff W &gt; C)
 *    → publish DONE, await every DONE (peers read my send, scratch and receive buffers until then)
 * </pre>
 *
 * Cross-package traffic: only phase 2 crosses, each rank reading the G−1 remote partials of its own block
 * — (G−1)·s per package, against (G−1)·s·k for a flat algorithm whose owners read every remote send
 * buffer. Thread ranks read peers' buffers in place, so phase 1 and 3 need no copy-in (the direct-read
 * form of YHCCL's staged slices; unlike {@code ma-sliced} the phases are not strip-mined).
 *
 * <p>Reduction order: (x(g,0) + … + x(g,k−1)) per package, then the packages left to right — the same
 * operands in the same order on every counterpart, so every rank holds bitwise the same result and every
 * run gives the same bits. It differs from the rank-ordered fold for floats; with {@code reproducible(true)}
 * (and on a single package, or packages of unequal size, where there is no second level) the call runs
 * {@code ma-sliced}, whose order is the rank-ordered fold.
 *
 * <p>Memory: one partial of s/k bytes per rank (scratch): one message per package, G·s in all.
 *
 * <p>Cost: on one package (or packages of unequal size, where it runs {@code staged-sliced}) it is priced as
 * {@code staged-sliced}, and ties keep {@code staged-sliced} (catalogue order). On a team of G packages × k
 * ranks ({@link #cost(MachineModel, TeamShape, long)}) it has HMPI's two-level terms [HMPI §2.1]: phase 1 a
 * k-ary fold of s/k, phase 2 a G-ary fold of s/k whose G − 1 remote partials cross packages (G·(G − 1)·s
 * bytes in all, over B_β, one hand-over at a_β), phase 3 a copy of (k − 1)/k·s inside the package, and
 * each package's DRAM serving its own ranks. {@code explain} prints the three phases and the β term.
 */
public final class MaSocketAllreduce extends AbstractAlgorithm {
    public static final String NAME = "ma-socket";

    public MaSocketAllreduce() {
        super(Collective.ALLREDUCE, NAME, "two-level: reduce inside each package, one partial per package crosses, allgather inside",
                "[YHCCL §3.3]");
    }

    /** True when this call has a second level: more than one package, all with the same number of ranks. */
    static boolean twoLevel(CollectiveCall call) {
        TeamLayout l = call.team().layout();
        int g = l.packageCount();
        if (g < 2 || call.reproducible() || call.count() == 0) {
            return false;
        }
        int k = l.packageMembers(0).length;
        for (int h = 1; h < g; h++) {
            if (l.packageMembers(h).length != k) {
                return false;
            }
        }
        return true;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        return StagedSlices.cost(m, p, bytes, Collective.ALLREDUCE);
    }

    /** The two-level cost on G packages × k ranks (class comment); flat ({@code staged-sliced}) otherwise. */
    @Override
    public double cost(MachineModel m, TeamShape shape, long bytes) {
        if (!shape.twoLevel() || shape.ranks() == 1) {
            return cost(m, shape.ranks(), bytes);
        }
        double[] t = phases(m, shape, bytes);
        return m.callOverhead() + t[0] + Math.max(t[1] + t[2] + t[3], t[4]) + t[5];
    }

    /** sync, phase 1, phase 2, phase 3, DRAM, β — seconds. */
    private static double[] phases(MachineModel flat, TeamShape shape, long bytes) {
        int p = shape.ranks();
        int g = shape.packages();
        int k = shape.ranksPerPackage();
        MachineModel m = flat.forPackages(g);
        long block = (bytes + k - 1) / k;
        long ws = 2L * p * bytes;
        // announce, ARRIVE (partials), RELEASE (blocks), DONE: four hand-overs, polls of k − 1 mates and G − 1 counterparts
        double sync = 4 * CopyCost.flag(m) + 2 * CopyCost.poll(m, k - 1) + CopyCost.poll(m, g - 1);
        double phase1 = m.foldTime(block, k, ws);
        double phase2 = m.foldTime(block, g, ws);
        double phase3 = CopyCost.copyOut(m, bytes - block, ws);
        // send buffers read, partials written and read, receive buffers written
        double dram = CopyCost.dram(m, 2L * p * bytes + 2L * g * bytes, ws);
        double beta = CopyCost.crossPackage(flat, shape, crossingBytes(shape, bytes), 1);
        return new double[]{sync, phase1, phase2, phase3, dram, beta};
    }

    /** Phase 2: every rank reads the G − 1 remote partials of its block, G·(G − 1)·s bytes in all. */
    static double crossingBytes(TeamShape shape, long bytes) {
        int g = shape.packages();
        return (double) g * (g - 1) * bytes;
    }

    @Override
    public List<String> costTerms(MachineModel m, TeamShape shape, long bytes) {
        if (!shape.twoLevel() || shape.ranks() == 1) {
            return List.of("one level: runs staged-sliced");
        }
        double[] t = phases(m, shape, bytes);
        return CopyCost.withCrossPackageTerms(m, shape, crossingBytes(shape, bytes), 1, String.format(Locale.ROOT,
                "two-level: phase 1 fold in package %.1f us, phase 2 fold of %d partials %.1f us, phase 3 copy %.1f us,"
                        + " DRAM %.1f us, sync %.2f us", t[1] * 1e6, shape.packages(), t[2] * 1e6, t[3] * 1e6, t[4] * 1e6, t[0] * 1e6));
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        if (!twoLevel(call)) {
            return StagedSlices.scratchBytes(call);
        }
        int k = call.team().layout().packageMembers(0).length;
        return Tiles.of(call.count(), k, call.dtype().size()).perTile() * call.dtype().size();
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        if (!twoLevel(call)) {
            StagedSlices.run(call);
            return;
        }
        TeamLayout l = call.team().layout();
        int r = call.rank();
        int es = call.dtype().size();
        int[] mates = l.packageMembers(l.packageGroupOf(r));
        int k = mates.length;
        int i = PackageMates.indexOf(mates, r);
        Tiles blocks = Tiles.of(call.count(), k, es);
        long off = blocks.start(i) * es;
        long n = blocks.length(i);
        MemorySegment partial = call.scratch();
        // acquire: every rank's buffers, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);

        PackageMates.foldPart(call, mates, off, partial, n);
        // release: my package's partial of block i; pairs with the counterparts' await in phase 2
        call.publish(ControlBlock.ARRIVE, 0);

        call.foldStart();
        for (int h = 0; h < l.packageCount(); h++) {
            int c = l.packageMembers(h)[i];
            if (c != r) {
                call.await(c, ControlBlock.ARRIVE, 0);
                call.record("fold-partial", c);
            }
            call.foldAdd(c == r ? partial : call.peerScratch(c), 0);
        }
        call.foldInto(call.recv(), off, n);
        // release: block i of the result is final in my receive buffer; pairs with the mates' copy in phase 3
        call.publish(ControlBlock.RELEASE, 0);

        boolean nt = call.copy().useNonTemporal(2L * call.size() * call.bytes(), false);
        PackageMates.copyPartsAndFinish(call, mates, i, blocks, ControlBlock.RELEASE, nt);
    }
}
