package io.coll4j.kernel.algo.allreduce;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

/**
 * Replicated allreduce: every rank folds the WHOLE vector out of every rank's send buffer (read in place,
 * thread ranks share one address space [HMPI §1]) straight into its own receive buffer, in rank order.
 *
 * <p>Why, next to {@link PushAllreduce}: here the last writer of every line of a rank's result is the rank
 * that reads it. Push splits the fold p ways, but the owner of a block writes it into its peers' receive
 * buffers, so every result line a rank then reads was last written by another core and has to be pulled
 * over (a line hand-over per 64 bytes, [HMPI §2.1] a_α + m/b). With the result consumed, as an application
 * does, that pull costs as much as the fold saved; here a rank pulls only the peers' send buffers, which
 * the peers did not write during the call (they stay shared in the caches call after call), and its own
 * result stays in its L1/L2. The price: p times the fold work of push, so it is a small/medium-message
 * algorithm (in cache, p small).
 *
 * <p>Protocol (rank r): await every ANNOUNCE (acquire: every send buffer); fold send_0..send_{p−1} into
 * recv_r (in place: into my scratch, my send buffer is still read by the peers; beyond the cache with NT
 * stores, the native streaming fold); publish DONE; await every
 * DONE (nobody reads my send buffer any more); in place, copy scratch to recv_r. Every element is the
 * scalar left fold in ascending rank order: bitwise the reference on every rank.
 */
public final class ReplicatedAllreduce extends AbstractAlgorithm {
    public static final String NAME = "replicated";

    public ReplicatedAllreduce() {
        super(Collective.ALLREDUCE, NAME, "every rank folds the whole vector from all send buffers into its own recv"
                + " (the reader writes its result)", "[HMPI §1, §2.1]");
    }

    /**
     * A k = p fold of the whole vector per rank, two hand-overs. W = p·s + s. The peers' sends are read by
     * the fold itself, at the fold's in-cache rate, which {@code tune} measures with one source written by
     * another core before the fold: a separate copy-in of them on top counted those lines twice (p = 2,
     * 64 KiB: 4.6 µs predicted, 2.3 measured). Nothing for the consumed result: the reader wrote it.
     *
     * <p>DRAM beyond the cache (HMPI's B·d·m counted as YHCCL counts data access [YHCCL §3.4, §4.1]): the
     * ranks fold the same send lines in the same order, starting together after the announce, so each comes
     * from DRAM once and the other ranks find it in a cache on the way (p·s read, not p²·s); the p results are
     * written once each, with NT stores (p·s). The model used to charge p²·s — every rank's reads and no writes
     * — for a fold that stored temporally: the rows beyond the cache measured over it, as the 6s of shared
     * reads plus results read for ownership and written back predict (the numbers: docs/measurements.md). Streaming
     * the results takes the read for ownership away: 2ps, push's volume.
     */
    @Override
    public double cost(MachineModel m, int p, long bytes) {
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyIn(m, bytes, 2 * bytes);
        }
        long ws = workingSet(p, bytes);
        double fold = m.foldTime(bytes, p, ws);
        double sync = 2 * CopyCost.flag(m) + 2 * CopyCost.poll(m, p - 1);
        return m.callOverhead() + sync + Math.max(fold, CopyCost.dram(m, dramBytes(p, bytes), ws));
    }

    /** W of [YHCCL §4.2]: the p send buffers and my result. */
    static long workingSet(int p, long bytes) {
        return (long) p * bytes + bytes;
    }

    /** DRAM traffic of one call beyond the cache, all ranks: the p sends read once, the p results streamed out once. */
    static long dramBytes(int p, long bytes) {
        return 2L * p * bytes;
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return call.inPlace() ? call.bytes() : 0;
    }

    @Override
    public void run(CollectiveCall call) {
        if (Transfers.alone(call)) {
            return;
        }
        // beyond the cache the result goes out with NT stores: a temporal fold would read every result line
        // for ownership first (p·s more DRAM traffic) for a result that is not in the cache when read anyway;
        // in place the fold goes to scratch, which the copy below re-reads at once: temporal
        boolean nt = !call.inPlace() && call.copy().useNonTemporal(workingSet(call.size(), call.bytes()), false);
        foldAll(call, call.inPlace() ? call.scratch() : call.recv(), nt);
    }

    /**
     * Folds every rank's send buffer in rank order into {@code dst} (my receive buffer, or my scratch when
     * it is my send buffer), then waits until nobody reads my send buffer and copies scratch out. Also the
     * {@code reproducible(true)} path of {@link DisseminationAllreduce}. With {@code nonTemporal} the fold
     * streams into {@code dst} (the native streaming fold, same order and bits; it ends with {@code sfence},
     * so its stores are ordered before the DONE release below).
     */
    static void foldAll(CollectiveCall call, java.lang.foreign.MemorySegment dst, boolean nonTemporal) {
        int p = call.size();
        // acquire: every rank's send buffer, published with its announce
        call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
        call.foldStart();
        for (int q = 0; q < p; q++) {
            if (q != call.rank()) {
                call.record("fold", q);
            }
            call.foldAdd(q == call.rank() ? call.send() : call.peerSend(q), 0);
        }
        if (nonTemporal) {
            call.foldIntoNonTemporal(dst, 0, call.count());
        } else {
            call.foldInto(dst, 0, call.count());
        }
        // release: I no longer read anyone's send buffer; pairs with the peers' awaitAllPeers(DONE)
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
        Transfers.copy(call, dst, 0, call.recv(), 0, call.bytes(), false);
    }

    /** Every rank waits for every ANNOUNCE. */
    @Override
    public boolean observesAllEntries(int rank, int root, int ranks) {
        return true;
    }
}
