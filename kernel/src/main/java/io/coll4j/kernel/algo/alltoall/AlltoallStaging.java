package io.coll4j.kernel.algo.alltoall;

import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * In-place alltoall(v) (MPI_IN_PLACE: send and receive buffer are one): a rank's outgoing blocks would be
 * overwritten by incoming ones before their readers got them, so an in-place rank first copies its buffer
 * (the send extent) into its scratch and publishes ARRIVE; peers read its outgoing blocks from there, and
 * push writers wait for that ARRIVE before writing into its buffer. Out of place nothing is staged.
 */
final class AlltoallStaging {
    private AlltoallStaging() {
    }

    /** Scratch an in-place rank needs: its send extent. */
    static long scratchBytes(CollectiveCall call) {
        BlockLayout me = call.blocks();
        return call.size() > 1 && me.inPlace() ? me.sendExtent(call.size()) * call.dtype().size() : 0;
    }

    /** Stages my outgoing blocks when in place (then publishes ARRIVE); returns where my outgoing blocks are. */
    static MemorySegment stage(CollectiveCall call) {
        BlockLayout me = call.blocks();
        if (!me.inPlace() || call.size() == 1) {
            return call.send();
        }
        long bytes = me.sendExtent(call.size()) * call.dtype().size();
        Transfers.copy(call, call.send(), 0, call.scratch(), 0, bytes, false);
        // release: my outgoing blocks are staged; pairs with the peers' await of my ARRIVE
        call.publish(ControlBlock.ARRIVE, 0);
        return call.scratch();
    }

    /** Where peer j's outgoing blocks are; for an in-place peer after its ARRIVE (acquire). */
    static MemorySegment peerSource(CollectiveCall call, int j, BlockLayout pj) {
        if (pj.inPlace()) {
            call.await(j, ControlBlock.ARRIVE, 0);
            return call.peerScratch(j);
        }
        return call.peerSend(j);
    }

    /** W of an alltoall: every rank's send and receive buffers. */
    static long workingSet(CollectiveCall call) {
        BlockLayout me = call.blocks();
        int p = call.size();
        return (long) p * (me.sendTotal(p) + me.recvTotal(p)) * call.dtype().size();
    }
}
