package io.coll4j.topology;

import io.coll4j.bindings.hwloc.Hwloc;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable model of a machine: packages, NUMA nodes, L3 groups, cores, PUs, caches, and the
 * object tree they come from. It holds no native resource: loaders copy what they need and destroy
 * their hwloc topology before returning.
 *
 * <p>Sources ({@link #load(String)}): {@code hwloc} discovers this machine through libhwloc,
 * {@code sysfs} reads {@code /sys/devices/system/{cpu,node}} (the fallback when libhwloc is absent),
 * {@code synthetic:SPEC} and {@code xml:FILE} describe another machine through hwloc
 * ({@link #isSynthetic()}: binding to them is a no-op). {@code auto} is hwloc when it loads, else sysfs.
 *
 * <p>Logical indices (L#) number objects of one type in tree order, as hwloc does; every list here is
 * in logical order and {@code list.get(i).index() == i}.
 */
public final class Topology {
    private final String source;
    private final Origin origin;
    private final TopologyNode root;
    private final List<Pu> pus;
    private final List<Core> cores;
    private final List<NumaNode> numaNodes;
    private final List<L3Group> l3Groups;
    private final List<CpuPackage> packages;
    private final List<CacheLevel> caches;
    private final Map<Integer, Pu> pusByOsIndex;
    private final long llcBytes;
    private final String llcNote;
    private final long l2Bytes;
    private final int cacheLineBytes;
    private final boolean llcInclusive;

    /** Derives the model from {@code root}, a Machine tree whose objects carry their logical indices. */
    Topology(TopologyNode root, String source, Origin origin) {
        if (root.type() != TopologyNode.Type.MACHINE) {
            throw new IllegalArgumentException("root: expected a Machine object, got " + root.typeName());
        }
        this.root = root;
        this.source = source;
        this.origin = origin;

        Index ix = new Index(root);
        this.pus = ix.pus();
        this.pusByOsIndex = ix.pusByOs;
        if (pus.isEmpty()) {
            throw new IllegalArgumentException("topology from " + source + " has no PU");
        }
        this.cores = ix.cores();
        this.numaNodes = ix.numaNodes();
        this.l3Groups = ix.l3Groups();
        this.packages = ix.packages();
        this.caches = ix.cacheLevels();

        CacheLevel llc = caches.isEmpty() ? null : caches.getLast();
        long reported = llc == null ? 0 : llc.sizeBytes();
        this.llcNote = llc == null ? "" : implausibleLlc(reported, cores.size() / (double) Math.max(1, llc.instances()),
                numaNodes.stream().mapToLong(NumaNode::memoryBytes).sum());
        this.llcBytes = llcNote.isEmpty() ? reported : DEFAULT_LLC_BYTES;
        this.llcInclusive = llc == null || llc.inclusive();
        this.l2Bytes = ix.l2BytesPerCore();
        this.cacheLineBytes = caches.stream().filter(c -> c.lineBytes() > 0).findFirst()
                .map(CacheLevel::lineBytes).orElse(DEFAULT_CACHE_LINE_BYTES);
    }

    /**
     * The LLC size used when the reported one is implausible ({@link #llcNote}): a mid-range server LLC
     * instance. The adaptive copy's cache capacity C [YHCCL §4.2] and the model's defaults derive from it.
     */
    public static final long DEFAULT_LLC_BYTES = 8L << 20;

    /**
     * Largest plausible LLC share per core: 64 MiB. The largest LLCs shipped (stacked-cache server parts)
     * give a core at most a few tens of MiB; virtual machines report nonsense such as a 508 MB L3 per core
     * (a KVM guest of this project's build machine), which would disable non-temporal copies entirely.
     */
    public static final long MAX_LLC_BYTES_PER_CORE = 64L << 20;

    /** Why a reported LLC size is not believed ("" when it is): more than 64 MiB per core, or more than the memory. */
    static String implausibleLlc(long bytes, double coresPerInstance, long memoryBytes) {
        if (bytes <= 0) {
            return "";
        }
        if (bytes > MAX_LLC_BYTES_PER_CORE * Math.max(1, coresPerInstance)) {
            return String.format(java.util.Locale.ROOT, "reported LLC of %d B per instance (%.3g cores) is implausible "
                    + "(> 64 MiB per core): using the default %d B", bytes, coresPerInstance, DEFAULT_LLC_BYTES);
        }
        if (memoryBytes > 0 && bytes > memoryBytes) {
            return "reported LLC of " + bytes + " B exceeds the machine's memory (" + memoryBytes + " B): using the default "
                    + DEFAULT_LLC_BYTES + " B";
        }
        return "";
    }

    /** Line size assumed when no cache reports one: every x86-64 and most AArch64 parts. */
    public static final int DEFAULT_CACHE_LINE_BYTES = 64;

    // ---- loading ------------------------------------------------------------------------------

    private static final class HostHolder {
        static final Topology HOST = load("auto");
    }

    /** This machine, loaded once per process with {@code auto}: hwloc when libhwloc loads, else sysfs ({@link #source()} says why). */
    public static Topology host() {
        return HostHolder.HOST;
    }

    /**
     * Loads a topology from {@code spec}: {@code auto}, {@code hwloc}, {@code sysfs},
     * {@code synthetic:SPEC} (e.g. {@code synthetic:pack:2 numa:2 l3:1 core:4 pu:2}) or
     * {@code xml:FILE}.
     *
     * @throws IllegalArgumentException with a one-line message for an unknown source, a bad synthetic
     *                                  description, a missing or invalid XML file, or a source that
     *                                  cannot work here (hwloc absent, no sysfs)
     */
    public static Topology load(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("topology: empty source (expected auto, hwloc, sysfs, synthetic:SPEC or xml:FILE)");
        }
        String s = spec.strip();
        if (s.equals("auto")) {
            if (!Hwloc.isAvailable()) {
                Fallbacks.note("topology", "libhwloc not usable (" + Hwloc.unavailableReason() + "); topology read from sysfs");
                return SysfsLoader.withNote("(" + Hwloc.unavailableReason() + ")").load();
            }
            try {
                return new HwlocLoader().load();
            } catch (RuntimeException e) {   // hwloc loaded but could not discover this machine
                Fallbacks.note("topology", "hwloc failed to discover this machine (" + e.getMessage() + "); topology read from sysfs");
                return SysfsLoader.withNote("(hwloc failed: " + e.getMessage() + ")").load();
            }
        }
        if (s.equals("hwloc")) {
            requireHwloc("hwloc");
            return new HwlocLoader().load();
        }
        if (s.equals("sysfs")) {
            return new SysfsLoader().load();
        }
        if (s.startsWith("synthetic:")) {
            String desc = s.substring("synthetic:".length()).strip();
            if (desc.length() >= 2 && desc.startsWith("\"") && desc.endsWith("\"")) {
                desc = desc.substring(1, desc.length() - 1).strip();   // synthetic:"pack:2 core:4" passed through quotes
            }
            requireHwloc("synthetic:" + desc);
            return new SyntheticLoader(desc).load();
        }
        if (s.startsWith("xml:")) {
            String file = s.substring("xml:".length()).strip();
            if (file.isEmpty()) {
                throw new IllegalArgumentException("topology xml: missing file name (expected xml:FILE)");
            }
            requireHwloc("xml:" + file);
            return new XmlLoader(Path.of(file)).load();
        }
        throw new IllegalArgumentException("unknown topology source '" + s
                + "' (expected auto, hwloc, sysfs, synthetic:SPEC or xml:FILE)");
    }

    private static void requireHwloc(String what) {
        if (!Hwloc.isAvailable()) {
            throw new IllegalArgumentException("topology " + what + " needs hwloc: " + Hwloc.unavailableReason());
        }
    }

    // ---- accessors ----------------------------------------------------------------------------

    /** Where this came from: "hwloc 2.9.0", "sysfs (libhwloc.so.15 not loadable: …)", "synthetic:SPEC (via hwloc 2.9.0)", "xml:/path (via hwloc 2.9.0)". */
    public String source() {
        return source;
    }

    /** True for synthetic and XML topologies: they describe another machine, and binding to them is a no-op. */
    public boolean isSynthetic() {
        return origin == Origin.SYNTHETIC || origin == Origin.XML;
    }

    /** Which loader made a topology; the binder follows it. */
    enum Origin { HWLOC, SYSFS, SYNTHETIC, XML }

    Origin origin() {
        return origin;
    }

    /** PUs in logical order. */
    public List<Pu> pus() {
        return pus;
    }

    /** The PU with OS index {@code osIndex}, if this topology has it. */
    public Optional<Pu> puByOsIndex(int osIndex) {
        return Optional.ofNullable(pusByOsIndex.get(osIndex));
    }

    /** Cores in logical order. */
    public List<Core> cores() {
        return cores;
    }

    /** NUMA nodes in logical order; at least one on every real machine (hwloc and sysfs make one when the OS has none). */
    public List<NumaNode> numaNodes() {
        return numaNodes;
    }

    /** The NUMA node with OS index {@code osIndex}, if any. */
    public Optional<NumaNode> numaNodeByOsIndex(int osIndex) {
        return numaNodes.stream().filter(n -> n.osIndex() == osIndex).findFirst();
    }

    /** L3 caches with the cores and PUs below each, in logical order (empty when the machine has no L3). */
    public List<L3Group> l3Groups() {
        return l3Groups;
    }

    /** Packages in logical order (empty only for a synthetic topology without a pack level). */
    public List<CpuPackage> packages() {
        return packages;
    }

    /**
     * Size of one instance of the last-level data/unified cache, 0 when there is no cache; when the reported
     * size is implausible ({@link #llcNote} says why), {@link #DEFAULT_LLC_BYTES} instead ({@link #caches}
     * keeps what was reported).
     */
    public long llcBytes() {
        return llcBytes;
    }

    /** Why {@link #llcBytes} is not the reported LLC size, or "" when it is. */
    public String llcNote() {
        return llcNote;
    }

    /** L2 capacity per core: one L2 instance divided by the cores sharing it; 0 when there is no L2. */
    public long l2Bytes() {
        return l2Bytes;
    }

    /** The cache line size (from the first cache level that reports one), {@link #DEFAULT_CACHE_LINE_BYTES} otherwise. */
    public int cacheLineBytes() {
        return cacheLineBytes;
    }

    /** Whether the LLC is inclusive of the levels above ({@link CacheInclusion}; true when unknown or no cache). */
    public boolean llcInclusive() {
        return llcInclusive;
    }

    /** Data/unified cache levels, L1 first. */
    public List<CacheLevel> caches() {
        return caches;
    }

    /** The object tree (Machine at the root). */
    public TopologyNode root() {
        return root;
    }

    /** Total memory of the NUMA nodes in bytes. */
    public long memoryBytes() {
        return numaNodes.stream().mapToLong(NumaNode::memoryBytes).sum();
    }

    /** One line: source and object counts. */
    public String summary() {
        return source + ": " + packages.size() + " package(s), " + numaNodes.size() + " NUMA node(s), "
                + l3Groups.size() + " L3, " + cores.size() + " core(s), " + pus.size() + " PU(s)";
    }

    @Override
    public String toString() {
        return "Topology[" + summary() + "]";
    }

    // ---- derivation from the tree ---------------------------------------------------------------

    /** Walks the tree once and derives the lists; ancestors come from the walk, NUMA membership from cpusets. */
    private static final class Index {
        final List<TopologyNode> puNodes = new ArrayList<>();
        final List<TopologyNode> coreNodes = new ArrayList<>();
        final List<TopologyNode> numaNodes = new ArrayList<>();
        final List<TopologyNode> l3Nodes = new ArrayList<>();
        final List<TopologyNode> packageNodes = new ArrayList<>();
        final List<TopologyNode> cacheNodes = new ArrayList<>();
        /** PU node → [core, l3, pkg] logical indices; NUMA node → pkg. */
        final Map<TopologyNode, int[]> ancestry = new IdentityHashMap<>();
        final Map<TopologyNode, TopologyNode> packageOf = new IdentityHashMap<>();
        final Map<Integer, Pu> pusByOs = new HashMap<>();
        final Map<Integer, Integer> numaOfPuOs = new HashMap<>();
        List<Pu> pus;

        Index(TopologyNode root) {
            walk(root, -1, -1, -1, null);
            for (TopologyNode n : sorted(numaNodes)) {
                for (int os : n.cpuset()) {
                    numaOfPuOs.putIfAbsent(os, n.logicalIndex());
                }
            }
        }

        private void walk(TopologyNode n, int core, int l3, int pkg, TopologyNode pkgNode) {
            switch (n.type()) {
                case PU -> {
                    puNodes.add(n);
                    ancestry.put(n, new int[]{core, l3, pkg});
                }
                case CORE -> {
                    coreNodes.add(n);
                    core = n.logicalIndex();
                }
                case NUMANODE -> {
                    numaNodes.add(n);
                    ancestry.put(n, new int[]{pkg});
                }
                case PACKAGE -> {
                    packageNodes.add(n);
                    pkg = n.logicalIndex();
                    pkgNode = n;
                }
                case CACHE -> {
                    if (n.isDataCache()) {
                        cacheNodes.add(n);
                        packageOf.put(n, pkgNode);
                        if (n.cache().level() == 3) {
                            l3Nodes.add(n);
                            l3 = n.logicalIndex();
                        }
                    }
                }
                default -> { }
            }
            for (TopologyNode c : n.children()) {
                walk(c, core, l3, pkg, pkgNode);
            }
        }

        private static List<TopologyNode> sorted(List<TopologyNode> nodes) {
            List<TopologyNode> s = new ArrayList<>(nodes);
            s.sort(Comparator.comparingInt(TopologyNode::logicalIndex));
            for (int i = 0; i < s.size(); i++) {
                if (s.get(i).logicalIndex() != i) {
                    throw new IllegalArgumentException("logical indices of " + s.get(i).typeName()
                            + " objects are not 0..n-1 (found L#" + s.get(i).logicalIndex() + " at position " + i + ")");
                }
            }
            return s;
        }

        List<Pu> pus() {
            List<Pu> out = new ArrayList<>();
            for (TopologyNode n : sorted(puNodes)) {
                int[] a = ancestry.get(n);
                Pu pu = new Pu(n.logicalIndex(), n.osIndex(), a[0], a[1], numaOfPuOs.getOrDefault(n.osIndex(), -1), a[2]);
                out.add(pu);
                pusByOs.put(pu.osIndex(), pu);
            }
            pus = List.copyOf(out);
            return pus;
        }

        private List<Integer> pusOf(TopologyNode n) {
            List<Integer> out = new ArrayList<>();
            for (int os : n.cpuset()) {
                Pu pu = pusByOs.get(os);
                if (pu != null) {
                    out.add(pu.index());
                }
            }
            Collections.sort(out);
            return out;
        }

        List<Core> cores() {
            List<Core> out = new ArrayList<>();
            for (TopologyNode n : sorted(coreNodes)) {
                List<Integer> p = pusOf(n);
                Pu first = p.isEmpty() ? null : pus.get(p.getFirst());
                out.add(new Core(n.logicalIndex(), n.osIndex(), first == null ? -1 : first.l3(),
                        first == null ? -1 : first.numa(), first == null ? -1 : first.pkg(), p));
            }
            return List.copyOf(out);
        }

        List<NumaNode> numaNodes() {
            List<NumaNode> out = new ArrayList<>();
            for (TopologyNode n : sorted(numaNodes)) {
                List<Integer> p = pusOf(n);
                int pkg = ancestry.get(n)[0];
                if (pkg < 0 && !p.isEmpty()) {   // attached above the packages: belongs to one only if all its PUs do
                    TreeSet<Integer> pkgs = new TreeSet<>();
                    p.forEach(i -> pkgs.add(pus.get(i).pkg()));
                    pkg = pkgs.size() == 1 ? pkgs.first() : -1;
                }
                out.add(new NumaNode(n.logicalIndex(), n.osIndex(), n.memoryBytes(), pkg, p));
            }
            return List.copyOf(out);
        }

        List<L3Group> l3Groups() {
            List<L3Group> out = new ArrayList<>();
            for (TopologyNode n : sorted(l3Nodes)) {
                List<Integer> p = pusOf(n);
                TreeSet<Integer> numas = new TreeSet<>();
                TreeSet<Integer> cs = new TreeSet<>();
                for (int i : p) {
                    if (pus.get(i).numa() >= 0) {
                        numas.add(pus.get(i).numa());
                    }
                    if (pus.get(i).core() >= 0) {
                        cs.add(pus.get(i).core());
                    }
                }
                int pkg = p.isEmpty() ? -1 : pus.get(p.getFirst()).pkg();
                out.add(new L3Group(n.logicalIndex(), n.cache().sizeBytes(), pkg, List.copyOf(numas), List.copyOf(cs), p));
            }
            return List.copyOf(out);
        }

        List<CpuPackage> packages() {
            List<CpuPackage> out = new ArrayList<>();
            List<NumaNode> numas = numaNodes();
            for (TopologyNode n : sorted(packageNodes)) {
                int idx = n.logicalIndex();
                List<Integer> p = pusOf(n);
                TreeSet<Integer> l3 = new TreeSet<>();
                TreeSet<Integer> cs = new TreeSet<>();
                for (int i : p) {
                    if (pus.get(i).l3() >= 0) {
                        l3.add(pus.get(i).l3());
                    }
                    if (pus.get(i).core() >= 0) {
                        cs.add(pus.get(i).core());
                    }
                }
                List<Integer> nn = numas.stream().filter(x -> x.pkg() == idx).map(NumaNode::index).toList();
                out.add(new CpuPackage(idx, n.osIndex(), nn, List.copyOf(l3), List.copyOf(cs), p));
            }
            return List.copyOf(out);
        }

        List<CacheLevel> cacheLevels() {
            // group instances by (level, name); sizes may differ between instances on hybrid parts
            Map<String, List<TopologyNode>> byName = new TreeMap<>();
            for (TopologyNode n : cacheNodes) {
                byName.computeIfAbsent(String.format("%02d%s", n.cache().level(), n.cache().name()), k -> new ArrayList<>()).add(n);
            }
            List<CacheLevel> out = new ArrayList<>();
            for (List<TopologyNode> inst : byName.values()) {
                TopologyNode first = inst.getFirst();
                long size = inst.stream().mapToLong(x -> x.cache().sizeBytes()).max().orElse(0);
                int line = inst.stream().mapToInt(x -> x.cache().lineBytes()).max().orElse(0);
                TopologyNode pkg = packageOf.get(first);
                CacheInclusion.Verdict v = CacheInclusion.of(first, pkg != null ? pkg.info() : cpuInfoBelowRoot());
                out.add(new CacheLevel(first.cache().level(), first.cache().name(), size, line, inst.size(),
                        v.inclusive(), v.source()));
            }
            return List.copyOf(out);
        }

        /** CPU identification for caches outside any package: the first package's, if any. */
        private Map<String, String> cpuInfoBelowRoot() {
            return packageNodes.isEmpty() ? Map.of() : packageNodes.getFirst().info();
        }

        long l2BytesPerCore() {
            for (TopologyNode n : cacheNodes) {
                if (n.cache().level() == 2) {
                    long coresBelow = countCores(n);
                    return n.cache().sizeBytes() / Math.max(1, coresBelow);
                }
            }
            return 0;
        }

        private static long countCores(TopologyNode n) {
            long c = n.type() == TopologyNode.Type.CORE ? 1 : 0;
            for (TopologyNode ch : n.children()) {
                c += countCores(ch);
            }
            return c;
        }
    }

    /** Counts of objects by lstopo type name ("Package", "NUMANode", "L3", "Core", "PU", …) in tree order. */
    public Map<String, Integer> objectCounts() {
        Map<String, Integer> out = new LinkedHashMap<>();
        count(root, out);
        return out;
    }

    private static void count(TopologyNode n, Map<String, Integer> out) {
        out.merge(n.typeName(), 1, Integer::sum);
        for (TopologyNode c : n.children()) {
            count(c, out);
        }
    }
}
