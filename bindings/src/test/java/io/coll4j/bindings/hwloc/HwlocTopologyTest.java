package io.coll4j.bindings.hwloc;

import io.coll4j.bindings.hwloc.internal.HwlocInlines;
import io.coll4j.bindings.hwloc.internal.hwloc_h;
import io.coll4j.bindings.hwloc.internal.hwloc_obj;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The hwloc façade against real hwloc: synthetic shapes, XML round trip, helpers, binding on this machine. */
class HwlocTopologyTest {

    @BeforeAll
    static void needsHwloc() {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
    }

    private static List<Integer> range(int from, int to) {
        return IntStream.range(from, to).boxed().toList();
    }

    @Test
    void versionIsTheLibraryRelease() {
        assertTrue(Hwloc.version().matches("2\\.\\d+\\.\\d+.*"), Hwloc.version());
        assertEquals(2, Hwloc.apiVersion() >>> 16);
    }

    @Test
    void syntheticTwoPackagesCountsDepthsAndCpusets() {
        try (HwlocTopology t = HwlocTopology.loadSynthetic("pack:2 numa:2 l3:1 core:4 pu:2")) {
            assertEquals(2, t.count(HwlocObjectType.PACKAGE));
            assertEquals(4, t.count(HwlocObjectType.NUMANODE));
            assertEquals(4, t.count(HwlocObjectType.L3CACHE));
            assertEquals(16, t.count(HwlocObjectType.CORE));
            assertEquals(32, t.count(HwlocObjectType.PU));
            assertEquals(0, t.count(HwlocObjectType.L2CACHE));
            // NUMA nodes live at the special depth, not in the normal levels
            assertEquals(hwloc_h.HWLOC_TYPE_DEPTH_NUMANODE, t.depthOf(HwlocObjectType.NUMANODE));
            assertEquals(4, t.countAtDepth(hwloc_h.HWLOC_TYPE_DEPTH_NUMANODE));
            assertEquals(hwloc_h.HWLOC_TYPE_DEPTH_UNKNOWN, t.depthOf(HwlocObjectType.L2CACHE));

            List<HwlocObject> pkgs = t.objects(HwlocObjectType.PACKAGE);
            assertEquals(range(0, 16), pkgs.get(0).cpuset());
            assertEquals(range(16, 32), pkgs.get(1).cpuset());
            List<HwlocObject> numa = t.objects(HwlocObjectType.NUMANODE);
            for (int i = 0; i < 4; i++) {
                assertEquals(range(8 * i, 8 * i + 8), numa.get(i).cpuset(), "NUMA " + i);
                assertEquals(List.of(i), numa.get(i).nodeset());
                assertEquals(i, numa.get(i).osIndex());
                assertTrue(numa.get(i).localMemory() > 0);
            }
            List<HwlocObject> cores = t.objects(HwlocObjectType.CORE);
            assertEquals(List.of(6, 7), cores.get(3).cpuset());
            HwlocObject l3 = t.objects(HwlocObjectType.L3CACHE).getFirst();
            assertEquals(3, l3.cache().level());
            assertTrue(l3.cache().sizeBytes() > 0);

            // the root copy: NUMA nodes are memory children, never normal children
            HwlocObject root = t.root();
            assertEquals(HwlocObjectType.MACHINE, root.type());
            assertEquals(range(0, 32), root.cpuset());
            assertEquals(4, countMemoryChildren(root));
            assertFalse(anyNormalChildIsNuma(root));
            assertEquals("pack:2 numa:2 l3:1 core:4 pu:2", root.info("SyntheticDescription"));

            assertEquals(1, t.ancestorOsIndex(17, HwlocObjectType.PACKAGE));
            assertEquals(-1, t.ancestorOsIndex(99, HwlocObjectType.PACKAGE));
        }
    }

    private static int countMemoryChildren(HwlocObject o) {
        int n = o.memoryChildren().size();
        for (HwlocObject c : o.children()) {
            n += countMemoryChildren(c);
        }
        return n;
    }

