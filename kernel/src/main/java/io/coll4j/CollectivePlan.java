package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.Selector;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * A collective of fixed shape (collective, count, dtype, op, root) bound to one rank, with its algorithm
 * chosen once — for the hot loop of a training step (docs/design.md, "Public API"). Every rank of the team must make the
 * same plan and call {@link #execute} in the same order as its other collectives. Arguments that do not
 * depend on the buffers are validated when the plan is made.
 */
public final class CollectivePlan {
    private final Rank rank;
    private final Collective collective;
    private final long count;
    private final DType dtype;
    private final Op op;
    private final int root;
    private final long bytes;
    private final CollectiveAlgorithm algorithm;
    private final boolean forcedHere;

    CollectivePlan(Rank rank, Collective collective, long count, DType dtype, Op op, int root, String algorithmName) {
        if (collective == null) {
            throw new IllegalArgumentException("collective must not be null");
        }
        this.rank = rank;
        this.collective = collective;
        int p = rank.size();
        if (collective == Collective.BARRIER) {
            this.count = 0;
            this.dtype = null;
            this.op = null;
            this.root = -1;
            this.bytes = 0;
        } else {
            Arguments.count("count", count);
            Arguments.dtype(dtype);
            if (collective.reduces()) {
                Arguments.op(op, dtype);
            }
            if (collective.rooted()) {
                Arguments.root(root, p);
            }
            this.count = count;
            this.dtype = dtype;
            this.op = collective.reduces() ? op : null;
            this.root = collective.rooted() ? root : -1;
            int multiple = collective == Collective.REDUCE_SCATTER || collective == Collective.ALLGATHER ? p : 1;
            this.bytes = Arguments.bytes(count, dtype, multiple);
        }
        this.algorithm = algorithmName == null || algorithmName.equalsIgnoreCase("auto")
                ? rank.team().selector().choose(collective, p, this.count, this.dtype, this.op, bytes)
                : AlgorithmCatalog.find(collective, algorithmName);
        this.forcedHere = algorithmName != null && !algorithmName.equalsIgnoreCase("auto");
    }

    /**
     * Runs the planned collective with its algorithm. {@code recv} is ignored for barrier and bcast (bcast
     * uses {@code send} as its buffer). Buffers are validated as by the corresponding {@link Rank} method.
     */
    public void execute(MemorySegment send, MemorySegment recv) {
        rank.execute(this, send, recv);
    }

    long count() {
        return count;
    }

    DType dtype() {
        return dtype;
    }

    Op op() {
        return op;
    }

    int root() {
        return root;
    }

    /** The algorithm this plan runs (coll4j's tools: {@code TeamInternals.algorithm}). */
    CollectiveAlgorithm algorithm() {
        return algorithm;
    }

    public Collective collective() {
        return collective;
    }

    /**
     * Why this algorithm: every candidate's predicted time under the team's machine model, the pick
     * marked, or the forced algorithm.
     */
    public String explain() {
        Selector s = rank.team().selector();
        StringBuilder sb = new StringBuilder();
        sb.append(collective.cliName()).append(" of ").append(bytes).append(" bytes on ").append(rank.size())
                .append(" ranks: ").append(algorithm.name());
        if (forcedHere || s.forced(collective) != null) {
            return sb.append(" (forced)").toString();
        }
        sb.append(" (model: ").append(s.model().source()).append(")");
        for (Selector.Prediction pr : s.predict(collective, rank.size(), count, dtype, op, bytes)) {
            sb.append(String.format(Locale.ROOT, "%n  %s %-14s %12.3f us", pr.chosen() ? "*" : " ",
                    pr.algorithm().name(), pr.seconds() * 1e6));
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "CollectivePlan[" + collective.cliName() + ", count=" + count + ", " + algorithm.name() + "]";
    }
}
