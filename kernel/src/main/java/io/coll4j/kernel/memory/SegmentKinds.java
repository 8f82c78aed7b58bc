package io.coll4j.kernel.memory;

import java.lang.foreign.MemorySegment;

/**
 * Loads every heap {@link MemorySegment} implementation the collectives can meet before the JIT compiles
 * their call path.
 *
 * <p>Why: the JDK has one segment class per backing (native, and one per primitive array type). While
 * only native segments have been created, C2 compiles every segment access of the collective path on the
 * assumption that the native class is the only concrete segment class (class hierarchy analysis). The
 * first heap segment the process creates — an array-form collective, {@code collbench}'s warm-up
 * agreement over a {@code long[]} — loads a second class, breaks that assumption and deoptimises all of
 * that code at once; every rank then runs interpreted or at C1 until C2 has compiled it again, which on
 * two cores takes the ranks' CPUs. In {@code collbench allreduce} this landed in the first sweep row
 * about one fresh JVM in three: one batch of 60–270 ms, the JIT log showing ~40 methods "made not entrant:
 * marked for deoptimization" with {@code Failed dependency of type abstract_with_unique_concrete_subtype,
 * witness = HeapMemorySegmentImpl$OfLong} (-Xlog:dependencies=debug). With every segment class loaded
 * when the first team is made, the compiled code never rests on that assumption.
 */
public final class SegmentKinds {
    private SegmentKinds() {
    }

    /** Creates one (empty) heap segment of each array type; idempotent and cheap. */
    public static void load() {
        MemorySegment.ofArray(new byte[0]);
        MemorySegment.ofArray(new short[0]);
        MemorySegment.ofArray(new char[0]);
        MemorySegment.ofArray(new int[0]);
        MemorySegment.ofArray(new long[0]);
        MemorySegment.ofArray(new float[0]);
        MemorySegment.ofArray(new double[0]);
    }
}
