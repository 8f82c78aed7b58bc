package io.coll4j;

import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.topology.Placement;
import io.coll4j.topology.PlacementPlan;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A team's sub-teams ({@link Rank#split}) and its own place as one: each sub-team built once for all its members,
 * the sub-teams closed with their parent, and a sub-team closed by the last of its members to close its rank.
 */
final class SubTeams {
    private final Team team;
    /** Sub-teams being built, by (split number, color): the first member builds, the others take the same. */
    private final ConcurrentHashMap<String, CompletableFuture<Team>> forming = new ConcurrentHashMap<>();
    /** Sub-teams made from this team and not yet closed: closed with it. */
    private final Set<Team> children = ConcurrentHashMap.newKeySet();
    /** The team this one was split from, or null. */
    private Team parent;
    /** Members of this sub-team that have taken it from {@link #subTeam} (the last one clears the entry). */
    private final AtomicInteger joined = new AtomicInteger();
    /** Members of this sub-team that have closed their rank ({@link #memberClosed}). */
    private final AtomicInteger membersClosed = new AtomicInteger();

    SubTeams(Team team) {
        this.team = team;
    }

    /** The team this one was split from, or null for a team built with a builder. */
    Team parent() {
        return parent;
    }

    /**
     * The sub-team of {@code members} (parent rank ids, in sub-team rank order) for split number {@code split}
     * and {@code color}: built once, by whichever member gets here first, on the members' own PUs (so its
     * placement, layout, selector and algorithms see its own topology), with this team's model, wait
     * strategy, timeout, forced algorithms and reproducibility. It has its own control block and arena, so
     * it and this team can run collectives at the same time. Across processes ({@code span} non-null),
     * {@code spanCounts} holds the sub-team's ranks in each process of the span.
     */
    Team subTeam(long split, int color, int[] members, ProcessSpan span, int[] spanCounts) {
        PlacementPlan plan = team.placement();
        Duration timeout = team.timeout();
        String key = split + "/" + color;
        CompletableFuture<Team> mine = new CompletableFuture<>();
        CompletableFuture<Team> f = forming.putIfAbsent(key, mine);
        if (f == null) {
            f = mine;
            try {
                Team.Builder b = Team.builder().ranks(members.length).topology(team.topology()).waitStrategy(team.waitStrategy())
                        .timeout(timeout).model(team.selector().model()).reproducible(team.reproducible())
                        .maxSliceBytes(team.context().maxSliceBytes()).statistics(team.statistics());
                // across processes: over the sub-communicator the split made, with this team's α/β
                b.splitOf(span, span != null ? spanCounts : null, span != null ? team.spanGroup().cost() : null);
                if (plan.placement().binds()) {
                    int[] pus = new int[members.length];
                    for (int i = 0; i < members.length; i++) {
                        pus[i] = plan.pu(members[i]).osIndex();
                    }
                    b.placement(Placement.explicit(pus));
                } else {
                    b.placement(plan.placement());
                }
                for (Collective c : Collective.values()) {
                    CollectiveAlgorithm forced = team.selector().forced(c);
                    if (forced != null) {
                        b.algorithm(c, forced.name());
                    }
                }
                Team sub = b.build();
                sub.subTeams().parent = team;
                children.add(sub);
                // an abort of this team stops ranks blocked in the sub-team too, naming the parent's failing rank
                TeamContext context = team.context();
                context.onAbort(() -> {
                    TeamContext.Abort pa = context.abortState();
                    if (pa.rank() >= 0 || pa.origin() != null) {
                        sub.context().abortFromParent(pa.cause(), pa.rank() >= 0 ? "rank " + pa.rank() + " of the parent team"
                                : pa.origin() + " (of the parent team)");
                    } else {
                        sub.context().abort(pa.cause(), -1);   // the parent was closed or stopped, by no rank
                    }
                });
                mine.complete(sub);
            } catch (RuntimeException | Error e) {
                mine.completeExceptionally(e);
                throw e;
            }
        }
        Team sub;
        try {
            sub = f.get(Math.max(1, timeout.isZero() ? Long.MAX_VALUE / 2 : timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("building the sub-team failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the sub-team was not built within the timeout", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the sub-team was built", e);
        }
        if (sub.subTeams().joined.incrementAndGet() == sub.size()) {
            forming.remove(key);
        }
        return sub;
    }

    /**
     * The spans of the spanning sub-teams of the split in progress, by color: written by local rank 0
     * ({@link TeamSplit}) before a local barrier, read by the other local ranks after it. Volatile although
     * the barrier orders the write before the reads: it is written once per split, so the fence is free.
     */
    private volatile Map<Integer, ProcessSpan> splitSpans = Map.of();

    void splitSpans(Map<Integer, ProcessSpan> spans) {
        splitSpans = spans;
    }

    Map<Integer, ProcessSpan> splitSpans() {
        return splitSpans;
    }

    /** A member closed its rank of this sub-team: the last one closes the sub-team ({@link Team#memberClosed}). */
    void memberClosed() {
        if (parent != null && membersClosed.incrementAndGet() == team.size()) {
            team.close();
        }
    }

    /** The team is closing: its sub-teams close with it, and its parent forgets it. */
    void closed() {
        for (Team child : children) {
            child.close();
        }
        if (parent != null) {
            parent.subTeams().children.remove(team);
        }
    }
}
