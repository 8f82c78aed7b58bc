package io.coll4j.kernel.algo;

import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * The reduction half that the tree reduce and the tree allreduce share [HMPI §2.2, §2.6]: a node's one
 * k-ary pass over its own send buffer and its children's partials, the rank-ordered fold of every send
 * buffer at one rank (reproducible mode), and the model's price of the h levels up the tree. Where a
 * node's partial goes and what happens after the root has folded differ, and stay in the algorithms.
 */
public final class TreeFold {

    private TreeFold() {
    }

    /**
     * Starts a fold of my send buffer and the partials of {@code kids} (in tree order): a leaf's partial is
     * its send buffer, an interior node's its scratch, or, for messages carried {@code inline}, the payload
     * of the child's ARRIVE line. The caller has awaited every child's ARRIVE and finishes with
     * {@code foldInto}.
     */
    public static void ownAndChildren(CollectiveCall call, TreeShape tree, int[] kids, boolean inline) {
        call.foldStart();
        call.foldAdd(call.send(), 0);
        for (int kid : kids) {
            call.record("fold", kid);
            if (inline) {
                call.foldAdd(call.control(), call.inlinePayload(kid, ControlBlock.ARRIVE));
            } else {
                MemorySegment partial = tree.children(kid).length == 0 ? call.peerSend(kid) : call.peerScratch(kid);
                call.foldAdd(partial, 0);
            }
        }
    }

    /**
     * Starts a fold of every rank's send buffer in ascending rank order at rank {@code at} (the scalar left
     * fold, bitwise): the caller has awaited every peer's ANNOUNCE and finishes with {@code foldInto}.
     */
    public static void everySendBufferInRankOrder(CollectiveCall call, int at) {
        call.foldStart();
        for (int q = 0; q < call.size(); q++) {
            if (q != at) {
                call.record("fold", q);
            }
            call.foldAdd(q == at ? call.send() : call.peerSend(q), 0);
        }
    }

    /** a_α for the first line of a peer's buffer when the data is not in the flag line [HMPI §2.1: a + b·m]. */
    public static double firstLine(MachineModel m, long bytes) {
        return Transfers.inline(bytes) ? 0 : m.lineLatencySameL3();
    }

    /**
     * [HMPI Eq. 5, reduce half] h = ⌈log2 p⌉ levels of a_α + one k = 2 fold (binomial: one child per level
     * on the critical path; in DRAM two inputs read and the partial read for ownership and written:
     * B_α·4m), each fold starting with {@link #firstLine} past 48 bytes.
     */
    public static double levels(MachineModel m, int p, long bytes, long workingSet) {
        int h = 32 - Integer.numberOfLeadingZeros(p - 1);
        double level = m.lineLatencySameL3() + firstLine(m, bytes)
                + Math.max(m.foldTime(bytes, 2, workingSet), m.dramTime(4L * bytes, workingSet));
        return h * level;
    }
}
