package io.coll4j.kernel.span;

import io.coll4j.kernel.algo.TeamContext;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * One rank's outstanding {@link SpanRequest}s of a team that spans processes, in start order, and — on
 * local rank 0, the only rank that calls MPI on the world communicator — the order in which their
 * inter-process stages may be posted. MPI requires every process to issue the collectives of a
 * communicator in the same order; a request's inter stage can only be posted once its first local stage is
 * done, which depends on the other local ranks, so without this a later request could overtake an earlier
 * one in one process and not in another. The requests use a communicator of their own
 * ({@link ProcessSpan#requests()}), so the blocking calls need no place in that order; local rank 0 still
 * {@link #flush}es before a blocking call, for progress. Used by its rank's thread only.
 */
public final class SpanQueue {
    private final ArrayList<SpanRequest> outstanding = new ArrayList<>();
    private final ArrayDeque<SpanRequest> toPost = new ArrayDeque<>();
    /** Started requests whose inter-process stage has not completed. */
    private int interOpen;

    /** {@code r} started a round with {@code inters} inter stages: their MPI calls come after every earlier one's. */
    void started(SpanRequest r, int inters) {
        outstanding.add(r);
        for (int i = 0; i < inters; i++) {
            toPost.addLast(r);
        }
        interOpen += inters;
    }

    void interDone(SpanRequest r) {
        interOpen--;
    }

    boolean mayPost(SpanRequest r) {
        return toPost.peekFirst() == r;
    }

    void posted(SpanRequest r) {
        toPost.pollFirst();
    }

    void finished(SpanRequest r) {
        outstanding.remove(r);
        toPost.removeIf(x -> x == r);
    }

    /** Advances every outstanding request in start order; true when some stage completed. */
    public boolean progress() {
        boolean moved = false;
        for (int i = 0; i < outstanding.size(); ) {
            SpanRequest r = outstanding.get(i);
            moved |= r.advance();
            if (i < outstanding.size() && outstanding.get(i) == r) {
                i++;   // else r finished and the next one moved into slot i
            }
        }
        return moved;
    }

    /** True while an outstanding request's inter-process stage has not completed (local rank 0 only). */
    public boolean mustFlush() {
        return interOpen > 0;
    }

    /**
     * Before a blocking inter-process call of local rank 0: completes the outstanding requests' inter stages
     * that need nobody but this rank — those in flight, and those the MPI order lets it post now, up to the
     * first chain's (a chain's later stages wait on its local steps and on the other local ranks reaching
     * them, so it moves only while its rank polls or waits, as in one process). This rank may be the only one
     * that can move them: another local rank may be waiting on one of them before it reaches the blocking
     * call. The requests' MPI calls are on a communicator of their own, so their order against the blocking
     * calls does not matter to MPI.
     */
    public void flush(TeamContext context, int rank) {
        for (int idle = 0; pendingWithoutChains(); idle++) {
            if (context.isAborted()) {
                throw context.abortedException(rank);
            }
            if (progress()) {
                idle = 0;
            } else {
                context.waitStrategy().idle(idle);
            }
        }
    }

    private boolean pendingWithoutChains() {
        SpanRequest head = toPost.peekFirst();
        if (head != null && !head.isChain()) {
            return true;
        }
        for (SpanRequest r : outstanding) {
            if (r.interInFlight() && !r.isChain()) {
                return true;
            }
        }
        return false;
    }
}
