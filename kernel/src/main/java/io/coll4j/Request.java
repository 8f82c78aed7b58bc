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
 * exceptionally with them. So does a part of the work that fails: a buffer whose arena was closed under the
 * request is an {@link IllegalArgumentException} naming it ("send of rank 1 is not alive: its arena was closed
 * during …") on the rank that passed it and a {@link TeamAbortedException} naming that rank on the others,
 * and the team is aborted. A rank whose thread is interrupted while it waits leaves the wait with a
 * {@link CollectiveInterruptedException} (interrupt status kept, team aborted, the others get a
 * {@link TeamAbortedException} naming it), with or without a team timeout. A request of a closed team that
 * did not complete before the close fails with an {@link IllegalStateException} saying the team is closed.
 *
 * <p><b>A failed request stays failed.</b> Its first failure is the answer to every later question, as the
 * same exception instance: {@link #await()}, {@link #await(Duration)} and {@link #isDone()} throw it,
 * {@link #toFuture()} is completed exceptionally with it ({@code join} throws it as the cause of a
 * {@link java.util.concurrent.CompletionException}, {@code get} of an
 * {@link java.util.concurrent.ExecutionException}), and {@link PersistentRequest#start()} throws it. A failed
 * request never reports completion, and its receive buffers must be taken as undefined.
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
     * Its blocking methods never wait silently: {@code join()} and {@code get()} called on this request's
     * rank thread drive the request as {@link #await()} does (so every rank of a team without a progress
     * thread may join its future); called on any other thread, which cannot drive it, they wait at most the
     * team timeout and then fail the request and abort the team with a {@link CollectiveTimeoutException}
     * (no timeout: they wait until the ranks complete it). Futures derived from it ({@code thenApply} …) are
     * plain {@code CompletableFuture}s whose {@code join} does not drive anything: join this one first.
     */
    CompletableFuture<Void> toFuture();

    /**
     * Waits for every request ({@code MPI_Waitall}), one after the other: each {@code await} progresses its rank's
     * work, so the order does not matter. The first failure is thrown at once; the requests after it are left as
     * they are (await them to know their fate).
     */
    static void awaitAll(Request... requests) {
        for (Request r : requests) {
            r.await();
        }
    }

    /**
     * Waits until one of the requests is complete and returns its index ({@code MPI_Waitany}), polling them in turn
     * with {@link #isDone()} (which progresses them, and checks abort and timeout). A failed request's failure is
     * thrown. Polls spin briefly, then yield.
     */
    static int awaitAny(Request... requests) {
        if (requests.length == 0) {
            throw new IllegalArgumentException("awaitAny needs at least one request");
        }
        for (int round = 0; ; round++) {
            for (int i = 0; i < requests.length; i++) {
                if (requests[i].isDone()) {
                    return i;
                }
            }
            if (round < 1000) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
    }

    /** True when every request is complete ({@code MPI_Testall}): polls each once with {@link #isDone()}. */
    static boolean testAll(Request... requests) {
        boolean all = true;
        for (Request r : requests) {
            all &= r.isDone();
        }
        return all;
    }
}
