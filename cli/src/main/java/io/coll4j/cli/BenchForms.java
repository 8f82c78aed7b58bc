package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.PersistentRequest;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.cli.CollectiveBenchmark.Shape;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * The non-blocking and persistent forms {@link CollectiveBenchmark} measures ({@code --nonblocking}: {@code i*(...).await()};
 * {@code --persistent}: {@code start(); await()} of a request bound once per buffer slot), for one collective, dtype,
 * op and root.
 */
record BenchForms(Collective collective, DType dtype, Op op, int root) {
    /** One timed call of the form being measured. */
    interface Caller extends AutoCloseable {
        void call(MemorySegment send, MemorySegment recv);

        @Override
        default void close() {
        }
    }

    /** The non-blocking or persistent form of {@code algorithm}, or null for a blocking plan. */
    Caller caller(Rank rank, Shape shape, String algorithm, MemorySegment[] sends, MemorySegment[] recvs,
                   VectorLayouts.Call layout) {
        long n = shape.callCount();
        return switch (algorithm) {
            case CollectiveBenchmark.NONBLOCKING -> (s, r) -> issue(rank, s, r, n, layout).await();
            case CollectiveBenchmark.PERSISTENT -> new PersistentCaller(rank, sends, recvs, n, layout);
            default -> null;
        };
    }

    /** Issues the collective in its non-blocking form (a v-variant with the rank's {@link VectorLayouts} call). */
    Request issue(Rank rank, MemorySegment s, MemorySegment r, long n) {
        return issue(rank, s, r, n, VectorLayouts.call(null, collective, n, rank.size(), rank.id()));
    }

    /** Issues the collective in its non-blocking form; {@code v} holds a v-variant's counts and displacements. */
    private Request issue(Rank rank, MemorySegment s, MemorySegment r, long n, VectorLayouts.Call v) {
        return switch (collective) {
            case BARRIER -> rank.ibarrier();
            case BCAST -> rank.ibcast(s, n, dtype, root);
            case REDUCE -> rank.ireduce(s, r, n, dtype, op, root);
            case ALLREDUCE -> rank.iallreduce(s, r, n, dtype, op);
            case REDUCE_SCATTER -> rank.ireduceScatter(s, r, n, dtype, op);
            case ALLGATHER -> rank.iallgather(s, r, n, dtype);
            case GATHER -> rank.igather(s, r, n, dtype, root);
            case SCATTER -> rank.iscatter(s, r, n, dtype, root);
            case ALLTOALL -> rank.ialltoall(s, r, n, dtype);
            case SCAN -> rank.iscan(s, r, n, dtype, op);
            case EXSCAN -> rank.iexscan(s, r, n, dtype, op);
            case GATHERV -> rank.igatherv(s, v.sendCounts()[0], r, v.recvCounts(), v.recvDispls(), dtype, root);
            case SCATTERV -> rank.iscatterv(s, v.sendCounts(), v.sendDispls(), r, v.recvCounts()[0], dtype, root);
            case ALLGATHERV -> rank.iallgatherv(s, v.sendCounts()[0], r, v.recvCounts(), v.recvDispls(), dtype);
            case REDUCE_SCATTER_V -> rank.ireduceScatterV(s, r, v.recvCounts(), dtype, op);
            case ALLTOALLV -> rank.ialltoallv(s, v.sendCounts(), v.sendDispls(), r, v.recvCounts(), v.recvDispls(), dtype);
        };
    }

    /**
     * Persistent requests bound once per buffer slot (one for a warm run); a call is {@code start();
     * await()} of the slot's request — the same slot as the last call needs no lookup.
     */
    private final class PersistentCaller implements Caller {
        private final MemorySegment[] sends;
        private final PersistentRequest[] requests;
        private int last;

        PersistentCaller(Rank rank, MemorySegment[] sends, MemorySegment[] recvs, long n, VectorLayouts.Call v) {
            this.sends = sends;
            this.requests = new PersistentRequest[sends.length];
            for (int k = 0; k < sends.length; k++) {
                MemorySegment s = sends[k];
                MemorySegment r = recvs[k];
                if (collective.vector()) {
                    requests[k] = rank.init(v.plan(), s, v.sendCounts(), v.sendDispls(), r, v.recvCounts(), v.recvDispls());
                    continue;
                }
                requests[k] = switch (collective) {
                    case BARRIER -> rank.barrierInit();
                    case BCAST -> rank.bcastInit(s, n, dtype, root);
                    case REDUCE -> rank.reduceInit(s, r, n, dtype, op, root);
                    case ALLREDUCE -> rank.allreduceInit(s, r, n, dtype, op);
                    case REDUCE_SCATTER -> rank.reduceScatterInit(s, r, n, dtype, op);
                    case ALLGATHER -> rank.allgatherInit(s, r, n, dtype);
                    case GATHER -> rank.gatherInit(s, r, n, dtype, root);
                    case SCATTER -> rank.scatterInit(s, r, n, dtype, root);
                    case ALLTOALL -> rank.alltoallInit(s, r, n, dtype);
                    case SCAN -> rank.scanInit(s, r, n, dtype, op);
                    case EXSCAN -> rank.exscanInit(s, r, n, dtype, op);
                    default -> throw new IllegalArgumentException(collective.cliName() + " has no persistent form");
                };
            }
        }

        @Override
        public void call(MemorySegment send, MemorySegment recv) {
            if (sends[last] != send) {
                last = 0;
                while (sends[last] != send) {
                    last++;
                }
            }
            PersistentRequest r = requests[last];
            r.start();
            r.await();
        }

        @Override
        public void close() {
            for (PersistentRequest r : requests) {
                r.close();
            }
        }
    }
}
