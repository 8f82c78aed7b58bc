package io.coll4j.kernel.algo.allreduce;

import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.Tiles;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * The last stage the two-level allreduces share ({@code tiled} [HMPI §2.4], {@code ma-socket} [YHCCL
 * §3.3]): inside one package rank {@code mates[i]} holds part i of the final result in its receive buffer;
 * every member copies the other parts from its mates, starting after its own part so the members read
 * different mates at once, then the team's DONE round ends the call.
 */
final class PackageMates {
    private PackageMates() {
    }

    /** My position in my package's member list. */
    static int indexOf(int[] mates, int rank) {
        for (int x = 0; x < mates.length; x++) {
            if (mates[x] == rank) {
                return x;
            }
        }
        throw new IllegalStateException("rank " + rank + " is not in its package's member list");
    }

    /**
     * The first stage: {@code partial[0, n) =} the fold of elements [off, off + n) of my package's send
     * buffers, in ascending rank order (the order {@code reproducible(true)} fixes).
     */
    static void foldPart(CollectiveCall call, int[] mates, long off, MemorySegment partial, long n) {
        int r = call.rank();
        call.foldStart();
        for (int m : mates) {
            if (m != r) {
                call.record("fold", m);
            }
            call.foldAdd(m == r ? call.send() : call.peerSend(m), off);
        }
        call.foldInto(partial, 0, n);
    }

    /**
     * Copies every part but mine ({@code i}) from its owner's receive buffer into mine, once the owner has
     * published {@code readyFlag} (acquire: the part is final there), then publishes DONE (release: I no
     * longer read anyone's buffers) and awaits every rank's.
     */
    static void copyPartsAndFinish(CollectiveCall call, int[] mates, int i, Tiles parts, int readyFlag, boolean nt) {
        long es = call.dtype().size();
        for (int d = 1; d < mates.length; d++) {
            int j = (i + d) % mates.length;
            int owner = mates[j];
            call.await(owner, readyFlag, 0);
            call.record("copy", owner);
            long o = parts.start(j) * es;
            Transfers.copy(call, call.peerRecv(owner), o, call.recv(), o, parts.length(j) * es, nt);
        }
        // release: pairs with every rank's final await of my DONE
        call.publish(ControlBlock.DONE, 0);
        call.awaitAllPeers(ControlBlock.DONE, 0);
    }
}
