package io.coll4j.mpi;

import io.coll4j.Collective;
import io.coll4j.CollectivePlan;
import io.coll4j.Team;
import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Field;
import java.util.Arrays;

/**
 * A measurement, not a test: where an 8-byte allreduce across processes spends its time above MPI, layer by
 * layer, in one run. {@code mpirun -np 2 java … LayerLatency [ROUNDS [CALLS]]} (one rank per process, native
 * buffers, f64 sum) times, round by round in turn: the bare downcall of the shim's {@code MPI_Allreduce}; the
 * same under the session's serial lock; under {@code MpiSession.enter/exit} (lock and the watchdog's in-flight
 * mark); {@code MpiProcessSpan.allreduce}; {@code rank.allreduce}; {@code plan.execute}. Process 0 prints the
 * min and median ns per call over the rounds. Short batches (default 2000 calls, ~0.4 ms) let the min find
 * rounds in which neither process was descheduled on a loaded machine (run it under {@code nice -n -20}).
 * The span and session are read by reflection: they are the team's internals this tool exists to time.
 */
public final class LayerLatency {
    private static final String[] LAYERS = {"bare", "lock", "enter", "span", "rank", "plan"};

    private LayerLatency() {
    }

    public static void main(String[] args) throws ReflectiveOperationException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 150;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
        try (Team team = Team.builder().ranks(1).mpi().build()) {
            MpiProcessSpan span = (MpiProcessSpan) field(Team.class, "processSpan").get(team);
            MpiSession mpi = (MpiSession) field(MpiProcessSpan.class, "mpi").get(span);
            SerialLock lock = (SerialLock) field(MpiSession.class, "serial").get(mpi);
            if (lock == null) {
                throw new IllegalStateException("LayerLatency needs the serial lock (SINGLE or SERIALIZED): run one rank per process");
            }
            int world = span.world();
            double[][] ns = new double[LAYERS.length][rounds];
            team.run(rank -> {
                MemorySegment send = rank.allocate(64);
                MemorySegment recv = rank.allocate(64);
                send.set(ValueLayout.JAVA_DOUBLE, 0, 1.0);
                CollectivePlan plan = rank.plan(Collective.ALLREDUCE, 1, DType.F64, Op.SUM);
                for (int r = -3; r < rounds; r++) {   // three rounds of warm-up
                    for (int k = 0; k < LAYERS.length; k++) {
                        long t0 = System.nanoTime();
                        layer(k, calls, world, span, mpi, lock, rank, plan, send, recv);
                        if (r >= 0) {
                            ns[k][r] = (System.nanoTime() - t0) / (double) calls;
                        }
                    }
                }
                if (rank.id() == 0) {
                    StringBuilder line = new StringBuilder(span.threadLevel() + ", " + calls + " calls x " + rounds
                            + " rounds, min/median ns per call:");
                    for (int k = 0; k < LAYERS.length; k++) {
                        double[] s = ns[k].clone();
                        Arrays.sort(s);
                        line.append(String.format("  %s %.1f/%.1f", LAYERS[k], s[0], s[s.length / 2]));
                    }
                    System.out.println(line);
                }
            });
        }
    }

    private static void layer(int k, int calls, int world, ProcessSpan span, MpiSession mpi, SerialLock lock,
                              io.coll4j.Rank rank, CollectivePlan plan, MemorySegment send, MemorySegment recv) {
        int d = DType.F64.ordinal();
        int o = Op.SUM.ordinal();
        try {
            switch (k) {
                case 0 -> {
                    for (int i = 0; i < calls; i++) {
                        check((int) MpiShim.ALLREDUCE.invokeExact(world, send, recv, 1L, d, o));
                    }
                }
                case 1 -> {
                    for (int i = 0; i < calls; i++) {
                        lock.lock();
                        try {
                            check((int) MpiShim.ALLREDUCE.invokeExact(world, send, recv, 1L, d, o));
                        } finally {
                            lock.unlock();
                        }
                    }
                }
                case 2 -> {
                    for (int i = 0; i < calls; i++) {
                        MpiSession.InFlight f = mpi.enter("MPI_Allreduce");
                        try {
                            check((int) MpiShim.ALLREDUCE.invokeExact(world, send, recv, 1L, d, o));
                        } finally {
                            mpi.exit(f);
                        }
                    }
                }
                case 3 -> {
                    for (int i = 0; i < calls; i++) {
                        span.allreduce(world, send, recv, 1, DType.F64, Op.SUM);
                    }
                }
                case 4 -> {
                    for (int i = 0; i < calls; i++) {
                        rank.allreduce(send, recv, 1, DType.F64, Op.SUM);
                    }
                }
                default -> {
                    for (int i = 0; i < calls; i++) {
                        plan.execute(send, recv);
                    }
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void check(int rc) {
        if (rc != 0) {
            throw new IllegalStateException("MPI_Allreduce returned " + rc);
        }
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
