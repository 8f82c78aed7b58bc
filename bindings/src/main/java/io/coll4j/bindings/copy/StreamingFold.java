package io.coll4j.bindings.copy;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The streaming fold of libcoll4j.so ({@code coll4j_reduce_many_nt}): every destination gets
 * {@code s0 op s1 op … op s(k−1)}, folded left to right (bitwise the scalar left fold — the C kernels
 * follow Java's semantics, see {@link NativeReduce}), written with non-temporal stores.
 *
 * <p>Why: Java has no non-temporal store, and a temporal store reads each destination line for
 * ownership first, so a two-input fold whose output exceeds the cache moves 4 bytes per output byte
 * instead of 3 [YHCCL §4.1]. The kernel folds 1 KiB at a time into an L1 stage and streams it out,
 * which keeps the sources streaming (reduce.c has the measurements). Use it only when the result is
 * not re-read soon: W &gt; C [YHCCL §4.2].
 *
 * <p>One instance per thread, reused call after call: the native pointer table is allocated once, at
 * construction, for up to {@code maxDestinations} and {@code maxSources}. Native segments only (the
 * downcall is an ordinary one, so the GC may run during a long fold). A destination may be exactly a
 * source (in place); any other overlap between a destination and a source is refused.
 *
 * <p>Lifetime: the tables hold raw addresses, which the linker cannot see. So every segment must be
 * alive when {@link #run} starts (a closed one is an {@link IllegalStateException}, nothing written), and
 * {@link #run} passes one segment of each distinct memory session as an extra argument of the downcall
 * (up to {@link #MAX_SESSIONS}): the linker keeps the session of every segment argument alive until the
 * call returns, so an {@code Arena.close()} on another thread fails instead of freeing memory under the
 * fold. Segments from more sessions than that are not folded here ({@link #run} returns false).
 */
public final class StreamingFold {
    /** Distinct memory sessions one fold can hold alive (the held arguments of coll4j_reduce_many_nt_held). */
    public static final int MAX_SESSIONS = 8;

    private static final FunctionDescriptor DESC = FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT,
            ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS);

    private static final class Handle {
        static final MethodHandle HANDLE = NativeLibrary.downcall("coll4j_reduce_many_nt_held", DESC);
    }

    /** One segment per distinct session of the current fold; unused entries are NULL (the global session). */
    private final MemorySegment[] held = new MemorySegment[MAX_SESSIONS];
    private final MemorySegment.Scope[] heldScopes = new MemorySegment.Scope[MAX_SESSIONS];
    private int sessions;

    private final MemorySegment dstTable;
    private final MemorySegment srcTable;
    private final MemorySegment[] dsts;
    private final long[] dstOffsets;
    private final MemorySegment[] srcs;
    private final long[] srcOffsets;
    private final MemorySegment[] srcSlices;
    private int nd;
    private int k;

    /**
     * @throws IllegalArgumentException when either bound is below 1
     */
    public StreamingFold(int maxDestinations, int maxSources) {
        if (maxDestinations < 1 || maxSources < 1) {
            throw new IllegalArgumentException("maxDestinations and maxSources must be >= 1, got "
                    + maxDestinations + " and " + maxSources);
        }
        Arena arena = Arena.ofAuto();
        dstTable = arena.allocate(ADDRESS, maxDestinations);
        srcTable = arena.allocate(ADDRESS, maxSources);
        dsts = new MemorySegment[maxDestinations];
        dstOffsets = new long[maxDestinations];
        srcs = new MemorySegment[maxSources];
        srcOffsets = new long[maxSources];
        srcSlices = new MemorySegment[maxSources];
        Arrays.fill(held, MemorySegment.NULL);
    }

    /**
     * True when the fold really streams: libcoll4j.so is loaded and the CPU has a non-temporal path
     * (AVX-512F or AVX2). Otherwise callers fold with temporal stores (the kernel would still be
     * correct, but with memcpy stores it has no reason to exist).
     */
    public static boolean available() {
        return NativeReduce.available() && Copy.nativeAvailable();
    }

    /** Forgets the destinations and sources of the previous fold. */
    public void clear() {
        Arrays.fill(dsts, 0, nd, null);
        Arrays.fill(srcs, 0, k, null);
        nd = 0;
        k = 0;
    }

    /** Adds a destination: the result goes to {@code seg} from byte {@code offset}. */
    public void destination(MemorySegment seg, long offset) {
        if (nd == dsts.length) {
            throw new IllegalStateException("more than " + dsts.length + " destinations");
        }
        dsts[nd] = seg;
        dstOffsets[nd] = offset;
        nd++;
    }

    /** Adds the next source, {@code seg} from byte {@code offset}; sources are folded in the order added. */
    public void source(MemorySegment seg, long offset) {
        if (k == srcs.length) {
            throw new IllegalStateException("more than " + srcs.length + " sources");
        }
        srcs[k] = seg;
        srcOffsets[k] = offset;
        k++;
    }

    /** True when every destination and source added so far is a native segment (the kernel's precondition). */
    public boolean allNative() {
        for (int j = 0; j < nd; j++) {
            if (dsts[j] == null || !dsts[j].isNative()) {
                return false;
            }
        }
        for (int i = 0; i < k; i++) {
            if (srcs[i] == null || !srcs[i].isNative()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Folds {@code count} elements of every source into every destination, streaming.
     *
     * @return true when folded; false (nothing written, the fold cleared) when the segments belong to more
     *         than {@link #MAX_SESSIONS} memory sessions — the caller folds another way
     * @throws IllegalArgumentException for a bitwise op on a float type, no destination or source, a heap,
     *                                  short or read-only segment, or a partial overlap of a destination and
     *                                  a source; nothing is written then
     * @throws IllegalStateException    when a segment is not alive (its arena was closed), or
     *                                  {@link #available()} is false
     */
    public boolean run(NativeType type, NativeOp op, long count) {
        try {
            if (op.bitwise() && type.floating()) {
                throw new IllegalArgumentException("no native fold for " + type + " and " + op);
            }
            if (nd == 0 || k == 0) {
                throw new IllegalArgumentException("a streaming fold needs a destination and a source, has " + nd + " and " + k);
            }
            if (!available()) {
                throw new IllegalStateException("streaming fold unavailable: nt copy " + Copy.nativeStatus());
            }
            long bytes = NativeReduce.bytes(count, type.size());
            if (bytes == 0) {
                return true;
            }
            sessions = 0;
            for (int i = 0; i < k; i++) {
                srcSlices[i] = slice("source " + i, srcs[i], srcOffsets[i], bytes);
                srcTable.setAtIndex(ADDRESS, i, srcSlices[i]);
                if (!hold(srcSlices[i])) {
                    return false;
                }
            }
            for (int j = 0; j < nd; j++) {
                MemorySegment d = slice("destination " + j, dsts[j], dstOffsets[j], bytes);
                NativeReduce.checkDst(d, bytes);
                for (int i = 0; i < k; i++) {
                    NativeReduce.checkAlias("source " + i, d, srcSlices[i], bytes);
                }
                dstTable.setAtIndex(ADDRESS, j, d);
                if (!hold(d)) {
                    return false;
                }
            }
            // every session the tables point into is an argument: the linker holds each one for the call
            // (and throws IllegalStateException, nothing written, for one closed since the checks above)
            int rc = (int) Handle.HANDLE.invokeExact(type.code(), op.code(), dstTable, nd, srcTable, k, count,
                    held[0], held[1], held[2], held[3], held[4], held[5], held[6], held[7]);
            if (rc != 0) {
                throw new IllegalStateException("coll4j_reduce_many_nt rejected " + type + ", " + op);
            }
            return true;
        } catch (Throwable t) {
            throw NativeReduce.rethrow(t);
        } finally {
            // the segments stayed reachable through the arrays for the call; drop them so that a
            // finished collective's buffers are not kept alive by this rank's fold
            Arrays.fill(dsts, 0, nd, null);
            Arrays.fill(srcs, 0, k, null);
            Arrays.fill(srcSlices, 0, k, null);
            Arrays.fill(held, MemorySegment.NULL);
            Arrays.fill(heldScopes, null);
            nd = 0;
            k = 0;
        }
    }

    /** Records {@code seg}'s session among the held ones; false when there are more than {@link #MAX_SESSIONS}. */
    private boolean hold(MemorySegment seg) {
        MemorySegment.Scope scope = seg.scope();
        for (int i = 0; i < sessions; i++) {
            if (heldScopes[i].equals(scope)) {
                return true;
            }
        }
        if (sessions == MAX_SESSIONS) {
            return false;
        }
        heldScopes[sessions] = scope;
        held[sessions] = seg;
        sessions++;
        return true;
    }

    private static MemorySegment slice(String name, MemorySegment seg, long offset, long bytes) {
        if (seg == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (!seg.isNative()) {
            throw new IllegalArgumentException(name + " must be a native segment");
        }
        if (!seg.scope().isAlive()) {
            throw new IllegalStateException(name + " is not alive: its arena was closed");
        }
        if (offset < 0 || offset > seg.byteSize() - bytes) {
            throw new IllegalArgumentException(name + " has " + seg.byteSize() + " bytes, needs " + bytes
                    + " from offset " + offset);
        }
        return seg.asSlice(offset, bytes);
    }
}
