package io.coll4j;

/**
 * The thread of a rank waiting in a collective was interrupted. The collective is abandoned, the
 * thread's interrupt status stays set, and the team is aborted: the other ranks get a
 * {@link TeamAbortedException} naming this rank. The message names the rank and what it waited for.
 */
public final class CollectiveInterruptedException extends CollectiveException {
    private final int rank;

    public CollectiveInterruptedException(String message, int rank) {
        super(message, null);
        this.rank = rank;
    }

    /** The rank whose thread was interrupted (-1: the thread calling {@link Team#run}). */
    public int rank() {
        return rank;
    }
}
