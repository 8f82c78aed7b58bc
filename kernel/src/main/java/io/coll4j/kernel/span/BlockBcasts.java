package io.coll4j.kernel.span;

import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;

/**
 * A non-blocking allgather of blocks of different lengths, as one {@link ProcessSpan.Pending}: one MPI_Ibcast per
 * process, of its block of {@code recv} from it, posted together in process order (the same order in every process,
 * as MPI requires of one communicator's collectives) and done when all are. The SPI's non-blocking calls have no
 * allgatherv (its count arrays would have to outlive the call in the shim); P broadcasts cost α⌈log2 P⌉ each
 * where an allgatherv costs α⌈log2 P⌉ once, but move the same β·s(P−1)/P per process over a tree's depth, and
 * only uneven sub-teams across processes take them (docs/design.md, "Requests across processes").
 */
final class BlockBcasts implements ProcessSpan.Pending {
    private final ProcessSpan.Pending[] parts;
    private int done;

    private BlockBcasts(ProcessSpan.Pending[] parts) {
        this.parts = parts;
    }

    /**
     * Posts process q's block — {@code counts[q]} elements at element {@code starts[q]} of {@code recv}, which
     * process q holds and the others receive — from process q, for every q.
     */
    static BlockBcasts post(ProcessSpan span, int comm, MemorySegment recv, long[] counts, long[] starts, DType dtype) {
        long es = dtype.size();
        ProcessSpan.Pending[] parts = new ProcessSpan.Pending[counts.length];
        for (int q = 0; q < counts.length; q++) {
            parts[q] = span.ibcast(comm, recv.asSlice(starts[q] * es, counts[q] * es), counts[q], dtype, q);
        }
        return new BlockBcasts(parts);
    }

    @Override
    public boolean test() {
        // the broadcasts complete in any order; the ones found done stay done (test() of a done Pending is true)
        while (done < parts.length && parts[done].test()) {
            done++;
        }
        for (int q = done + 1; q < parts.length; q++) {
            parts[q].test();   // progress the later ones too: MPI moves a request only inside calls on it
        }
        return done == parts.length;
    }
}
