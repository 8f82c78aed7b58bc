package io.coll4j;

import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.kernel.span.shm.SharedMemorySpan;

import java.time.Duration;

/**
 * How a team built by {@link Team.Builder} spans processes: through MPI ({@code mpi()}), through one shared mapping
 * between the JVMs of one host ({@code processes(n, index)} with {@code name(job)}), or not at all. Holds the builder's
 * choices and opens the span the team's ranks compose with (docs/design.md, "Across processes").
 */
final class ProcessLevel {
    boolean mpi;
    /** processes(n, index): 0 when not set. */
    int processes;
    int index;
    String job;
    /** sharedMemory(bytes): each process's allocation region of the mapping; 0 for the default. */
    long sharedBytes;

    void processes(int n, int i) {
        if (n < 1 || i < 0 || i >= n) {
            throw new IllegalArgumentException("processes(" + n + ", " + i + "): need processes >= 1 and 0 <= index < processes");
        }
        processes = n;
        index = i;
    }

    void sharedBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("sharedMemory: bytes per process must be >= 0 (0: the default), got " + bytes);
        }
        sharedBytes = bytes;
    }

    boolean mpi() {
        return mpi;
    }

    /** The span for a team of {@code localRanks} ranks in this process, or null for a team of this process alone. */
    ProcessSpan open(int localRanks, Duration timeout) {
        if (mpi && processes > 0) {
            throw new IllegalArgumentException("mpi() and processes(n, index) are two ways to span processes; pick one");
        }
        if (processes > 1 && job == null) {
            throw new IllegalArgumentException("processes(" + processes + ", " + index + ") needs name(job): "
                    + "the job name every process of the team shares");
        }
        if (mpi) {
            return ProcessSpan.open(localRanks, timeout);
        }
        return processes > 1 ? SharedMemorySpan.open(job, processes, index, localRanks, timeout, sharedBytes) : null;
    }
}
