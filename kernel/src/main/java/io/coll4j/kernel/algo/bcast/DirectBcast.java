package io.coll4j.kernel.algo.bcast;

import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.ItemWorker;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.SlicedItems;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.Steps;
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
 * Direct broadcast: thread ranks share one address space, so every receive buffer is filled straight
 * from the root's buffer — one copy per receiver, the minimum [HMPI §1 "only one copy, the minimum
 * possible"] — and the root, which has nothing to receive, does a share of those copies itself.
 *
 * <pre>
 * x = 0 below {@link #SHARE_MIN_BYTES}, else s/p rounded up to whole lines      (the root's share)
 * receiver q, the i-th after the root (i = (q − root) mod p, 1..p−1):
 *     await root's ANNOUNCE              // its buffer is ready and published
 *     copy root.buf[x, s) → q.buf[x, s)  (NT iff W &gt; C)
 *     publish DONE 0                     // release: I no longer read the root's buffer
 *     if x &gt; 0: await root's ARRIVE ≥ i    // the root has written q.buf[0, x)
 * root:
 *     while receivers are left: take the next receiver in order and every later one that has already
 *         announced (a group); for each slice of [0, x): copy it into every receiver of the group;
 *         publish ARRIVE i for each receiver i of the group, in order
 *     await DONE of every receiver       // my buffer is mine again
 * </pre>
 *
 * <p>Sharing the copies: (p−1)·s bytes must be written whatever happens. Receivers alone take s each
 * while the root idles; with the root taking x = s/p of every receive buffer each rank writes
 * (p−1)·s/p — half the critical path at p = 2, where "both cores share the one copy". The root's part is
 * strip-mined over the receivers that are present (slices of I_max), so it is read from memory once and
 * from L1/L2 for every further receiver; waiting for stragglers is not needed to start, and a
 * receiver waits only for the root's pass over the receivers up to itself.
 *
 * <p>Large messages: every receiver reads [x, s) of the root's buffer in the same ascending order, so
 * when W = p·s exceeds the cache the first reader of a line brings it into the shared L3 and the others
 * hit it there — HMPI's synergistic prefetching [HMPI §2.2]. Copy-out uses non-temporal stores iff
 * W &gt; C [YHCCL §4.2]: the receive buffers are not re-read soon, and streaming them past the cache
 * keeps the root's lines in L3 for the slower readers (a lag of up to about C bytes is absorbed, so the
 * readers need no lock-step).
 *
 * <p>Buffers and flags: the root's buffer is read by the receivers until their DONE, so the root waits
 * for every DONE before returning; a receiver's buffer is written by the root until its ARRIVE step,
 * so the receiver waits for that. The root's writes into a receive buffer happen only after the
 * receiver's ANNOUNCE was acquired (its buffer is published and its call matches).
 *
 * <p>As resumable steps (requests): the same copies straight from the root's buffer, cut into items
 * ({@link ItemSlicing}); item j copies slice j of the root's buffer into every other rank's buffer, whoever
 * claims it (the root or a receiver), NT iff W = 2·p·s exceeds the cache [YHCCL §4.2]. The round completes for
 * every rank at once, so the root's buffer is read by no item once any request is complete.
 */
public final class DirectBcast extends AbstractAlgorithm implements Resumable {
    public static final String NAME = "direct";
    /**
     * Below this message size the root does not share the copies: a receiver would wait one more flag
     * hand-over (~0.1–0.3 µs) to save copying s/p bytes, which at 16 KiB and p = 2 is about as long
     * (8 KiB at ~30 GB/s in cache).
     */
    public static final long SHARE_MIN_BYTES = 16 * 1024;

    public DirectBcast() {
        super(Collective.BCAST, NAME, "receivers copy straight from the root's buffer, the root copies a share into theirs",
                "[HMPI §1, §2.2]");
    }

