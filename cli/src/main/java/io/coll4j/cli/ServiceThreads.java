package io.coll4j.cli;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU time of the JVM's compiler and collector threads, read from {@code /proc/self/task/<tid>/schedstat}. A
 * warm-up batch during which they ran did not measure the steady state: on 2 CPUs a compiler thread takes a spinning
 * rank's CPU for a scheduler slice (batches of six 2 MiB allreduces read 4–5 ms instead of 0.7 while C2 worked on a
 * long compile, which the compilation-time counter reports only once it finishes), and before C2 compiles a
 * reduction loop the Vector API runs its Java fallback, which allocates an object per lane operation and so brings
 * young collections.
 *
 * <p>The files are opened once and re-read from offset 0 (procfs regenerates them), so a reading is a handful of
 * small reads with no allocation: a first version that listed and parsed the directory each batch was itself a
 * C2 compile of 0.3 s in the middle of the batches it judged. Threads the JVM starts later (it adds compiler
 * threads on demand) are not seen. Where {@code /proc} is not there, {@link #nanos} is always 0.
 */
final class ServiceThreads implements AutoCloseable {
    /** Name prefixes (Linux {@code comm}, 15 characters) of the HotSpot threads that compile and collect. */
    private static final String[] PREFIXES = {"C1 CompilerThre", "C2 CompilerThre", "GC Thread", "G1 ", "VM Thread"};

    private final List<RandomAccessFile> files = new ArrayList<>();
    private final byte[] buf = new byte[64];

    ServiceThreads() {
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return;
        }
        for (java.io.File task : tasks) {
            try {
                String comm = java.nio.file.Files.readString(task.toPath().resolve("comm"));
                for (String prefix : PREFIXES) {
                    if (comm.startsWith(prefix)) {
                        files.add(new RandomAccessFile(new java.io.File(task, "schedstat"), "r"));
                        break;
                    }
                }
            } catch (IOException e) {
                // the thread ended between the listing and the open: it runs no more
            }
        }
    }

    /** Nanoseconds these threads have run so far (the first field of schedstat). */
    long nanos() {
        long sum = 0;
        for (RandomAccessFile f : files) {
            try {
                f.seek(0);
                int n = f.read(buf);
                long v = 0;
                for (int i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++) {
                    v = v * 10 + (buf[i] - '0');
                }
                sum += v;
            } catch (IOException e) {
                // the thread has ended: it runs no more
            }
        }
        return sum;
    }

    @Override
    public void close() {
        for (RandomAccessFile f : files) {
            try {
                f.close();
            } catch (IOException e) {
                // read-only procfs file: nothing to lose
            }
        }
    }
}
