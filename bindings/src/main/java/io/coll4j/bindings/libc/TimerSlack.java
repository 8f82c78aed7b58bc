package io.coll4j.bindings.libc;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

/**
 * {@code prctl(PR_SET_TIMERSLACK, ns)} for the calling thread. Linux lets a sleeping thread's timer fire
 * up to "timer slack" late (default 50 µs) to batch wake-ups; a rank that parks for 1 µs while waiting
 * for a peer would sleep 50 µs. Rank threads lower it so parking in a wait strategy costs what it says.
 */
public final class TimerSlack {
    /** {@code PR_SET_TIMERSLACK} of {@code <linux/prctl.h>}. */
    public static final int PR_SET_TIMERSLACK = 29;

    private TimerSlack() {
    }

    /** {@code int prctl(int option, ...)} — variadic from the second argument. */
    private static final class prctl {
        static final FunctionDescriptor DESC = FunctionDescriptor.of(Libc.C_INT, Libc.C_INT, Libc.C_LONG);
        static final MethodHandle HANDLE = Libc.has("prctl")
                ? Libc.downcall("prctl", DESC, Linker.Option.firstVariadicArg(1)) : null;
    }

    /** Sets the calling thread's timer slack; false where prctl is unavailable or refuses. */
    public static boolean set(long nanos) {
        if (prctl.HANDLE == null || nanos < 1) {
            return false;
        }
        try {
            return (int) prctl.HANDLE.invokeExact(PR_SET_TIMERSLACK, nanos) == 0;
        } catch (Throwable t) {
            return false;
        }
    }
}
