package io.coll4j;

/**
 * A persistent collective (MPI-4 {@code MPI_Allreduce_init} / {@code MPI_Start}): buffers, count,
 * dtype, op and schedule bound once, by a call every rank makes in the same order as its non-blocking
 * calls ({@link Rank#allreduceInit} …); then {@link #start()} and {@link #await()} any number of
 * times. A start costs a state check and one atomic increment — no argument is validated, nothing is
 * selected or allocated. The i-th start on every rank is the same round of the collective.
 */
public interface PersistentRequest extends Request, AutoCloseable {

    /**
     * Starts the next round with the current contents of the bound buffers.
     *
     * @throws IllegalStateException when the previous round is not yet complete (observed with
     *                               {@link #isDone()} or {@link #await()}), or the request is closed
     * @throws RuntimeException      the request's failure, when a round failed: a failed request stays failed
     *                               (see {@link Request}, "A failed request stays failed")
     */
    void start();

    /** True between {@link #start()} and the observation of that round's completion. */
    boolean isActive();

    /**
     * Frees the request: no more starts. An active round still completes (peers may be waiting for it);
     * the request holds no team resources beyond its own objects. Idempotent.
     */
    @Override
    void close();
}
