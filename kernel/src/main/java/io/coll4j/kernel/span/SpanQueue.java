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
 * one in one process and not in another. The blocking collectives are ordered against them too: local rank
 * 0 {@link #flush}es before any blocking inter-process call. Used by its rank's thread only.
 */
public final class SpanQueue {
    private final ArrayList<SpanRequest> outstanding = new ArrayList<>();
    private final ArrayDeque<SpanRequest> toPost = new ArrayDeque<>();
    /** Started requests whose inter-process stage has not completed. */
    private int interOpen;

    void started(SpanRequest r, boolean inter) {
        outstanding.add(r);
        if (inter) {
            toPost.addLast(r);
            interOpen++;
        }
    }

    void interDone() {
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
        toPost.remove(r);
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
     * Before a blocking inter-process call of local rank 0: completes every outstanding inter stage and begins
     * the local stage after it. Posting keeps MPI's order (the blocking call comes later in every process);
     * completing lets the other local ranks finish those requests while this rank is in the blocking call —
     * they may be waiting on one before they reach it, and only this rank can move its MPI part. The local
     * stages before an inter stage were posted by every local rank when it started the request, so this rank
     * can finish them alone; the other processes' leaders post theirs before their own blocking call or wait.
     */
    public void flush(TeamContext context, int rank) {
        for (int idle = 0; interOpen > 0; idle++) {
            if (context.isAborted()) {
                throw context.abortedException(rank);
            }
            if (progress()) {
                idle = 0;
            }
            if (interOpen > 0) {
                context.waitStrategy().idle(idle);
            }
        }
    }
}
