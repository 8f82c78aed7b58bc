package io.coll4j.mpi;

import io.coll4j.reductions.UserOp;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * The MPI ops of coll4j's commutative {@link UserOp}s: for each distinct UserOp, on its first use, an FFM upcall
 * stub of {@link #apply} bound to the op, and {@code MPI_Op_create(stub, commute = 1)} in the shim, which
 * returns the index the {@code *_user} calls take. MPI_Op_create is local, so processes may create their ops in
 * any order. The shim frees the MPI ops before MPI_Finalize; {@link #close} frees the stubs after it.
 *
 * <p>MPI calls the function as {@code void fn(void *in, void *inout, int *len, MPI_Datatype *type)} with
 * {@code inout[i] = in[i] op inout[i]} (MPI-3.1 §5.9.5: {@code in} is the left operand), {@code len} elements
 * of the dtype's MPI type (one coll4j element each, so MPI never cuts inside one). It runs on the thread that
 * is inside MPI: the rank's own thread, or {@code coll4j-mpi} when MPI is funnelled.
 *
 * <p>An exception must not escape an upcall (the JVM would exit). The stub catches it, remembers the first one
 * for its thread, skips the function for the rest of that call (MPI still completes it, with this process's
 * partial data), and {@link #rethrow} throws it on that same thread once the downcall has returned — which
 * fails the rank, and a failed rank ends the job (MPI_Abort after naming it).
 */
final class UserOpUpcalls {
    private static final MethodHandle APPLY;
    private static final FunctionDescriptor MPI_USER_FUNCTION = FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS, ADDRESS);
    /** The first exception a user function threw on this thread since the last {@link #rethrow}. */
    private static final ThreadLocal<Throwable> FAILED = new ThreadLocal<>();

    static {
        try {
            APPLY = MethodHandles.lookup().findStatic(UserOpUpcalls.class, "apply", MethodType.methodType(void.class,
                    UserOp.class, MemorySegment.class, MemorySegment.class, MemorySegment.class, MemorySegment.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MpiSession mpi;
    /** Shared: MPI may call a stub from any thread that calls MPI. Closed after MPI_Finalize. */
    private final Arena stubs = Arena.ofShared();
    private final Map<UserOp, Integer> indices = new ConcurrentHashMap<>();
    private boolean closed;

    UserOpUpcalls(MpiSession mpi) {
        this.mpi = mpi;
    }

    /** The shim's index of {@code op}'s MPI op, created on first use. */
    int index(UserOp op) {
        Integer i = indices.get(op);
        return i != null ? i : create(op);
    }

    private synchronized int create(UserOp op) {
        Integer known = indices.get(op);
        if (known != null) {
            return known;
        }
        if (closed) {
            throw new IllegalStateException("MPI was finalised: no user op can be created");
        }
        MemorySegment stub = Linker.nativeLinker().upcallStub(MethodHandles.insertArguments(APPLY, 0, op), MPI_USER_FUNCTION, stubs);
        int[] out = new int[1];
        int rc = mpi.call("MPI_Op_create", () -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment p = a.allocate(ValueLayout.JAVA_INT);
                int r = (int) MpiShim.OP_CREATE.invokeExact(stub, 1, p);
                out[0] = p.get(ValueLayout.JAVA_INT, 0);
                return r;
            }
        });
        mpi.check(rc, "MPI_Op_create");
        indices.put(op, out[0]);
        return out[0];
    }

    /** The upcall: {@code inout = in op inout}, {@code *len} elements; never throws. */
    private static void apply(UserOp op, MemorySegment in, MemorySegment inout, MemorySegment len, MemorySegment type) {
        if (FAILED.get() != null) {
            return;   // this call already failed: its result is discarded with the job
        }
        try {
            int n = len.reinterpret(4).get(ValueLayout.JAVA_INT, 0);
            long bytes = (long) n * op.dtype().size();
            MemorySegment b = inout.reinterpret(bytes);
            op.function().apply(b, 0, in.reinterpret(bytes), 0, b, 0, n);
        } catch (Throwable t) {
            FAILED.set(t);
        }
    }

    /**
     * Returns {@code rc} when no user function failed on this thread during downcall {@code what}; else throws
     * naming the op, the call and this process, with the function's exception as the cause.
     */
    int rethrow(UserOp op, String what, int rc) {
        Throwable t = FAILED.get();
        if (t == null) {
            return rc;
        }
        FAILED.remove();
        throw new IllegalStateException("user op " + op.name() + " threw inside " + what + " in process " + mpi.rank + ": " + t, t);
    }

    /** Frees the stubs; after MPI_Finalize, when MPI can no longer call them. */
    synchronized void close() {
        if (!closed) {
            closed = true;
            stubs.close();
        }
    }
}
