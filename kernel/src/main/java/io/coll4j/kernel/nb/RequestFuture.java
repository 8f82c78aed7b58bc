package io.coll4j.kernel.nb;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The future of a request ({@code Request.toFuture()}) whose blocking methods never wait silently. A team
 * without a progress thread moves a collective only while its ranks poll or wait, so a rank that blocked in
 * a plain {@link CompletableFuture#join()} would wait for a result nobody computes (every rank of the team
 * doing so: for ever). Here {@link #join()} and {@link #get()} called from the request's own rank thread
 * drive the request as {@code await()} does (its failure completes this future exceptionally, so they throw
 * it wrapped as {@code CompletableFuture} does); called from any other thread, which cannot drive it, they
 * wait at most the team timeout and then fail the request — and the team, as a timeout does — with a
 * {@link io.coll4j.CollectiveTimeoutException}. Futures derived from this one ({@code thenApply} …) are
 * plain {@code CompletableFuture}s: join this one first.
 */
public final class RequestFuture extends CompletableFuture<Void> {
    /** What the blocking methods use of the request behind the future. */
    public interface Driver {
        /** True when the calling thread may drive the request (the thread of its rank). */
        boolean drivable();

        /** The request's {@code await()}: throws its failure. */
        void await();

        /** The request's {@code await(Duration)}. */
        boolean await(Duration timeout);

        /** The team timeout in nanoseconds ({@code Long.MAX_VALUE}: none). */
        long timeoutNanos();

        /**
         * A thread that cannot drive the request waited {@code waitedNanos} (the team timeout) for it: fail the
         * request and abort the team with a timeout; returns the request's failure (the first one, if it had one).
         */
        RuntimeException foreignTimeout(long waitedNanos);

        /**
         * A driver from a request's own parts: {@code await} and {@code awaitFor} its two waits, {@code timeoutNanos}
         * read when a foreign thread starts waiting (the team's timeout may change between calls).
         */
        static Driver of(BooleanSupplier drivable, Runnable await, Predicate<Duration> awaitFor,
                         LongSupplier timeoutNanos, LongFunction<RuntimeException> foreignTimeout) {
            return new Driver() {
                @Override
                public boolean drivable() {
                    return drivable.getAsBoolean();
                }

                @Override
                public void await() {
                    await.run();
                }

                @Override
                public boolean await(Duration timeout) {
                    return awaitFor.test(timeout);
                }

                @Override
                public long timeoutNanos() {
                    return timeoutNanos.getAsLong();
                }

                @Override
                public RuntimeException foreignTimeout(long waitedNanos) {
                    return foreignTimeout.apply(waitedNanos);
                }
            };
        }
    }

    private final Driver driver;

    public RequestFuture(Driver driver) {
        this.driver = driver;
    }

    @Override
    public Void join() {
        try {
            drive(false);
        } catch (InterruptedException e) {
            throw new AssertionError(e);            // not thrown when not interruptible
        }
        return super.join();
    }

    @Override
    public Void get() throws InterruptedException, ExecutionException {
        drive(true);
        return super.get();
    }

    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (isDone()) {
            return super.get(timeout, unit);
        }
        long wanted = unit.toNanos(timeout);
        if (driver.drivable()) {
            try {
                if (!driver.await(Duration.ofNanos(wanted))) {
                    throw new TimeoutException("the request did not complete in " + Duration.ofNanos(wanted));
                }
            } catch (RuntimeException e) {
                completeExceptionally(e);
            }
            return super.get(0, TimeUnit.NANOSECONDS);
        }
        long limit = driver.timeoutNanos();
        if (wanted < limit) {
            return super.get(wanted, TimeUnit.NANOSECONDS);
        }
        waitBounded(limit, true);
        return super.get(0, TimeUnit.NANOSECONDS);
    }

    /** Before a blocking wait: drive the request (its rank's thread), or wait at most the team timeout (any other). */
    private void drive(boolean interruptible) throws InterruptedException {
        if (isDone()) {
            return;
        }
        if (driver.drivable()) {
            try {
                driver.await();
            } catch (RuntimeException e) {
                completeExceptionally(e);           // already so (the request fails its future); kept for safety
            }
            return;
        }
        long limit = driver.timeoutNanos();
        if (limit != Long.MAX_VALUE) {
            waitBounded(limit, interruptible);
        }
    }

    private void waitBounded(long limit, boolean interruptible) throws InterruptedException {
        long start = System.nanoTime();
        boolean interrupted = false;
        try {
            while (true) {
                long left = limit - (System.nanoTime() - start);
                if (left <= 0) {
                    completeExceptionally(driver.foreignTimeout(System.nanoTime() - start));
                    return;
                }
                try {
                    super.get(left, TimeUnit.NANOSECONDS);
                    return;
                } catch (ExecutionException e) {
                    return;
                } catch (TimeoutException e) {
                    // loop: the deadline is checked above
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true;             // join() is not interruptible: keep waiting, status restored below
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
