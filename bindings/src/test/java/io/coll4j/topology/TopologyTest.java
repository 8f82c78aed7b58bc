package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.hwloc.HwlocTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The topology model from every source: synthetic shapes, XML round trip, sysfs vs hwloc, bad specs. */
class TopologyTest {

    private static List<Integer> range(int from, int to) {
        return IntStream.range(from, to).boxed().toList();
    }

    private static void needsHwloc() {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
    }

    /** Every list is in logical order with index() == position. */
    private static void assertIndexed(Topology t) {
        for (int i = 0; i < t.pus().size(); i++) {
            assertEquals(i, t.pus().get(i).index());
        }
        for (int i = 0; i < t.cores().size(); i++) {
            assertEquals(i, t.cores().get(i).index());
        }
        for (int i = 0; i < t.numaNodes().size(); i++) {
            assertEquals(i, t.numaNodes().get(i).index());
        }
        for (int i = 0; i < t.packages().size(); i++) {
            assertEquals(i, t.packages().get(i).index());
        }
    }

    @Test
    @org.junit.jupiter.api.Timeout(10)
    void syntheticTopologiesOfMorePusThanTheBoundAreRefusedBeforeHwloc() {
        needsHwloc();
        for (String huge : List.of("package:100000 pu:100000", "package:1000 pu:1000", "pack:2 [numa] core:2049 pu:1(indexes=0)",
                "pu:99999999999999999999")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topology.load("synthetic:" + huge), huge);
            assertTrue(e.getMessage().contains("at most " + SyntheticLoader.MAX_PUS), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> new SyntheticLoader(huge));
        }
        assertEquals(4096, SyntheticLoader.pus("pack:4 l3:1(size=32MB) core:512 pu:2"));
    }

    @Test
    void twoPackagesOneNumaEachOnePuPerCore() {
        needsHwloc();
        Topology t = Topology.load("synthetic:pack:2 numa:1 l3:1 core:4 pu:1");
        assertTrue(t.isSynthetic());
        assertTrue(t.source().startsWith("synthetic:pack:2 numa:1 l3:1 core:4 pu:1 (via hwloc 2."), t.source());
        assertEquals(List.of(2, 2, 2, 8, 8), List.of(t.packages().size(), t.numaNodes().size(), t.l3Groups().size(),
                t.cores().size(), t.pus().size()));
        assertIndexed(t);
        assertEquals(range(0, 4), t.packages().get(0).pus());
        assertEquals(range(4, 8), t.packages().get(1).pus());
        assertEquals(List.of(1), t.packages().get(1).numaNodes());
        assertEquals(List.of(1), t.packages().get(1).l3Groups());
        assertEquals(range(4, 8), t.numaNodes().get(1).pus());
        assertEquals(1, t.numaNodes().get(1).pkg());
        assertEquals(new Pu(5, 5, 5, 1, 1, 1), t.pus().get(5));
        assertEquals(range(4, 8), t.l3Groups().get(1).cores());
        assertEquals(16L << 20, t.llcBytes(), "hwloc's default synthetic L3 size");
        assertEquals(0, t.l2Bytes());
        assertEquals(64, t.cacheLineBytes());
        assertTrue(t.llcInclusive(), "unknown inclusiveness is taken as inclusive");
        assertEquals("unknown: assumed inclusive (capacity = LLC)", t.caches().getLast().inclusiveSource());
    }

    @Test
    void twoPackagesTwoNumaSmt() {
        needsHwloc();
        Topology t = Topology.load("synthetic:pack:2 numa:2 l3:1 core:4 pu:2");
        assertEquals(List.of(2, 4, 4, 16, 32), List.of(t.packages().size(), t.numaNodes().size(), t.l3Groups().size(),
                t.cores().size(), t.pus().size()));
        assertIndexed(t);
        for (int n = 0; n < 4; n++) {
            NumaNode node = t.numaNodes().get(n);
            assertEquals(range(8 * n, 8 * n + 8), node.pus(), "NUMA " + n);
            assertEquals(n / 2, node.pkg());
            assertEquals(1L << 30, node.memoryBytes());
        }
        assertEquals(List.of(0, 1), t.packages().get(0).numaNodes());
        assertEquals(List.of(2, 3), t.packages().get(1).numaNodes());
        assertEquals(range(8, 16), t.packages().get(1).cores());
        assertEquals(List.of(22, 23), t.cores().get(11).pus());
        assertEquals(new Pu(17, 17, 8, 2, 2, 1), t.pus().get(17));
        assertEquals(new Core(11, 11, 2, 2, 1, List.of(22, 23)), t.cores().get(11));
        assertEquals(4L << 30, t.memoryBytes());
        assertEquals(32, t.root().cpuset().size());
        assertEquals(4, t.objectCounts().get("NUMANode"));
    }

    @Test
    void fourPackagesWithCacheSizes() {
        needsHwloc();
        Topology t = Topology.load("synthetic:pack:4 l3:1(size=32MiB) l2:4(size=1MiB) core:1 pu:2");
        assertEquals(List.of(4, 1, 4, 16, 32), List.of(t.packages().size(), t.numaNodes().size(), t.l3Groups().size(),
                t.cores().size(), t.pus().size()));
        assertIndexed(t);
        assertEquals(32L << 20, t.llcBytes());
        assertEquals(1L << 20, t.l2Bytes());
        assertEquals(List.of("L2", "L3"), t.caches().stream().map(CacheLevel::name).toList());
        assertEquals(16, t.caches().getFirst().instances());
        // hwloc inserts one NUMA node under the Machine: it belongs to no single package
        assertEquals(-1, t.numaNodes().getFirst().pkg());
        assertEquals(range(0, 32), t.numaNodes().getFirst().pus());
        assertEquals(List.of(), t.packages().get(2).numaNodes());
        assertEquals(range(16, 24), t.packages().get(2).pus());
        assertEquals(2, t.pus().get(16).pkg());
    }

    @Test
    void xmlRoundTripKeepsTheShape(@TempDir Path dir) throws Exception {
        needsHwloc();
        String spec = "pack:2 numa:2 l3:1 core:4 pu:2";
        Path file = dir.resolve("machine.xml");
        try (HwlocTopology h = HwlocTopology.loadSynthetic(spec)) {
            h.exportXml(file);
        }
        Topology synthetic = Topology.load("synthetic:" + spec);
        Topology xml = Topology.load("xml:" + file);
        assertTrue(xml.isSynthetic(), "an XML topology describes another machine");
        assertTrue(xml.source().startsWith("xml:" + file.toAbsolutePath()), xml.source());
        assertEquals(synthetic.pus(), xml.pus());
        assertEquals(synthetic.cores(), xml.cores());
        assertEquals(synthetic.numaNodes(), xml.numaNodes());
        assertEquals(synthetic.l3Groups(), xml.l3Groups());
        assertEquals(synthetic.packages(), xml.packages());
        assertEquals(LstopoFormat.tree(synthetic.root()), LstopoFormat.tree(xml.root()));
    }

    @Test
    void hostIsLoadedOnceAndSaysWhereFrom() {
        Topology h = Topology.host();
        assertSame(h, Topology.host());
        assertFalse(h.isSynthetic());
        if (Hwloc.isAvailable()) {
            assertTrue(h.source().startsWith("hwloc 2."), h.source());
        } else {
            assertTrue(h.source().startsWith("sysfs (" + Hwloc.libraryName()), h.source());
        }
        assertFalse(h.pus().isEmpty());
        assertFalse(h.numaNodes().isEmpty());
        assertTrue(h.memoryBytes() > 0);
    }

    /** The two loaders of this machine must agree (the sysfs one is the fallback for the hwloc one). */
    @Test
    void sysfsAndHwlocAgreeOnThisMachine() {
        needsHwloc();
        assumeTrue(Files.isDirectory(Path.of("/sys/devices/system/cpu")), "skipped: no sysfs");
        Topology hw = Topology.load("hwloc");
        Topology fs = Topology.load("sysfs");
        assertEquals("sysfs", fs.source());
        assertEquals(hw.pus().stream().map(Pu::osIndex).toList(), fs.pus().stream().map(Pu::osIndex).toList());
        assertEquals(hw.cores().size(), fs.cores().size());
        assertEquals(hw.packages().size(), fs.packages().size());
        assertEquals(hw.pus().stream().map(u -> List.of(u.core(), u.numa(), u.pkg())).toList(),
                fs.pus().stream().map(u -> List.of(u.core(), u.numa(), u.pkg())).toList());
        // Some virtual machines (KVM guests here) expose no cpu*/cache in sysfs: hwloc still reads the
        // caches from CPUID, the sysfs loader cannot, so only the cache-free part above can agree.
        assumeTrue(Files.isDirectory(Path.of("/sys/devices/system/cpu/cpu0/cache")),
                "cache comparison skipped: this kernel exposes no /sys/devices/system/cpu/cpu0/cache");
        assertEquals(hw.pus(), fs.pus());
        assertEquals(hw.cores().size(), fs.cores().size());
        assertEquals(hw.packages().size(), fs.packages().size());
        assertEquals(hw.l3Groups().size(), fs.l3Groups().size());
        assertEquals(hw.llcBytes(), fs.llcBytes());
        assertEquals(hw.l2Bytes(), fs.l2Bytes());
        assertEquals(hw.cacheLineBytes(), fs.cacheLineBytes());
        assertEquals(hw.llcInclusive(), fs.llcInclusive(), hw.caches().getLast().inclusiveSource()
                + " vs " + fs.caches().getLast().inclusiveSource());
        assertEquals(hw.numaNodes().stream().map(NumaNode::osIndex).toList(), fs.numaNodes().stream().map(NumaNode::osIndex).toList());
        assertEquals(hw.numaNodes().stream().map(NumaNode::pus).toList(), fs.numaNodes().stream().map(NumaNode::pus).toList());
        for (int i = 0; i < hw.numaNodes().size(); i++) {   // both read node*/meminfo; memory can move by a page or two in between
            assertEquals(hw.numaNodes().get(i).memoryBytes(), fs.numaNodes().get(i).memoryBytes(), 16L << 20);
        }
        assertEquals(hw.caches().stream().map(c -> c.name() + ":" + c.sizeBytes() + "x" + c.instances()).toList(),
                fs.caches().stream().map(c -> c.name() + ":" + c.sizeBytes() + "x" + c.instances()).toList());
        // the same tree, memory sizes aside
        assertEquals(LstopoFormat.tree(hw.root()).replaceAll("\\d+[KMGT]B", "#"),
                LstopoFormat.tree(fs.root()).replaceAll("\\d+[KMGT]B", "#"));
    }

    /** A fake sysfs of a 2-socket Intel Skylake-SP box with Linux's interleaved CPU numbering. */
    @Test
    void sysfsTwoSocketTree(@TempDir Path dir) throws Exception {
        Path sys = dir.resolve("sys");
        Path proc = dir.resolve("proc");
        Files.createDirectories(proc);
        // package p, core c, SMT thread h -> cpu = h*4 + p*2 + c (siblings 4 apart, as Linux numbers Intel boxes)
        for (int cpu = 0; cpu < 8; cpu++) {
            int h = cpu / 4, p = (cpu / 2) % 2, c = cpu % 2;
            Path d = sys.resolve("cpu/cpu" + cpu);
            write(d.resolve("topology/physical_package_id"), p);
            write(d.resolve("topology/core_id"), c);
            int sib = p * 2 + c;
            write(d.resolve("topology/core_cpus_list"), sib + "," + (sib + 4));
            cache(d.resolve("cache/index0"), 1, "Data", "48K", sib + "," + (sib + 4), sib);
            cache(d.resolve("cache/index1"), 1, "Instruction", "32K", sib + "," + (sib + 4), sib);
            cache(d.resolve("cache/index2"), 2, "Unified", "2048K", sib + "," + (sib + 4), sib);
            cache(d.resolve("cache/index3"), 3, "Unified", "30720K", p == 0 ? "0-1,4-5" : "2-3,6-7", p);
            assertEquals(h * 4 + p * 2 + c, cpu);
        }
        write(sys.resolve("cpu/online"), "0-7");
        write(sys.resolve("node/online"), "0-1");
        write(sys.resolve("node/node0/cpulist"), "0-1,4-5");
        write(sys.resolve("node/node1/cpulist"), "2-3,6-7");
        write(sys.resolve("node/node0/meminfo"), "Node 0 MemTotal:       16777216 kB\nNode 0 MemFree: 1 kB\n");
        write(sys.resolve("node/node1/meminfo"), "Node 1 MemTotal:       16777216 kB\n");
        Files.writeString(proc.resolve("cpuinfo"), """
                processor	: 0
                vendor_id	: GenuineIntel
                cpu family	: 6
                model		: 85
                model name	: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz

                processor	: 1
                vendor_id	: GenuineIntel
                """);

        Topology t = new SysfsLoader(sys, proc, "(test)").load();
        assertEquals("sysfs (test)", t.source());
        assertFalse(t.isSynthetic());
        assertEquals(List.of(2, 2, 2, 4, 8), List.of(t.packages().size(), t.numaNodes().size(), t.l3Groups().size(),
                t.cores().size(), t.pus().size()));
        assertIndexed(t);
        // tree order: package 0 = cores {0,4} {1,5}; package 1 = {2,6} {3,7}
        assertEquals(List.of(0, 4, 1, 5, 2, 6, 3, 7), t.pus().stream().map(Pu::osIndex).toList());
        assertEquals(new Pu(3, 5, 1, 0, 0, 0), t.pus().get(3));
        assertEquals(new NumaNode(1, 1, 16L << 30, 1, List.of(4, 5, 6, 7)), t.numaNodes().get(1));
        assertEquals(30L << 20, t.llcBytes());
        assertEquals(2L << 20, t.l2Bytes());
        assertFalse(t.llcInclusive(), "Skylake-SP L3 is non-inclusive");
        assertTrue(t.caches().getLast().inclusiveSource().startsWith("vendor rule: Intel family 6 model 0x55"));
        assertEquals(List.of("L1d", "L2", "L3"), t.caches().stream().map(CacheLevel::name).toList());
        assertEquals("""
                Machine (32GB total)
                  Package L#0
                    NUMANode L#0 (P#0 16GB)
                    L3 L#0 (30MB)
                      L2 L#0 (2048KB) + L1d L#0 (48KB) + Core L#0
                        PU L#0 (P#0)
                        PU L#1 (P#4)
                      L2 L#1 (2048KB) + L1d L#1 (48KB) + Core L#1
                        PU L#2 (P#1)
                        PU L#3 (P#5)
                  Package L#1
                    NUMANode L#1 (P#1 16GB)
                    L3 L#1 (30MB)
                      L2 L#2 (2048KB) + L1d L#2 (48KB) + Core L#2
                        PU L#4 (P#2)
                        PU L#5 (P#6)
                      L2 L#3 (2048KB) + L1d L#3 (48KB) + Core L#3
                        PU L#6 (P#3)
                        PU L#7 (P#7)
                """, LstopoFormat.tree(t.root()));
        // scatter: one rank per package first, then per core, SMT siblings last
        assertEquals(List.of(0, 2, 1, 3, 4, 6, 5, 7),
                Placement.SCATTER.plan(t, 8).pus().stream().map(Pu::osIndex).toList());
    }

    private static void write(Path p, Object content) throws Exception {
        Files.createDirectories(p.getParent());
        Files.writeString(p, content + "\n");
    }

    private static void cache(Path d, int level, String type, String size, String shared, int id) throws Exception {
        write(d.resolve("level"), level);
        write(d.resolve("type"), type);
        write(d.resolve("size"), size);
        write(d.resolve("coherency_line_size"), 64);
        write(d.resolve("shared_cpu_list"), shared);
        write(d.resolve("id"), id);
    }

    @Test
    void badSpecsGiveOneLineMessages(@TempDir Path dir) {
        assertMessage("unknown topology source 'numa' (expected auto, hwloc, sysfs, synthetic:SPEC or xml:FILE)", "numa");
        assertMessage("topology: empty source", " ");
        assertMessage("topology xml: missing file name", "xml:");
        assertThrows(IllegalArgumentException.class, () -> Topology.load(null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SysfsLoader(dir.resolve("nosys"), dir, "").load());
        assertTrue(e.getMessage().startsWith("topology sysfs: "), e.getMessage());
        if (Hwloc.isAvailable()) {
            assertMessage("bad synthetic topology 'pack:2 bogus:3'", "synthetic:pack:2 bogus:3");
            assertMessage("synthetic topology: empty description", "synthetic:");
            assertMessage("XML topology file not found: " + dir.resolve("none.xml"), "xml:" + dir.resolve("none.xml"));
        } else {
            assertMessage("topology synthetic:pack:2 needs hwloc", "synthetic:pack:2");
        }
    }

    private static void assertMessage(String prefix, String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topology.load(spec), spec);
        assertTrue(e.getMessage().startsWith(prefix), "for '" + spec + "': " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void quotedSyntheticSpecIsAccepted() {
        needsHwloc();
        assertEquals(8, Topology.load("synthetic:\"pack:2 core:4 pu:2\"").cores().size());
    }

    @Test
    void lstopoSizes() {
        assertEquals("1024KB", LstopoFormat.size(1L << 20));
        assertEquals("32MB", LstopoFormat.size(32L << 20));
        assertEquals("4570MB", LstopoFormat.size(4570L << 20));
        assertEquals("16GB", LstopoFormat.size(16L << 30));
        assertEquals("48KB", LstopoFormat.size(48L << 10));
    }
}