    /** The root's share x of every receive buffer: s/p in whole lines, 0 for small messages. */
    static long rootShare(long bytes, int p) {
        if (p == 1 || bytes < SHARE_MIN_BYTES) {
            return 0;
        }
        return Math.min(bytes, (bytes / p + Slicing.LINE - 1) / Slicing.LINE * Slicing.LINE);
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return 0;
        }
        long ws = (long) p * bytes;
        long x = rootShare(bytes, p);
        // critical path: the larger of the root's (p−1)·x and a receiver's s − x, all copy-out
        double copies = CopyCost.copyOut(m, Math.max((p - 1) * x, bytes - x), ws);
        // DRAM: the root's buffer read once (synergy), p−1 receive buffers written
        double dram = CopyCost.dram(m, (long) p * bytes, ws);
        double sync = 2 * CopyCost.flag(m) + CopyCost.poll(m, p - 1) + (x > 0 ? CopyCost.flag(m) : 0);
        return m.callOverhead() + sync + Math.max(copies, dram);
    }

    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return rank == root;
    }

    @Override
    public void run(CollectiveCall call) {
        int p = call.size();
        if (p == 1) {
            return;
        }
        long bytes = call.bytes();
        long x = rootShare(bytes, p);
        boolean nt = call.copy().useNonTemporal((long) p * bytes, false);
        int root = call.root();
        int r = call.rank();
        if (r == root) {
            if (x > 0) {
                copyRootShare(call, x, nt);
            }
            // acquire: every receiver has finished reading my buffer
            call.awaitAllPeers(ControlBlock.DONE, 0);
            return;
        }
        // acquire: the root's buffer (published with its announce) is ready
        call.await(root, ControlBlock.ANNOUNCE, 0);
        call.record("copy", root);
        Transfers.copy(call, call.peerRecv(root), x, call.recv(), x, bytes - x, nt);
        // release: I no longer read the root's buffer; pairs with the root's awaitAllPeers(DONE)
        call.publish(ControlBlock.DONE, 0);
        if (x > 0) {
            // acquire: the root's writes of my buf[0, x); pairs with its ARRIVE for me
            call.await(root, ControlBlock.ARRIVE, (r - root + p) % p);
        }
    }

    /** The root writes [0, x) of its buffer into every receive buffer, strip-mined over groups of present receivers. */
    private static void copyRootShare(CollectiveCall call, long x, boolean nt) {
        int p = call.size();
        int root = call.rank();
        MemorySegment buf = call.recv();
        Slicing sl = Slicing.of(x, 1, call.team().maxSliceBytes());
        int next = 1;                                    // receivers are root+1, root+2, … (mod p)
        while (next < p) {
            // acquire: receiver `next` entered this collective with a matching call; its buffer reference is published
            call.await((root + next) % p, ControlBlock.ANNOUNCE, 0);
            int end = next + 1;
            while (end < p && call.test((root + end) % p, ControlBlock.ANNOUNCE, 0)) {
                end++;
            }
            for (long j = 0; j < sl.count(); j++) {
                for (int i = next; i < end; i++) {
                    MemorySegment dst = call.peerRecv((root + i) % p);
                    Transfers.copy(call, buf, sl.offset(j), dst, sl.offset(j), sl.length(j), nt);
                }
            }
            for (int i = next; i < end; i++) {
                // release: receiver i's buf[0, x) is written; pairs with its await of ARRIVE i
                call.publish(ControlBlock.ARRIVE, i);
            }
            next = end;
        }
    }

    @Override
    public Steps steps(StepCall call) {
        return new Items(call);
    }

    /** The direct copies as items (see the class comment). */
    private static final class Items extends SlicedItems {
        private final int root;
        private final io.coll4j.bindings.copy.Copy copy;
        private final boolean nonTemporal;

        Items(StepCall c) {
            super(c);
            this.root = c.root();
            this.copy = c.copy();
            this.nonTemporal = copy.useNonTemporal(2L * p * count * es, false);
        }

        @Override
        protected void slice(ItemWorker w, long first, long n, MemorySegment[] send, MemorySegment[] recv) {
            long bytes = n * es;
            for (int s = 0; s < p; s++) {
                if (s != root) {
                    ItemWorker.copy(copy, send[root], first * es, recv[s], first * es, bytes, nonTemporal);
                }
            }
        }
    }
}
