package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.libc.CpuAffinity;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Thread and memory binding on this machine through hwloc and through libc; no-op on synthetic topologies. Binds only threads it starts. */
class BinderTest {

    private static <T> T onFreshThread(Function<Void, T> body) throws InterruptedException {
        AtomicReference<T> out = new AtomicReference<>();
        AtomicReference<Throwable> err = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                out.set(body.apply(null));
            } catch (Throwable e) {
                err.set(e);
            }
        });
        t.join();
        if (err.get() != null) {
            throw new AssertionError(err.get());
        }
        return out.get();
    }

    private static void bindsEveryPu(Topology t, String method) throws Exception {
        Binder b = Binder.forTopology(t);
        assertTrue(b.canBindThreads(), b.describe());
        for (Pu pu : t.pus()) {
            BindResult r = onFreshThread(x -> b.bindCurrentThread(pu));
            assertTrue(r.bound(), r.toString());
            assertEquals(pu.osIndex(), r.requestedOsPu());
            assertEquals(pu.osIndex(), r.observedOsPu(), r.toString());
            assertEquals(method, r.method());
            assertTrue(r.detail().startsWith("verified"), r.detail());
        }
    }

    @Test
    void hwlocBindsThreadsAndVerifies() throws Exception {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        bindsEveryPu(Topology.load("hwloc"), "hwloc_set_cpubind(THREAD)");
    }

    @Test
    void sysfsTopologyBindsThroughSchedSetaffinity() throws Exception {
        assumeTrue(CpuAffinity.isAvailable(), "skipped: no sched_setaffinity");
        bindsEveryPu(Topology.load("sysfs"), "sched_setaffinity");
    }

    /** {@code method}: the call when the touched pages are already on the node; {@code migrating}: when they are not. */
    private static void bindsMemory(Topology t, String method, String migrating) {
        Binder b = Binder.forTopology(t);
        assertTrue(b.canBindMemory(), b.describe());
        NumaNode node = t.numaNodes().getLast();
        try (Arena arena = Arena.ofConfined()) {
            // 16 pages plus a misaligned head and tail: only the whole pages inside are bound
            MemorySegment seg = arena.allocate(16 * PageRange.PAGE + 300, 64).asSlice(100);
            MemoryBindResult r = b.bindMemory(seg, node);
            assertTrue(r.bound(), r.toString());
            // arena.allocate zeroed the pages on this thread's node: migrated only if that is not the node asked for
            assertTrue(r.method().equals(method) || r.method().equals(migrating) && r.detail().contains("migrated"), r.toString());
            assertEquals(node.osIndex(), r.node());
            MemorySegment pages = PageRange.inside(seg);
            assertEquals(0, pages.address() % PageRange.PAGE);
            pages.fill((byte) 1);   // first touch after the bind
            assertEquals(OptionalInt.of(node.osIndex()), b.memoryNode(pages));

            MemoryBindResult small = b.bindMemory(arena.allocate(100), node);
            assertFalse(small.bound());
            assertTrue(small.detail().contains("holds no whole page"), small.detail());
            MemoryBindResult heap = b.bindMemory(MemorySegment.ofArray(new byte[1 << 16]), node);
            assertFalse(heap.bound());
            assertEquals(OptionalInt.empty(), b.memoryNode(MemorySegment.ofArray(new byte[64])));
        }
    }

    @Test
    void hwlocBindsMemoryAndReadsItBack() {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        bindsMemory(Topology.load("hwloc"), "hwloc_set_area_membind(BIND)", "hwloc_set_area_membind(BIND, MIGRATE)");
    }

    @Test
    void libcBindsMemoryAndReadsItBack() {
        assumeTrue(CpuAffinity.isAvailable(), "skipped: not Linux");
        bindsMemory(Topology.load("sysfs"), "mbind(MPOL_BIND)", "mbind(MPOL_BIND, MPOL_MF_MOVE)");
    }

    @Test
    void untouchedMemoryHasNoNode() {
        Binder b = Binder.forTopology(Topology.host());
        assumeTrue(b.canBindMemory(), b.describe());
        // hwloc_alloc_membind maps fresh pages: nothing is backed until touched
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        var host = HwlocBinder.host();
        MemorySegment fresh = host.allocateOnNode(4 * PageRange.PAGE, Topology.host().numaNodes().getFirst().osIndex());
        try {
            assertEquals(OptionalInt.empty(), b.memoryNode(fresh));
        } finally {
            host.free(fresh);
        }
    }

    @Test
    void syntheticTopologyBindingIsAReportedNoOp() throws Exception {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        Topology t = Topology.load("synthetic:pack:2 numa:2 l3:1 core:4 pu:2");
        Binder b = Binder.forTopology(t);
        assertFalse(b.canBindThreads());
        assertFalse(b.canBindMemory());
        assertTrue(b.describe().startsWith("no-op binder: topology synthetic:"), b.describe());
        BindResult r = onFreshThread(x -> b.bindCurrentThread(t.pus().get(17)));
        assertFalse(r.bound());
        assertEquals("none", r.method());
        assertEquals(17, r.requestedOsPu());
        assertEquals(-1, r.observedOsPu());
        assertTrue(r.detail().endsWith("describes another machine: binding is a no-op"), r.detail());
        try (Arena arena = Arena.ofConfined()) {
            MemoryBindResult m = b.bindMemory(arena.allocate(1 << 16, 4096), t.numaNodes().get(3));
            assertFalse(m.bound());
            assertEquals(3, m.node());
        }
    }

    @Test
    void aPuThisMachineLacksIsNotBound() throws Exception {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        Binder b = Binder.forTopology(Topology.load("hwloc"));
        Pu alien = new Pu(0, 4000, 0, -1, 0, 0);
        BindResult r = onFreshThread(x -> b.bindCurrentThread(alien));
        assertFalse(r.bound());
        assertTrue(r.detail().contains("P#4000 is not a PU of this machine"), r.detail());
        BindResult libc = onFreshThread(x -> Binder.forTopology(Topology.load("sysfs")).bindCurrentThread(alien));
        assertFalse(libc.bound());
        assertTrue(libc.detail().contains("EINVAL"), libc.detail());
    }
}
