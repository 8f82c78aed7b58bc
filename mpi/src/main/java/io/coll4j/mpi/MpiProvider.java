package io.coll4j.mpi;

import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.kernel.span.shm.SharedMemorySpan;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registered as the kernel's {@link ProcessSpan.Provider}: a team built with {@code mpi()} spans the MPI job's processes.
 * When every process of the job runs on this host, the team's transport is the shared mapping (the {@code processes(n,
 * index)} span) and MPI only agrees on the mapping's name and stays initialised while the team lives: the processes
 * of the node then read each other's buffers in one shared memory, as the hybrid MPI+MPI collectives read one shared
 * copy through an MPI-3 shared window [MPI+MPI §4.1], instead of sending messages through MPI's transport. {@code -Dcoll4j.mpi.sharedMapping=false} (or {@code COLL4J_MPI_SHARED_MAPPING=0})
 * keeps MPI as the transport.
 */
public final class MpiProvider implements ProcessSpan.Provider {
    /** The teams this process built over MPI: with process 0's pid, the mapping's name, alike in every process. */
    private static final AtomicLong TEAMS = new AtomicLong();

    @Override
    public ProcessSpan open(int localRanks, Duration timeout) {
        long nanos = timeout.isZero() ? Long.MAX_VALUE : timeout.toNanos();
        MpiSession s = MpiSession.open(System.getenv(), nanos, localRanks);
        MpiProcessSpan span;
        try {
            span = new MpiProcessSpan(s, localRanks);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
        if (span.processes() == 1 || !sharedMappingWanted() || !oneHost(span)) {
            return span;
        }
        try {
            return overMapping(span, localRanks, timeout);
        } catch (RuntimeException e) {
            span.close();
            throw e;
        }
    }

    static boolean sharedMappingWanted() {
        String p = System.getProperty("coll4j.mpi.sharedMapping");
        if (p != null) {
            return Boolean.parseBoolean(p);
        }
        return !"0".equals(System.getenv("COLL4J_MPI_SHARED_MAPPING"));
    }

    private static boolean oneHost(ProcessSpan span) {
        for (int p = 1; p < span.processes(); p++) {
            if (!span.host(p).equals(span.host(0))) {
                return false;
            }
        }
        return true;
    }

    /** Process 0 names the mapping (its pid and its count of teams), MPI broadcasts the name, every process opens it. */
    private static ProcessSpan overMapping(MpiProcessSpan span, int localRanks, Duration timeout) {
        long[] name = {ProcessHandle.current().pid(), TEAMS.incrementAndGet()};
        span.bcast(span.world(), MemorySegment.ofArray(name), name.length, DType.I64, 0);
        SharedMemorySpan shm = SharedMemorySpan.open("mpi-" + name[0] + "-" + name[1], span.processes(), span.process(),
                localRanks, timeout);
        shm.closeAfter(span);
        return shm;
    }
}
