package io.coll4j.kernel.nb;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the ranks of a team find each other's non-blocking calls: call n (every rank numbers its non-blocking and
 * persistent-init calls 1, 2, 3, … in the same order, as MPI requires) lives in slot {@code n mod SIZE}. The first
 * rank to issue n claims the slot (a CAS of its stamp from the slot's last call to −n), puts n's value there and
 * publishes it (a release store of the stamp, n); the other ranks find n there (an acquire load of the stamp). A
 * slot is free for n + SIZE once every rank has found n, which each rank records on a line of its own (its found
 * call, a release store, one writer): no counter that every rank writes at every call. The claimer reads the
 * other ranks' found calls only when the smallest it knew is too old — about once per SIZE calls.
 *
 * <h2>Happens-before</h2>
 * <ol>
 *   <li>The claimer's writes before {@link #publish} (the slot's value and use, and whatever the value holds) → every rank
 *       whose {@link #stamp} reads n (release store → acquire load of the stamp), which reads the value and use after.</li>
 *   <li>A rank's reads of call n's slot → the claimer of n + SIZE, which overwrites it: the rank's
 *       {@link #found} (release) → {@link #allFound}'s acquire loads, before the claim.</li>
 *   <li>Claims are totally ordered by issue: the claimer of n has found (or claimed) every call before n, so
 *       whatever a claimer does between its claim and its publication happens-before every later claimer's
 *       (the team's {@link ExchangePool} relies on it).</li>
 * </ol>
 * jcstress {@code IssueWindowTest} checks (1) and the claim's exclusivity with two ranks issuing the same call,
 * {@code IssueWindowReuseTest} checks (2).
 *
 * @param <T> what a call's slot holds (the call's exchange)
 */
public final class IssueWindow<T> {
    /** Issue numbers a rank may be ahead of the slowest rank to find its calls. */
    public static final int SIZE = 1024;
    /** Longs per cache line pair: each rank's found call is alone on its lines. */
    private static final int LINE = 16;
    private static final VarHandle STAMP, VALUE, LONGS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STAMP = l.findVarHandle(Slot.class, "stamp", long.class);
            VALUE = l.findVarHandle(Slot.class, "value", Object.class);
            LONGS = MethodHandles.arrayElementVarHandle(long[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * One slot: the stamp (the call it holds, −n while n's claimer fills it, 0 never used), the call's value and a
     * number the claimer publishes with it (the exchange's use), on one line: a rank that finds the call reads it whole.
     */
    private static final class Slot {
        @SuppressWarnings("unused")
        long stamp;
        long use;
        /** Published ahead of the call, for the shape its value serves ({@link #publishAhead}). */
        boolean ahead;
        @SuppressWarnings("unused")
        Object value;
    }

    private final int ranks;
    private final Slot[] slots = new Slot[SIZE];
    /**
     * Per rank q, on lines of its own from index (q + 1)·LINE (the first line apart from the array's header): the last
     * call it found (word 0), and the least found call it knows of (word 1).
     */
    private final long[] found;

    public IssueWindow(int ranks) {
        this.ranks = ranks;
        for (int i = 0; i < SIZE; i++) {
            slots[i] = new Slot();
        }
        this.found = new long[(ranks + 2) * LINE];
    }

    private Slot slot(long n) {
        return slots[(int) (n % SIZE)];
    }

    /** The stamp of call {@code n}'s slot (acquire: pairs with {@link #publish}'s release). */
    public long stamp(long n) {
        return (long) STAMP.getAcquire(slot(n));
    }

    /** Call {@code n}'s value; only after {@link #stamp} read n. */
    @SuppressWarnings("unchecked")
    public T value(long n) {
        return (T) VALUE.get(slot(n));
    }

    /** Claims call {@code n}'s slot, whose stamp was {@code seen}; false if another rank claimed it first. */
    public boolean claim(long n, long seen) {
        return STAMP.compareAndSet(slot(n), seen, -n);
    }

    /** {@link #publish(long, Object, long)} with use 0. */
    public void publish(long n, T value) {
        publish(n, value, 0);
    }

    /**
     * Puts {@code value} and {@code use} in claimed call {@code n}'s slot and publishes them (release: pairs with
     * {@link #stamp}).
     */
    public void publish(long n, T value, long use) {
        publish(n, value, use, false);
    }

    /**
     * {@link #publish(long, Object, long)} before anyone issued call {@code n}: the value is what n runs if every
     * rank's call n is the shape it serves. A rank whose call is that shape takes it ({@link #take}); a rank whose call
     * is not claims the slot over it ({@link #claim} with {@code seen} = n) and publishes its own.
     */
    public void publishAhead(long n, T value, long use) {
        publish(n, value, use, true);
    }

    private void publish(long n, T value, long use, boolean ahead) {
        Slot s = slot(n);
        VALUE.set(s, value);
        s.use = use;
        s.ahead = ahead;
        STAMP.setRelease(s, n);
    }

    /** Whether call {@code n}'s value was published ahead ({@link #publishAhead}); only after {@link #stamp} read n. */
    public boolean ahead(long n) {
        return slot(n).ahead;
    }

    /**
     * Rank {@code rank} takes call {@code n}'s value published ahead, which {@link #stamp} and {@link #value} read:
     * records it as found, then reads the stamp again. False if another rank claimed the slot over it meanwhile (its
     * call is another shape: a mismatch). Dekker's protocol with the claimer over it, which CASes the stamp and then
     * reads every rank's found call ({@link #foundByOther}): the full fence orders my found store before my second
     * read of the stamp (a release store does not order a later load), the CAS is a full fence too, so at least one of
     * us sees the other — I see the stamp claimed over, or the claimer sees that I took the value and reports the
     * mismatch before it publishes anything.
     */
    public boolean take(int rank, long n) {
        found(rank, n);
        VarHandle.fullFence();
        // acquire: pairs with publish's release; a claim over it (−n, or n published again not ahead) is seen here
        return (long) STAMP.getAcquire(slot(n)) == n && slot(n).ahead;
    }

    /**
     * Whether a rank other than {@code rank} has found call {@code n} (acquire loads, each pairing with that rank's
     * {@link #found}): asked by the rank that claimed over a value published ahead, after its CAS (see {@link #take}).
     */
    public boolean foundByOther(int rank, long n) {
        for (int q = 0; q < ranks; q++) {
            if (q != rank && (long) LONGS.getAcquire(found, (q + 1) * LINE) >= n) {
                return true;
            }
        }
        return false;
    }

    /** The use published with call {@code n}; only after {@link #stamp} read n (as {@link #value}). */
    public long use(long n) {
        return slot(n).use;
    }

    /** Gives back a claim of call {@code n} that could not be filled (the slot says {@code seen} again). */
    public void unclaim(long n, long seen) {
        STAMP.setRelease(slot(n), seen);
    }

    /** Drops call {@code n}'s value once every rank found it (it may keep buffers alive); a later call's stays. */
    public void forget(long n, T value) {
        VALUE.compareAndSet(slot(n), value, null);
    }

    /** Rank {@code rank} has found (or claimed) call {@code n} and read its slot. */
    public void found(int rank, long n) {
        // release: my reads of call n's slot → the claimer of n + SIZE (allFound's acquire)
        LONGS.setRelease(found, (rank + 1) * LINE, n);
    }

    /**
     * Whether every rank has found call {@code n} (true for n ≤ 0), asked by rank {@code rank}: from the least
     * found call it knew of (its own line), else by reading every rank's (acquire: each pairs with its {@link #found}).
     */
    public boolean allFound(int rank, long n) {
        int known = (rank + 1) * LINE + 1;
        if (n <= 0 || (long) LONGS.get(found, known) >= n) {
            return true;
        }
        long min = Long.MAX_VALUE;
        for (int q = 0; q < ranks; q++) {
            min = Math.min(min, (long) LONGS.getAcquire(found, (q + 1) * LINE));
        }
        LONGS.set(found, known, min);
        return min >= n;
    }

    /** The ranks that have not found call {@code n} (diagnostics). */
    public List<Integer> notFound(long n) {
        List<Integer> m = new ArrayList<>();
        for (int q = 0; q < ranks; q++) {
            if ((long) LONGS.getAcquire(found, (q + 1) * LINE) < n) {
                m.add(q);
            }
        }
        return m;
    }

    /** Empties every slot's value (the team is closing). */
    public void clear() {
        for (Slot s : slots) {
            VALUE.setRelease(s, null);
        }
    }
}
