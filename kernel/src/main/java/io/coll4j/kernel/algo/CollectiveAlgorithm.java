package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.kernel.model.TeamShape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.util.List;

/**
 * One algorithm for one collective (docs/design.md, "Algorithm catalogue"). Instances are stateless and shared by every rank of
 * every team; per-call state lives in the {@link CollectiveCall} passed to {@link #run}.
 *
 * <p>Contract every implementation states in its class comment: its synchronisation protocol (which
 * lines it publishes and waits on), its floating-point reduction order, and when its buffers and the
 * caller's buffers may be reused. The runtime guarantees, before {@link #run} starts collective
 * {@code s} on a rank, that every rank has entered collective {@code s-1} (so every buffer indexed by
 * the parity of {@code s} — scratch, inline payloads, buffer references — is no longer read by anyone),
 * and that the caller's arguments are valid and identical in kind, count, dtype, op and root on every
 * rank (checked as the ranks synchronise).
 */
public interface CollectiveAlgorithm {

    Collective collective();

    /** The name {@code collbench -a} and {@code Team.Builder.algorithm} accept, e.g. {@code ma-sliced}. */
    String name();

    /** One line for {@code collbench list}. */
    String summary();

    /** Where it comes from, e.g. {@code [HMPI §2.4]}. */
    String seed();

    /** Predicted time in seconds for {@code ranks} ranks and {@code bytes} bytes per rank (per rank, as the CLI contract of docs/design.md counts them). */
    double cost(MachineModel model, int ranks, long bytes);

    /**
     * What the caller pays, when it reads its result after the call as an application does, for the lines
     * of that result another core wrote last (over reading lines it wrote itself), e.g.
     * {@link CopyCost#consumedPeerLines}; 0 (the default) when every rank writes its own result. The
     * selector adds it to {@link #cost} unless told the results are not read (docs/design.md, "Machine model
     * and selection"): a benchmark loop that never reads its results does not see it.
     */
    default double consumeCost(MachineModel model, int ranks, long bytes) {
        return consumeCost(model, TeamShape.flat(ranks), bytes);
    }

    /**
     * {@link #consumeCost(MachineModel, int, long)} for a team of {@code shape}: where the ranks sit under several
     * last-level caches, the lines a peer wrote stay in that peer's caches however far they fall out of its L2
     * ({@link CopyCost#consumedPeerLines}). The selector calls this one.
     */
    default double consumeCost(MachineModel model, TeamShape shape, long bytes) {
        return 0;
    }

    /**
     * Scratch bytes the calling rank needs per parity for this call (0 when none). Called at the start of
     * the collective with the call's arguments set, before anything is published.
     */
    default long scratchBytes(CollectiveCall call) {
        return 0;
    }

    /** Whether this algorithm can run this call (e.g. a variant limited to small messages). */
    /**
     * True when this call's first act is a publish that carries all its peers read of it before they wait on it
     * (the check word and any inline payload), and it reads no peer's buffer references before that: the entry's
     * bookkeeping and ANNOUNCE then run right after that publish ({@link CollectiveCall}'s announce), off the
     * hand-over's path.
     */
    default boolean announcesAfterFirstPublish(CollectiveCall call) {
        return false;
    }

    default boolean supports(int ranks, long count, DType dtype, Op op) {
        return true;
    }

    /**
     * True when, once {@link #run} returns on {@code rank}, every rank of the team is known to have entered
     * this collective (its result depends on all of them). The runtime then skips its lag check at the
     * next-but-one collective.
     */
    boolean observesAllEntries(int rank, int root, int ranks);

    /** Runs the collective on the calling rank. */
    void run(CollectiveCall call);

    // ---- topology-aware costs ----

    /**
     * What this algorithm moves between the packages of {@code shape} [HMPI §2.1], or null when it does not
     * model that (then {@link #cost(MachineModel, TeamShape, long)} is the flat cost, unless overridden).
     */
    default PackageCrossing crossing(MachineModel model, TeamShape shape, long bytes) {
        return null;
    }

    /**
     * Predicted time on a team of {@code shape} (ranks and how they spread over packages): what the
     * selector ranks. With a {@link #crossing}: each package's DRAM serves its own ranks, plus HMPI's a_β and
     * B_β terms [HMPI §2.1]; without, the flat cost for {@code shape.ranks()} ranks.
     */
    default double cost(MachineModel model, TeamShape shape, long bytes) {
        double waits = Oversubscription.rounds(shape, waitRounds(shape.ranks()));
        PackageCrossing c = crossing(model, shape, bytes);
        if (c == null) {
            return cost(model, shape.ranks(), bytes) + waits;
        }
        return cost(model.forPackages(shape.packages()), shape.ranks(), bytes) + CopyCost.crossPackage(model, shape, c.bytes(), c.rounds())
                + waits;
    }

    /**
     * Dependent rounds of waiting for a given peer (or for all of them) on {@code ranks} ranks, which an
     * oversubscribed team pays in scheduler hand-overs ({@link Oversubscription}); 0 where that is not modelled.
     */
    default int waitRounds(int ranks) {
        return 0;
    }

    /** Named terms of the cost for {@code collbench explain} (e.g. copy volumes, the two-level terms); may be empty. */
    default List<String> costTerms(MachineModel model, TeamShape shape, long bytes) {
        PackageCrossing c = crossing(model, shape, bytes);
        List<String> crossing = c == null ? List.of() : CopyCost.crossPackageTerms(model, shape, c.bytes(), c.rounds());
        List<String> waits = Oversubscription.terms(shape, waitRounds(shape.ranks()));
        if (waits.isEmpty() || crossing.isEmpty()) {
            return waits.isEmpty() ? crossing : waits;
        }
        List<String> both = new java.util.ArrayList<>(crossing);
        both.addAll(waits);
        return List.copyOf(both);
    }
}
