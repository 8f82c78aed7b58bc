package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.allgather.DirectAllgather;
import io.coll4j.kernel.algo.allgather.PushAllgather;
import io.coll4j.kernel.algo.allgather.PipelinedAllgather;
import io.coll4j.kernel.algo.allgather.SharedCopyAllgather;
import io.coll4j.kernel.algo.allreduce.DirectAllreduce;
import io.coll4j.kernel.algo.allreduce.PushAllreduce;
import io.coll4j.kernel.algo.allreduce.DisseminationAllreduce;
import io.coll4j.kernel.algo.allreduce.FlatAllreduce;
import io.coll4j.kernel.algo.allreduce.ReplicatedAllreduce;
import io.coll4j.kernel.algo.allreduce.MaSlicedAllreduce;
import io.coll4j.kernel.algo.allreduce.MaSocketAllreduce;
import io.coll4j.kernel.algo.allreduce.StagedSlicedAllreduce;
import io.coll4j.kernel.algo.allreduce.TiledAllreduce;
import io.coll4j.kernel.algo.allreduce.TreeAllreduce;
import io.coll4j.kernel.algo.barrier.CentralBarrier;
import io.coll4j.kernel.algo.barrier.DisseminationBarrier;
import io.coll4j.kernel.algo.barrier.TreeBarrier;
import io.coll4j.kernel.algo.baseline.CyclicBarrierBaselines;
import io.coll4j.kernel.algo.baseline.VocabularyBaselines;
import io.coll4j.kernel.algo.gather.DirectGather;
import io.coll4j.kernel.algo.gather.PushGather;
import io.coll4j.kernel.algo.scatter.DirectScatter;
import io.coll4j.kernel.algo.scatter.FlatScatter;
import io.coll4j.kernel.algo.scatter.TwoStageScatter;
import io.coll4j.kernel.algo.allgatherv.DirectAllgatherv;
import io.coll4j.kernel.algo.allgatherv.PushAllgatherv;
import io.coll4j.kernel.algo.reducescatterv.DirectReduceScatterV;
import io.coll4j.kernel.algo.reducescatterv.InlineReduceScatterV;
import io.coll4j.kernel.algo.alltoall.DirectAlltoall;
import io.coll4j.kernel.algo.alltoall.PushAlltoall;
import io.coll4j.kernel.algo.scan.ChainScan;
import io.coll4j.kernel.algo.scan.DirectScan;
import io.coll4j.kernel.algo.bcast.DirectBcast;
import io.coll4j.kernel.algo.bcast.FlatBcast;
import io.coll4j.kernel.algo.bcast.PipelinedBcast;
import io.coll4j.kernel.algo.bcast.TwoStageBcast;
import io.coll4j.kernel.algo.reduce.DirectReduce;
import io.coll4j.kernel.algo.reduce.MaSlicedReduce;
import io.coll4j.kernel.algo.reduce.StagedSlicedReduce;
import io.coll4j.kernel.algo.reduce.TreeReduce;
import io.coll4j.kernel.algo.reducescatter.DirectReduceScatter;
import io.coll4j.kernel.algo.reducescatter.MaSlicedReduceScatter;
import io.coll4j.kernel.algo.reducescatter.StagedSlicedReduceScatter;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every algorithm of the catalogue (docs/design.md, "Algorithm catalogue"), by collective, in catalogue order (the order ties are broken in, and
 * {@code collbench list} prints). The {@code cyclicbarrier} baselines are in the catalogue (so
 * {@code -a cyclicbarrier} and {@code -a all} reach them) but never chosen by the selector.
 */
public final class AlgorithmCatalog {
    private static final List<CollectiveAlgorithm> ALL;

