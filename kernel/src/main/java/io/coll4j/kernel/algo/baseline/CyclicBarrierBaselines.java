package io.coll4j.kernel.algo.baseline;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AbstractAlgorithm;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;

import java.util.List;

/**
 * The {@code cyclicbarrier} reference algorithms: what a Java developer writes today with a
 * {@link java.util.concurrent.CyclicBarrier} and arrays (see {@link BaselineTeam}). Every benchmark
 * prints them beside ours. Each rank folds one contiguous chunk with plain loops, in ascending rank
 * order (so float results equal the scalar left fold), and copies with {@link System#arraycopy}.
 */
public final class CyclicBarrierBaselines {
    public static final String NAME = "cyclicbarrier";

    private CyclicBarrierBaselines() {
    }

    /** One baseline per collective. */
    public static List<CollectiveAlgorithm> all() {
        return List.of(new Barrier(), new Bcast(), new Reduce(), new Allreduce(), new ReduceScatter(), new Allgather());
    }

    /** CyclicBarrier.await costs a park/unpark round: tens of µs. */
    static double barrierCost(int p) {
        return 20e-6 * Math.max(1, 32 - Integer.numberOfLeadingZeros(p - 1));
    }

    abstract static class Base extends AbstractAlgorithm {
        Base(Collective c, String summary) {
            super(c, NAME, summary, "[baseline: java.util.concurrent]");
        }

        @Override
        public boolean observesAllEntries(int rank, int root, int ranks) {
            return true;          // every baseline passes at least one full barrier
        }
    }

    /** [lo, hi) of rank r's chunk of n elements. */
    static int lo(long n, int p, int r) {
        return (int) (n * r / p);
    }

    static final class Barrier extends Base {
        Barrier() {
            super(Collective.BARRIER, "CyclicBarrier.await()");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return barrierCost(p);
        }

        @Override
        public void run(CollectiveCall call) {
            BaselineTeam.of(call).await(call);
        }
    }

    static final class Bcast extends Base {
        Bcast() {
            super(Collective.BCAST, "await; System.arraycopy from the root's array; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * barrierCost(p) + m.copyTime(bytes, (long) p * bytes);
        }

        @Override
        public void run(CollectiveCall call) {
            BaselineTeam b = BaselineTeam.of(call);
            int r = call.rank();
            DType dt = call.dtype();
            long n = call.count();
            boolean root = r == call.root();
            Object mine = b.input(r, call.recv(), dt, n, root);
            b.inputs[r] = mine;
            b.await(call);
            if (!root) {
                BaselineTeam.copyOut(b.inputs[call.root()], 0, call.recv(), 0, dt, n);
            }
            b.await(call);
        }
    }

    static final class Allreduce extends Base {
        Allreduce() {
            super(Collective.ALLREDUCE, "await; each rank folds its chunk of all arrays into a shared array; await; copy back");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            long ws = 3L * p * bytes;
            return 2 * barrierCost(p) + m.reduceTime(bytes, ws) + m.copyTime(bytes, ws);
        }

        @Override
        public void run(CollectiveCall call) {
            Object result = foldIntoSharedArray(call);
            BaselineTeam.copyOut(result, 0, call.recv(), 0, call.dtype(), call.count());
        }
    }

    /**
     * What the allreduce and reduce baselines share: publish my array, await; fold my chunk of all arrays
     * into the shared result array (rank 0 sizes it); await. Returns the result array, read once: rank 0
     * may replace it for the next call while a rank still copies out of this one.
     */
    static Object foldIntoSharedArray(CollectiveCall call) {
        BaselineTeam b = BaselineTeam.of(call);
        int r = call.rank();
        DType dt = call.dtype();
        long n = call.count();
        b.inputs[r] = b.input(r, call.send(), dt, n, true);
        if (r == 0) {
            b.result = BaselineTeam.ensure(b.result, dt, n);
        }
        b.await(call);
        Object result = b.result;
        foldChunk(b, result, call.size(), r, n, call);
        b.await(call);
        return result;
    }

