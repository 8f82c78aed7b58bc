package io.coll4j.kernel.algo;

/**
 * The resumable steps of one call of a {@link Resumable} algorithm (docs/design.md, "One contract for every
 * form"), made once by the rank that issues the call first and then worked by whichever thread has time: the
 * non-blocking engine ({@code kernel.nb.Exchange}) keeps the rounds, the claiming, the waiters and the failures,
 * and asks the steps what a round's work is. Two shapes, as the engine hands over inputs:
 * <ul>
 *   <li>{@link Items}: a round is {@link Items#items()} work items that read the ranks' buffers in place,
 *       claimed by any worker; the round (and every rank's request) is complete when the last one is finished.</li>
 *   <li>{@link Parts}: each rank first copies {@link Parts#stagedBytes()} of its send buffer into its own
 *       staging region; then part q (rank q's result) is computed from those copies, and rank q's request is
 *       complete when its part is.</li>
 * </ul>
 * Steps hold no per-round state: the engine calls them for every round of a persistent request. They may be
 * called from several threads at once, each with its own {@link ItemWorker}, on different items or parts.
 */
public sealed interface Steps permits Steps.Items, Steps.Parts {

    /** The steps over the ranks' buffers in place. */
    non-sealed interface Items extends Steps {
        /** Work items per round (0: a round is complete once every rank posted, as a barrier). */
        long items();

        /**
         * Executes item {@code i} of a round over the ranks' buffers ({@code send[q]}, {@code recv[q]}: rank q's,
         * null where the rank has none). Every output element must be written by exactly one item, after that
         * item read every input the output may alias, so that a rank in place loses nothing.
         */
        void item(ItemWorker w, long i, java.lang.foreign.MemorySegment[] send, java.lang.foreign.MemorySegment[] recv);

        /**
         * True when item q is rank q's share ({@link #items()} is then the number of ranks), as the owners' blocks
         * of a blocking algorithm: each rank posts with a stamp of its own instead of the shared posted counter,
         * works its own item first (no shared claim counter) and takes a late peer's after, and a rank's request
         * completes once every item is done. False: items are claimed in ticket order by whoever gets there.
         */
        default boolean perRank() {
            return false;
        }
    }

    /** The steps over staged copies of the ranks' contributions, one part per rank. */
    non-sealed interface Parts extends Steps {
        /** Bytes each staging rank copies from the start of its send buffer. */
        long stagedBytes();

        /** Whether rank {@code rank} stages its send buffer (bcast, scatter: the root alone). */
        default boolean stages(int rank) {
            return true;
        }

        /** Computes rank {@code q}'s result into {@code recv[q]} from the staged copies (never an alias of them). */
        void part(ItemWorker w, int q, Staged in, java.lang.foreign.MemorySegment[] recv);
    }

    /** A round's staged copies: rank s's at byte {@link #at}(s) of {@code segment}. */
    record Staged(java.lang.foreign.MemorySegment segment, long first, long stride) {
        public long at(int rank) {
            return first + rank * stride;
        }
    }
}
