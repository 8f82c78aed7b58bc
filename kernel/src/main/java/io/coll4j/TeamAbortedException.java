package io.coll4j;

/**
 * The team was aborted while this rank was in (or entered) a collective, because another rank's body
 * threw, or the team was closed. The cause is the original failure. Thrown within milliseconds of the
 * abort, also to ranks that were parked.
 */
public final class TeamAbortedException extends CollectiveException {
    public TeamAbortedException(String message, Throwable cause) {
        super(message, cause);
    }
}
