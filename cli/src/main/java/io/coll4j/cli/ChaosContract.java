package io.coll4j.cli;

import static io.coll4j.cli.Chaos.SLACK_NANOS;
import static io.coll4j.cli.ChaosStats.EXC;
import static io.coll4j.cli.ChaosStats.EXCEPTION_NAMES;
import static io.coll4j.cli.ChaosStats.REVIVED;
import static io.coll4j.cli.ChaosStats.UNDOCUMENTED;
import static io.coll4j.cli.ChaosStats.UNPROVOKED;

import io.coll4j.CollectiveInterruptedException;
import io.coll4j.CollectiveMismatchException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.PersistentRequest;
import io.coll4j.Request;
import io.coll4j.TeamAbortedException;
import io.coll4j.cli.Chaos.Hung;
import io.coll4j.cli.Chaos.InjectedFault;
import io.coll4j.cli.ChaosPlan.Episode;
import io.coll4j.cli.ChaosPlan.Spec;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The error contract (docs/design.md, "Error contract") as the soak checks it: which exceptions a call may end
 * with, that a failed request stays failed, and which faults must be reported.
 */
final class ChaosContract {
    /** The exceptions docs/design.md, "Error contract", allows a call to end with. */
    static final List<Class<? extends RuntimeException>> DOCUMENTED = List.of(IllegalArgumentException.class,
            CollectiveMismatchException.class, TeamAbortedException.class, CollectiveTimeoutException.class,
            CollectiveInterruptedException.class, IllegalStateException.class);

    /** Whether the contract demands an exception that no rank saw (set by the ranks as they go). */
    static boolean isMiss(Episode e, ChaosContext ctx) {
        return switch (e.fault()) {
            case MISMATCH, STALL, THROW_BODY -> !ctx.reported.get();
            default -> ctx.missed;
        };
    }

    static boolean documented(Throwable t) {
        for (Class<? extends RuntimeException> c : DOCUMENTED) {
            if (c.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    static <T extends Throwable> T cause(Throwable t, Class<T> c) {
        for (int i = 0; t != null && i < 20; t = t.getCause(), i++) {
            if (c.isInstance(t)) {
                return c.cast(t);
            }
        }
        return null;
    }

    /** Counts an exception a call ended with: documented (by type), the soak's own, or undocumented. */
    static void classify(ChaosContext ctx, Throwable t, int me, int i, Spec spec) {
        if (t instanceof Hung) {
            return;               // counted as the episode's hang
        }
        ctx.reported.set(true);
        Episode e = ctx.e;
        if (e.fault() == null) {
            ctx.s.add(UNPROVOKED, 1);
            if (ctx.s.notes.size() < 10) {
                ctx.s.notes.add("exception without a fault: rank " + me + " call " + i + " (" + spec + "): " + t + " (" + e.describe() + ")");
            }
        }
        if (t instanceof InjectedFault) {
            // the soak's own: the fault it injected, or a rank it stopped (a bad call accepted, counted as such)
            ctx.s.add(EXC + EXCEPTION_NAMES.length - 1, 1);
            return;
        }
        for (int k = 0; k < DOCUMENTED.size(); k++) {
            if (DOCUMENTED.get(k).isInstance(t)) {
                ctx.s.add(EXC + k, 1);
                return;
            }
        }
        ctx.s.add(UNDOCUMENTED, 1);
        java.io.StringWriter w = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(w));
        String st = w.toString().lines().limit(8).reduce((a, b) -> a + "\n      " + b).orElse("");
        ctx.s.fail("undocumented exception: rank " + me + " call " + i + " (" + spec + "): " + st + "\n    (" + e.describe() + ")");
    }

    /**
     * Waits for a request the way the call draws ({@link Spec#waitMode}); when it fails, checks that it stays failed
     * (isDone and await throw again, its future completes exceptionally, a persistent request does not start again
     * into a round that completes), then rethrows the failure.
     */
    static void complete(ChaosContext ctx, Request r, Spec s, boolean persistent) throws Exception {
        try {
            switch (s.waitMode()) {
                case 1 -> {
                    while (!r.isDone()) {
                        Thread.onSpinWait();
                        Thread.yield();
                    }
                }
                case 2 -> {
                    while (!r.await(Duration.ofMillis(1))) {
                        Thread.onSpinWait();
                    }
                }
                case 3 -> {
                    try {
                        r.toFuture().get(ctx.e.timeoutMs() + TimeUnit.NANOSECONDS.toMillis(SLACK_NANOS) / 2, TimeUnit.MILLISECONDS);
                    } catch (ExecutionException ee) {
                        throw ee.getCause() instanceof RuntimeException re ? re : ee;
                    } catch (TimeoutException te) {
                        ctx.hang("toFuture().get did not complete within the timeout + slack (" + s + ")");
                        throw new Hung("toFuture().get hung");
                    }
                    if (persistent) {
                        r.await();    // the round's end observed (PersistentRequest.start), at once: the future completed
                    }
                }
                default -> r.await();
            }
        } catch (RuntimeException failure) {
            if (!(failure instanceof InjectedFault) && !(failure instanceof Hung)) {
                staysFailed(ctx, r, s, persistent, failure);
            }
            throw failure;
        }
    }

    private static void staysFailed(ChaosContext ctx, Request r, Spec s, boolean persistent, RuntimeException failure) {
        boolean wasInterrupted = Thread.interrupted();   // so the checks below see the request, not the interrupt
        String where = " after " + failure.getClass().getSimpleName() + " (" + s + "), " + ctx.e.describe();
        try {
            if (r.isDone()) {
                revived(ctx, "isDone() returned true" + where);
            }
        } catch (RuntimeException expected) {
            // still failed
        }
        try {
            if (r.await(Duration.ofMillis(200))) {
                revived(ctx, "await(200 ms) returned true" + where);
            }
        } catch (RuntimeException expected) {
            // still failed
        }
        try {
            r.toFuture().get(5, TimeUnit.SECONDS);
            revived(ctx, "toFuture().get() returned normally" + where);
        } catch (ExecutionException | java.util.concurrent.CancellationException expected) {
            // still failed
        } catch (TimeoutException te) {
            ctx.hang("the failed request's toFuture() was not complete 5 s later" + where);
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        if (persistent && r instanceof PersistentRequest pr) {
            try {
                pr.start();
                // a start after a failed round: its round must fail, promptly
                try {
                    if (pr.await(Duration.ofSeconds(5))) {
                        revived(ctx, "a restarted persistent request completed" + where);
                    } else {
                        ctx.hang("a persistent request restarted after a failed round neither completed nor failed in 5 s" + where);
                    }
                } catch (RuntimeException expected) {
                    // still failed
                }
            } catch (RuntimeException expected) {
                // refused
            }
        }
        if (wasInterrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void revived(ChaosContext ctx, String what) {
        ctx.s.add(REVIVED, 1);
        ctx.s.fail("revived " + ctx.e.seed() + " " + what.substring(0, what.indexOf(' ')),
                "a failed request looked complete: " + what + " (the first of this team; every revival is counted)");
    }

    private ChaosContract() {
    }
}
