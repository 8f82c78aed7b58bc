package io.coll4j.mpi;

import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A measurement, not a test (collbench has no user ops): {@code mpirun -np 2 java … UserOpLatency} times an f64
 * allreduce across processes with a commutative user op (MPI calls the Java function through its upcall stub)
 * against the built-in SUM, at 8 B, 64 KiB and 1 MiB, one rank per process, native buffers, in place. The two
 * alternate, round by round; process 0 prints the min and median µs per call over the rounds.
 */
public final class UserOpLatency {
    /** A constant, so the JIT folds the accesses (a captured layout leaves each one a generic VarHandle call, ~20 ns). */
    private static final ValueLayout.OfDouble F = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private UserOpLatency() {
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        java.util.concurrent.atomic.AtomicLongArray calls = new java.util.concurrent.atomic.AtomicLongArray(3);
        UserOp sum = new UserOp("sum", DType.F64, true, (d, dOff, a, aOff, b, bOff, n) -> {
            long t0 = System.nanoTime();
            calls.incrementAndGet(0);
            calls.addAndGet(1, n);
            for (long k = 0; k < n * 8; k += 8) {
                d.set(F, dOff + k, a.get(F, aOff + k) + b.get(F, bOff + k));
            }
            calls.addAndGet(2, System.nanoTime() - t0);
        });
        try (Team team = Team.builder().ranks(1).mpi().build()) {
            team.run(rank -> {
                for (long bytes : new long[]{8, 64 << 10, 1 << 20}) {
                    long n = bytes / 8;
                    MemorySegment buf = rank.allocate(bytes);
                    int iters = (int) Math.max(50, Math.min(20_000, (200L << 20) / Math.max(bytes, 4096) / 4));
                    double[] builtin = new double[rounds];
                    double[] user = new double[rounds];
                    for (int r = -1; r < rounds; r++) {   // round -1 warms both up
                        long t0 = System.nanoTime();
                        for (int i = 0; i < iters; i++) {
                            rank.allreduce(buf, buf, n, DType.F64, Op.SUM);
                        }
                        long t1 = System.nanoTime();
                        for (int i = 0; i < iters; i++) {
                            rank.allreduce(buf, buf, n, sum);
                        }
                        long t2 = System.nanoTime();
                        if (r >= 0) {
                            builtin[r] = (t1 - t0) / 1e3 / iters;
                            user[r] = (t2 - t1) / 1e3 / iters;
                        }
                    }
                    long c0 = calls.get(0);
                    long e0 = calls.get(1);
                    long ns0 = calls.get(2);
                    rank.allreduce(buf, buf, n, sum);
                    long perCall = calls.get(0) - c0;
                    long elements = calls.get(1) - e0;
                    long inFunction = calls.get(2) - ns0;
                    if (rank.id() == 0) {
                        System.out.printf("  user function: %d call(s) per allreduce, %d elements each on average, %.3f us in it%n",
                                perCall, perCall == 0 ? 0 : elements / perCall, inFunction / 1e3);
                        System.out.printf("allreduce f64 %8d B  built-in sum: min %9.3f med %9.3f us   user op sum: min %9.3f med %9.3f us"
                                        + "  (%d rounds x %d calls)%n", bytes, min(builtin), median(builtin), min(user), median(user),
                                rounds, iters);
                    }
                }
            });
        }
    }

    static double min(double[] a) {
        return Arrays.stream(a).min().orElse(0);
    }

    static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
