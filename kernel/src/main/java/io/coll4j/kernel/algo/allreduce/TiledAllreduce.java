package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;

/**
 * Tiled reduce-broadcast [HMPI §2.4, Eq. 8–11]: "each thread [...] compute[s] sequentially one tile of the final
 * result and then broadcast it to all threads".
 *
 * <p><b>One package</b> (or packages of unequal size, or {@code reproducible(true)}): the vector is cut
 * into p tiles of whole cache lines; rank i waits for every rank's entry (its send buffer is published
 * with the announce), folds tile i of all p send buffers in ONE k-ary pass (ascending rank order) into its
 * scratch and publishes RELEASE; then every rank copies every tile from its owner's scratch into its
 * receive buffer. Reduction order: the scalar left fold x0 op x1 op … op x(p−1) — bitwise the reference.
 *
 * <p><b>Several packages</b>, G packages of q ranks: "we use the tiled approach only within sockets; …
 * a tree reduction performs better at that stage" [HMPI §2.4, Fig. 7]. The vector is cut into q tiles;
 * rank (g, i), the i-th rank of package g:
 * <pre>
 * 1. folds tile i of its package's q send buffers (ascending rank) into its scratch: partial P(g, i)
 *                                                            → publish ARRIVE 0 once its subtree is in
 * 2. binomial tree over the packages, ⌈log2 G⌉ levels: at level k, (g, i) with g mod 2^(k+1) = 0 awaits
 *    ARRIVE of (g + 2^k, i) and folds P(g, i) ← P(g, i) op P(g + 2^k, i)   (lower package first)
 *    → (0, i) holds tile i of the result                        → publish RELEASE 0
 * 3. broadcast, two-stage [HMPI §2.2]: (g, i) copies tile i from (0, i)'s scratch into its receive buffer
 *    (one cross-package copy of s/q per rank, (G − 1)·s in all) → publish AUX 0; every rank copies the
 *    other tiles from its package mates' receive buffers → publish DONE, await every DONE
 * </pre>
 * Only the tree levels and the stage-one copy cross packages. Reduction order: per tile, each package's
 * ranks left to right, then the packages as a balanced tree ((P0 op P1) op (P2 op P3)) — the same on
 * every rank and every run, but not the rank-ordered fold for floats; {@code reproducible(true)} runs the
 * one-package protocol.
 *
 * <p>In place is safe: a rank writes tile t of its receive buffer only after tile t's owner in its package
 * has finished phase 1 (it awaited a later stamp of it), and tile t of its send buffer is read by nobody
 * else. Tile copies start at one's own tile + 1 so the copies of one tile are spread out in time.
 */
public final class TiledAllreduce extends AbstractAlgorithm {
    public static final String NAME = "tiled";

    public TiledAllreduce() {
        super(Collective.ALLREDUCE, NAME, "each rank reduces one tile of all inputs, then everyone gathers the tiles", "[HMPI §2.4, Eq. 11]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, 2 * bytes);
        }
        long tile = (bytes + p - 1) / p;
        long ws = 2L * p * bytes + bytes;
        // [HMPI Eq. 8-11] announce (a_α), one k = p fold of my tile (all ranks at once in DRAM: p·s read, the
        // s of scratch read for ownership and written back: B_α·(p+2)·s),
        // release (a_α), then every rank copies the p tiles out (NT stores past the cache: B_α·2p·s); the fold
        // starts with a_α for the first line of the peers' send buffers [HMPI §2.1: a + b·m] (the gather's
        // first line arrives with the RELEASE it waited for: the owner wrote both just before)
        double fold = Math.max(m.foldTime(tile, p, ws), m.dramTime((p + 2L) * bytes, ws));
        // my own tile too: the peers read it from my scratch last, and my fold wrote it for ownership again
        // the p − 1 other tiles were folded by their owners during this call: pulled line by line
        double gather = Math.max(CopyCost.copyOut(m, tile, ws) + CopyCost.copyOutPeerWritten(m, bytes - tile, ws / p, ws),
                m.dramTime(2L * p * bytes, ws));
        return m.callOverhead() + 3 * m.lineLatencySameL3() + CopyCost.poll(m, p - 2) + fold + gather;
    }

    /** The two-level form on G × q ranks [HMPI Eq. 8–11]: q-ary folds in the package, ⌈log2 G⌉ tree levels at a_β + B_β. */
    @Override
    public double cost(MachineModel m, TeamShape shape, long bytes) {
        if (!shape.twoLevel()) {
            return cost(m, shape.ranks(), bytes);
        }
        int p = shape.ranks();
        int q = shape.ranksPerPackage();
        MachineModel mg = m.forPackages(shape.packages());
        long tile = (bytes + q - 1) / q;
        long ws = 2L * p * bytes + (long) shape.packages() * bytes;
        double levels = treeLevels(shape.packages());
        double fold = Math.max(mg.foldTime(tile, q, ws), mg.dramTime((p + 2L) * bytes, ws));
        double tree = levels * (m.lineLatencyCrossPackage() + mg.foldTime(tile, 2, ws));
        double gather = Math.max(CopyCost.copyOut(mg, bytes, ws), mg.dramTime(2L * p * bytes, ws));
        return m.callOverhead() + 5 * m.lineLatencySameL3() + CopyCost.poll(m, q - 1) + fold + tree + gather
                + CopyCost.crossPackage(m, shape, crossingBytes(shape, bytes), 1);
    }

