package io.coll4j;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A collective in flight: returned by the non-blocking forms ({@link Rank#iallreduce} …), by
 * {@link PersistentRequest#start()}, and by chains ({@link Chain#start()}).
 *
 * <p><b>Progress.</b> Nothing runs in the background unless the team was built with
 * {@link Team.Builder#progressThread(boolean)}: the collective moves when a rank of the team polls
 * ({@link #isDone()}) or waits ({@link #await()}), and a waiting rank does
 * every part of the work its peers have not done yet. So a rank that posts and then computes finds its
 * result complete when it comes back, as long as some peer waited meanwhile.
 *
 * <p><b>Buffers.</b> Until the request is complete the collective may read the send buffers and write
 * the receive buffers of every rank; afterwards it touches none of this rank's buffers. Memory effects
 * are those of the blocking collective, with "return" read as "the request is observed complete".
 *
 * <p><b>Failure.</b> A mismatch, a rank that fails or a rank that never posts (the team timeout)
 * aborts the team as for a blocking collective: {@code isDone} and {@code await} throw the same
 * exceptions ({@link CollectiveMismatchException}, {@link TeamAbortedException},
 * {@link CollectiveTimeoutException}) and every future of an outstanding request of the team completes
 * exceptionally with them.
 */
public interface Request {

    /**
     * Does one step of this collective's outstanding work if one is ready, then tells whether it is
     * complete. Never blocks.
     */
    boolean isDone();

    /** Works on the collective until it is complete (helping with every step not yet taken by a peer). */
    void await();

    /**
     * {@link #await()} for at most {@code timeout}; returns false when the collective is not complete by
     * then (the request stays valid and may be awaited again).
     */
    boolean await(Duration timeout);

    /**
     * A future completed when the collective completes, by whichever thread completes it (another rank's,
     * or the progress thread): callbacks attached without {@code Async} run there and must be short.
     * The future completes only as the team makes progress (see the class comment): a rank that blocks on
     * it without polling, in a team without a progress thread, may wait for ever — use {@link #await()}.
     */
    CompletableFuture<Void> toFuture();
}
