package io.coll4j.mpi;

import io.coll4j.CollectiveMismatchException;
import io.coll4j.kernel.span.SpanCheck;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The check word a small collective carries with its first MPI call ({@code ProcessSpan.carry}; issue 30): local
 * rank 0 carries {descriptor, count} before the call, every carry folds into the history word ({@link SpanCheck#chain}),
 * and the next allreduce, reduce, reduce-scatter, allgather(v), gatherv, scatterv, alltoallv, barrier or bcast that
 * local rank 0's thread makes on the team's communicator takes it into the shim's cell: {descriptor, count, history}
 * in, the other side's three words out (coll4j_mpi_*_tag, *_chk). Only the carrying thread takes the word ({@link
 * #heldByCaller}) and only it writes these fields, so plain fields do; the cell is global memory because the funnel
 * thread may pass it to MPI.
 */
final class CarriedWord {
    /** coll4j_mpi.c's CHK_MISMATCH (the other side's words in the cell) and CHK_DIFFERS (the word inside the payload differed). */
    static final int CHK_MISMATCH = 0x40000000;
    static final int CHK_DIFFERS = 0x40000001;

    private boolean carried;
    /** The thread that carried the word (local rank 0's): only its calls take it. */
    private Thread carrier;
    private long descriptor;
    private long count;
    private long carriedChain;
    private long chain;
    private final MemorySegment cell = Arena.global().allocate(8L * 6, 8);

    /** The call carried before the current one, and the history before it (to name the call a stale message was from). */
    private long previousDescriptor;
    private long previousCount;
    private long previousChain;

    void carry(long descriptor, long count) {
        previousDescriptor = this.descriptor;
        previousCount = this.count;
        previousChain = carriedChain;
        carried = true;
        carrier = Thread.currentThread();
        this.descriptor = descriptor;
        this.count = count;
        carriedChain = chain;
        chain = SpanCheck.chain(chain, descriptor, count);
    }

    /** Forgets a carried word whose call did not come (the separate check is about to run). */
    void clear() {
        carried = false;
    }

    /** Whether the calling thread carried a word not yet taken (read by other threads too: they never match). */
    boolean heldByCaller() {
        return Thread.currentThread() == carrier && carried;
    }

    /** Fills the cell with the carried words and clears them. */
    MemorySegment take() {
        carried = false;
        cell.setAtIndex(ValueLayout.JAVA_LONG, 0, descriptor);
        cell.setAtIndex(ValueLayout.JAVA_LONG, 1, count);
        cell.setAtIndex(ValueLayout.JAVA_LONG, 2, carriedChain);
        return cell;
    }

    /** Throws when the shim said the words differed ({@code rc} CHK_DIFFERS or CHK_MISMATCH); process {@code process} is this one. */
    void throwIfMismatch(int rc, int process) {
        if (rc == CHK_DIFFERS) {
            throw SpanCheck.carriedDiffers(process, descriptor, count);
        }
        if (rc != CHK_MISMATCH) {
            return;
        }
        long otherChain = cell.getAtIndex(ValueLayout.JAVA_LONG, 5);
        long otherDescriptor = cell.getAtIndex(ValueLayout.JAVA_LONG, 3);
        long otherCount = cell.getAtIndex(ValueLayout.JAVA_LONG, 4);
        CollectiveMismatchException e;
        if (otherChain == previousChain && otherChain != carriedChain) {
            // the other side's message is from the call this process made before this one (a bcast whose roots
            // differed left it unreceived): name that pair
            e = SpanCheck.carriedMismatch(process, previousDescriptor, previousCount, previousChain, otherDescriptor,
                    otherCount, otherChain);
        } else {
            e = SpanCheck.carriedMismatch(process, cell.getAtIndex(ValueLayout.JAVA_LONG, 0),
                    cell.getAtIndex(ValueLayout.JAVA_LONG, 1), cell.getAtIndex(ValueLayout.JAVA_LONG, 2), otherDescriptor,
                    otherCount, otherChain);
        }
        throw e;
    }
}
