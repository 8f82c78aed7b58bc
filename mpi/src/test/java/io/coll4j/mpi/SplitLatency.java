package io.coll4j.mpi;

import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * A measurement, not a test (collbench's collective commands run on a team they build; {@code collbench split --mpi}
 * times only 8-byte sub-teams of one rank per process): {@code mpirun -np 2 java …
 * SplitLatency T} times an f64 sum allreduce, in place, native buffers, at 8 B and 64 KiB on a team of T ranks per
 * process against two of its sub-teams across processes: the whole team split again (the same layout over a
 * sub-communicator: it should cost what the parent costs) and {@code splitLeaders()} (local rank 0 of each process
 * on a one-package machine: flat MPI, one rank per process). The three alternate, round by round (the other ranks
 * wait in the parent's barrier while the leaders run); process 0 prints min and median µs per call.
 */
public final class SplitLatency {
    private SplitLatency() {
    }

    public static void main(String[] args) {
        int t = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        try (Team team = Team.builder().ranks(t).mpi().build()) {
            team.run(rank -> {
                Rank whole = rank.split(0, rank.id());
                Rank leaders = rank.splitLeaders();
                for (long bytes : new long[]{8, 64 << 10}) {
                    long n = bytes / 8;
                    MemorySegment a = rank.allocate(bytes);
                    MemorySegment b = whole.allocate(bytes);
                    MemorySegment c = leaders == null ? null : leaders.allocate(bytes);
                    int iters = bytes == 8 ? 5_000 : 500;
                    double[][] us = new double[3][rounds];
                    for (int r = -1; r < rounds; r++) {   // round -1 warms every contender up
                        long t0 = System.nanoTime();
                        for (int i = 0; i < iters; i++) {
                            rank.allreduce(a, a, n, DType.F64, Op.SUM);
                        }
                        long t1 = System.nanoTime();
                        for (int i = 0; i < iters; i++) {
                            whole.allreduce(b, b, n, DType.F64, Op.SUM);
                        }
                        long t2 = System.nanoTime();
                        for (int i = 0; leaders != null && i < iters; i++) {
                            leaders.allreduce(c, c, n, DType.F64, Op.SUM);
                        }
                        long t3 = System.nanoTime();
                        rank.barrier();
                        if (r >= 0) {
                            us[0][r] = (t1 - t0) / 1e3 / iters;
                            us[1][r] = (t2 - t1) / 1e3 / iters;
                            us[2][r] = (t3 - t2) / 1e3 / iters;
                        }
                    }
                    if (rank.id() == 0) {
                        System.out.printf("allreduce f64 %6d B  parent %dx%d: min %8.3f med %8.3f us   whole split: min %8.3f med %8.3f us"
                                        + "   splitLeaders %dx1: min %8.3f med %8.3f us  (%d rounds x %d calls)%n", bytes,
                                team.processes(), t, UserOpLatency.min(us[0]), UserOpLatency.median(us[0]), UserOpLatency.min(us[1]), UserOpLatency.median(us[1]),
                                leaders.team().processes(), UserOpLatency.min(us[2]), UserOpLatency.median(us[2]), rounds, iters);
                    }
                }
            });
        }
    }
}
