package io.coll4j.kernel.algo.allgather;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.algo.TeamLayout;
import io.coll4j.kernel.algo.Transfers;
import io.coll4j.kernel.algo.CopyCost;
import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Allgather through one shared copy of the result per node [MPI+MPI §4.1, Fig. 3b/4]: the gathered
 * vector is built once, in a buffer every rank of the node reads, by each rank writing its own block
 * into it; leaders exchange blocks between nodes over a "bridge"; then the ranks use the one copy.
 *
 * <h2>What "one shared copy" means for thread ranks</h2>
 * MPI+MPI needs {@code MPI_Win_allocate_shared} to give processes a common buffer; thread ranks share
 * the whole address space, so every buffer is already "shared" — what the algorithm adds is a buffer
 * that holds the <em>complete</em> result once. Here "node" is a package (the unit whose ranks share an
 * LLC and a memory controller; {@link TeamLayout}), its leader is the package master (lowest rank), and
 * the shared copy is the leader's scratch (p·b bytes, NUMA-local to the package). MPI+MPI's
 * applications then read the shared buffer in place and copy nothing; coll4j's {@code allgather}
 * contract fills every rank's {@code recv}, so each rank finally copies the shared result into its own
 * receive buffer. The copies, per rank, with b the block (send) size:
 * <pre>
 * 1. copy send → shared[r·b]           b bytes, temporal (re-read at once)        publish ARRIVE 0
 * 2. one package: await every rank's ARRIVE 0
 *    several packages (the bridge): the leader awaits its members' ARRIVE 0, then copies every foreign
 *    block from that package's shared copy into its own (b per foreign rank, contiguous runs in one
 *    copy, temporal) and publishes RELEASE 0; members await their leader's RELEASE 0
 * 3. copy shared → recv                p·b bytes in one contiguous copy, NT iff W &gt; C
 *                                      (in place, my own block is skipped: (p−1)·b)
 * </pre>
 * Compared with {@link DirectAllgather} (p·b per rank, straight from the owners' send buffers) this is
 * b more per rank (step 1), plus (p−q)·b per leader of a package of q ranks — in exchange: no rank ever
 * reads another rank's user buffer, so nobody waits for DONE acknowledgements before returning (no
 * closing barrier); each rank's copy-out is one contiguous stream instead of p block copies; and only
 * one rank per package reads across the package link, once per foreign block, where direct has every
 * rank read every foreign block across it. The shared copy is the only extra memory: p·b on each
 * leader (per parity), reused two collectives later after the runtime's lag check.
 *
 * <p>W = p·b (send buffers) + G·p·b (G shared copies) + p·p·b (receive buffers) decides the copy-out's
 * NT stores [YHCCL §4.2]; building the shared copy is always temporal.
 */
public final class SharedCopyAllgather extends AbstractAlgorithm {
    public static final String NAME = "shared-copy";

    public SharedCopyAllgather() {
        super(Collective.ALLGATHER, NAME, "ranks build one shared result per package, leaders bridge packages, each copies it out",
                "[MPI+MPI §4.1]");
    }

    /** W for blocks of {@code block} bytes and {@code copies} shared copies. */
    static long workingSet(int p, long block, int copies) {
        return (long) p * block * (1 + copies + p);
    }

    @Override
    public double cost(MachineModel m, int p, long bytes) {
        long block = bytes / p;
        long ws = workingSet(p, block, 1);
        if (p == 1) {
            return m.callOverhead() + CopyCost.copyOut(m, block, ws);
        }
        double copies = CopyCost.copyIn(m, block, ws) + CopyCost.copyOut(m, bytes, ws);
        // DRAM: sends read once, the shared copy written back and read once (synergy), receive buffers written
        double dram = CopyCost.dram(m, (long) p * block + 2L * bytes + (long) p * bytes, ws);
        // hand-overs: the leader's ANNOUNCE, my block written into lines of the leader's scratch (read for
        // ownership from the core that last wrote them), and the ARRIVEs before the copy-out
        return m.callOverhead() + 3 * CopyCost.flag(m) + CopyCost.poll(m, p - 1) + Math.max(copies, dram);
    }

    @Override
    public long scratchBytes(CollectiveCall call) {
        TeamLayout layout = call.team().layout();
        int r = call.rank();
        boolean leader = call.size() > 1 && layout.packageMaster(layout.packageGroupOf(r)) == r;
        return leader ? call.bytes() * call.size() : 0;
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
        TeamLayout layout = call.team().layout();
        int g = layout.packageGroupOf(r);
        int leader = layout.packageMaster(g);
        boolean bridged = layout.packageCount() > 1;
        if (r != leader) {
            // acquire: the leader's scratch (the shared copy) is published with its announce
            call.await(leader, ControlBlock.ANNOUNCE, 0);
        }
        MemorySegment shared = r == leader ? call.scratch() : call.peerScratch(leader);
        Transfers.copy(call, call.send(), 0, shared, r * block, block, false);
        // release: my block is in the shared copy; pairs with the awaits of step 2
        call.publish(ControlBlock.ARRIVE, 0);
        if (!bridged) {
            call.awaitAllPeers(ControlBlock.ARRIVE, 0);
        } else if (r == leader) {
            bridge(call, layout, g, shared, block);
            // release: the shared copy is complete; pairs with my members' await
            call.publish(ControlBlock.RELEASE, 0);
        } else {
            call.await(leader, ControlBlock.RELEASE, 0);
        }
        if (r != leader) {
            call.record("copy", leader);
        }
        boolean nt = call.copy().useNonTemporal(workingSet(p, block, layout.packageCount()), false);
        MemorySegment recv = call.recv();
        if (call.send() != null && Aliasing.sameStart(call.send(), 0, recv, r * block)) {
            // in place: my block is already where it belongs
            Transfers.copy(call, shared, 0, recv, 0, r * block, nt);
            Transfers.copy(call, shared, (r + 1) * block, recv, (r + 1) * block, (p - r - 1) * block, nt);
        } else {
            Transfers.copy(call, shared, 0, recv, 0, p * block, nt);
        }
    }

    /** The leader of package g: waits for its members, then copies every foreign block into its shared copy. */
    private static void bridge(CollectiveCall call, TeamLayout layout, int g, MemorySegment shared, long block) {
        int p = call.size();
        int r = call.rank();
        for (int m : layout.packageMembers(g)) {
            if (m != r) {
                call.await(m, ControlBlock.ARRIVE, 0);
            }
        }
        for (int first = 0; first < p; ) {
            int h = layout.packageGroupOf(first);
            if (h == g) {
                first++;
                continue;
            }
            int end = first;
            while (end < p && layout.packageGroupOf(end) == h) {
                // acquire: rank end's block is in its package's shared copy
                call.await(end, ControlBlock.ARRIVE, 0);
                end++;
            }
            int foreignLeader = layout.packageMaster(h);
            call.await(foreignLeader, ControlBlock.ANNOUNCE, 0);
            call.record("copy", foreignLeader);
            Transfers.copy(call, call.peerScratch(foreignLeader), first * block, shared, first * block,
                    (end - first) * block, false);
            first = end;
        }
    }
}
