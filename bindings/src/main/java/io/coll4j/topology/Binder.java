package io.coll4j.topology;

import io.coll4j.bindings.libc.CpuAffinity;

import java.lang.foreign.MemorySegment;
import java.util.OptionalInt;

/**
 * Binds threads to PUs and memory to NUMA nodes on this machine. Implementations: hwloc
 * ({@code hwloc_set_cpubind}/{@code hwloc_set_area_membind} on the host topology, which the binder
 * keeps loaded for the life of the process), libc ({@code sched_setaffinity}/{@code mbind}) when
 * the topology came from sysfs, and a no-op binder for synthetic/XML topologies (they describe
 * another machine) or where neither works; the no-op binder says so in every result.
 *
 * <p>Binding never throws for "cannot bind": the result says {@code bound=false} and why. All
 * methods may be called from any thread; {@link #bindCurrentThread} acts on the calling thread.
 */
public interface Binder {

    /**
     * The binder for {@code t}: no-op for a synthetic/XML topology, hwloc for an hwloc topology,
     * {@code sched_setaffinity} for a sysfs one (or when the host hwloc topology cannot load),
     * no-op when nothing works here.
     */
    static Binder forTopology(Topology t) {
        if (t.isSynthetic()) {
            return new NoopBinder("topology " + t.source() + " describes another machine: binding is a no-op");
        }
        if (t.origin() == Topology.Origin.HWLOC && HwlocBinder.host() != null) {
            return HwlocBinder.INSTANCE;
        }
        if (CpuAffinity.isAvailable()) {
            return AffinityBinder.INSTANCE;
        }
        String why = t.origin() == Topology.Origin.HWLOC ? HwlocBinder.failure() + "; " : "";
        String detail = why + "sched_setaffinity not available on " + System.getProperty("os.name");
        Fallbacks.note("binding", "ranks are not bound to PUs: " + detail);
        return new NoopBinder(detail);
    }

    /**
     * Binds the calling thread to {@code pu} (its OS index) and checks where the thread runs afterwards.
     * Never throws for a failure to bind; see {@link BindResult#detail()}.
     */
    BindResult bindCurrentThread(Pu pu);

    /**
     * Binds the pages wholly inside {@code seg} (its page-aligned sub-range) to {@code node}: later
     * first touches allocate there and pages already touched migrate. A segment without a whole page,
     * a heap segment, or a node this machine lacks gives {@code bound=false}.
     */
    MemoryBindResult bindMemory(MemorySegment seg, NumaNode node);

    /**
     * The OS index of the NUMA node holding the pages of {@code seg}; empty when unknown — pages never
     * touched have no node yet, pages on several nodes have no single answer, heap segments move.
     */
    OptionalInt memoryNode(MemorySegment seg);

    /** Whether {@link #bindCurrentThread} can work here. */
    boolean canBindThreads();

    /** Whether {@link #bindMemory} and {@link #memoryNode} can work here. */
    boolean canBindMemory();

    /** One line: which mechanism, or why binding is a no-op. */
    String describe();
}
