package io.coll4j.kernel.algo;

import io.coll4j.CollectiveInterruptedException;
import io.coll4j.CollectiveTimeoutException;
import io.coll4j.kernel.sync.ControlBlock;
import io.coll4j.kernel.sync.Stamp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The messages of a rank's failed collective — mismatch, timeout, interrupt — written from what every
 * rank announced on its ANNOUNCE line (descriptor, count, algorithm, check word; two parity halves, so
 * the previous collective's announcement is still there). Only the failure path uses it.
 */
final class CallDiagnostics {
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;

    private final CollectiveCall call;

    CallDiagnostics(CollectiveCall call) {
        this.call = call;
    }

    /** What rank {@code q} announced for collective {@code s}, or null when its half no longer (or not yet) holds it. */
    private long[] announced(int q, long s) {
        ControlBlock ctrl = call.ctrl();
        MemorySegment control = ctrl.segment();
        // the stamp of s's own parity half: an odd collective publishes it before the line's stamp (the even
        // half's header), so a peer that has just seen this half may read the line's stamp still behind s
        long half = ControlBlock.halfOffset(ctrl.offset(q, ControlBlock.ANNOUNCE), s);
        long v = ctrl.stampAcquire(half);
        long payload = ControlBlock.payloadOffset(half, 0);
        long d = control.get(LONG, payload + CollectiveCall.ANNOUNCE_DESCRIPTOR);
        long n = control.get(LONG, payload + CollectiveCall.ANNOUNCE_COUNT);
        long a = control.get(LONG, payload + CollectiveCall.ANNOUNCE_ALGORITHM);
        VarHandle.loadLoadFence();
        long entered = Stamp.seq(v);
        long after = Stamp.seq(ctrl.stampOpaque(half));
        // the half of s holds s's announcement from the rank's entry into s until its entry into s + 2: valid
        // when the half's stamp (the odd half: odd collectives only; the even one: every collective) said s or
        // s + 1 both before and after the reads (stamps only grow)
        if (entered < s || after > s + 1) {
            return null;
        }
        return new long[]{d, n, a};
    }

    private static String describe(long[] call, boolean withAlgorithm) {
        String c = Signature.describe(call[0], call[1]);
        return withAlgorithm ? c + " with algorithm " + AlgorithmCatalog.nameOf((int) call[2]) : c;
    }

    /** The message of a mismatch between this rank's call and {@code peer}'s. */
    String mismatch(int peer) {
        long s = call.seq();
        int rank = call.rank();
        long[] mine = {call.descriptor(), call.signatureCount(), call.algorithmId()};
        long[] theirs = announced(peer, s);
        String head = "collective mismatch in collective #" + s + ": rank " + rank + " called ";
        if (theirs == null && s > 1 && entered(peer) == s - 1) {
            // the peer is still in the previous collective: that is where the calls differ
            long[] myPrev = announced(rank, s - 1);
            long[] theirPrev = announced(peer, s - 1);
            if (myPrev != null && theirPrev != null) {
                boolean alg = myPrev[0] == theirPrev[0] && myPrev[1] == theirPrev[1];
                return "collective mismatch in collective #" + (s - 1) + ": rank " + rank + " called " + describe(myPrev, alg)
                        + " but rank " + peer + " called " + describe(theirPrev, alg);
            }
        }
        if (theirs == null) {
            return head + Signature.describe(mine[0], mine[1]) + " but rank " + peer
                    + " called a different collective (it has moved on to #" + entered(peer) + ")";
        }
        boolean sameCall = mine[0] == theirs[0] && mine[1] == theirs[1];
        if (!sameCall || mine[2] != theirs[2]) {
            boolean alg = sameCall || mine[2] != theirs[2];
            return head + describe(mine, alg) + " but rank " + peer + " called " + describe(theirs, alg);
        }
        // same call now: their histories differ (a collective in which these two never compared words)
        long[] myPrev = s > 1 ? announced(rank, s - 1) : null;
        long[] theirPrev = s > 1 ? announced(peer, s - 1) : null;
        String now = "collective mismatch detected in collective #" + s + " (" + describe(mine, false)
                + " on ranks " + rank + " and " + peer + "): ";
        if (myPrev != null && theirPrev != null && !java.util.Arrays.equals(myPrev, theirPrev)) {
            boolean alg = myPrev[0] == theirPrev[0] && myPrev[1] == theirPrev[1];
            return now + "in collective #" + (s - 1) + " rank " + rank + " called " + describe(myPrev, alg)
                    + " but rank " + peer + " called " + describe(theirPrev, alg);
        }
        return now + "their calls differed in a collective before #" + (s > 1 ? s - 1 : s);
    }

    /** The last collective {@code q} entered: the later of its two halves' stamps (an odd entry writes its half first). */
    long entered(int q) {
        long off = call.ctrl().offset(q, ControlBlock.ANNOUNCE);
        return Math.max(Stamp.seq(call.ctrl().stampAcquire(off)),
                Stamp.seq(call.ctrl().stampAcquire(ControlBlock.halfOffset(off, 1))));
    }

    /** Where rank {@code q} is: the last collective it entered and what it called there, and where its thread is now. */
    private String whereIs(int q) {
        long e = entered(q);
        String at = e == 0 ? "rank " + q + " has entered no collective" : "rank " + q + " last entered #" + e;
        long[] a = e == 0 ? null : announced(q, e);
        return at + (a == null ? "" : " (" + describe(a, false) + ")") + threadOf(q);
    }

    /** Frames shown of a missing rank's thread: enough to tell a rank computing from one blocked elsewhere. */
    static final int FRAMES = 6;

    /**
     * ", its thread T is at f1 < f2 < …": a rank that never arrives is usually busy or blocked outside coll4j,
     * and its stack says where (a rare path: reading another thread's stack is a handshake with it).
     */
    private String threadOf(int q) {
        Thread t = call.team().thread(q);
        if (t == null || t == Thread.currentThread()) {
            return "";
        }
        StackTraceElement[] st = t.getStackTrace();
        if (st.length == 0) {
            return ", its thread " + t.getName() + " is " + t.getState();
        }
        StringBuilder sb = new StringBuilder(", its thread ").append(t.getName()).append(" is at ");
        for (int i = 0; i < Math.min(FRAMES, st.length); i++) {
            sb.append(i == 0 ? "" : " < ").append(st[i]);
        }
        return sb.append(st.length > FRAMES ? " < …" : "").toString();
    }

    private String waitingFor(int peer, int line, long target) {
        long s = Stamp.seq(target);
        if (peer < 0) {
            return "the central counter";
        }
        if (line == ControlBlock.ANNOUNCE) {
            return "rank " + peer + " to enter collective #" + s;
        }
        return "rank " + peer + " (" + call.ctrl().lineName(line) + " line, step " + Stamp.step(target) + ")";
    }

    /** The exception of a wait that timed out; the team is aborted with it (or the abort that came first). */
    RuntimeException timeout(int peer, int line, long target, long waitedNanos) {
        long s = call.seq();
        // an ANNOUNCE wait may be for an earlier collective (the lag check at entry): name who has not entered that one
        long entry = line == ControlBlock.ANNOUNCE && peer >= 0 ? Stamp.seq(target) : s;
        List<Integer> missing = new ArrayList<>();
        StringBuilder where = new StringBuilder();
        for (int q = 0; q < call.size(); q++) {
            if (entered(q) < entry) {
                missing.add(q);
                where.append(where.isEmpty() ? "" : "; ").append(whereIs(q));
            }
        }
        if (missing.isEmpty() && peer >= 0) {
            where.append(whereIs(peer));
        }
        String msg = Signature.describe(call.descriptor(), call.signatureCount()) + " (collective #" + s + ", algorithm "
                + call.algorithm() + ") timed out on rank " + call.rank() + " after " + (waitedNanos / 1_000_000)
                + " ms waiting for " + waitingFor(peer, line, target) + "; ranks that have not entered #" + entry + ": "
                + missing + (where.isEmpty() ? "" : " (" + where + ")");
        msg += "; last calls: " + call.team().history().describe(CallHistory.IN_MESSAGES);
        CollectiveTimeoutException e = new CollectiveTimeoutException(msg, missing);
        if (call.team().abort(e, call.rank())) {
            return e;
        }
        return call.team().abortedException(call.rank());
    }

    /**
     * The exception of a wait that cannot end because rank {@code q}'s team.run body returned before entering this
     * collective; the team is aborted with it (a {@link CollectiveTimeoutException} naming every such rank, at once).
     */
    RuntimeException bodyReturned(int q) {
        long s = call.seq();
        List<Integer> gone = new ArrayList<>();
        for (int r = 0; r < call.size(); r++) {
            if (call.team().hasReturned(r) && entered(r) < s) {
                gone.add(r);
            }
        }
        long e = entered(q);
        String msg = Signature.describe(call.descriptor(), call.signatureCount()) + " (collective #" + s + ", algorithm "
                + call.algorithm() + ") cannot complete on rank " + call.rank() + ": rank " + q + "'s body returned "
                + (e == 0 ? "without entering any collective" : "after collective #" + e + ", without entering #" + s)
                + "; ranks whose bodies returned before #" + s + ": " + gone;
        CollectiveTimeoutException ex = new CollectiveTimeoutException(msg, gone);
        if (call.team().abort(ex, call.rank())) {
            return ex;
        }
        return call.team().abortedException(call.rank());
    }

    /** The exception of a wait that ended because the rank's thread was interrupted; the team is aborted with it. */
    RuntimeException interrupted(int peer, int line, long target) {
        int rank = call.rank();
        CollectiveInterruptedException e = new CollectiveInterruptedException("rank " + rank + " (thread "
                + Thread.currentThread().getName() + ") was interrupted in " + Signature.describe(call.descriptor(), call.signatureCount())
                + " (collective #" + call.seq() + ", algorithm " + call.algorithm() + ") while waiting for "
                + waitingFor(peer, line, target) + "; the team is aborted", rank);
        if (call.team().abort(e, rank)) {
            return e;
        }
        return call.team().abortedException(rank);
    }
}
