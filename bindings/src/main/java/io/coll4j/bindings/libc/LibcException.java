package io.coll4j.bindings.libc;

/** A libc call failed; carries the function and the {@code errno} it set. */
public final class LibcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int errno;

    public LibcException(String function, int errno) {
        super(function + ": " + Errno.describe(errno));
        this.function = function;
        this.errno = errno;
    }

    /** The C function that failed. */
    public String function() {
        return function;
    }

    /** The {@code errno} it set. */
    public int errno() {
        return errno;
    }
}
