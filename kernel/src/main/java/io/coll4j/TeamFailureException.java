package io.coll4j;

/** Wraps a checked exception thrown by a rank's body when {@link Team#run} rethrows it. */
public final class TeamFailureException extends RuntimeException {
    public TeamFailureException(String message, Throwable cause) {
        super(message, cause);
    }
}
