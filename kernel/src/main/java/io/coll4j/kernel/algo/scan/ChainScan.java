package io.coll4j.kernel.algo.scan;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Slicing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.algo.Averaging;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.SlicedItems;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;

import java.lang.foreign.MemorySegment;

/**
 * Pipelined chain scan and exscan: rank r folds its predecessor's running prefix with its own vector,
 * slice by slice, and hands each slice on down a chain of ranks. None of the seed papers has a scan: this
 * one is coll4j's; it borrows only YHCCL's slice size rule (I = max(min(s/p, I_max), 64)) [YHCCL §5.1]. Each rank reads two vectors and writes one,
 * 3·s per rank against the direct scan's (r+1)·s, so it is the bandwidth algorithm; its latency is p − 1
 * hand-overs per slice down the chain.
 *
 * <p>Scan: {@code recv_r[k] = recv_(r−1)[k] op send_r[k]} (rank 0 copies its send). Exscan: rank r keeps
 * the inclusive prefix {@code S_r = S_(r−1) op send_r} in its scratch (rank 0's is its send buffer) and
 * writes {@code recv_r[k] = S_(r−1)[k]}, S_r computed first so an in-place buffer is read before it is
 * overwritten. Both are the scalar left fold over ranks in order, bitwise. Protocol: await rank r−1's
 * ARRIVE k (acquire: its slice k), fold, publish ARRIVE k (release); after the last slice publish DONE and
 * await rank r+1's DONE (it reads my buffers until then). The last rank's output is not re-read, so it
 * stores non-temporally iff W = 2·p·s exceeds the cache [YHCCL §4.2]; the others' are read at once by
 * their successor and stay temporal.
 *
 * <h2>As resumable steps (requests)</h2>
 * The chain, a slice at a time: item j carries slice j down the ranks in order, through a private accumulator
 * ({@link ItemWorker#prefix}: send_q of the slice is read before recv_q is written, so a rank in place loses
 * nothing), whichever worker claims it. Items are {@link ItemSlicing}'s (about four per rank, at least 4 KiB),
 * not the blocking chain's slices: a request's items are claimed from a shared counter, and each must be worth its
 * claim; the chain's hand-overs between ranks become the worker's own loop. AVG is divided per slice, rank r's
 * result by the r + 1 (exscan: r) contributions folded into it ({@link Averaging}). Small requests run
 * {@link DirectScan}'s staged parts.
 */
public final class ChainScan extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "chain";

    public ChainScan(Collective c) {
        super(c, NAME, "each rank folds its predecessor's prefix with its vector slice by slice, pipelined down the chain",
                "coll4j (no seed has a scan; slice size [YHCCL §5.1])");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long ws = 2L * p * bytes;
        if (p == 1) {
            return m.callOverhead() + m.copyTime(bytes, ws);
        }
        Slicing sl = Slicing.of(bytes, p, m.defaultMaxSliceBytes());
        long n = Math.max(1, sl.count());
        // the pipeline: n slices through the last rank, plus p − 1 slices to fill it; one two-source fold
        // and one hand-over per slice
        double perSlice = m.foldTime(sl.slice(), 2, ws) + CopyCost.flag(m);
        double dram = m.dramTime(3L * p * bytes, ws);
        return m.callOverhead() + 2 * CopyCost.flag(m) + Math.max((n + p - 1) * perSlice, dram);
    }

    private static boolean exclusive(CollectiveCall call) {
        return call.collective() == Collective.EXSCAN;
    }

    private static Slicing slicing(CollectiveCall call) {
        return Slicing.of(call.bytes(), call.size(), call.team().maxSliceBytes());
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        int r = call.rank();
        return exclusive(call) && r >= 1 && r <= call.size() - 2 ? call.bytes() : 0;
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return ranks == 1;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        int r = call.rank();
        boolean ex = exclusive(call);
        if (p == 1) {
            if (!ex) {
                Transfers.copy(call, call.send(), 0, call.recv(), 0, call.bytes(), false);
            }
            return;
        }
        Slicing sl = slicing(call);
        int es = call.dtype().size();
        boolean nt = r == p - 1 && call.copy().useNonTemporal(2L * p * call.bytes(), false);
        MemorySegment send = call.send();
        MemorySegment recv = call.recv();
        if (r == 0) {
            if (!ex) {
                for (long k = 0; k < sl.count(); k++) {
                    Transfers.copy(call, send, sl.offset(k), recv, sl.offset(k), sl.length(k), false);
                    // release: my slice k; pairs with rank 1's await of ARRIVE k
                    call.publish(ControlBlock.ARRIVE, k);
                }
            } else if (sl.count() > 0) {
                // my prefix is my send buffer, all of it ready: one release covers every slice
                call.publish(ControlBlock.ARRIVE, sl.count() - 1);
            }
        } else {
            MemorySegment prev = null;           // read at slice 0, once rank r−1's first release is acquired
            MemorySegment mine = ex && r < p - 1 ? call.scratch() : null;
            for (long k = 0; k < sl.count(); k++) {
                // acquire: pairs with rank r−1's release of its slice k
                call.await(r - 1, ControlBlock.ARRIVE, k);
                if (k == 0) {
                    call.record("fold", r - 1);
                    if (ex) {
                        prev = r == 1 ? call.peerSend(0) : call.peerScratch(r - 1);
                    } else {
                        prev = call.peerRecv(r - 1);
                    }
                }
                long off = sl.offset(k);
                long n = sl.length(k) / es;
                if (!ex) {
                    fold(call, prev, send, off, recv, n, nt);
                } else {
                    if (mine != null) {
                        fold(call, prev, send, off, mine, n, false);
                    }
                    Transfers.copy(call, prev, off, recv, off, sl.length(k), nt);
                }
                if (r < p - 1) {
                    // release: my slice k; pairs with rank r+1's await of ARRIVE k
                    call.publish(ControlBlock.ARRIVE, k);
                }
            }
            // release: I no longer read rank r−1's buffers; pairs with its await below
            call.publish(ControlBlock.DONE, 0);
        }
        if (r < p - 1) {
            // acquire: rank r+1 no longer reads my buffers
            call.await(r + 1, ControlBlock.DONE, 0);
        }
    }

    /** {@code dst[off..] = a[off..] op b[off..]} for n elements (dst may be b: in place). */
    private static void fold(CollectiveCall call, MemorySegment a, MemorySegment b, long off, MemorySegment dst, long n,
                             boolean nt) {
        call.foldStart();
        call.foldAdd(a, off);
        call.foldAdd(b, off);
        if (nt) {
            call.foldIntoNonTemporal(dst, off, n);
        } else {
            call.foldInto(dst, off, n);
        }
    }

    @Override
    public Steps steps(StepCall call) {
        return new Items(call);
    }

    /** Slice j of every rank's result, carried down the ranks by one worker (see the class comment). */
    private static final class Items extends SlicedItems {
        Items(StepCall c) {
            super(c);
        }

        @Override
        protected void slice(ItemWorker w, long first, long n, MemorySegment[] send, MemorySegment[] recv) {
            w.prefix(call.reducer(), send, recv, p, first * es, n, es, call.collective() == Collective.EXSCAN);
            for (int r = 0; r < p; r++) {
                call.divide(r, recv[r], first * es, n);
            }
        }
    }
}
