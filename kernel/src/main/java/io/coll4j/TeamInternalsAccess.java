package io.coll4j;

import io.coll4j.internal.TeamInternals;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.kernel.model.MachineModel;

/**
 * The internal accessor ({@link TeamInternals}): kernel types of a {@link Team}, its builder and plans for coll4j's
 * own tools (the CLI, JMH), off the public API. Installed by {@link Team}'s class initialiser.
 */
final class TeamInternalsAccess implements TeamInternals.Access {

    private TeamInternalsAccess() {
    }

    static void install() {
        TeamInternals.install(new TeamInternalsAccess());
    }

    @Override
    public Selector selector(Team team) {
        return team.selector();
    }

    @Override
    public void model(Team.Builder builder, MachineModel model) {
        builder.model(model);
    }

    @Override
    public void recordSchedule(Team.Builder builder, io.coll4j.kernel.algo.Schedule schedule) {
        builder.recordSchedule(schedule);
    }

    @Override
    public void maxSliceBytes(Team.Builder builder, long bytes) {
        builder.maxSliceBytes(bytes);
    }

    @Override
    public io.coll4j.kernel.span.SpanGroup spanGroup(Team team) {
        return team.spanGroup();
    }

    @Override
    public CollectiveAlgorithm algorithm(CollectivePlan plan) {
        return plan.algorithm();
    }

    @Override
    public String requestAlgorithm(Team team, Collective c, long count, io.coll4j.reductions.DType dtype,
                                   io.coll4j.reductions.Op op) {
        return team.nonBlocking().requestAlgorithm(c, count, dtype, op);
    }
}
