package io.coll4j.bindings.libc;

import java.lang.foreign.MemorySegment;
import java.util.Map;

/** Names and messages for {@code errno} values, for one-line error reports. */
@SuppressWarnings("restricted")   // FFM binding code: reinterpret/downcall are its job
public final class Errno {
    private Errno() {
    }

    // The Linux values on every architecture coll4j runs on (asm-generic/errno-base.h, errno.h).
    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"), Map.entry(2, "ENOENT"), Map.entry(3, "ESRCH"), Map.entry(4, "EINTR"),
            Map.entry(5, "EIO"), Map.entry(12, "ENOMEM"), Map.entry(13, "EACCES"), Map.entry(14, "EFAULT"),
            Map.entry(16, "EBUSY"), Map.entry(18, "EXDEV"), Map.entry(19, "ENODEV"), Map.entry(22, "EINVAL"),
            Map.entry(28, "ENOSPC"), Map.entry(38, "ENOSYS"), Map.entry(95, "EOPNOTSUPP"));

    /** {@code "EINVAL (Invalid argument)"}; {@code "errno 0"} for 0. */
    public static String describe(int errno) {
        if (errno == 0) {
            return "errno 0";
        }
        String name = NAMES.getOrDefault(errno, "errno " + errno);
        MemorySegment msg = Libc.strerror(errno);
        return msg.address() == 0 ? name : name + " (" + msg.reinterpret(Long.MAX_VALUE).getString(0) + ")";
    }
}
