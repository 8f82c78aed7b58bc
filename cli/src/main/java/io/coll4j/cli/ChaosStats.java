package io.coll4j.cli;

import io.coll4j.cli.ChaosPlan.Fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What a soak counted, as one flat vector (so processes can sum theirs, {@code --mpi}), the first failures in
 * words (with the seed that reproduces each), and the summary a reviewer can paste.
 */
final class ChaosStats {
    // ---- the counters: one flat vector, so processes can sum theirs (--mpi) ----

    static final String[] EXCEPTION_NAMES = {"IllegalArgumentException", "CollectiveMismatchException", "TeamAbortedException",
            "CollectiveTimeoutException", "CollectiveInterruptedException", "IllegalStateException", "InjectedFault (the soak's own)"};
    static final int CALLS = 0, RANK_CALLS = 1, OK = 2, WRONG = 3, UNDOCUMENTED = 4, HANGS = 5, REVIVED = 6, EPISODES = 7,
            UNPROVOKED = 8, CLOSE_REFUSED = 9;
    static final int FAULTS = 10;
    static final int MISSED = FAULTS + Fault.values().length;
    static final int EXC = MISSED + Fault.values().length;
    static final int SIZE = EXC + EXCEPTION_NAMES.length;

    final AtomicLongArray v = new AtomicLongArray(SIZE);
    final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> notes = new ConcurrentLinkedQueue<>();
    /** Teams whose ranks the watchdog found stuck (their threads are left behind). */
    volatile int stuck;

    void add(int i, long d) {
        v.addAndGet(i, d);
    }

    long get(int i) {
        return v.get(i);
    }

    long[] toArray() {
        long[] a = new long[SIZE];
        for (int i = 0; i < SIZE; i++) {
            a[i] = v.get(i);
        }
        return a;
    }

    private final java.util.Set<String> failed = java.util.concurrent.ConcurrentHashMap.newKeySet();

    void fail(String s) {
        if (failures.size() < 40) {
            failures.add(s);
        }
    }

    /** The first failure of a kind in a team only (the others ranks' are alike): {@code key} names both. */
    void fail(String key, String s) {
        if (failed.add(key)) {
            fail(s);
        }
    }

    boolean clean() {
        return get(WRONG) == 0 && get(UNDOCUMENTED) == 0 && get(HANGS) == 0 && get(REVIVED) == 0 && missed() == 0;
    }

    long missed() {
        long m = 0;
        for (int i = 0; i < Fault.values().length; i++) {
            m += get(MISSED + i);
        }
        return m;
    }

    /** The summary a reviewer can paste: every counter, then the failures. */
    static List<String> summary(long[] a, Iterable<String> failures, Iterable<String> notes) {
        List<String> out = new ArrayList<>();
        out.add(String.format(Locale.ROOT, "calls: %d (%d rank-calls: %d returned the reference result, %d ended in an exception)",
                a[CALLS], a[RANK_CALLS], a[OK], a[RANK_CALLS] - a[OK] - a[WRONG]));
        out.add("teams: " + a[EPISODES]);
        StringBuilder f = new StringBuilder("faults injected:");
        long total = 0;
        for (Fault k : Fault.values()) {
            f.append(' ').append(k.cli).append(' ').append(a[FAULTS + k.ordinal()]);
            total += a[FAULTS + k.ordinal()];
        }
        out.add(f.append(" (total ").append(total).append(')').toString());
        StringBuilder e = new StringBuilder("documented exceptions (per rank):");
        for (int i = 0; i < EXCEPTION_NAMES.length; i++) {
            e.append(' ').append(EXCEPTION_NAMES[i]).append(' ').append(a[EXC + i]).append(i + 1 < EXCEPTION_NAMES.length ? "," : "");
        }
        out.add(e.toString());
        out.add("exceptions in teams without a fault: " + a[UNPROVOKED] + "   arena closes refused (buffer in use): " + a[CLOSE_REFUSED]);
        StringBuilder m = new StringBuilder("faults not reported as the contract says:");
        for (Fault k : Fault.values()) {
            if (a[MISSED + k.ordinal()] > 0) {
                m.append(' ').append(k.cli).append(' ').append(a[MISSED + k.ordinal()]);
            }
        }
        out.add(m.length() == "faults not reported as the contract says:".length() ? m + " 0" : m.toString());
        out.add("hangs: " + a[HANGS]);
        out.add("wrong results: " + a[WRONG]);
        out.add("undocumented exceptions: " + a[UNDOCUMENTED]);
        out.add("failed requests that later looked complete: " + a[REVIVED]);
        for (String s : failures) {
            out.add("FAIL " + s);
        }
        for (String s : notes) {
            out.add("note " + s);
        }
        return out;
    }
}
