package io.coll4j.kernel.algo.allgather;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * The allgather of MPI+MPI §4.1 as the paper means it: ONE copy of the gathered result per node, which
 * every rank reads in place [MPI+MPI §4.1, Fig. 3b]. Each rank copies its block into the shared result
 * (rank 0's scratch: b bytes, temporal) and publishes ARRIVE; once every rank's ARRIVE is seen, the call
 * returns a read-only view of the p·b bytes ({@code Rank.allgatherShared}). Nothing is copied out.
 *
 * <p>What it saves, per call with blocks of b bytes: an {@code allgather} into p receive buffers writes
 * p·(p·b) bytes (and reads as much); the shared view writes p·b once — (p − 1)·p·b bytes of copies and
 * (p − 1) receive buffers of p·b fewer per node: the copies MPI+MPI removes [MPI+MPI §4.1]. That this is
 * faster is measured there only up to 32768 doubles, 256 KB [MPI+MPI §5.1, Fig. 7]; the paper leaves larger
 * messages undiscussed [MPI+MPI §7].
 *
 * <p>Validity: the view is rank 0's scratch of this collective's parity. Rank 0 writes that buffer again
 * only in collective s + 2, which it starts only after every rank has entered s + 1 (the runtime's lag
 * check) — so a rank's view stays intact until the rank itself starts its next collective on the team;
 * after that it may show a later collective's data, or throw {@link IllegalStateException} once the
 * scratch has been reallocated. The view is read-only: writes throw.
 *
 * <p>Protocol: await rank 0's ANNOUNCE (it publishes the scratch), copy, publish ARRIVE 0 (release: my
 * block is in the shared result), await every rank's ARRIVE 0. Nobody reads another rank's buffers, so no
 * DONE round. Not chosen by the selector (its result is not in a receive buffer): {@code supports} is
 * false, and {@code allgather} never runs it.
 */
public final class SharedViewAllgather extends AbstractAlgorithm {
    public static final String NAME = "shared-view";
    /**
     * The root word of its signature: a rank calling {@code allgatherShared} while another calls
     * {@code allgather} (same kind, count and dtype otherwise) is reported as a mismatch.
     */
    public static final int SIGNATURE_ROOT = 0x7FFF_FFFE;
    /** The rank whose scratch holds the shared result. */
    public static final int HOLDER = 0;

    public SharedViewAllgather() {
        super(Collective.ALLGATHER, NAME, "each rank writes its block into one shared result and reads it in place (read-only view)",
                "[MPI+MPI §4.1]");
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long block = bytes / Math.max(1, p);
        long ws = (long) p * block * 2;
        return m.callOverhead() + 2 * CopyCost.flag(m) + CopyCost.poll(m, p - 1) + CopyCost.copyIn(m, block, ws);
    }

    /** Never picked for an {@code allgather} into receive buffers. */
    @Override
    public boolean supports(int ranks, long count, io.coll4j.reductions.DType dtype, io.coll4j.reductions.Op op) {
        return false;
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        return call.rank() == HOLDER ? call.bytes() * call.size() : 0;
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
        if (block == 0) {
            call.awaitAllPeers(ControlBlock.ANNOUNCE, 0);
            return;
        }
        if (r != HOLDER) {
            // acquire: the holder's scratch (the shared result) is published with its announce
            call.await(HOLDER, ControlBlock.ANNOUNCE, 0);
            call.record("write-shared", HOLDER);
        }
        Transfers.copy(call, call.send(), 0, shared(call), r * block, block, false);
        if (p > 1) {
            // release: my block is in the shared result; pairs with every rank's await below
            call.publish(ControlBlock.ARRIVE, 0);
            call.awaitAllPeers(ControlBlock.ARRIVE, 0);
        }
    }

    /** The shared result: the holder's scratch of this call's parity (the shared-view allreduce uses it too). */
    public static MemorySegment shared(CollectiveCall call) {
        return call.rank() == HOLDER ? call.scratch() : call.peerScratch(HOLDER);
    }

    /** The read-only view of the result of the call that just ran on this rank (empty for 0 elements). */
    public static MemorySegment view(CollectiveCall call) {
        return viewOf(call, call.bytes() * call.size());
    }

    /** A read-only view of the first {@code bytes} of the shared result (an empty one for 0 bytes). */
    public static MemorySegment viewOf(CollectiveCall call, long bytes) {
        if (bytes == 0) {
            return MemorySegment.ofArray(new byte[0]).asReadOnly();
        }
        return shared(call).asSlice(0, bytes).asReadOnly();
    }
}
