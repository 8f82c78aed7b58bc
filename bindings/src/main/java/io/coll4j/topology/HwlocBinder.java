package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.hwloc.HwlocSupport;
import io.coll4j.bindings.hwloc.HwlocTopology;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.OptionalInt;

/**
 * Binding through hwloc on the host topology, loaded on first use and kept for the life of the
 * process (the one hwloc handle that outlives a call; hwloc allows concurrent binding calls on a
 * loaded topology, so every rank thread shares it).
 */
final class HwlocBinder implements Binder {
    static final HwlocBinder INSTANCE = new HwlocBinder();

    private static final class Host {
        static final HwlocTopology TOPOLOGY;
        static final String FAILURE;

        static {
            HwlocTopology t = null;
            String failure = null;
            if (!Hwloc.isAvailable()) {
                failure = Hwloc.unavailableReason();
            } else {
                try {
                    t = HwlocTopology.loadHost();
                } catch (RuntimeException e) {
                    failure = "hwloc host topology failed to load: " + e.getMessage();
                }
            }
            TOPOLOGY = t;
            FAILURE = failure;
        }
    }

    /** The process-lifetime host topology, or {@code null} when it cannot load ({@link #failure()}). */
    static HwlocTopology host() {
        return Host.TOPOLOGY;
    }

    static String failure() {
        return Host.FAILURE;
    }

    private HwlocBinder() {
    }

    @Override
    public BindResult bindCurrentThread(Pu pu) {
        HwlocTopology t = host();
        int os = pu.osIndex();
        if (!t.hasPu(os)) {
            return new BindResult(false, os, -1, "none", "P#" + os + " is not a PU of this machine");
        }
        String method = "hwloc_set_cpubind(THREAD)";
        try {
            t.bindCurrentThread(os);
            // the kernel migrates a thread off a CPU its new mask excludes before the call returns
            int observed = t.currentThreadLastCpu();
            List<Integer> binding = t.currentThreadBinding();
            if (observed == os && binding.equals(List.of(os))) {
                return new BindResult(true, os, observed, method,
                        "verified: hwloc_get_cpubind = {" + os + "}, hwloc_get_last_cpu_location = P#" + observed);
            }
            return new BindResult(false, os, observed, method,
                    "bound but not verified: hwloc_get_cpubind = " + binding + ", last CPU location P#" + observed);
        } catch (RuntimeException e) {
            return new BindResult(false, os, -1, method, e.getMessage());
        }
    }

    @Override
    public MemoryBindResult bindMemory(MemorySegment seg, NumaNode node) {
        String method = "hwloc_set_area_membind(BIND)";
        HwlocTopology t = host();
        int os = node.osIndex();
        if (!seg.isNative()) {
            return new MemoryBindResult(false, os, "none", "heap segment: the GC moves it, it cannot be bound");
        }
        if (!t.hasNumaNode(os)) {
            return new MemoryBindResult(false, os, "none", "NUMA node " + os + " is not in this machine");
        }
        MemorySegment range = PageRange.inside(seg);
        if (range == null) {
            return new MemoryBindResult(false, os, "none", "segment of " + seg.byteSize() + " bytes holds no whole page");
        }
        try {
            // the policy first, without MIGRATE: the allocating rank's thread is bound to the node and has just
            // zeroed (first-touched) the pages, so they are normally there already, and MIGRATE is not free — it
            // drains every CPU's page lists and takes the mmap lock for writing (a rank of an oversubscribed
            // job sat 40 s in it). Touched pages found elsewhere are migrated by a second call.
            t.bindArea(range, os, false);
            List<Integer> where = t.areaMemoryLocation(range);
            if (where.isEmpty() || where.equals(List.of(os))) {
                return new MemoryBindResult(true, os, method, "bound " + PageRange.describe(range)
                        + (where.isEmpty() ? " (untouched)" : " (already there: nothing to migrate)"));
            }
            method = "hwloc_set_area_membind(BIND, MIGRATE)";
            t.bindArea(range, os, true);
            return new MemoryBindResult(true, os, method, "bound " + PageRange.describe(range) + ", pages migrated from " + where);
        } catch (RuntimeException e) {
            return new MemoryBindResult(false, os, method, e.getMessage());
        }
    }

    @Override
    public OptionalInt memoryNode(MemorySegment seg) {
        if (!seg.isNative() || seg.byteSize() == 0) {
            return OptionalInt.empty();
        }
        try {
            List<Integer> nodes = host().areaMemoryLocation(seg);
            return nodes.size() == 1 ? OptionalInt.of(nodes.getFirst()) : OptionalInt.empty();
        } catch (RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    @Override
    public boolean canBindThreads() {
        return host().support().setThisThreadCpubind();
    }

    @Override
    public boolean canBindMemory() {
        HwlocSupport s = host().support();
        return s.setAreaMembind() && s.getAreaMemlocation() && s.bindMembind();
    }

    @Override
    public String describe() {
        return "hwloc " + Hwloc.version() + ": hwloc_set_cpubind(THREAD) verified by hwloc_get_last_cpu_location, "
                + "hwloc_set_area_membind(BIND) read back by hwloc_get_area_memlocation";
    }
}
