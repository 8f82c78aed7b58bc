package io.coll4j;

/**
 * Ranks called different collectives, or the same collective with different counts, dtypes, ops or
 * roots, in the same sequence slot. Every rank of the team gets one; the message describes both sides.
 * The team is aborted.
 */
public final class CollectiveMismatchException extends CollectiveException {
    public CollectiveMismatchException(String message) {
        super(message, null);
    }
}
