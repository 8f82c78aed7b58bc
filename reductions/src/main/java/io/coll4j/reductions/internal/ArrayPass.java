package io.coll4j.reductions.internal;

import java.lang.foreign.MemorySegment;

/**
 * One element-wise pass {@code d = a op b} over heap segments backed by arrays of the dtype's own type
 * ({@code float[]} for F32, …), for {@link HeapArrayFold}. The caller has checked every operand (heap,
 * writable where written, the dtype's array type, whole-element offsets, {@code n} elements in bounds);
 * {@code d} may be {@code a} or {@code b} exactly. Implemented by the hidden copies of
 * {@link ArrayVectorPass}, so nothing here links against {@code jdk.incubator.vector}.
 */
interface ArrayPass {
    void pass(MemorySegment d, long dOff, MemorySegment a, long aOff, MemorySegment b, long bOff, int n);
}
