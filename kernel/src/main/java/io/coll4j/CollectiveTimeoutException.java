package io.coll4j;

import java.util.List;

/**
 * A collective waited longer than the team's timeout, typically because a rank never arrived. The
 * message lists the ranks that had not entered the collective. The team is aborted.
 */
public final class CollectiveTimeoutException extends CollectiveException {
    private final List<Integer> missingRanks;

    public CollectiveTimeoutException(String message, List<Integer> missingRanks) {
        super(message, null);
        this.missingRanks = List.copyOf(missingRanks);
    }

    /** Ranks that had not entered the collective when the timeout expired (empty when all had, but one stalled inside). */
    public List<Integer> missingRanks() {
        return missingRanks;
    }
}