    private static boolean anyNormalChildIsNuma(HwlocObject o) {
        for (HwlocObject c : o.children()) {
            if (c.type() == HwlocObjectType.NUMANODE || anyNormalChildIsNuma(c)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void inlineHelpersOverExportedFunctions() throws Exception {
        try (HwlocTopology t = HwlocTopology.loadSynthetic("pack:2 numa:1 l3:1 l2:4 core:1 pu:1")) {
            // reach the raw handle the way the façade does, to check the Java re-implementations
            var f = HwlocTopology.class.getDeclaredField("topology");
            f.setAccessible(true);
            MemorySegment topo = (MemorySegment) f.get(t);

            MemorySegment root = HwlocInlines.hwloc_get_root_obj(topo);
            assertEquals(hwloc_h.HWLOC_OBJ_MACHINE, hwloc_obj.type(root));
            assertEquals(8, HwlocInlines.hwloc_get_nbobjs_by_type(topo, hwloc_h.HWLOC_OBJ_PU));
            assertEquals(2, HwlocInlines.hwloc_get_nbobjs_by_type(topo, hwloc_h.HWLOC_OBJ_NUMANODE));
            assertEquals(0, HwlocInlines.hwloc_get_nbobjs_by_type(topo, hwloc_h.HWLOC_OBJ_DIE));

            MemorySegment pu5 = HwlocInlines.hwloc_get_obj_by_type(topo, hwloc_h.HWLOC_OBJ_PU, 5);
            assertEquals(5, hwloc_obj.logical_index(pu5));
            assertEquals(pu5.address(), HwlocInlines.hwloc_get_pu_obj_by_os_index(topo, 5).address());
            MemorySegment pkg = HwlocInlines.hwloc_get_ancestor_obj_by_type(topo, hwloc_h.HWLOC_OBJ_PACKAGE, pu5);
            assertEquals(1, hwloc_obj.logical_index(pkg));
            int pkgDepth = hwloc_h.hwloc_get_type_depth(topo, hwloc_h.HWLOC_OBJ_PACKAGE);
            assertEquals(pkg.address(), HwlocInlines.hwloc_get_ancestor_obj_by_depth(topo, pkgDepth, pu5).address());
            assertEquals(0L, HwlocInlines.hwloc_get_obj_by_type(topo, hwloc_h.HWLOC_OBJ_DIE, 0).address());

            int l2 = HwlocInlines.hwloc_get_cache_type_depth(topo, 2, hwloc_h.HWLOC_OBJ_CACHE_DATA);
            assertEquals(hwloc_h.HWLOC_OBJ_L2CACHE, hwloc_h.hwloc_get_depth_type(topo, l2));
            assertEquals(hwloc_h.HWLOC_TYPE_DEPTH_UNKNOWN, HwlocInlines.hwloc_get_cache_type_depth(topo, 4, -1));

            // hwloc_get_next_child visits normal children, then the memory child (the NUMA node)
            List<Integer> types = new ArrayList<>();
            MemorySegment c = MemorySegment.NULL;
            while ((c = HwlocInlines.hwloc_get_next_child(topo, pkg, c)).address() != 0) {
                types.add(hwloc_obj.type(c));
            }
            assertEquals(List.of(hwloc_h.HWLOC_OBJ_L3CACHE, hwloc_h.HWLOC_OBJ_NUMANODE), types);

            // next_obj_by_type walks the cousins in logical order
            int n = 0;
            MemorySegment o = MemorySegment.NULL;
            while ((o = HwlocInlines.hwloc_get_next_obj_by_type(topo, hwloc_h.HWLOC_OBJ_CORE, o)).address() != 0) {
                assertEquals(n++, hwloc_obj.logical_index(o));
            }
            assertEquals(8, n);
            assertEquals(1, hwloc_obj.os_index(HwlocInlines.hwloc_get_numanode_obj_by_os_index(topo, 1)));
            assertEquals("pack:2 numa:1 l3:1 l2:4 core:1 pu:1",
                    HwlocInlines.hwloc_obj_get_info_by_name(root, "SyntheticDescription"));
            assertNull(HwlocInlines.hwloc_obj_get_info_by_name(root, "NoSuchInfo"));
        }
    }

    /** The raw wrappers in C order, as a C program would call them: init, set_flags, set_synthetic, load, destroy. */
    @Test
    void rawLifecycleThroughHwlocH() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = hwloc_h.allocateCallState(arena);
            MemorySegment tp = arena.allocate(hwloc_h.C_POINTER);
            assertEquals(0, hwloc_h.hwloc_topology_init(cs, tp));
            MemorySegment topo = tp.get(hwloc_h.C_POINTER, 0);
            try {
                long flags = hwloc_h.HWLOC_TOPOLOGY_FLAG_NO_DISTANCES | hwloc_h.HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS;
                assertEquals(0, hwloc_h.hwloc_topology_set_flags(cs, topo, flags));
                assertEquals(flags, hwloc_h.hwloc_topology_get_flags(topo));
                assertEquals(0, hwloc_h.hwloc_topology_set_synthetic(cs, topo, arena.allocateFrom("pack:2 core:3 pu:2")));
                assertEquals(0, hwloc_h.hwloc_topology_load(cs, topo));
                // Machine, Package, Core, PU (synthetic topologies have no caches unless asked)
                assertEquals(4, hwloc_h.hwloc_topology_get_depth(topo));
                assertEquals(12, hwloc_h.hwloc_get_nbobjs_by_depth(topo, hwloc_h.hwloc_get_type_depth(topo, hwloc_h.HWLOC_OBJ_PU)));
                assertEquals("Core", HwlocInlines.string(hwloc_h.hwloc_obj_type_string(hwloc_h.HWLOC_OBJ_CORE)));
                assertEquals(-1, hwloc_h.hwloc_topology_set_flags(cs, topo, 0L), "flags are fixed once loaded");
                assertEquals(16, hwloc_h.errno(cs), "EBUSY: the topology is already loaded");
            } finally {
                hwloc_h.hwloc_topology_destroy(topo);
            }
        }
    }

    @Test
    void xmlRoundTripKeepsTheShape(@TempDir Path dir) throws Exception {
        try (HwlocTopology synthetic = HwlocTopology.loadSynthetic("pack:4 numa:1 l3:2 core:2 pu:2")) {
            String xml = synthetic.exportXml();
            assertTrue(xml.contains("<topology"), xml.substring(0, Math.min(200, xml.length())));
            Path file = dir.resolve("four-packages.xml");
            synthetic.exportXml(file);
            assertTrue(Files.size(file) > 0);
            for (HwlocTopology back : List.of(HwlocTopology.loadXml(file), HwlocTopology.loadXmlBuffer(xml))) {
                try (back) {
                    for (HwlocObjectType type : List.of(HwlocObjectType.PACKAGE, HwlocObjectType.NUMANODE,
                            HwlocObjectType.L3CACHE, HwlocObjectType.CORE, HwlocObjectType.PU)) {
                        assertEquals(synthetic.count(type), back.count(type), type + " after XML round trip");
                    }
                    assertEquals(shape(synthetic.root()), shape(back.root()));
                }
            }
        }
    }

    /** Type, indices and cpuset of every object, in tree order. */
    private static String shape(HwlocObject o) {
        StringBuilder sb = new StringBuilder();
        sb.append(o.type()).append(o.logicalIndex()).append('/').append(o.osIndex()).append(o.cpuset()).append('{');
        o.memoryChildren().forEach(c -> sb.append(shape(c)));
        o.children().forEach(c -> sb.append(shape(c)));
        return sb.append('}').toString();
    }

    @Test
    void badInputNamesTheProblem(@TempDir Path dir) throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HwlocTopology.loadSynthetic("pack:x core:2"));
        assertTrue(e.getMessage().contains("bad synthetic topology 'pack:x core:2'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HwlocTopology.loadSynthetic("  "));
        e = assertThrows(IllegalArgumentException.class, () -> HwlocTopology.loadXml(dir.resolve("absent.xml")));
        assertTrue(e.getMessage().contains("XML topology file not found"), e.getMessage());
        Path junk = dir.resolve("junk.xml");
        Files.writeString(junk, "this is not xml");
        e = assertThrows(IllegalArgumentException.class, () -> HwlocTopology.loadXml(junk));
        assertTrue(e.getMessage().contains("not a valid hwloc XML topology"), e.getMessage());
    }

    @Test
    void closedTopologyRefusesUse() {
        HwlocTopology t = HwlocTopology.loadSynthetic("pu:2");
        t.close();
        t.close();   // idempotent
        assertThrows(IllegalStateException.class, () -> t.count(HwlocObjectType.PU));
    }

    @Test
    void supportSaysSyntheticCannotBind() {
        try (HwlocTopology t = HwlocTopology.loadSynthetic("pack:1 core:2 pu:1")) {
            HwlocSupport s = t.support();
            assertFalse(s.setThisThreadCpubind(), "synthetic topology claims cpubind support: " + s);
        }
        try (HwlocTopology host = HwlocTopology.loadHost()) {
            HwlocSupport s = host.support();
            assertTrue(s.discoveryPu(), s.toString());
            assertTrue(s.setThisThreadCpubind(), s.toString());
        }
    }

    @Test
    void bitmapOperations() {
        try (HwlocBitmap b = HwlocBitmap.allocate()) {
            assertEquals(-1, b.first());
            b.set(3);
            b.set(70);
            b.set(4);
            assertEquals(List.of(3, 4, 70), b.toList());
            assertEquals(3, b.weight());
            assertTrue(b.isSet(70));
            assertFalse(b.isSet(5));
            assertEquals("3-4,70", b.toString());
            b.setOnly(9);
            assertEquals(List.of(9), b.toList());
            assertThrows(IllegalArgumentException.class, () -> b.set(-1));
        }
    }

    /** Binds a fresh thread (never the test runner's) to each PU of this machine and reads it back. */
    @Test
    void bindThreadOnThisMachineAndReadBack() throws Exception {
        try (HwlocTopology host = HwlocTopology.loadHost()) {
            for (HwlocObject pu : host.objects(HwlocObjectType.PU)) {
                AtomicReference<Object> result = new AtomicReference<>();
                Thread th = Thread.ofPlatform().start(() -> {
                    try {
                        host.bindCurrentThread(pu.osIndex());
                        result.set(List.of(host.currentThreadBinding(), host.currentThreadLastCpu()));
                    } catch (Throwable x) {
                        result.set(x);
                    }
                });
                th.join();
                assertEquals(List.of(List.of(pu.osIndex()), pu.osIndex()), result.get(), "P#" + pu.osIndex());
            }
            HwlocException e = assertThrows(HwlocException.class, () -> host.bindCurrentThread(4095));
            assertEquals("hwloc_set_cpubind", e.function());
        }
    }

    @Test
    void bindAreaAndAllocOnNodeReadBack() {
        try (HwlocTopology host = HwlocTopology.loadHost(); Arena arena = Arena.ofConfined()) {
            HwlocObject node = host.objects(HwlocObjectType.NUMANODE).getLast();
            long page = 4096;
            MemorySegment seg = arena.allocate(16 * page, page);   // zero-filled: already touched
            host.bindArea(seg, node.osIndex());                      // MIGRATE moves touched pages
            seg.fill((byte) 1);
            assertEquals(List.of(node.osIndex()), host.areaMemoryLocation(seg));

            MemorySegment bound = host.allocateOnNode(8 * page, node.osIndex());   // fresh mmap: untouched
            try {
                assertEquals(List.of(), host.areaMemoryLocation(bound), "pages not touched yet have no location");
                bound.fill((byte) 2);
                assertEquals(List.of(node.osIndex()), host.areaMemoryLocation(bound));
            } finally {
                host.free(bound);
            }
            assertThrows(IllegalArgumentException.class, () -> host.bindArea(MemorySegment.ofArray(new byte[8192]), 0));
        }
    }
}
