package io.coll4j;

import io.coll4j.topology.Fallbacks;
import io.coll4j.topology.Placement;
import io.coll4j.topology.PlacementPlan;
import io.coll4j.topology.Topology;

/**
 * The placement of a process's ranks when several processes of one job share the host. Under MPI, mpirun places the
 * processes (--bind-to, --map-by) and the ranks are not bound. A shared-mapping job ({@code processes(n, index)}, no
 * launcher that binds) binds process i's T ranks to slice [iT, (i + 1)T) of the placement's plan for all nT ranks,
 * when they fit the host's PUs: unbound, a loaded scheduler put two spinning ranks of different processes on one core,
 * and every hand-over between them waited for a time slice (docs/measurements.md, issue 32).
 */
final class SharedHostPlacement {
    private SharedHostPlacement() {
    }

    static Placement of(Placement placement, Topology topology, int localRanks, int sharing, int index, boolean mpi,
                        String host) {
        if (sharing <= 1 || !placement.binds()) {
            return placement;
        }
        if (!mpi && index >= 0 && index < sharing && (long) localRanks * sharing <= topology.pus().size()) {
            PlacementPlan all = placement.plan(topology, localRanks * sharing);
            int[] mine = new int[localRanks];
            for (int l = 0; l < localRanks; l++) {
                mine[l] = all.pu(index * localRanks + l).osIndex();
            }
            return Placement.explicit(mine);
        }
        // every process would bind its rank 0 to the same PU: leave placement to the launcher
        Fallbacks.note("thread binding", sharing + " processes of the job share host " + host
                + ": rank threads are not bound (" + (mpi ? "bind processes with mpirun --bind-to / --map-by"
                : "more ranks than PUs; bind processes with taskset or numactl") + ")");
        return Placement.NONE;
    }
}
