package io.coll4j.kernel.algo.allgather;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Slicing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Pipelined allgather through per-rank double buffers [YHCCL Alg. 4, §4.3.3]: each block (b bytes,
 * the send buffer) is cut into slices ({@link Slicing}: I = max(min(b/p, I_max), 64)); in step j every
 * rank copies slice j of its block into slot j mod 2 of its staging buffer while copying slice j−1 of
 * every rank's block out of their staging buffers.
 *
 * <pre>
 * for j in 0..n−1:
 *     if j ≥ 2: await DONE ≥ j−2 of every peer            // nobody still reads my slot j mod 2
 *     copy send[j] → my slot[j mod 2]        (temporal: re-read at once)
 *     publish ARRIVE j                                     // release: my slice j is staged
 *     if j ≥ 1: copy-out(j−1); publish DONE j−1
 * copy-out(n−1); publish DONE n−1
 * copy-out(k): my own slice straight from send; for every peer a, ascending:
 *     await a's ARRIVE ≥ k; copy a.slot[k mod 2] → recv[a·b + k·I]   (NT iff W &gt; C)
 * </pre>
 * DONE k means "I have copied slice k of every block", so a rank overwrites a slot only when every peer
 * has acknowledged it; steps are slice indices and rise in program order on every line. YHCCL ends each
 * step with a node-wide barrier; here the waits are point to point (every peer's ARRIVE for the slice
 * being copied, every peer's DONE for the slot being reused).
 *
 * <p>Copies: every rank copies b into its staging buffer and p·b out (its own slice straight from its
 * send buffer, which YHCCL's processes route through shared memory too) — b more per rank than
 * {@link DirectAllgather}, the price of not reading peers' user buffers. W = b·p + b·p² + 2·p·I
 * [YHCCL §4.3.3] decides NT stores for the copy-out; the copy-in is always temporal. Nobody reads a
 * user buffer but its owner, so a rank returns as soon as it has copied the last slice; its staging
 * buffer (its scratch of this parity) is reused two collectives later, after the runtime's lag check.
 * In place (send is my block of recv) my own slice is not copied out.
 */
public final class PipelinedAllgather extends AbstractAlgorithm {
    public static final String NAME = "pipelined";
    /** Slots of each rank's staging ring: double buffering. */
    static final int SLOTS = 2;

    public PipelinedAllgather() {
        super(Collective.ALLGATHER, NAME, "every rank stages slices of its block in a double buffer, all copy the previous slices out",
                "[YHCCL Alg. 4]");
    }

    /** W of [YHCCL §4.3.3] for blocks of {@code block} bytes. */
    static long workingSet(int p, long block, long slice) {
        return block * p + block * p * p + 2L * p * slice;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long block = bytes / p;
        Slicing sl = Slicing.of(block, p, m.defaultMaxSliceBytes());
        long ws = workingSet(p, block, sl.slice());
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyOut(m, block, ws);
        }
        // a rank does its n steps one after the other (the pipeline overlaps different ranks' copies, not one
        // rank's): per step one slice in and p slices out, then the hand-over (p−1 ARRIVEs and p−1 DONEs
        // polled), which sits between the copies and adds to the bandwidth-bound time
        long n = Math.max(1, sl.count());
        double copies = n * (CopyCost.copyIn(m, sl.slice(), ws) + CopyCost.copyOut(m, (long) p * sl.slice(), ws));
        double handOvers = n * (CopyCost.flag(m) + CopyCost.poll(m, 2 * (p - 1)));
        // DRAM: every send buffer read once, every receive buffer written once (the rings stay in cache)
        return m.callOverhead() + handOvers + Math.max(copies, CopyCost.dram(m, (long) p * block + (long) p * bytes, ws));
    }

    static Slicing slicing(CollectiveCall call) {
        return Slicing.of(call.bytes(), call.size(), call.team().maxSliceBytes());
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return call.size() == 1 ? 0 : slicing(call).ringBytes(SLOTS);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        long block = call.bytes();
        if (p == 1) {
            Transfers.copy(call, call.send(), 0, call.recv(), 0, block, false);
            return;
        }
        Slicing sl = slicing(call);
        if (sl.count() == 0) {
            // nothing to move, but every rank must still have entered (observesAllEntries)
            call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
            return;
        }
        boolean nt = call.copy().useNonTemporal(workingSet(p, block, sl.slice()), false);
        MemorySegment send = call.send();
        MemorySegment ring = call.scratch();
        for (long j = 0; j < sl.count(); j++) {
            if (j >= SLOTS) {
                for (int i = 1; i < p; i++) {
                    // acquire: pairs with peer's release of DONE j−2 (it has copied slot j mod 2 of everyone)
                    call.await((r + i) % p, ControlBlock.DONE, j - SLOTS);
                }
            }
            Transfers.copy(call, send, sl.offset(j), ring, (j % SLOTS) * sl.slice(), sl.length(j), false);
            // release: my slice j is staged; pairs with every peer's await of ARRIVE j in copyOut
            call.publish(ControlBlock.ARRIVE, j);
            if (j >= 1) {
                copyOut(call, sl, j - 1, nt);
            }
        }
        copyOut(call, sl, sl.count() - 1, nt);
    }

    /** Slice k of every block into my receive buffer, then DONE k. */
    private static void copyOut(CollectiveCall call, Slicing sl, long k, boolean nt) {
        int p = call.size();
        int r = call.rank();
        long block = sl.bytes();
        long off = sl.offset(k);
        long len = sl.length(k);
        long slot = (k % SLOTS) * sl.slice();
        MemorySegment recv = call.recv();
        for (int a = 0; a < p; a++) {
            if (a == r) {
                Transfers.copy(call, call.send(), off, recv, a * block + off, len, nt);
                continue;
            }
            // acquire: a's slice k is staged (and its scratch reference published)
            call.await(a, ControlBlock.ARRIVE, k);
            if (k == 0) {
                call.record("copy", a);
            }
            Transfers.copy(call, call.peerScratch(a), slot, recv, a * block + off, len, nt);
        }
        // release: I no longer read slot k mod 2 of anyone; pairs with their await before staging slice k+2
        call.publish(ControlBlock.DONE, k);
    }
}
