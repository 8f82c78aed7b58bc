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
    /** Set by the owning rank's thread at the plan's first call on a team spanning processes (see HierarchicalCollectives#execute). */
    private boolean spannedCalled;

    CollectivePlan(Rank rank, Collective collective, long count, DType dtype, Op op, int root, String algorithmName) {
        if (collective == null) {
            throw new IllegalArgumentException("collective must not be null");
        }
        this.rank = rank;
        this.collective = collective;
        int p = rank.localSize();   // the local algorithm; across processes the hierarchy wraps it
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
                // a root is a global rank id: on a team spanning processes it may be in another process
                Arguments.root(root, rank.size());
            }
            this.count = count;
            this.dtype = dtype;
            this.op = collective.reduces() ? op : null;
            this.root = collective.rooted() ? root : -1;
            int multiple = switch (collective) {
                case REDUCE_SCATTER, ALLGATHER, GATHER, SCATTER, ALLTOALL -> p;
                default -> 1;
            };
            // v-variants: count is the total of the counts where every rank knows it (allgatherv,
            // reduce-scatter-v); gatherv, scatterv and alltoallv are chosen without a size (see Rank)
            boolean unsized = collective == Collective.GATHERV || collective == Collective.SCATTERV
                    || collective == Collective.ALLTOALLV;
            this.bytes = unsized ? 0 : Arguments.bytes(count, dtype, multiple);
        }
        long selectCount = bytes == 0 && collective.vector() ? 0 : this.count;
        this.algorithm = algorithmName == null || algorithmName.equalsIgnoreCase("auto")
                ? rank.team().selector().choose(collective, p, selectCount, this.dtype, this.op, bytes)
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

    /**
     * Runs a planned v-variant (gatherv, scatterv, allgatherv, reduce-scatter-v, alltoallv) with its
     * algorithm; the arguments are those of the {@link Rank} method (unused arrays may be null).
     * Gatherv and allgatherv take this rank's send count from {@code sendCounts}, scatterv its receive count
     * from {@code recvCounts}: the array's only entry, or its entry for this rank when it has one per rank.
     * The persistent form of the same call is
     * {@link Rank#init(CollectivePlan, MemorySegment, long[], long[], MemorySegment, long[], long[])}.
     */
    public void execute(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv, long[] recvCounts,
                        long[] recvDispls) {
        rank.executeVector(this, send, sendCounts, sendDispls, recv, recvCounts, recvDispls);
    }

    long count() {
        return count;
    }

    /** count × dtype size (× the local rank count for the collectives whose buffer holds a block per rank). */
    long bytes() {
        return bytes;
    }

    /** True at the first call only; read and written by the owning rank's thread. */
    /**
     * Set at the first call on a team spanning processes when this plan is MPI_Allreduce itself (see
     * HierarchicalCollectives#execute); read by the owning rank's thread only.
     */
    private boolean mpiDirect;

    boolean mpiDirect() {
        return mpiDirect;
    }

    void mpiDirect(boolean direct) {
        mpiDirect = direct;
    }

    boolean firstSpannedCall() {
        boolean first = !spannedCalled;
        spannedCalled = true;
        return first;
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
     * marked, or the forced algorithm; and the algorithm a request of the same call ({@code i*}, {@code *Init},
     * a chain's stage) runs as resumable steps (docs/design.md, "One contract for every form").
     */
    public String explain() {
        Selector s = rank.team().selector();
        StringBuilder sb = new StringBuilder();
        sb.append(collective.cliName()).append(" of ").append(bytes).append(" bytes on ").append(rank.size())
                .append(" ranks: ").append(algorithm.name());
        if (forcedHere || s.forced(collective) != null) {
            return sb.append(" (forced)").append(requestLine()).toString();
        }
        sb.append(" (model: ").append(s.model().source()).append(")");
        for (Selector.Prediction pr : s.predict(collective, rank.localSize(), count, dtype, op, bytes)) {
            sb.append(String.format(Locale.ROOT, "%n  %s %-14s %12.3f us", pr.chosen() ? "*" : " ",
                    pr.algorithm().name(), pr.seconds() * 1e6));
        }
        return sb.append(requestLine()).toString();
    }

    /** The line naming what a request of this call runs: the engine's pick, or the leaders' schedule across processes. */
    private String requestLine() {
        String runs = rank.spansProcesses() ? "the leader schedule across processes"
                : rank.team().nonBlocking().requestAlgorithm(collective, count, dtype, op);
        return String.format(Locale.ROOT, "%n  request (non-blocking, persistent, chained): %s", runs);
    }

    @Override
    public String toString() {
        return "CollectivePlan[" + collective.cliName() + ", count=" + count + ", " + algorithm.name() + "]";
    }
}
