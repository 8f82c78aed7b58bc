package io.coll4j.kernel.algo.bcast;

import io.coll4j.kernel.algo.Slicing;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Pipelined broadcast through a double buffer [YHCCL Alg. 3, §4.3.2]: the message is cut into slices
 * ({@link Slicing}: I = max(min(s/p, I_max), 64)); the root copies slice j into slot j mod 2 of its
 * staging buffer while the receivers copy slice j−1 out of the other slot.
 *
 * <pre>
 * root:      for j in 0..n−1:
 *                if j ≥ 2: await DONE ≥ j−2 of every receiver     // nobody still reads slot j mod 2
 *                copy buf[j] → slot[j mod 2]   (temporal: re-read at once)
 *                publish ARRIVE j                                 // release: slice j is staged
 * receiver:  for j in 0..n−1:
 *                await root's ARRIVE ≥ j
 *                copy slot[j mod 2] → buf[j]   (NT iff W &gt; C)
 *                publish DONE j                                   // release: slot j mod 2 is free for j+2
 * </pre>
 * Steps are slice indices, so every line's stamps rise in program order. YHCCL synchronises the whole
 * node after every step ("Sync-intra-node"); here the hand-over is point to point — the root waits
 * only for the acknowledgements of the slot it is about to overwrite, a receiver only for the slice it
 * copies next — so a slow receiver holds the root back by at most two slices and no one else.
 *
 * <p>Copies: the root writes s bytes into its staging buffer once; every receiver copies s bytes out —
 * (p−1)·s + s in all, one copy per byte more than {@link DirectBcast}, which is what processes without a
 * shared address space must pay and thread ranks need not. The staging double buffer (2·I in the
 * root's scratch, NUMA-local to the root) stays in cache; W = s + s·(p−1) + 2·I [YHCCL §4.3.2] decides
 * NT stores for the copy-out (the copy-in is always temporal). Messages of at most 48 bytes travel in
 * the payload of the root's ARRIVE line instead (one slice, no scratch).
 *
 * <p>Buffers: receivers read only the root's scratch, never its user buffer, so the root returns as soon
 * as it has staged the last slice; its scratch of this parity is reused two collectives later, after the
 * runtime's lag check. A receiver's buffer is written only by itself.
 */
public final class PipelinedBcast extends AbstractAlgorithm {
    public static final String NAME = "pipelined";
    /** Slots of the staging ring: double buffering. */
    static final int SLOTS = 2;

    public PipelinedBcast() {
        super(Collective.BCAST, NAME, "root stages slices in a double buffer while receivers copy the previous slice out",
                "[YHCCL Alg. 3]");
    }

    /** W of [YHCCL §4.3.2]: the root's buffer, the p−1 receive buffers and the double buffer. */
    static long workingSet(int p, long bytes, long slice) {
        return bytes + bytes * (p - 1) + 2 * slice;
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return 0;
        }
        Slicing sl = Slicing.of(bytes, p, m.defaultMaxSliceBytes());
        long ws = workingSet(p, bytes, sl.slice());
        // a two-stage pipeline over n slices: the first copy-in and the last copy-out alone, the n − 1 slices
        // between at the slower stage's pace (it was (n + 1) times the slower stage: at p = 2 every message up to
        // 2·I_max is two slices, priced three copy-outs where the receiver makes two, 35–300% over);
        // every slice is handed over root -> receivers (and, from the third, acknowledged back): those
        // latencies sit between the copies, so they add to the bandwidth-bound time instead of hiding in it
        long n = Math.max(1, sl.count());
        // (a receiver's copy-out reads the slice the root staged just before: pulled a line transfer each [HMPI §2.1],
        // whatever W is — the ring of slices stays in cache)
        double in = CopyCost.copyIn(m, sl.slice(), ws);
        double out = CopyCost.copyOut(m, sl.slice(), ws) + CopyCost.peerWritten(m, sl.slice(), 2 * sl.slice(), 2L * sl.slice());
        double handOvers = n * (CopyCost.flag(m) + CopyCost.poll(m, p - 1));
        // DRAM: the root's buffer is read once, every receive buffer written once (the ring stays in cache)
        return m.callOverhead() + handOvers + Math.max(in + (n - 1) * Math.max(in, out) + out,
                CopyCost.dram(m, (long) p * bytes, ws));
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        if (call.size() == 1 || call.rank() != call.root() || Transfers.inline(call.bytes())) {
            return 0;
        }
        return slicing(call).ringBytes(SLOTS);
    }

    static Slicing slicing(CollectiveCall call) {
        return Slicing.of(call.bytes(), call.size(), call.team().maxSliceBytes());
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return ranks == 1;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        long bytes = call.bytes();
        if (p == 1 || bytes == 0) {
            return;
        }
        if (Transfers.inline(bytes)) {
            runInline(call, bytes);
            return;
        }
        Slicing sl = slicing(call);
        if (call.rank() == call.root()) {
            stageSlices(call, sl);
        } else {
            copySlicesOut(call, sl);
        }
    }

    private static void stageSlices(CollectiveCall call, Slicing sl) {
        int p = call.size();
        int r = call.rank();
        MemorySegment buf = call.recv();
        MemorySegment ring = call.scratch();
        for (long j = 0; j < sl.count(); j++) {
            if (j >= SLOTS) {
                for (int i = 1; i < p; i++) {
                    // acquire: pairs with the receiver's release of DONE j−2 (it no longer reads this slot)
                    call.await((r + i) % p, ControlBlock.DONE, j - SLOTS);
                }
            }
            Transfers.copy(call, buf, sl.offset(j), ring, (j % SLOTS) * sl.slice(), sl.length(j), false);
            // release: slice j is staged; pairs with the receivers' await of ARRIVE j
            call.publish(ControlBlock.ARRIVE, j);
        }
    }

    private static void copySlicesOut(CollectiveCall call, Slicing sl) {
        int root = call.root();
        boolean nt = call.copy().useNonTemporal(workingSet(call.size(), sl.bytes(), sl.slice()), false);
        MemorySegment buf = call.recv();
        MemorySegment ring = null;
        for (long j = 0; j < sl.count(); j++) {
            call.await(root, ControlBlock.ARRIVE, j);
            if (ring == null) {
                ring = call.peerScratch(root);       // valid once a stamp of this collective from the root is acquired
                call.record("copy", root);
            }
            Transfers.copy(call, ring, (j % SLOTS) * sl.slice(), buf, sl.offset(j), sl.length(j), nt);
            // release: I no longer read slot j mod 2; pairs with the root's await before it stages slice j+2
            call.publish(ControlBlock.DONE, j);
        }
    }

    /** One slice in the root's ARRIVE payload, as {@link FlatBcast} does for small messages. */
    private static void runInline(CollectiveCall call, long bytes) {
        int root = call.root();
        long off = call.inlinePayload(root, ControlBlock.ARRIVE);
        if (call.rank() == root) {
            Transfers.copy(call, call.recv(), 0, call.control(), off, bytes, false);
            // release: the message in my ARRIVE payload; pairs with the receivers' await
            call.publish(ControlBlock.ARRIVE, 0);
            return;
        }
        call.await(root, ControlBlock.ARRIVE, 0);
        call.record("copy", root);
        Transfers.copy(call, call.control(), off, call.recv(), 0, bytes, false);
    }
}
