package io.coll4j.kernel.span.shm;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Whether the processes of a {@link Mapping} are alive: the liveness check on the slow path of every wait
 * ({@link Mapping#check}), and the one-off checks of the join ({@link #alive(long)}).
 *
 * <p>The wait's check reads each peer's /proc/PID/stat through a channel opened at its first check and kept: one
 * positioned read a check. {@link #alive(long)} — {@code ProcessHandle.of(pid).isAlive()}, then a fresh read of the
 * same file — took 240-490 µs a call against 14-45 µs for the held file, alternated on the 2-vCPU VM of
 * docs/measurements.md at load 8 ("The 8-byte call across two JVMs"), every 50 ms on the critical path of a waiting
 * process, and under the mapping's lock in a point-to-point wait. A
 * /proc/PID file stays bound to the process it was opened for: a zombie reads state Z and a reaped process's read
 * fails (ESRCH), so a pid reused by another process cannot pass for the dead one either.
 */
final class Liveness {
    /** Per process, its /proc/PID/stat held open, and the pid it was opened for. */
    private final FileChannel[] stat;
    private final long[] statPid;
    private final ByteBuffer buffer = ByteBuffer.allocate(1024);
    private boolean closed;

    Liveness(int processes) {
        this.stat = new FileChannel[processes];
        this.statPid = new long[processes];
    }

    /** Whether process p, whose pid is {@code pid}, is alive (neither gone nor a zombie). */
    synchronized boolean alive(int p, long pid) {
        if (closed) {
            return alive(pid);
        }
        FileChannel fc = stat[p];
        if (fc == null || statPid[p] != pid) {
            closeQuietly(fc);
            stat[p] = null;
            try {
                fc = FileChannel.open(Path.of("/proc/" + pid + "/stat"), StandardOpenOption.READ);
            } catch (NoSuchFileException e) {
                return false;
            } catch (IOException | RuntimeException e) {
                return alive(pid);   // no /proc to hold open: the check without it
            }
            stat[p] = fc;
            statPid[p] = pid;
        }
        buffer.clear();
        try {
            fc.read(buffer, 0);
        } catch (IOException e) {
            return false;   // ESRCH: the process it was opened for is gone
        }
        return !zombie(new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII));
    }

    /** Closes the held files (the mapping's last span closed); later checks take {@link #alive(long)}. */
    synchronized void close() {
        closed = true;
        for (int p = 0; p < stat.length; p++) {
            closeQuietly(stat[p]);
            stat[p] = null;
        }
    }

    /** Whether the process {@code pid} is alive, without a held file: the join's one-off checks. */
    static boolean alive(long pid) {
        if (pid <= 0) {
            return false;
        }
        if (!ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            return false;
        }
        // a killed process not yet reaped by its parent is a zombie, which ProcessHandle may still call alive
        try {
            return !zombie(Files.readString(Path.of("/proc/" + pid + "/stat")));
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }

    /** Whether a /proc/PID/stat line says state Z (the state follows the command name's closing parenthesis). */
    private static boolean zombie(String stat) {
        int close = stat.lastIndexOf(')');
        return close >= 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
    }

    private static void closeQuietly(FileChannel fc) {
        if (fc != null) {
            try {
                fc.close();
            } catch (IOException e) {
                // a /proc file opened for reading: nothing to lose
            }
        }
    }
}
