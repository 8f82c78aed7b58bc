package io.coll4j.cli;

import static io.coll4j.cli.ChaosStats.HANGS;

import io.coll4j.cli.Chaos.InjectedFault;
import io.coll4j.cli.ChaosPlan.Episode;
import io.coll4j.cli.ChaosPlan.Fault;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.UserOp;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/** Per-episode state every rank of this process shares: the watchdog's view, the delivered fault, the user ops, the arenas. */
final class ChaosContext {
    final Episode e;
    final ChaosStats s;
    final Consumer<String> log;
    final long[] since;                 // per local rank: System.nanoTime() when its current call started, 0 outside
    final int[] at;                     // per local rank: the call it is in
    final Thread[] threads;
    final CountDownLatch delivered = new CountDownLatch(1);   // the interrupt or the close happened
    final AtomicBoolean userOpFired = new AtomicBoolean();
    final AtomicBoolean reported = new AtomicBoolean();       // some rank saw an exception
    volatile boolean missed;                                   // the victim saw its fault go unreported
    final AtomicBoolean hung = new AtomicBoolean();            // a bounded wait of a rank ran out
    final List<Arena> arenas = new ArrayList<>();
    final UserOp commutative;
    final UserOp ordered;
    final int firstLocal;
    static final ThreadLocal<int[]> CALL = ThreadLocal.withInitial(() -> new int[]{-1});

    ChaosContext(Episode e, ChaosStats s, Consumer<String> log, int localRanks, int firstLocal) {
        this.e = e;
        this.s = s;
        this.log = log;
        this.since = new long[localRanks];
        this.at = new int[localRanks];
        this.threads = new Thread[localRanks];
        this.firstLocal = firstLocal;
        this.commutative = userOp(true);
        this.ordered = userOp(false);
    }

    private UserOp userOp(boolean commutative) {
        return new UserOp(commutative ? "chaos-sum" : "chaos-ordered-sum", DType.I64, commutative, (d, dOff, a, aOff, b, bOff, n) -> {
            if (e.fault() == Fault.THROW_USEROP && CALL.get()[0] == e.faultAt() && userOpFired.compareAndSet(false, true)) {
                throw new InjectedFault("injected: the user op threw (call " + e.faultAt() + ")");
            }
            for (long i = 0; i < n * 8; i += 8) {
                d.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, dOff + i,
                        a.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, aOff + i)
                                + b.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, bOff + i));
            }
        });
    }

    /** A rank's bounded wait ran out: the episode counts one hang (with the first such message). */
    void hang(String what) {
        if (hung.compareAndSet(false, true)) {
            s.add(HANGS, 1);
            s.fail("hang: " + what + (what.contains(e.describe()) ? "" : ", " + e.describe()));
        }
    }

    synchronized Arena arena() {
        Arena a = Arena.ofShared();
        arenas.add(a);
        return a;
    }

    synchronized void closeArenas() {
        for (Arena a : arenas) {
            try {
                a.close();
            } catch (IllegalStateException ignored) {
                // closed by a fault already, or (after a hang) still held by a native call: left to the GC's conscience
            }
        }
        arenas.clear();
    }
}
