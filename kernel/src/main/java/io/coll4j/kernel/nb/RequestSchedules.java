package io.coll4j.kernel.nb;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.ItemSlicing;
import io.coll4j.kernel.algo.Resumable;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.kernel.algo.StepCall;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;
import io.coll4j.reductions.internal.Reducers;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Which steps a team's request runs (docs/design.md, "One contract for every form"): the {@link Resumable}
 * algorithm the team's {@link Selector} names for the call ({@link Selector#chooseSteps}, a forced resumable
 * algorithm first), made into steps by the call's first issuer. Where no algorithm of the collective has steps
 * yet (alltoall), the engine's own schedules: {@link EngineParts} up to {@link ItemSlicing#STAGE_MAX_BYTES} per
 * rank, {@link EngineItems} beyond; and {@link VectorBlocks} for the v-collectives.
 *
 * <p>The pick is deterministic (the selector's), so every rank would name the same; only the creator asks, once
 * per exchange, and the last pick per collective is kept (a benign race between creators: each stores a pick
 * that is right for its key).
 */
final class RequestSchedules {
    static final String ENGINE_STAGED = "engine-staged";
    static final String ENGINE_SLICED = "engine-sliced";

    private final Selector selector;
    private final TeamContext context;
    private final int size;
    private final AtomicReferenceArray<Pick> last = new AtomicReferenceArray<>(Collective.values().length);

    private record Pick(long count, DType dtype, Op op, Resumable algorithm) {
        boolean is(long n, DType t, Op o) {
            return count == n && dtype == t && op == o;
        }
    }

    RequestSchedules(Selector selector, TeamContext context) {
        this.selector = selector;
        this.context = context;
        this.size = context.size();
    }

    /** The schedule of a call of this shape ({@code call}: a v-collective's counts; {@code user}: a USER op's reducer). */
    RequestSchedule schedule(Collective c, long count, DType dtype, Op op, int root, VectorCall call, Reducer user) {
        // AVG folds as SUM and is divided per output range (Averaging); USER folds with the creator's UserOp
        Reducer reducer = !c.reduces() ? null : op == Op.USER ? requireUser(user) : Reducers.of(dtype, op.foldOp());
        StepCall sc = new StepCall(c, size, count, dtype, op, root, reducer, context.maxSliceBytes(), context.copy());
        if (c.vector()) {
            // a v-collective is always sliced: its creator may not know the other ranks' counts, so neither the
            // staging regions' sizes
            VectorBlocks v = new VectorBlocks(sc, call);
            return new RequestSchedule(ENGINE_SLICED, v, v);
        }
        Resumable a = algorithm(c, count, dtype, op);
        if (a != null) {
            return new RequestSchedule(a.name(), a.steps(sc), null);
        }
        return staged(c, count, dtype) ? new RequestSchedule(ENGINE_STAGED, new EngineParts(sc), null)
                : new RequestSchedule(ENGINE_SLICED, new EngineItems(sc), null);
    }

    /** The name of the algorithm (or engine schedule) a request of this shape runs: what {@code explain} prints. */
    String name(Collective c, long count, DType dtype, Op op) {
        if (c.vector()) {
            return ENGINE_SLICED;
        }
        Resumable a = algorithm(c, count, dtype, op);
        return a != null ? a.name() : staged(c, count, dtype) ? ENGINE_STAGED : ENGINE_SLICED;
    }

    private boolean staged(Collective c, long count, DType dtype) {
        int es = dtype == null ? 1 : dtype.size();
        return EngineParts.contribution(c, count, es, size) <= ItemSlicing.STAGE_MAX_BYTES;
    }

    /** The selector's resumable algorithm for the call, or null (cached per collective for repeated shapes). */
    private Resumable algorithm(Collective c, long count, DType dtype, Op op) {
        Pick k = last.get(c.ordinal());
        if (k != null && k.is(count, dtype, op)) {
            return k.algorithm();
        }
        Resumable a = selector.chooseSteps(c, size, count, dtype, op, bytes(c, count, dtype));
        last.set(c.ordinal(), new Pick(count, dtype, op, a));
        return a;
    }

    /** Bytes per rank as the selector counts them (docs/design.md, "CLI contract"): a block per rank where the buffer holds p. */
    private long bytes(Collective c, long count, DType dtype) {
        long b = dtype == null ? 0 : count * dtype.size();
        return switch (c) {
            case REDUCE_SCATTER, ALLGATHER, GATHER, SCATTER, ALLTOALL -> b * size;
            default -> b;
        };
    }

    private static Reducer requireUser(Reducer user) {
        if (user == null) {
            throw new IllegalArgumentException("op user stands for a UserOp: call the overload that takes the UserOp");
        }
        return user;
    }
}
