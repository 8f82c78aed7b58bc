package io.coll4j.mpi;

import io.coll4j.kernel.span.ProcessSpan;

import java.time.Duration;

/** Registered as the kernel's {@link ProcessSpan.Provider}: a team built with {@code mpi()} spans the MPI job's processes. */
public final class MpiProvider implements ProcessSpan.Provider {
    @Override
    public ProcessSpan open(int localRanks, Duration timeout) {
        long nanos = timeout.isZero() ? Long.MAX_VALUE : timeout.toNanos();
        MpiSession s = MpiSession.open(System.getenv(), nanos, localRanks);
        try {
            return new MpiProcessSpan(s, localRanks);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }
}
