package io.coll4j.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Checks made before a command measures anything or opens a file: that the memory, threads and output
 * locations it will need can be had. A request that cannot be met is an {@link IllegalArgumentException}
 * naming the option (one line, exit 2), instead of an {@link OutOfMemoryError} after a partial run.
 */
final class Resources {
    /** Ranks beyond this many per PU are refused: each is a platform thread with its own stack and buffers. */
    static final int MAX_RANKS_PER_PU = 64;

    /** The most iterations (timed or warm-up) a command runs per point: beyond, a run would not end in a day. */
    static final long MAX_ITERATIONS = 1_000_000_000L;

    /** The most repetitions (timed batches, rounds) a command keeps a sample of. */
    static final int MAX_REPETITIONS = 1_000_000;

    /** The longest --timeout: a week. */
    static final long MAX_TIMEOUT_SECONDS = 7 * 86_400L;

    private Resources() {
    }

    /** {@code value} of {@code option}, refused (one line, exit 2) when above {@code max}. */
    static void atMost(String option, long value, long max) {
        if (value > max) {
            throw new Refused(option + " " + value + " is more than " + max + ", the most this command accepts");
        }
    }

    /** A request the machine cannot meet: reported as one line (exit 2) without the usage text. */
    static final class Refused extends IllegalArgumentException {
        Refused(String message) {
            super(message);
        }
    }

    /** Bytes of physical memory the kernel says are available (MemAvailable), or Long.MAX_VALUE when unknown. */
    static long availableMemory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException | SecurityException e) {
            // not Linux, or not readable: no check
        }
        return Long.MAX_VALUE;
    }

    static void threads(int ranks, int pus) {
        long max = (long) MAX_RANKS_PER_PU * Math.max(1, pus);
        if (ranks > max) {
            throw new Refused("--threads " + ranks + " is more than " + MAX_RANKS_PER_PU + " ranks per PU ("
                    + max + " on this machine's " + pus + " PUs)");
        }
    }

    /** {@code bytes} of native buffers for {@code what}: refused when more than the machine has available. */
    static void nativeMemory(String what, long bytes) {
        long avail = availableMemory();
        if (bytes < 0 || bytes > avail) {
            throw new Refused(what + " needs " + (bytes < 0 ? "more than 2^63" : String.valueOf(bytes))
                    + " bytes of memory; " + avail + " bytes are available");
        }
    }

    /** Per-iteration samples: {@code bytesPerIteration} of Java heap per timed iteration. */
    static void samples(String what, long iterations, long bytesPerIteration) {
        long heap = Runtime.getRuntime().maxMemory();
        if (iterations > Integer.MAX_VALUE - 8) {
            throw new Refused(what + ": at most " + (Integer.MAX_VALUE - 8)
                    + " iterations can be timed one by one, got " + iterations);
        }
        long need = iterations * bytesPerIteration;
        if (need > heap / 2) {
            throw new Refused(what + ": " + iterations + " per-iteration samples need " + need
                    + " bytes of Java heap; the JVM has " + heap + " (use fewer --iterations)");
        }
    }

    /** A file the command will write: its directory must exist and be writable, and it must not be a directory. */
    static void writableFile(String option, Path file) {
        Path abs = file.toAbsolutePath();
        Path dir = abs.getParent();
        if (Files.isDirectory(abs)) {
            throw new Refused(option + " " + file + " is a directory");
        }
        if (dir != null && !Files.isDirectory(dir)) {
            throw new Refused(option + " " + file + ": directory " + dir + " does not exist");
        }
        if (Files.exists(abs) ? !Files.isWritable(abs) : dir != null && !Files.isWritable(dir)) {
            throw new Refused(option + " " + file + " is not writable");
        }
    }
}
