package io.coll4j.bindings.libc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Thread CPU affinity through glibc ({@code sched_setaffinity}, {@code sched_getaffinity},
 * {@code sched_getcpu}): the binder coll4j uses when hwloc is absent. Masks are {@code cpu_set_t}
 * bit arrays of 64-bit words; they grow beyond glibc's fixed 1024 bits when a CPU number needs it.
 */
public final class CpuAffinity {
    /** glibc's {@code sizeof(cpu_set_t)}: 1024 bits. */
    private static final int DEFAULT_MASK_BYTES = 128;
    private static final int EINVAL = 22;

    private CpuAffinity() {
    }

    /** True on Linux with glibc's affinity calls present. */
    public static boolean isAvailable() {
        return System.getProperty("os.name", "").startsWith("Linux")
                && Libc.has("sched_setaffinity") && Libc.has("sched_getcpu");
    }

    /**
     * Restricts the calling thread to {@code cpus} (OS CPU numbers): {@code sched_setaffinity(0, …)},
     * which applies to the calling thread and migrates it at once when it runs elsewhere.
     *
     * @throws LibcException with errno (EINVAL: no CPU of the set is online or allowed)
     */
    public static void setCurrentThread(int... cpus) {
        if (cpus.length == 0) {
            throw new IllegalArgumentException("cpus: empty set");
        }
        int max = 0;
        for (int c : cpus) {
            if (c < 0) {
                throw new IllegalArgumentException("cpus: negative CPU number " + c);
            }
            max = Math.max(max, c);
        }
        long bytes = Math.max(DEFAULT_MASK_BYTES, ((max / 64) + 1) * 8L);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(bytes, 8);
            for (int c : cpus) {
                long word = mask.getAtIndex(ValueLayout.JAVA_LONG, c / 64);
                mask.setAtIndex(ValueLayout.JAVA_LONG, c / 64, word | (1L << (c % 64)));
            }
            MemorySegment cs = Libc.allocateCallState(arena);
            if (Libc.sched_setaffinity(cs, 0, bytes, mask) != 0) {
                throw new LibcException("sched_setaffinity", Libc.errno(cs));
            }
        }
    }

    /** The CPUs the calling thread may run on ({@code sched_getaffinity(0, …)}), ascending. */
    public static List<Integer> currentThread() {
        for (long bytes = DEFAULT_MASK_BYTES; ; bytes *= 2) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment mask = arena.allocate(bytes, 8);
                MemorySegment cs = Libc.allocateCallState(arena);
                if (Libc.sched_getaffinity(cs, 0, bytes, mask) != 0) {
                    int errno = Libc.errno(cs);
                    if (errno == EINVAL && bytes < (1 << 20)) {
                        continue;   // the kernel's mask is larger than ours: retry with a bigger one
                    }
                    throw new LibcException("sched_getaffinity", errno);
                }
                List<Integer> cpus = new ArrayList<>();
                for (int w = 0; w < bytes / 8; w++) {
                    long word = mask.getAtIndex(ValueLayout.JAVA_LONG, w);
                    while (word != 0) {
                        cpus.add(w * 64 + Long.numberOfTrailingZeros(word));
                        word &= word - 1;
                    }
                }
                return cpus;
            }
        }
    }

    /** The CPU the calling thread ran on at the time of the call ({@code sched_getcpu}). */
    public static int currentCpu() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = Libc.allocateCallState(arena);
            int cpu = Libc.sched_getcpu(cs);
            if (cpu < 0) {
                throw new LibcException("sched_getcpu", Libc.errno(cs));
            }
            return cpu;
        }
    }

    /** The kernel thread id of the calling thread ({@code gettid}). */
    public static int currentTid() {
        return Libc.gettid();
    }
}
