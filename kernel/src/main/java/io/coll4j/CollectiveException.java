package io.coll4j;

/** Base of the failures a collective reports: abort, mismatch, timeout, interrupt. */
public abstract sealed class CollectiveException extends RuntimeException
        permits TeamAbortedException, CollectiveMismatchException, CollectiveTimeoutException,
        CollectiveInterruptedException {

    protected CollectiveException(String message, Throwable cause) {
        super(message, cause);
    }
}
