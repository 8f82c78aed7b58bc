package io.coll4j;

/** Base of the failures a collective reports on every rank: abort, mismatch, timeout. */
public abstract sealed class CollectiveException extends RuntimeException
        permits TeamAbortedException, CollectiveMismatchException, CollectiveTimeoutException {

    protected CollectiveException(String message, Throwable cause) {
        super(message, cause);
    }
}
