package io.coll4j.topology;

import io.coll4j.bindings.libc.CpuAffinity;
import io.coll4j.bindings.libc.MemoryPolicy;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.OptionalInt;

/**
 * Binding without hwloc: {@code sched_setaffinity(0, {pu})} verified by {@code sched_getcpu}, and
 * {@code mbind(MPOL_BIND, MPOL_MF_MOVE)} read back with {@code move_pages}.
 */
final class AffinityBinder implements Binder {
    static final AffinityBinder INSTANCE = new AffinityBinder();

    private AffinityBinder() {
    }

    @Override
    public BindResult bindCurrentThread(Pu pu) {
        int os = pu.osIndex();
        String method = "sched_setaffinity";
        try {
            CpuAffinity.setCurrentThread(os);
            int observed = CpuAffinity.currentCpu();
            List<Integer> mask = CpuAffinity.currentThread();
            if (observed == os && mask.equals(List.of(os))) {
                return new BindResult(true, os, observed, method,
                        "verified: tid " + CpuAffinity.currentTid() + " affinity = {" + os + "}, sched_getcpu = " + observed);
            }
            return new BindResult(false, os, observed, method,
                    "bound but not verified: affinity = " + mask + ", sched_getcpu = " + observed);
        } catch (RuntimeException e) {
            return new BindResult(false, os, -1, method, e.getMessage());
        }
    }

    @Override
    public MemoryBindResult bindMemory(MemorySegment seg, NumaNode node) {
        String method = "mbind(MPOL_BIND)";
        int os = node.osIndex();
        if (!MemoryPolicy.isAvailable()) {
            return new MemoryBindResult(false, os, "none", "mbind: syscall number unknown on " + System.getProperty("os.arch"));
        }
        if (!seg.isNative()) {
            return new MemoryBindResult(false, os, "none", "heap segment: the GC moves it, it cannot be bound");
        }
        MemorySegment range = PageRange.inside(seg);
        if (range == null) {
            return new MemoryBindResult(false, os, "none", "segment of " + seg.byteSize() + " bytes holds no whole page");
        }
        try {
            // the policy first, migrating only touched pages found elsewhere (HwlocBinder#bindMemory says why)
            MemoryPolicy.bind(range, os, false);
            boolean touched = false;
            for (int n : MemoryPolicy.pageNodes(range)) {
                if (n >= 0 && n != os) {   // negative: not backed yet, it will fault in under the policy
                    method = "mbind(MPOL_BIND, MPOL_MF_MOVE)";
                    MemoryPolicy.bind(range, os, true);
                    return new MemoryBindResult(true, os, method, "bound " + PageRange.describe(range) + ", pages migrated");
                }
                touched |= n >= 0;
            }
            return new MemoryBindResult(true, os, method, "bound " + PageRange.describe(range)
                    + (touched ? " (already there: nothing to migrate)" : " (untouched)"));
        } catch (RuntimeException e) {
            return new MemoryBindResult(false, os, method, e.getMessage());
        }
    }

    @Override
    public OptionalInt memoryNode(MemorySegment seg) {
        if (!MemoryPolicy.isAvailable() || !seg.isNative() || seg.byteSize() == 0) {
            return OptionalInt.empty();
        }
        try {
            int[] nodes = MemoryPolicy.pageNodes(seg);
            int node = -1;
            for (int n : nodes) {
                if (n < 0) {
                    continue;          // not backed yet: no location
                }
                if (node >= 0 && n != node) {
                    return OptionalInt.empty();
                }
                node = n;
            }
            return node < 0 ? OptionalInt.empty() : OptionalInt.of(node);
        } catch (RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    @Override
    public boolean canBindThreads() {
        return CpuAffinity.isAvailable();
    }

    @Override
    public boolean canBindMemory() {
        return MemoryPolicy.isAvailable();
    }

    @Override
    public String describe() {
        return "libc: sched_setaffinity verified by sched_getcpu, mbind(MPOL_BIND) read back by move_pages";
    }
}
