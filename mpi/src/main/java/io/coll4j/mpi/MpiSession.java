package io.coll4j.mpi;

import io.coll4j.kernel.span.ProcessSpan.ThreadLevel;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * MPI in this JVM: initialised once ({@code MPI_Init_thread}), finalised when the last team over it closes
 * (MPI cannot be initialised again in the same process). Owns how MPI may be called:
 * <ul>
 *   <li>{@link ThreadLevel#MULTIPLE} (asked for when the first team has more than one rank per process):
 *       every call runs on its caller's thread, concurrently;</li>
 *   <li>{@link ThreadLevel#SINGLE} (asked for with one rank per process, where multi-leader has nothing to
 *       split): every call on its caller's thread under a lock, and no thread support in the library — Open
 *       MPI 4.1 turns on its internal locking for every level above SINGLE, which costs the 8-byte allreduce
 *       ~20% (a C loop of MPI_Allreduce: 0.193 µs under MPI_Init, 0.232–0.237 under FUNNELED, SERIALIZED or
 *       MULTIPLE). The lock keeps the library to one thread at a time (its CAS and release store order one
 *       call's memory before the next), which is all a library initialised that way relies on: Open MPI's own
 *       Java bindings run the JVM's threads over plain MPI_Init the same way;</li>
 *   <li>{@link ThreadLevel#SERIALIZED} (when MPI provides less than MULTIPLE, or forced): the same lock, with
 *       the library's thread support on;</li>
 *   <li>{@link ThreadLevel#FUNNELED} (forced): one daemon thread, {@code coll4j-mpi}, initialises MPI and
 *       makes every call, one at a time, for whichever rank submits it.</li>
 * </ul>
 * {@code -Dcoll4j.mpi.thread=multiple|serialized|funneled|single} or {@code COLL4J_MPI_THREAD} forces one
 * ({@code -Dcoll4j.mpi.funneled=true} / {@code COLL4J_MPI_FUNNELED=1} are the same as funneled).
 * <ul>
 * </ul>
 * A watchdog ends the job when a call stays in MPI longer than the team timeout (another process died,
 * hangs outside coll4j, or called a different collective): it prints which call and process, then
 * {@code MPI_Abort}s — the alternative is a silent hang of the whole job.
 */
final class MpiSession {
    private static MpiSession current;
    private static boolean finalised;

    final ThreadLevel level;
    final int rank;
    final int size;
    private final ExecutorService funnel;
    private int teams;
    /** Communicators per local rank, by team width: split once, reused by every later team of that width. */
    final Map<Integer, int[]> perLocalRank = new ConcurrentHashMap<>();
    /**
     * The in-flight marks the watchdog reads: one per thread that has called MPI ({@link #mine}), or under the
     * serial lock the single {@link #serialMark}.
     */
    private final Map<Object, InFlight> callers = new ConcurrentHashMap<>();
    private final ThreadLocal<InFlight> mine = ThreadLocal.withInitial(() -> {
        InFlight f = new InFlight();
        callers.put(Thread.currentThread(), f);
        return f;
    });
    private volatile long timeoutNanos = Long.MAX_VALUE;
    /** The MPI ops of the UserOps this process has reduced with across processes. */
    final UserOpUpcalls userOps = new UserOpUpcalls(this);

    /**
     * One thread's MPI call in flight, without a clock read, an allocation or a fence on the call path: the
     * thread bumps {@code seq} (odd = inside MPI) around each call with release stores (plain moves on x86);
     * the watchdog samples it every 100 ms with acquire loads and aborts when the same odd value has been
     * seen for longer than the timeout. A sample that is late by a store buffer's drain changes nothing at
     * that period.
     */
    static final class InFlight {
        private static final VarHandle SEQ;
        private static final VarHandle WHAT;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                SEQ = l.findVarHandle(InFlight.class, "seq", long.class);
                WHAT = l.findVarHandle(InFlight.class, "what", String.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Written by its thread only (setRelease, pairs with the watchdog's getAcquire in {@link #sample}). */
        private long seq;
        /** The call's name, published before the odd seq (release) that makes the watchdog read it. */
        private String what;
        /** Watchdog-private: the odd seq it last saw and since when. */
        long seenSeq;
        long seenSince;

        /** On the calling thread: now inside call {@code name}. */
        void enter(String name) {
            if (what != name) {
                // a reference store costs G1's card-marking barrier; a hot loop makes the same call every time
                WHAT.setRelease(this, name);
            }
            SEQ.setRelease(this, seq + 1);   // odd; the thread's own plain read of seq sees its own last store
        }

        /** On the calling thread: out of MPI. */
        void exit() {
            SEQ.setRelease(this, seq + 1);   // even
        }

        /** On the watchdog: the thread's current seq (odd = inside MPI). */
        long sample() {
            return (long) SEQ.getAcquire(this);
        }

        /** On the watchdog, after an odd {@link #sample}: the call it is in. */
        String what() {
            return (String) WHAT.getAcquire(this);
        }
    }

    /** One downcall into the shim; returns its MPI error code. */
    @FunctionalInterface
    interface MpiCall {
        int run() throws Throwable;
    }

    /** Serialises every call under {@link ThreadLevel#SERIALIZED}; null otherwise. */
    private final SerialLock serial;
    /**
     * Under the serial lock one thread at a time is inside MPI, so one mark serves every caller, and the latency
     * path skips the ThreadLocal lookup of {@link #mine} (~4 ns of an 8-byte allreduce's ~200 ns, measured
     * against the bare downcall across 2 processes). Its plain read of {@code seq} in {@link InFlight#enter}
     * sees the previous holder's last store: that holder's release in {@link SerialLock#unlock} pairs with this
     * thread's CAS in {@link SerialLock#lock}. Null without the lock.
     */
    private final InFlight serialMark;

    private MpiSession(ThreadLevel want) {
        boolean funneled = want == ThreadLevel.FUNNELED;
        this.funnel = funneled ? Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("coll4j-mpi").daemon(true).unstarted(r))
                : null;
        int[] provided = new int[1];
        int required = switch (want) {
            case MULTIPLE -> 3;
            case SERIALIZED -> 2;
            case FUNNELED -> 1;
            case SINGLE -> 0;
        };
        int rc = call("MPI_Init_thread", () -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment p = a.allocate(ValueLayout.JAVA_INT);
                int r = (int) MpiShim.INIT.invokeExact(required, p);
                provided[0] = p.get(ValueLayout.JAVA_INT, 0);
                return r;
            }
        });
        check(rc, "MPI_Init_thread");
        // less than asked for: serialise on the callers' threads (the funnel thread only when asked for)
        this.level = funneled || want == ThreadLevel.SINGLE ? want
                : provided[0] == 3 && want == ThreadLevel.MULTIPLE ? ThreadLevel.MULTIPLE : ThreadLevel.SERIALIZED;
        this.serial = level == ThreadLevel.SERIALIZED || level == ThreadLevel.SINGLE ? new SerialLock() : null;
        this.serialMark = serial != null ? new InFlight() : null;
        if (serialMark != null) {
            callers.put(serialMark, serialMark);
        }
        if (provided[0] < 1 && level != ThreadLevel.SINGLE) {
            throw new IllegalStateException("MPI provides only MPI_THREAD_SINGLE; coll4j needs at least MPI_THREAD_FUNNELED");
        }
        this.rank = intOut("MPI_Comm_rank", 0, true);
        this.size = intOut("MPI_Comm_size", 0, false);
        Thread watchdog = Thread.ofPlatform().name("coll4j-mpi-watchdog").daemon(true).unstarted(this::watch);
        watchdog.start();
    }

    /**
     * The session, initialising MPI on first use.
     *
     * @throws IllegalStateException when not launched by mpirun, MPI or the shim is missing, or MPI was
     *                               already finalised in this process
     */
    static synchronized MpiSession open(Map<String, String> env, long timeoutNanos, int localRanks) {
        if (finalised) {
            throw new IllegalStateException("MPI was finalised when the last team over it closed, and cannot be initialised "
                    + "twice in one process: keep one mpi() team open for the whole job");
        }
        if (current == null) {
            if (!launched(env)) {
                throw new IllegalStateException("Team.Builder.mpi(): this process was not started by mpirun/mpiexec "
                        + "(none of OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_RANK is set); run e.g. "
                        + "'mpirun -np 2 java ...', or build the team without mpi()");
            }
            ShimLibrary.open();   // a missing shim or MPI library: a clear error before any handle is made
            current = new MpiSession(wanted(env, localRanks));
            Runtime.getRuntime().addShutdownHook(new Thread(MpiSession::finaliseAtExit, "coll4j-mpi-finalize"));
        }
        current.teams++;
        current.timeoutNanos = Math.min(current.timeoutNanos, timeoutNanos);
        return current;
    }

    /** The thread level to ask for: forced by property or environment, else by the first team's width. */
    static ThreadLevel wanted(Map<String, String> env, int localRanks) {
        if (Boolean.getBoolean("coll4j.mpi.funneled") || "1".equals(env.get("COLL4J_MPI_FUNNELED"))) {
            return ThreadLevel.FUNNELED;
        }
        String forced = System.getProperty("coll4j.mpi.thread", env.getOrDefault("COLL4J_MPI_THREAD", ""));
        return switch (forced.toLowerCase(java.util.Locale.ROOT)) {
            case "" -> localRanks > 1 ? ThreadLevel.MULTIPLE : ThreadLevel.SINGLE;
            case "multiple" -> ThreadLevel.MULTIPLE;
            case "serialized" -> ThreadLevel.SERIALIZED;
            case "funneled" -> ThreadLevel.FUNNELED;
            case "single" -> ThreadLevel.SINGLE;
            default -> throw new IllegalArgumentException("coll4j.mpi.thread / COLL4J_MPI_THREAD: multiple, serialized, funneled or single, got '"
                    + forced + "'");
        };
    }

    static boolean launched(Map<String, String> env) {
        return env.containsKey("OMPI_COMM_WORLD_SIZE") || env.containsKey("PMI_SIZE") || env.containsKey("PMIX_RANK");
    }

    /** True while MPI is initialised and not finalised in this process. */
    static boolean live() {
        synchronized (MpiSession.class) {
            return current != null && !finalised;
        }
    }

    /** A team over this session closed; the last one finalises MPI. */
    void close() {
        synchronized (MpiSession.class) {
            if (--teams > 0 || current != this) {
                return;
            }
            current = null;
            finalised = true;
        }
        finalise();
    }

    private static void finaliseAtExit() {
        MpiSession s;
        synchronized (MpiSession.class) {
            s = current;
            current = null;
            finalised = true;
        }
        if (s != null) {
            s.finalise();   // a job whose teams were never closed: without it mpirun reports an error exit
        }
    }

    private void finalise() {
        call("MPI_Finalize", () -> (int) MpiShim.FINALIZE_MPI.invokeExact());
        userOps.close();   // the shim freed their MPI ops before MPI_Finalize: nothing can call a stub now
        if (funnel != null) {
            funnel.shutdown();
        }
    }

    /**
     * Frees a sub-team's communicator {@code comm}. A no-op once MPI is finalised (the shim freed every
     * communicator before MPI_Finalize): a sub-team closed after its last mpi() team is no MPI call after it.
     */
    void free(int comm) {
        synchronized (MpiSession.class) {
            if (current != this) {
                return;
            }
        }
        int rc = call("MPI_Comm_free", () -> (int) MpiShim.COMM_FREE.invokeExact(comm));
        check(rc, "MPI_Comm_free");
    }

    /** Runs one MPI call on the thread allowed to make it, under the watchdog; returns its result. */
    int call(String what, MpiCall mpi) {
        InFlight mark = enter(what);
        try {
            if (funnel == null || Thread.currentThread().getName().equals("coll4j-mpi")) {
                return mpi.run();
            }
            Future<Integer> f = funnel.submit(() -> {
                try {
                    return mpi.run();
                } catch (Exception | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new IllegalStateException(what + ": " + t, t);
                }
            });
            boolean interrupted = false;
            while (true) {
                try {
                    int r = f.get();
                    if (interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    return r;
                } catch (InterruptedException e) {
                    interrupted = true;   // the MPI call cannot be cancelled: its buffers stay in use until it ends
                } catch (ExecutionException e) {
                    throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(what + ": " + e.getCause(), e.getCause());
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(what + ": " + t, t);
        } finally {
            exit(mark);
        }
    }

    /** Marks the calling thread as inside MPI call {@code what} (for the watchdog); pair with {@link #exit}. */
    InFlight enter(String what) {
        if (serial != null) {
            serial.lock();
            serialMark.enter(what);
            return serialMark;
        }
        InFlight f = mine.get();
        f.enter(what);
        return f;
    }

    void exit(InFlight f) {
        f.exit();
        if (serial != null) {
            serial.unlock();
        }
    }

    /** True when MPI is called on the caller's own thread (MULTIPLE, SERIALIZED): the spans then skip {@link #call}'s hand-off. */
    boolean inline() {
        return funnel == null;
    }

    /** Throws naming the call and MPI's message when {@code rc} is not MPI_SUCCESS. */
    void check(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed in process " + rank + ": " + errorString(rc) + " (MPI error " + rc + ")");
        }
    }

    private String errorString(int rc) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(512);
            MpiShim.ERROR_STRING.invokeExact(rc, buf, 512);
            return buf.getString(0);
        } catch (Throwable t) {
            return "(no message: " + t + ")";
        }
    }

    int intOut(String what, int comm, boolean rankOf) {
        int[] out = new int[1];
        int rc = call(what, () -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment p = a.allocate(ValueLayout.JAVA_INT);
                int r = rankOf ? (int) MpiShim.COMM_RANK.invokeExact(comm, p) : (int) MpiShim.COMM_SIZE.invokeExact(comm, p);
                out[0] = p.get(ValueLayout.JAVA_INT, 0);
                return r;
            }
        });
        check(rc, what);
        return out[0];
    }

    /** Prints {@code why} and ends every process of the job; never returns. */
    void abort(String why) {
        System.err.println(why);
        System.err.flush();
        try {
            int ignored = (int) MpiShim.ABORT.invokeExact(1);
        } catch (Throwable ignored) {
            // fall through to halt
        }
        Runtime.getRuntime().halt(1);
    }

    private void watch() {
        while (true) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (InFlight f : callers.values()) {
                long seq = f.sample();
                if ((seq & 1) == 0) {
                    continue;
                }
                if (seq != f.seenSeq) {
                    f.seenSeq = seq;
                    f.seenSince = now;
                } else if (now - f.seenSince > timeoutNanos) {
                    abort("coll4j: process " + rank + " of " + size + ": " + f.what() + " has been in MPI for more than "
                            + timeoutNanos / 1_000_000_000.0 + " s (the team timeout): another process died, hangs outside "
                            + "coll4j, or called a different collective; aborting every process of the job");
                }
            }
        }
    }
}