    /** result[chunk r] = inputs[0] op inputs[1] op … (rank order), in place over the shared result. */
    static void foldChunk(BaselineTeam b, Object result, int p, int r, long n, CollectiveCall call) {
        int from = lo(n, p, r);
        foldRange(b, result, from, from, lo(n, p, r + 1) - from, p - 1, call);
    }

    /** Publishes my send array ({@code count} elements) in my slot and awaits everyone's: the baselines' first step. */
    static BaselineTeam publishSend(CollectiveCall call, long count) {
        BaselineTeam b = BaselineTeam.of(call);
        b.inputs[call.rank()] = b.input(call.rank(), call.send(), call.dtype(), count, true);
        b.await(call);
        return b;
    }

    /**
     * out[at, at + len) = inputs[0][from, from + len) op … op inputs[last][…]: the left fold in rank order,
     * bitwise the scalar reference.
     */
    static void foldRange(BaselineTeam b, Object out, int at, int from, int len, int last, CollectiveCall call) {
        System.arraycopy(b.inputs[0], from, out, at, len);
        for (int q = 1; q <= last; q++) {
            ArrayFolds.foldInto(out, at, b.inputs[q], from, len, call.op());
        }
    }

    /**
     * The fold of block [from, from + n) of every rank's array into my receive buffer: straight into it when
     * it is an array of the call's dtype, else through my private output array.
     */
    static void foldBlockIntoRecv(BaselineTeam b, CollectiveCall call, long from, long n) {
        Object out = BaselineTeam.arrayOf(call.recv(), call.dtype(), n);
        if (out == null) {
            out = b.outputs[call.rank()] = BaselineTeam.ensure(b.outputs[call.rank()], call.dtype(), n);
        }
        foldRange(b, out, 0, Math.toIntExact(from), Math.toIntExact(n), call.size() - 1, call);
        BaselineTeam.copyOut(out, 0, call.recv(), 0, call.dtype(), n);
    }

    /** Copies every rank's published array, {@code counts[q]} elements, to {@code displs[q]} of my receive buffer. */
    static void gatherInto(BaselineTeam b, CollectiveCall call, java.util.function.IntToLongFunction count,
                           java.util.function.IntToLongFunction displ) {
        for (int q = 0; q < call.size(); q++) {
            BaselineTeam.copyOut(b.inputs[q], 0, call.recv(), displ.applyAsLong(q), call.dtype(), count.applyAsLong(q));
        }
    }

    static final class Reduce extends Base {
        Reduce() {
            super(Collective.REDUCE, "await; each rank folds its chunk into a shared array; await; root copies it");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            long ws = 3L * p * bytes;
            return 2 * barrierCost(p) + m.reduceTime(bytes, ws) + m.copyTime(bytes, ws) / p;
        }

        @Override
        public void run(CollectiveCall call) {
            Object result = foldIntoSharedArray(call);
            if (call.rank() == call.root()) {
                BaselineTeam.copyOut(result, 0, call.recv(), 0, call.dtype(), call.count());
            }
        }
    }

    static final class ReduceScatter extends Base {
        ReduceScatter() {
            super(Collective.REDUCE_SCATTER, "await; each rank folds its block of all arrays into its own; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * barrierCost(p) + m.reduceTime(bytes / p, 2L * p * bytes) * p / 2;
        }

        @Override
        public void run(CollectiveCall call) {
            long n = call.count();
            BaselineTeam b = publishSend(call, n * call.size());
            foldBlockIntoRecv(b, call, call.rank() * n, n);
            b.await(call);
        }
    }

    static final class Allgather extends Base {
        Allgather() {
            super(Collective.ALLGATHER, "await; System.arraycopy of every rank's array into mine; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * barrierCost(p) + m.copyTime(bytes, 2L * p * bytes);
        }

        @Override
        public void run(CollectiveCall call) {
            long n = call.count();
            BaselineTeam b = publishSend(call, n);
            gatherInto(b, call, q -> n, q -> q * n);
            b.await(call);
        }
    }
}
