package io.coll4j.internal;

import io.coll4j.CollectivePlan;
import io.coll4j.Team;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.Schedule;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.kernel.model.MachineModel;

import java.util.Objects;

/**
 * The parts of {@link Team}, {@link Team.Builder} and {@link CollectivePlan} that are kernel types, for
 * coll4j's own tools (the CLI, the JMH suites, tests in other packages) and not for users: the selector,
 * the machine model, a plan's algorithm object, the schedule recorder and the slice size I_max.
 *
 * <p>This package is not exported by the {@code io.coll4j} module (only qualified to the CLI and JMH
 * modules), so on the module path users cannot reach it; on the class path it is reachable but not part
 * of the documented API. {@link Team} installs the implementation in its static initialiser (the
 * "shared secrets" pattern of the JDK), so the methods it reaches stay package-private there. Every
 * entry point takes an instance whose creation initialised {@link Team}, so the accessor is always
 * installed by the time it is used.
 */
public final class TeamInternals {

    /** Implemented by {@link Team} with access to its package-private members. */
    public interface Access {
        Selector selector(Team team);

        void model(Team.Builder builder, MachineModel model);

        void recordSchedule(Team.Builder builder, Schedule schedule);

        void maxSliceBytes(Team.Builder builder, long bytes);

        CollectiveAlgorithm algorithm(CollectivePlan plan);

        io.coll4j.kernel.span.SpanGroup spanGroup(Team team);

        String requestAlgorithm(Team team, io.coll4j.Collective c, long count, io.coll4j.reductions.DType dtype,
                                io.coll4j.reductions.Op op);
    }

    private static volatile Access access;

    private TeamInternals() {
    }

    /** Called once, by {@link Team}'s static initialiser. */
    public static void install(Access impl) {
        Objects.requireNonNull(impl, "impl");
        synchronized (TeamInternals.class) {
            if (access != null) {
                throw new IllegalStateException("TeamInternals already installed");
            }
            access = impl;
        }
    }

    /** The team's algorithm selector: what {@code auto} picks and every candidate's predicted time. */
    public static Selector selector(Team team) {
        return access.selector(Objects.requireNonNull(team, "team"));
    }

    /** The hierarchy of a team over several processes (Builder.mpi()), or null. */
    public static io.coll4j.kernel.span.SpanGroup spanGroup(Team team) {
        return access.spanGroup(Objects.requireNonNull(team, "team"));
    }

    /** The machine model the team's algorithms are selected with. */
    public static MachineModel model(Team team) {
        return selector(team).model();
    }

    /** Sets the machine model explicitly (the CLI's {@code --profile}/{@code tune}; users pass a profile path). */
    public static Team.Builder model(Team.Builder builder, MachineModel model) {
        access.model(Objects.requireNonNull(builder, "builder"), model);
        return builder;
    }

    /** Records who reads whose memory in every collective (tests, diagnostics). */
    public static Team.Builder recordSchedule(Team.Builder builder, Schedule schedule) {
        access.recordSchedule(Objects.requireNonNull(builder, "builder"), schedule);
        return builder;
    }

    /** I_max, the largest slice strip-mined algorithms move per step; small values reach multi-slice paths. */
    public static Team.Builder maxSliceBytes(Team.Builder builder, long bytes) {
        access.maxSliceBytes(Objects.requireNonNull(builder, "builder"), bytes);
        return builder;
    }

    /** The algorithm object a plan runs. */
    public static CollectiveAlgorithm algorithm(CollectivePlan plan) {
        return access.algorithm(Objects.requireNonNull(plan, "plan"));
    }

    /**
     * The algorithm a request (non-blocking, persistent, a chain's stage) of this call runs on {@code team}: the
     * selector's pick among the algorithms with resumable steps, or the engine's own schedule (docs/design.md, "One
     * contract for every form").
     */
    public static String requestAlgorithm(Team team, io.coll4j.Collective c, long count, io.coll4j.reductions.DType dtype,
                                          io.coll4j.reductions.Op op) {
        return access.requestAlgorithm(Objects.requireNonNull(team, "team"), c, count, dtype, op);
    }
}
