package io.coll4j.bindings.hwloc;

import io.coll4j.bindings.libc.Errno;

/** An hwloc call failed; carries the function and the {@code errno} it set. */
public final class HwlocException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int errno;

    public HwlocException(String function, int errno) {
        this(function, errno, null);
    }

    public HwlocException(String function, int errno, String context) {
        super(function + (context == null ? "" : "(" + context + ")") + ": " + Errno.describe(errno));
        this.function = function;
        this.errno = errno;
    }

    /** The hwloc function that failed. */
    public String function() {
        return function;
    }

    /** The {@code errno} it set (ENOSYS: not supported on this system; EXDEV: cannot bind as asked). */
    public int errno() {
        return errno;
    }
}