    /** Tree levels move (G − 1) partials of s per tile set; the stage-one copies (G − 1)·s more. */
    private static double crossingBytes(TeamShape shape, long bytes) {
        return 2.0 * (shape.packages() - 1) * bytes;
    }

    private static int treeLevels(int packages) {
        return 32 - Integer.numberOfLeadingZeros(packages - 1);
    }

    @Override
    public List<String> costTerms(MachineModel m, TeamShape shape, long bytes) {
        if (!shape.twoLevel()) {
            return List.of();
        }
        return CopyCost.withCrossPackageTerms(m, shape, crossingBytes(shape, bytes), 1, String.format(Locale.ROOT,
                "two-level: tiles in package (q = %d), tree of %d level(s) across packages, two-stage broadcast",
                shape.ranksPerPackage(), treeLevels(shape.packages())));
    }

    /** True when this call runs the two-level protocol. */
    static boolean twoLevel(CollectiveCall call) {
        return !call.reproducible() && call.team().layout().uniformPackages();
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        if (twoLevel(call)) {
            TeamLayout l = call.team().layout();
            int q = l.packageMembers(0).length;
            return Tiles.of(call.count(), q, call.dtype().size()).perTile() * call.dtype().size();
        }
        Tiles t = Tiles.of(call.count(), call.size(), call.dtype().size());
        return t.length(call.rank()) * call.dtype().size();
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        int es = call.dtype().size();
        if (Transfers.alone(call)) {
            return;
        }
        if (twoLevel(call)) {
            runTwoLevel(call);
            return;
        }
        Tiles tiles = Tiles.of(call.count(), p, es);
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        long n = tiles.length(r);
        if (n > 0) {
            long off = tiles.start(r) * es;
            call.foldStart();
            for (int q = 0; q < p; q++) {
                if (q != r) {
                    call.record("fold", q);
                }
                call.foldAdd(q == r ? call.send() : call.peerSend(q), off);
            }
            call.foldInto(call.scratch(), 0, n);
        }
        // release: my tile of the result; pairs with every rank's await in the gather loop
        call.publish(ControlBlock.RELEASE, 0);
        boolean nt = call.copy().useNonTemporal(2L * p * call.bytes() + call.bytes(), false);
        for (int i = 1; i <= p; i++) {
            int j = (r + i) % p;
            long len = tiles.length(j);
            if (j != r) {
                call.await(j, ControlBlock.RELEASE, 0);
                call.record("copy", j);
            }
            if (len > 0) {
                Transfers.copy(call, j == r ? call.scratch() : call.peerScratch(j), 0, call.recv(), tiles.start(j) * es,
                        len * es, nt);
            }
        }
    }

    /** Several packages of q ranks: tiles in the package, a tree across packages, a two-stage broadcast. */
    private static void runTwoLevel(CollectiveCall call) {
        TeamLayout l = call.team().layout();
        int r = call.rank();
        int es = call.dtype().size();
        int g = l.packageGroupOf(r);
        int packages = l.packageCount();
        int[] mates = l.packageMembers(g);
        int q = mates.length;
        int i = PackageMates.indexOf(mates, r);
        Tiles tiles = Tiles.of(call.count(), q, es);
        long off = tiles.start(i) * es;
        long n = tiles.length(i);
        MemorySegment partial = call.scratch();
        // acquire: every rank's buffers, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        // 1. my tile of my package's send buffers, ascending rank
        if (n > 0) {
            PackageMates.foldPart(call, mates, off, partial, n);
        }
        // 2. binomial tree over the packages: fold my children's partials, lower package first
        for (int k = 0; (1 << k) < packages; k++) {
            if ((g & ((2 << k) - 1)) != 0) {
                break;                                   // g is a child at this level
            }
            int child = g + (1 << k);
            if (child < packages) {
                int c = l.packageMembers(child)[i];
                // acquire: pairs with c's release of ARRIVE: its subtree's partial of tile i is complete
                call.await(c, ControlBlock.ARRIVE, 0);
                call.record("fold-partial", c);
                if (n > 0) {
                    call.reducer().reduceInto(partial, 0, call.peerScratch(c), 0, n);
                }
            }
        }
        int top = l.packageMembers(0)[i];
        if (g != 0) {
            // release: my subtree's partial of tile i; pairs with my tree parent's await
            call.publish(ControlBlock.ARRIVE, 0);
            // 3a. stage one: tile i of the result, from the root of the tree
            call.await(top, ControlBlock.RELEASE, 0);
            call.record("copy", top);
        } else {
            // release: tile i of the result is final in my scratch; pairs with the counterparts' copies
            call.publish(ControlBlock.RELEASE, 0);
        }
        boolean nt = call.copy().useNonTemporal(2L * call.size() * call.bytes(), false);
        if (n > 0) {
            Transfers.copy(call, g == 0 ? partial : call.peerScratch(top), 0, call.recv(), off, n * es, nt);
        }
        // release: tile i is final in my receive buffer; pairs with my package mates' copies
        call.publish(ControlBlock.AUX, 0);
        // 3b. stage two: the other tiles from my package mates' receive buffers
        PackageMates.copyPartsAndFinish(call, mates, i, tiles, ControlBlock.AUX, nt);
    }
}
