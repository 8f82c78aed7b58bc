package io.coll4j.kernel.algo.baseline;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.BlockLayout;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.kernel.algo.CollectiveCall;
import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The {@code cyclicbarrier} baselines of gather, scatter, their v-variants, allgatherv, reduce-scatter-v,
 * alltoall(v), scan and exscan: what Java code does today — every rank publishes its array in a shared
 * slot, {@code CyclicBarrier.await}, reads what it needs with {@link System#arraycopy} (and plain fold
 * loops), {@code await} again so nobody overwrites an array still being read. Folds run in ascending rank
 * order (bitwise the scalar left fold). Arrays of the call's dtype are used directly, other segments go
 * through per-rank arrays ({@link BaselineTeam}).
 */
public final class VocabularyBaselines {
    private VocabularyBaselines() {
    }

    /** One baseline per collective of the rest of the vocabulary. */
    public static List<CollectiveAlgorithm> all() {
        return List.of(new Gather(Collective.GATHER), new Scatter(Collective.SCATTER), new Gather(Collective.GATHERV),
                new Scatter(Collective.SCATTERV), new Allgatherv(), new ReduceScatterV(), new Alltoall(Collective.ALLTOALL),
                new Alltoall(Collective.ALLTOALLV), new Scan(Collective.SCAN), new Scan(Collective.EXSCAN));
    }

    private static int idx(long elements) {
        return Math.toIntExact(elements);
    }

    /** A private copy of {@code count} elements of {@code seg} for rank r (when the caller's array will be overwritten). */
    private static Object privateCopy(BaselineTeam b, int r, MemorySegment seg, DType dt, long count) {
        b.privates[r] = BaselineTeam.ensure(b.privates[r], dt, count);
        if (count > 0) {
            MemorySegment.copy(seg, BaselineTeam.layout(dt), 0, b.privates[r], 0, idx(count));
        }
        return b.privates[r];
    }

    static final class Gather extends CyclicBarrierBaselines.Base {
        Gather(Collective c) {
            super(c, "await; the root System.arraycopies every rank's array into its own; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * CyclicBarrierBaselines.barrierCost(p) + m.copyTime(bytes, 2 * bytes);
        }

        @Override
        public void run(CollectiveCall call) {
            BaselineTeam b = BaselineTeam.of(call);
            int r = call.rank();
            int p = call.size();
            DType dt = call.dtype();
            b.inputs[r] = b.input(r, call.send(), dt, call.count(), true);
            b.await(call);
            if (r == call.root()) {
                BlockLayout me = call.blocks();
                for (int q = 0; q < p; q++) {
                    call.checkBlock(q, "from it", me.recvCount(q), call.peerBlocks(q).count());
                    BaselineTeam.copyOut(b.inputs[q], 0, call.recv(), me.recvDispl(q), dt, me.recvCount(q));
                }
            }
            b.await(call);
        }
    }

    static final class Scatter extends CyclicBarrierBaselines.Base {
        Scatter(Collective c) {
            super(c, "await; every rank System.arraycopies its block out of the root's array; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * CyclicBarrierBaselines.barrierCost(p) + m.copyTime(bytes / p, 2 * bytes);
        }

        @Override
        public void run(CollectiveCall call) {
            BaselineTeam b = BaselineTeam.of(call);
            int r = call.rank();
            int root = call.root();
            DType dt = call.dtype();
            if (r == root) {
                BlockLayout me = call.blocks();
                long extent = me.sendExtent(call.size());
                // in place the root's block of send is its recv: read it from a copy, not the array being written
                b.inputs[r] = b.input(r, call.send(), dt, extent, true);
            }
            b.await(call);
            BlockLayout at = call.peerBlocks(root);
            call.checkBlock(root, "from it", call.count(), at.sendCount(r));
            BaselineTeam.copyOut(b.inputs[root], idx(at.sendDispl(r)), call.recv(), 0, dt, call.count());
            b.await(call);
        }
    }

    static final class Allgatherv extends CyclicBarrierBaselines.Base {
        Allgatherv() {
            super(Collective.ALLGATHERV, "await; System.arraycopy of every rank's array to its displacement in mine; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * CyclicBarrierBaselines.barrierCost(p) + m.copyTime(bytes, 2L * p * bytes);
        }

        @Override
        public void run(CollectiveCall call) {
            BaselineTeam b = CyclicBarrierBaselines.publishSend(call, call.count());
            BlockLayout me = call.blocks();
            CyclicBarrierBaselines.gatherInto(b, call, me::recvCount, me::recvDispl);
            b.await(call);
        }
    }

    static final class ReduceScatterV extends CyclicBarrierBaselines.Base {
        ReduceScatterV() {
            super(Collective.REDUCE_SCATTER_V, "await; each rank folds its block of all arrays into its own; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * CyclicBarrierBaselines.barrierCost(p) + m.reduceTime(bytes / p, 2L * p * bytes) * p / 2;
        }

        @Override
        public void run(CollectiveCall call) {
            BlockLayout me = call.blocks();
            BaselineTeam b = CyclicBarrierBaselines.publishSend(call, me.recvTotal(call.size()));
            CyclicBarrierBaselines.foldBlockIntoRecv(b, call, me.recvDispl(call.rank()), call.count());
            b.await(call);
        }
    }

    static final class Alltoall extends CyclicBarrierBaselines.Base {
        Alltoall(Collective c) {
            super(c, "await; System.arraycopy of my block out of every rank's array; await");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * CyclicBarrierBaselines.barrierCost(p) + m.copyTime(bytes, 2L * p * bytes);
        }

        @Override
        public void run(CollectiveCall call) {
            BaselineTeam b = BaselineTeam.of(call);
            int r = call.rank();
            int p = call.size();
            DType dt = call.dtype();
            BlockLayout me = call.blocks();
            long extent = me.sendExtent(p);
            b.inputs[r] = me.inPlace() ? privateCopy(b, r, call.send(), dt, extent) : b.input(r, call.send(), dt, extent, true);
            b.await(call);
            for (int q = 0; q < p; q++) {
                BlockLayout pq = call.peerBlocks(q);
                call.checkBlock(q, "from it", me.recvCount(q), pq.sendCount(r));
                BaselineTeam.copyOut(b.inputs[q], idx(pq.sendDispl(r)), call.recv(), me.recvDispl(q), dt, me.recvCount(q));
            }
            b.await(call);
        }
    }

    static final class Scan extends CyclicBarrierBaselines.Base {
        Scan(Collective c) {
            super(c, "await; each rank folds the arrays of its predecessors into a private array; await; copy out");
        }

        @Override
        public double cost(MachineModel m, int p, long bytes) {
            return 2 * CyclicBarrierBaselines.barrierCost(p) + m.reduceTime(bytes, 2L * p * bytes) * p / 2;
        }

        @Override
        public void run(CollectiveCall call) {
            BaselineTeam b = BaselineTeam.of(call);
            int r = call.rank();
            DType dt = call.dtype();
            long n = call.count();
            int last = call.collective() == Collective.EXSCAN ? r - 1 : r;
            b.inputs[r] = b.input(r, call.send(), dt, n, true);
            b.await(call);
            Object out = null;
            if (last >= 0) {
                out = b.outputs[r] = BaselineTeam.ensure(b.outputs[r], dt, n);
                CyclicBarrierBaselines.foldRange(b, out, 0, 0, idx(n), last, call);
            }
            // in place my array is read by the higher ranks: write it only after they are done
            b.await(call);
            if (out != null) {
                BaselineTeam.copyOut(out, 0, call.recv(), 0, dt, n);
            }
        }
    }
}
