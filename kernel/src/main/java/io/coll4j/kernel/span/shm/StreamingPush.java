package io.coll4j.kernel.span.shm;

import io.coll4j.bindings.copy.NativeOp;
import io.coll4j.bindings.copy.NativeType;
import io.coll4j.bindings.copy.StreamingFold;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;

/**
 * One chunk of the push ({@link Ops.Fold#push}) through the native streaming fold: this process's share of every
 * process's send buffer, folded in ascending process order 1 KiB at a time into an L1 stage and written with
 * non-temporal stores into every process's receive buffer, its own included [YHCCL §4.1]. The thread ranks' push
 * writes its results this way ({@code PushAllreduce}); the process push used to fold into its own receive buffer
 * with temporal stores (each line read for ownership first) and copy that out to the peers, half a vector more
 * DRAM traffic per process at 64 MiB (docs/measurements.md, "Process push at 64 MiB").
 *
 * <p>The native kernel reads a chunk from every source before it writes it anywhere, so a receive buffer that is
 * its send buffer (in place) is safe; it ends with {@code sfence}, so the streamed bytes are ordered before the
 * release of the process's {@code done} line, which the peers acquire before they read their results.
 */
final class StreamingPush {
    private final StreamingFold fold;
    private final NativeType type;
    private final NativeOp op;

    private StreamingPush(int processes, NativeType type, NativeOp op) {
        this.fold = new StreamingFold(processes, processes);
        this.type = type;
        this.op = op;
    }

    /**
     * The streaming push for {@code reducer}'s dtype and op across {@code processes}, or null when the kernel has
     * none (F16, BF16, pairs, MINLOC/MAXLOC, user ops) or the machine cannot stream: the push then folds in Java.
     */
    static StreamingPush of(Reducer reducer, int processes) {
        if (!StreamingFold.available()) {
            return null;
        }
        DType t = reducer.dtype();
        Op o = reducer.op();
        // U32/U64 fold as I32/I64 but for MIN and MAX, the only ops whose bits differ between signed and unsigned
        if (t.isUnsigned() && o != Op.MIN && o != Op.MAX) {
            t = t == DType.U32 ? DType.I32 : DType.I64;
        }
        NativeType nt = named(NativeType.class, t.name());
        NativeOp no = named(NativeOp.class, o.name());
        if (nt == null || no == null || (no.bitwise() && nt.floating())) {
            return null;
        }
        return new StreamingPush(processes, nt, no);
    }

    private static <E extends Enum<E>> E named(Class<E> type, String name) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(name)) {
                return e;
            }
        }
        return null;
    }

    /**
     * Folds {@code count} elements from byte {@code at} of every process's send buffer (mapping offsets
     * {@code srcs}) into every receive buffer ({@code dsts}) at the same byte.
     *
     * @return false when the kernel refused the segments (nothing written): the caller folds in Java
     */
    boolean run(MemorySegment seg, long[] dsts, long[] srcs, long at, long count) {
        for (long d : dsts) {
            fold.destination(seg, d + at);
        }
        for (long s : srcs) {
            fold.source(seg, s + at);
        }
        return fold.run(type, op, count);
    }
}