    static {
        List<CollectiveAlgorithm> a = new ArrayList<>(List.of(
                new DisseminationBarrier(), new TreeBarrier(), new CentralBarrier(),
                new FlatBcast(), new TwoStageBcast(), new PipelinedBcast(), new DirectBcast(),
                new TreeReduce(),
                new DirectReduce(), new MaSlicedReduce(), new StagedSlicedReduce(),
                new DisseminationAllreduce(), new FlatAllreduce(), new TreeAllreduce(), new TiledAllreduce(),
                new DirectAllreduce(), new PushAllreduce(), new ReplicatedAllreduce(), new MaSlicedAllreduce(), new StagedSlicedAllreduce(), new MaSocketAllreduce(),
                new DirectReduceScatter(), new MaSlicedReduceScatter(), new StagedSlicedReduceScatter(),
                new DirectAllgather(), new PushAllgather(), new PipelinedAllgather(), new SharedCopyAllgather()));
        // ---- the rest of the MPI vocabulary ----
        a.addAll(List.of(
                new PushGather(Collective.GATHER), new DirectGather(Collective.GATHER),
                new FlatScatter(Collective.SCATTER), new DirectScatter(Collective.SCATTER), new TwoStageScatter(Collective.SCATTER),
                new PushGather(Collective.GATHERV), new DirectGather(Collective.GATHERV),
                new FlatScatter(Collective.SCATTERV), new DirectScatter(Collective.SCATTERV), new TwoStageScatter(Collective.SCATTERV),
                new DirectAllgatherv(), new PushAllgatherv(),
                new InlineReduceScatterV(), new DirectReduceScatterV(),
                new DirectAlltoall(Collective.ALLTOALL), new PushAlltoall(Collective.ALLTOALL),
                new DirectAlltoall(Collective.ALLTOALLV), new PushAlltoall(Collective.ALLTOALLV),
                new DirectScan(Collective.SCAN), new ChainScan(Collective.SCAN),
                new DirectScan(Collective.EXSCAN), new ChainScan(Collective.EXSCAN)));
        a.addAll(CyclicBarrierBaselines.all());
        a.addAll(VocabularyBaselines.all());
        ALL = List.copyOf(a);
    }

    private AlgorithmCatalog() {
    }

    /**
     * Peer-written control lines per rank the algorithms that signal a partner on the partner's own line
     * need (their layouts: {@link DisseminationBarrier#peerLines}, {@link DisseminationAllreduce#peerLines}).
     */
    public static int peerLines(int ranks) {
        return DisseminationBarrier.peerLines(ranks) + DisseminationAllreduce.peerLines(ranks);
    }

    public static List<CollectiveAlgorithm> all() {
        return ALL;
    }

    /** The algorithms of {@code c}, baseline last. */
    public static List<CollectiveAlgorithm> of(Collective c) {
        return ALL.stream().filter(a -> a.collective() == c).toList();
    }

    /**
     * A stable number for {@code a} (its index in {@link #all()}, plus one; 0 for an algorithm outside the
     * catalogue): ranks put it in their check word, so ranks that run different algorithms are a mismatch.
     */
    public static int id(CollectiveAlgorithm a) {
        for (int i = 0; i < ALL.size(); i++) {
            if (ALL.get(i) == a) {
                return i + 1;
            }
        }
        return 0;
    }

    /** The name of the algorithm numbered {@code id} by {@link #id}, or {@code "?"}. */
    public static String nameOf(int id) {
        return id >= 1 && id <= ALL.size() ? ALL.get(id - 1).name() : "?";
    }

    /** True for the {@code cyclicbarrier} reference algorithms. */
    public static boolean isBaseline(CollectiveAlgorithm a) {
        return a.name().equals(CyclicBarrierBaselines.NAME);
    }

    /** The algorithm named {@code name} for {@code c}; {@link IllegalArgumentException} listing the valid names otherwise. */
    public static CollectiveAlgorithm find(Collective c, String name) {
        for (CollectiveAlgorithm a : ALL) {
            if (a.collective() == c && a.name().equalsIgnoreCase(name)) {
                return a;
            }
        }
        throw new IllegalArgumentException("unknown " + c.cliName() + " algorithm '" + name + "' (expected one of "
                + of(c).stream().map(CollectiveAlgorithm::name).collect(Collectors.joining(", ")) + ")");
    }
}
