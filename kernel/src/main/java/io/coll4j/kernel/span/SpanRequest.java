package io.coll4j.kernel.span;

import io.coll4j.kernel.nb.FirstFailure;
import io.coll4j.CollectiveInterruptedException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.PersistentRequest;
import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.nb.CollectiveRequest;
import io.coll4j.kernel.nb.RequestFuture;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A non-blocking or persistent collective of a team that spans processes, as one rank's resumable schedule
 * [PAMI §3, §4.1–4.2; HMPI §2.5]: a collective on the process's own ranks (the team's non-blocking engine),
 * the leader's inter-process collective (an MPI non-blocking collective, completed by MPI_Test), and a
 * collective on the process's ranks again — the shapes of the blocking {@code Leader*} algorithms, whose
 * {@code schedule} methods build them. A stage begins when the previous one is done; local stages are the
 * engine's persistent requests (started once per round), so every local rank joined them when the request
 * was made and any waiting local rank does their work.
 *
 * <p>Only local rank 0 posts inter-process stages, in the order its requests were started
 * ({@link SpanQueue}), so MPI sees every process's collectives in the same order. A request moves when its
 * rank polls ({@link #isDone()}) or waits — and then every outstanding request of that rank moves with it,
 * in start order, so a rank waiting on a later request still completes the leader's part of an earlier one
 * that another local rank waits on. A request is driven by its rank's thread only.
 *
 * <p>Timeout: an inter-process stage in flight longer than the team timeout while its rank keeps polling or
 * waiting is a {@link CollectiveTimeoutException} that aborts the team (and so, through the spanned
 * {@code team.run}, the job). The clock runs only while someone watches: a gap of more than half the timeout
 * between two polls restarts it, so a request left alone while its rank computes is not a hang.
 *
 * <p>Failure is sticky, as a {@link CollectiveRequest}'s: the first failure (a stage's, a chain step's — which
 * aborts the team charged to this rank —, the abort, an interrupt of the waiting thread, a timeout) is recorded
 * and is the answer to every later question, a persistent {@code start()} and the future included. The future's
 * {@code join}/{@code get} on the rank's thread drive the request; elsewhere they wait at most the team timeout
 * ({@link RequestFuture}).
 */
public final class SpanRequest implements PersistentRequest {
    /** One stage of a rank's schedule. */
    public sealed interface Stage permits Local, LateLocal, Inter, Step, Fence {
    }

    /** A collective on the process's ranks: a persistent request of the team's engine, started each round. */
    public record Local(CollectiveRequest request) implements Stage {
    }

    /**
     * A local stage that local rank 0 joins when its schedule first reaches it, once an earlier stage has told
     * it the counts (see {@link LocalJoin}); the same request in later rounds.
     */
    public static final class LateLocal implements Stage {
        private final Supplier<CollectiveRequest> join;
        private CollectiveRequest request;

        public LateLocal(Supplier<CollectiveRequest> join) {
            this.join = join;
        }

        CollectiveRequest request() {
            if (request == null) {
                request = join.get();
            }
            return request;
        }
    }

    /** The leader's inter-process collective: posted in start order, completed by {@link ProcessSpan.Pending#test()}. */
    public record Inter(Supplier<ProcessSpan.Pending> post) implements Stage {
    }

    /** A chain's local step: runs on the rank's thread once every stage before it is complete here. */
    public record Step(Runnable run) implements Stage {
    }

    /**
     * The end of one collective's stages in a chain: a rank that does not call MPI posts the local stages of
     * one collective together, never past a fence (see {@link #beginFrom}).
     */
    public record Fence() implements Stage {
    }

    private final Stage[] stages;
    /** The number of inter stages: 0 on a rank that does not call MPI. */
    private final int inters;
    /** A chain: its later stages wait on this rank's local steps, so blocking calls do not wait for it (SpanQueue#flush). */
    private final boolean chain;
    private final SpanQueue queue;
    private final TeamContext context;
    private final int rank;
    private final boolean persistent;
    private final String what;
    private final Thread owner = Thread.currentThread();
    /** The stage in progress (stages.length: the round is complete). */
    private int next;
    /** Stages begun this round: the current one on the leader; all of them at once elsewhere (see begin). */
    private int begun;

    private boolean active;
    private boolean closed;
    private ProcessSpan.Pending pending;
    /** When the in-flight inter stage was first found incomplete by a watching poll, and the last such poll. */
    private long watchedSince;
    private long lastPoll;
    private CompletableFuture<Void> future;
    /** The first failure, for good. */
    private final FirstFailure failure = new FirstFailure();

    /** The JFR event of the round in progress (null: not recorded), and what it reports. */
    private io.coll4j.kernel.events.RequestEvent event;
    private String collective = "chain";
    private long bytes;

    private SpanRequest(List<Stage> stages, SpanQueue queue, TeamContext context, int rank, boolean persistent, String what,
                        boolean chain) {
        this.stages = stages.toArray(Stage[]::new);
        this.inters = (int) stages.stream().filter(s -> s instanceof Inter).count();
        this.chain = chain;
        this.queue = queue;
        this.context = context;
        this.rank = rank;
        this.persistent = persistent;
        this.what = what;
    }

    /**
     * A one-shot request, started at once; {@code buffers} (pooled, taken by its schedule) go back to
     * {@link RequestBuffers} when it completes.
     */
    public static SpanRequest oneShot(List<Stage> stages, SpanQueue queue, TeamContext context, int rank, String what,
                                      List<java.lang.foreign.MemorySegment> buffers, String collective, long bytes) {
        SpanRequest r = new SpanRequest(stages, queue, context, rank, false, what, false);
        r.buffers = buffers.isEmpty() ? null : buffers;
        r.collective = collective;
        r.bytes = bytes;
        r.begin();
        return r;
    }

    /** A one-shot request's pooled staging buffers, until it completes (null: none, or given back). */
    private List<java.lang.foreign.MemorySegment> buffers;

    /** A chain ({@code io.coll4j.Chain}) across processes, started at once. */
    public static SpanRequest chain(List<Stage> stages, SpanQueue queue, TeamContext context, int rank) {
        SpanRequest r = new SpanRequest(stages, queue, context, rank, false, "chain", true);
        r.begin();
        return r;
    }

    /** A persistent request, inactive until {@link #start()}. */
    public static SpanRequest persistent(List<Stage> stages, SpanQueue queue, TeamContext context, int rank, String what,
                                         String collective, long bytes) {
        SpanRequest r = new SpanRequest(stages, queue, context, rank, true, what, false);
        r.collective = collective;
        r.bytes = bytes;
        return r;
    }

    @Override
    public void start() {
        throwIfFailed();                       // a failed request stays failed: its failure, not a new round
        CollectiveRequest.checkStart(persistent, active, closed);
        checkOwner();
        begin();
    }

    private void begin() {
        if (context.isAborted()) {
            throw fail(context.abortedException(rank));
        }
        next = 0;
        begun = 0;
        active = true;
        event = io.coll4j.kernel.events.RequestEvent.started();
        watchedSince = 0;
        queue.started(this, inters);
        advance();
    }

    /**
     * Runs this request's schedule as far as it goes without waiting (called in start order by
     * {@link SpanQueue#progress()}); true when a stage completed.
     */
    boolean advance() {
        if (!active) {
            return false;
        }
        if (context.isAborted()) {
            throw fail(context.abortedException(rank));
        }
        boolean moved = false;
        while (next < stages.length) {
            Stage s = stages[next];
            boolean done;
            try {
                if (begun <= next) {
                    if (s instanceof Inter i) {
                        if (!queue.mayPost(this)) {
                            return moved;   // an earlier request of this rank has not posted its inter stage yet
                        }
                        pending = i.post().get();
                        queue.posted(this);
                        lastPoll = 0;
                        begun = next + 1;
                    } else {
                        beginFrom(next);
                    }
                }
                done = switch (s) {
                    case Local l -> l.request().isDone();
                    case LateLocal l -> l.request().isDone();
                    case Inter i -> testInter();
                    case Step st -> {
                        runStep(st.run());
                        yield true;
                    }
                    case Fence f -> true;
                };
            } catch (IllegalArgumentException e) {
                if (!(s instanceof Inter)) {
                    throw fail(e);
                }
                // a segment the inter stage works on died (its arena was closed while MPI worked on a stand-in of
                // it): this rank's error; recorded before the team aborts (the abort must find it standing), so
                // its other ranks do not wait on the stages after it
                IllegalArgumentException named = new IllegalArgumentException(what + " of local rank " + rank + ": "
                        + e.getMessage(), e);
                record(named);
                context.abort(named, rank);
                throw fail(named);
            } catch (RuntimeException e) {
                throw fail(e);
            }
            if (!done) {
                return moved;
            }
            if (s instanceof Inter) {
                queue.interDone(this);
            }
            next++;
            moved = true;
        }
        active = false;
        pending = null;
        if (buffers != null) {
            // every stage is done: MPI has finished with them and no local rank reads them any more
            RequestBuffers.release(buffers);
            buffers = null;
        }
        queue.finished(this);
        finishEvent(null);
        if (future != null) {
            future.complete(null);
        }
        return true;
    }

    /**
     * Begins local stage {@code k}; a rank that does not call MPI also begins the local stages after it, up to
     * the next step or fence: their items cannot run before the leader posts them, which it does only once its
     * stages before are done — and a leader's reduce, gather, scatter or barrier is done only when every item
     * of it is, so an in-place output is never written before every input was read. The leader then completes
     * those stages while this rank computes, waits on something else, or sits in a blocking call. (Not past a
     * fence: a leader's part of a bcast from another local rank can be done before this rank's is.)
     */
    private void beginFrom(int k) {
        int end = k + 1;
        if (inters == 0 && stages[k] instanceof Local) {
            while (end < stages.length && stages[end] instanceof Local) {
                end++;
            }
        }
        for (int i = k; i < end; i++) {
            if (stages[i] instanceof Local l) {
                l.request().start();
            } else if (stages[i] instanceof LateLocal l) {
                l.request().start();   // joined now, on first use (local rank 0 only)
            }
        }
        begun = end;
    }

    /** True while an inter stage of this round is in flight (posted, not complete). */
    boolean interInFlight() {
        return active && next < stages.length && stages[next] instanceof Inter && begun > next;
    }

    boolean isChain() {
        return chain;
    }

    /** One MPI_Test of the inter stage, with the watched-time timeout (see the class comment). */
    private boolean testInter() {
        if (pending.test()) {
            return true;
        }
        long now = System.nanoTime();
        long timeout = context.timeoutNanos();
        if (lastPoll == 0 || now - lastPoll > timeout / 2) {
            watchedSince = now;   // first look, or nobody looked for a while: not a hang, the clock restarts
        }
        lastPoll = now;
        if (now - watchedSince > timeout) {
            RuntimeException e = new CollectiveTimeoutException(what + " on rank " + rank + ": the inter-process stage ("
                    + pending + ") has not completed in " + (now - watchedSince) / 1_000_000 + " ms of polling: another "
                    + "process died, hangs, or issued a different collective", List.of());
            RuntimeException f = record(e);     // before the abort, which fails the future with what stands
            context.abort(e, rank);
            throw f;
        }
        return false;
    }

    /**
     * A chain's local step; one that throws ends the request and aborts the team charged to this rank (the other
     * ranks' chains would wait for the next stage until the timeout), recorded first so that the future, failed by
     * the abort, reports the step's exception too.
     */
    private void runStep(Runnable step) {
        try {
            step.run();
        } catch (Error e) {
            context.abort(e, rank);
            throw e;
        } catch (RuntimeException e) {
            RuntimeException f = record(e);
            context.abort(e, rank);
            throw f;
        }
    }

    /** The request failed with {@code e} (or its earlier failure): leaves the queue, fails the future; returns the failure. */
    private RuntimeException fail(RuntimeException e) {
        RuntimeException f = record(e);
        finishEvent(f);
        leave();
        if (future != null) {
            future.completeExceptionally(f);
        }
        return f;
    }

    private void finishEvent(RuntimeException failed) {
        if (event != null) {
            io.coll4j.kernel.events.RequestEvent.finish(event, collective, chain ? "chain" : persistent ? "persistent" : "one-shot",
                    bytes, context.size(), rank, failed);
            event = null;
        }
    }

    private RuntimeException failure() {
        return failure.get();
    }

    private void throwIfFailed() {
        failure.throwIfFailed();
    }

    /** Records {@code e} unless the request failed already; returns the failure that stands. */
    private RuntimeException record(RuntimeException e) {
        return failure.record(e);
    }

    /** Takes the request out of its rank's queue (its inter stages will not be posted). */
    private void leave() {
        if (active) {
            for (int i = next; i < stages.length; i++) {
                if (stages[i] instanceof Inter) {
                    queue.interDone(this);
                }
            }
        }
        active = false;
        queue.finished(this);
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("a request of a team that spans processes is driven by its rank's thread "
                    + owner.getName() + ", not " + Thread.currentThread().getName());
        }
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public boolean isDone() {
        throwIfFailed();
        if (!active) {
            return true;
        }
        checkOwner();
        try {
            queue.progress();
        } catch (RuntimeException e) {
            throw failedWith(e);
        }
        throwIfFailed();
        return !active;
    }

    /**
     * An exception out of the queue's progress: this request's failure, or another outstanding request's of this
     * rank (every such failure aborts the team), which this request, unable to complete, then reports too.
     */
    private RuntimeException failedWith(RuntimeException e) {
        RuntimeException f = failure();
        if (f != null) {
            return f;
        }
        return active ? fail(e) : e;
    }

    @Override
    public void await() {
        awaitUntil(0, false);
    }

    @Override
    public boolean await(Duration timeout) {
        return awaitUntil(System.nanoTime() + timeout.toNanos(), true);
    }

    private boolean awaitUntil(long deadline, boolean bounded) {
        throwIfFailed();
        if (!active) {
            return true;
        }
        checkOwner();
        try {
            for (int idle = 0; ; idle++) {
                if (queue.progress()) {
                    idle = 0;
                }
                throwIfFailed();
                if (!active) {
                    return true;
                }
                if (bounded && System.nanoTime() - deadline >= 0) {
                    return false;
                }
                if (owner.isInterrupted()) {
                    // checked before idling: with the flag set a parking strategy returns at once and the loop spins
                    throw interrupted();
                }
                context.waitStrategy().idle(idle);
            }
        } catch (RuntimeException e) {
            throw failedWith(e);
        }
    }

    /** The wait of this rank's thread was interrupted: the team aborts naming this rank (then, across processes, the job). */
    private RuntimeException interrupted() {
        CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + rank + " (thread " + owner.getName()
                + ") was interrupted while waiting for " + what + " across processes (stage " + (next + 1) + " of "
                + stages.length + "); the team is aborted", rank);
        RuntimeException f = record(e);
        context.abort(e, rank);
        return fail(f);
    }

    @Override
    public CompletableFuture<Void> toFuture() {
        RuntimeException failed = failure();
        if (failed != null) {
            if (future == null || !future.isCompletedExceptionally()) {
                future = new RequestFuture(driver());
            }
            future.completeExceptionally(failed);
            return future;
        }
        if (future == null || future.isDone() && active) {
            RequestFuture f = new RequestFuture(driver());
            future = f;
            if (!active) {
                f.complete(null);
            } else {
                context.onAbort(() -> {
                    if (!f.isDone()) {             // a round complete before the abort stays complete
                        f.completeExceptionally(record(context.abortedException(rank)));
                    }
                });
            }
        }
        return future;
    }

    /** What the future drives: the request on its rank's thread, a bounded wait elsewhere. */
    private RequestFuture.Driver driver() {
        return RequestFuture.Driver.of(() -> Thread.currentThread() == owner,
                this::await, this::await, context::timeoutNanos,
                waitedNanos -> {
                    CollectiveTimeoutException e = new CollectiveTimeoutException("the future of " + what + " across processes"
                            + " of rank " + rank + " was waited on by thread " + Thread.currentThread().getName() + ", which is"
                            + " not that rank's and cannot progress it, for " + waitedNanos / 1_000_000 + " ms (the team timeout)"
                            + " without completing", List.of());
                    RuntimeException f = record(e);
                    context.abort(e, rank);
                    return f;
                });
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public String toString() {
        return (persistent ? "PersistentRequest[" : "Request[") + what + " across processes, rank " + rank + ", stage "
                + next + " of " + stages.length + (active ? ", active]" : "]");
    }
}
