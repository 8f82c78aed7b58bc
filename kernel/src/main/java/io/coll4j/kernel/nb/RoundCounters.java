package io.coll4j.kernel.nb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The three monotonic counters a non-blocking collective is driven by: how many posts the ranks have made,
 * how many work items have been claimed, how many have been finished. These counters are coll4j's: PAMI's
 * shared-memory collectives keep one monotonically increasing data-ready counter per task [PAMI §3.4],
 * never reset, and that is the idea taken here, not the counters. Nothing is ever reset: round r (1, 2, 3, … — one per {@code start()} of a persistent request, a single round for a
 * one-shot request) of a collective with p ranks and n items per round is
 * <ul>
 *   <li><b>posted</b> once {@code posted ≥ r·p}: every rank has published its inputs for round r;</li>
 *   <li>its items are the claim tickets {@code (r−1)·n … r·n − 1}, claimed by whichever thread gets
 *       them — no item has an owner, so a waiting rank does the work its peers have not done;</li>
 *   <li><b>complete</b> once {@code finished ≥ r·n}: every output of round r is written.</li>
 * </ul>
 *
 * <h2>Happens-before</h2>
 * <ol>
 *   <li>A rank's writes before {@link #post()} (its send buffer, its buffer references) → any thread
 *       whose {@link #allPosted} reads {@code ≥ r·p}: {@code post} is a volatile RMW; the RMWs of all
 *       ranks form one chain in the synchronisation order (each reads the previous one's write), and
 *       {@code allPosted} is a volatile read of its end.</li>
 *   <li>A worker's writes of an item's outputs before {@link #finish} → any thread whose
 *       {@link #complete} reads {@code ≥ r·n}: the same argument on the finished counter.</li>
 *   <li>Rounds never overlap: a rank posts round r+1 only after its round r completed, so no item of
 *       round r+1 is claimable while a round-r item is in flight ({@link #claim} refuses tickets past
 *       the caller's round, which a stale helper of round r would otherwise take).</li>
 * </ol>
 * jcstress test {@code RoundCountersTest} checks (1)–(2) with two actors that post and steal.
 */
public final class RoundCounters {
    private static final VarHandle POSTED, CLAIMED, FINISHED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            POSTED = l.findVarHandle(RoundCounters.class, "posted", long.class);
            CLAIMED = l.findVarHandle(RoundCounters.class, "claimed", long.class);
            FINISHED = l.findVarHandle(RoundCounters.class, "finished", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int ranks;
    private final long items;
    // three counters on their own cache lines: posters, claimers and finishers hit different ones
    @SuppressWarnings("unused")
    private long p0, p1, p2, p3, p4, p5, p6, p7;
    private volatile long posted;
    @SuppressWarnings("unused")
    private long q0, q1, q2, q3, q4, q5, q6, q7;
    private volatile long claimed;
    @SuppressWarnings("unused")
    private long r0, r1, r2, r3, r4, r5, r6, r7;
    private volatile long finished;
    @SuppressWarnings("unused")
    private long s0, s1, s2, s3, s4, s5, s6, s7;

    /** Counters for {@code ranks} posters and {@code items} work items per round. */
    public RoundCounters(int ranks, long items) {
        if (ranks < 1 || items < 0) {
            throw new IllegalArgumentException("ranks must be >= 1 and items >= 0, got " + ranks + " and " + items);
        }
        this.ranks = ranks;
        this.items = items;
    }

    public long items() {
        return items;
    }

    /**
     * Counts one rank's post; returns true for the post that completes a round's posting (the caller
     * may then wake a progress thread). Volatile RMW: release of everything the rank wrote before.
     */
    public boolean post() {
        long v = (long) POSTED.getAndAdd(this, 1L) + 1;
        return v % ranks == 0;
    }

    /** True when every rank has posted round {@code round} (volatile read: acquire, pairs with {@link #post}). */
    public boolean allPosted(long round) {
        return posted - round * ranks >= 0;
    }

    /** Posts made so far (diagnostics). */
    public long posted() {
        return posted;
    }

    /**
     * Claims the next unclaimed item of round {@code round}; returns its index within the round
     * (0 … n−1), or −1 when every item of the round is claimed. Call only once {@link #allPosted}.
     */
    public long claim(long round) {
        long limit = round * items;
        long c = claimed;
        while (c - limit < 0) {
            long w = (long) CLAIMED.compareAndExchange(this, c, c + 1);
            if (w == c) {
                return c - (round - 1) * items;
            }
            c = w;
        }
        return -1;
    }

    /**
     * Counts one finished item; returns true for the item that completes the round. Volatile RMW:
     * release of the item's outputs, pairs with {@link #complete}.
     */
    public boolean finish(long round) {
        long v = (long) FINISHED.getAndAdd(this, 1L) + 1;
        return v == round * items;
    }

    /** True when round {@code round} is posted and every item of it is finished (acquire). */
    public boolean complete(long round) {
        return finished - round * items >= 0 && allPosted(round);
    }
}
