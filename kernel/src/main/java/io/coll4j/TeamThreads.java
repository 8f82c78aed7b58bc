package io.coll4j;

import io.coll4j.bindings.libc.TimerSlack;
import io.coll4j.kernel.algo.TeamContext;

import java.util.concurrent.TimeUnit;

/**
 * The rank threads of {@link Team#run}: one platform thread per rank, bound to its PU, each running the body;
 * joined with a grace period after an abort, then interrupted, then left behind (daemons) if they ignore it.
 */
final class TeamThreads {
    /**
     * After an abort, how long {@link Team#run} lets rank threads finish on their own before interrupting them
     * (a rank that never arrives is usually sleeping or blocked in I/O), and, twice this, before giving
     * up on a thread that ignores interrupts (it is a daemon and cannot keep the JVM alive).
     */
    static final long ABORT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    /** Timer slack of rank threads: parks of a few µs in the wait strategy then last a few µs. */
    static final long RANK_TIMER_SLACK_NANOS = 1_000;

    private TeamThreads() {
    }

    /** Runs {@code body} on a new thread per rank and returns when every thread has ended or been given up. */
    static void runAll(Rank[] ranks, RankBody body, TeamContext context) {
        Thread[] threads = new Thread[ranks.length];
        for (int r = 0; r < ranks.length; r++) {
            Rank rank = ranks[r];
            threads[r] = Thread.ofPlatform().name("coll4j-rank-" + r).daemon(true).unstarted(() -> rankMain(rank, body, context));
        }
        for (Thread t : threads) {
            t.start();
        }
        joinAll(threads, context);
    }

    private static void rankMain(Rank rank, RankBody body, TeamContext context) {
        rank.adopt(Thread.currentThread());
        // a parked rank should wake when its park ends, not up to 50 µs later (Linux default timer slack)
        TimerSlack.set(RANK_TIMER_SLACK_NANOS);
        try {
            rank.bindThread();
            body.run(rank);
            // a peer waiting in a collective this rank never entered now fails at once, naming it
            context.bodyReturned(rank.localId());
        } catch (Throwable t) {
            context.abort(t, rank.localId());
        } finally {
            rank.release(Thread.currentThread());
        }
    }

    /** Joins every rank thread; after an abort waits a grace period, then interrupts and finally gives up on stuck threads. */
    private static void joinAll(Thread[] threads, TeamContext context) {
        long abortSeen = 0;
        boolean interrupted = false;
        for (Thread t : threads) {
            while (t.isAlive()) {
                try {
                    t.join(10);
                } catch (InterruptedException e) {
                    // the caller of run was interrupted: stop the ranks and report it as such (status kept)
                    context.abort(new CollectiveInterruptedException("team.run was interrupted (thread "
                            + Thread.currentThread().getName() + "); every rank was aborted", -1), -1);
                    interrupted = true;
                }
                if (context.isAborted() && t.isAlive()) {
                    long now = System.nanoTime();
                    if (abortSeen == 0) {
                        abortSeen = now;
                    } else if (now - abortSeen > 2 * ABORT_GRACE_NANOS) {
                        break;                       // a body that ignores interrupts: leave the daemon thread behind
                    } else if (now - abortSeen > ABORT_GRACE_NANOS) {
                        for (Thread s : threads) {
                            s.interrupt();
                        }
                    }
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
