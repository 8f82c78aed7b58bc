package io.coll4j.topology;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * This machine from Linux sysfs, for when libhwloc is absent: online CPUs and their
 * {@code topology/} (package id, core siblings) and {@code cache/index*} (level, type, size, line,
 * shared CPUs) under {@code /sys/devices/system/cpu}; NUMA nodes from {@code /sys/devices/system/node}
 * ({@code cpulist}, {@code meminfo}); CPU identification from {@code /proc/cpuinfo} for the
 * cache-inclusion rule ({@link CacheInclusion}). It builds the same tree hwloc does on Linux
 * (Package → caches by decreasing level → Core → PU, NUMA nodes attached to the topmost object
 * with the smallest cpuset containing theirs, instruction caches left out), so the two loaders agree
 * on the same machine. Not modelled: dies, groups, CPUs excluded by cgroups (hwloc hides them).
 *
 * @param systemDir {@code /sys/devices/system} (another directory with the same layout for tests)
 * @param procDir   {@code /proc} (for {@code cpuinfo} and {@code meminfo})
 * @param note      appended to the source name, e.g. why hwloc was not used
 */
public record SysfsLoader(Path systemDir, Path procDir, String note) implements TopologyLoader {

    /** The real sysfs and procfs of this machine. */
    public SysfsLoader() {
        this(Path.of("/sys/devices/system"), Path.of("/proc"), "");
    }

    /** The real sysfs, with {@code note} after "sysfs" in the source name. */
    static SysfsLoader withNote(String note) {
        return new SysfsLoader(Path.of("/sys/devices/system"), Path.of("/proc"), note);
    }

    @Override
    public Topology load() {
        Path cpuDir = systemDir.resolve("cpu");
        if (!Files.isDirectory(cpuDir)) {
            throw new IllegalArgumentException("topology sysfs: " + cpuDir + " not found (sysfs needs Linux)");
        }
        try {
            return new Topology(buildTree(cpuDir), "sysfs" + (note.isEmpty() ? "" : " " + note), Topology.Origin.SYSFS);
        } catch (IOException e) {
            throw new IllegalArgumentException("topology sysfs: cannot read " + systemDir + ": " + e.getMessage(), e);
        }
    }

    /** A tree node under construction. */
    private static final class Builder {
        final TopologyNode.Type type;
        final int osIndex;
        final TreeSet<Integer> cpus;
        final TopologyNode.Cache cache;
        final Map<String, String> info;
        final List<Builder> memory = new ArrayList<>();
        final List<Builder> children = new ArrayList<>();
        long memoryBytes;

        Builder(TopologyNode.Type type, int osIndex, TreeSet<Integer> cpus, TopologyNode.Cache cache, Map<String, String> info) {
            this.type = type;
            this.osIndex = osIndex;
            this.cpus = cpus;
            this.cache = cache;
            this.info = info;
        }

        String typeName() {
            return cache != null ? cache.name() : type.displayName();
        }

        int firstCpu() {
            return cpus.isEmpty() ? Integer.MAX_VALUE : cpus.first();
        }
    }

    private TopologyNode buildTree(Path cpuDir) throws IOException {
        TreeSet<Integer> online = onlineCpus(cpuDir);
        if (online.isEmpty()) {
            throw new IllegalArgumentException("topology sysfs: no online CPU under " + cpuDir);
        }
        Map<String, String> cpuInfo = cpuInfo();

        Map<Integer, TreeSet<Integer>> packages = new TreeMap<>();
        Map<String, Builder> caches = new LinkedHashMap<>();
        Map<String, Builder> cores = new LinkedHashMap<>();
        List<Builder> puList = new ArrayList<>();
        for (int cpu : online) {
            Path dir = cpuDir.resolve("cpu" + cpu);
            Path topo = dir.resolve("topology");
            int pkg = Math.max(0, readInt(topo.resolve("physical_package_id"), 0));
            packages.computeIfAbsent(pkg, k -> new TreeSet<>()).add(cpu);

            TreeSet<Integer> siblings = readList(topo.resolve("core_cpus_list"));
            if (siblings == null) {
                siblings = readList(topo.resolve("thread_siblings_list"));
            }
            if (siblings == null) {
                siblings = new TreeSet<>(List.of(cpu));
            }
            siblings.retainAll(online);
            TreeSet<Integer> coreCpus = siblings;
            int coreId = readInt(topo.resolve("core_id"), -1);
            cores.computeIfAbsent(pkg + ":" + coreCpus, k -> new Builder(TopologyNode.Type.CORE, coreId, coreCpus, null, Map.of()));

            puList.add(new Builder(TopologyNode.Type.PU, cpu, new TreeSet<>(List.of(cpu)), null, Map.of()));
            readCaches(dir.resolve("cache"), online, caches);
        }

        Builder machine = new Builder(TopologyNode.Type.MACHINE, 0, new TreeSet<>(online), null, Map.of());
        List<Builder> inserts = new ArrayList<>();
        packages.forEach((id, cpus) -> inserts.add(new Builder(TopologyNode.Type.PACKAGE, id, cpus, null, cpuInfo)));
        List<Builder> cacheList = new ArrayList<>(caches.values());
        cacheList.sort(Comparator.comparingInt((Builder b) -> -b.cache.level()).thenComparingInt(Builder::firstCpu));
        inserts.addAll(cacheList);
        List<Builder> coreList = new ArrayList<>(cores.values());
        coreList.sort(Comparator.comparingInt(Builder::firstCpu));
        inserts.addAll(coreList);
        inserts.addAll(puList);
        for (Builder b : inserts) {
            insert(machine, b);
        }
        for (Builder numa : numaNodes(online)) {
            attachMemory(machine, numa);
        }
        sortChildren(machine);
        totalMemory(machine);
        return freeze(machine, new HashMap<>());
    }

    /** Inserts {@code b} under the deepest node whose cpuset contains it (nodes come largest first). */
    private static void insert(Builder parent, Builder b) {
        for (Builder c : parent.children) {
            if (c.cpus.containsAll(b.cpus)) {
                insert(c, b);
                return;
            }
        }
        parent.children.add(b);
    }

    /**
     * hwloc's placement of a NUMA node: among the objects on the path down to the smallest cpuset that
     * contains the node's CPUs, the topmost with that same cpuset other than the Machine (a single
     * package machine gets its node under the Package, as lstopo shows); a node without CPUs, or one
     * spanning packages, hangs off the Machine.
     */
    private static void attachMemory(Builder machine, Builder numa) {
        if (numa.cpus.isEmpty()) {
            machine.memory.add(numa);
            return;
        }
        List<Builder> path = new ArrayList<>();
        Builder n = machine;
        path.add(n);
        outer:
        while (true) {
            for (Builder c : n.children) {
                if (c.cpus.containsAll(numa.cpus)) {
                    n = c;
                    path.add(c);
                    continue outer;
                }
            }
            break;
        }
        TreeSet<Integer> smallest = path.getLast().cpus;
        Builder target = path.size() == 1 ? machine : null;
        for (int i = 1; i < path.size() && target == null; i++) {
            if (path.get(i).cpus.equals(smallest)) {
                target = path.get(i);
            }
        }
        target.memory.add(numa);
    }

    private static void sortChildren(Builder b) {
        b.children.sort(Comparator.comparingInt(Builder::firstCpu));
        b.memory.sort(Comparator.comparingInt((Builder x) -> x.osIndex));
        b.children.forEach(SysfsLoader::sortChildren);
        b.memory.forEach(SysfsLoader::sortChildren);
    }

    private static long totalMemory(Builder b) {
        if (b.type == TopologyNode.Type.NUMANODE) {
            return b.memoryBytes;
        }
        long sum = 0;
        for (Builder m : b.memory) {
            sum += totalMemory(m);
        }
        for (Builder c : b.children) {
            sum += totalMemory(c);
        }
        b.memoryBytes = sum;
        return sum;
    }

    /** Assigns logical indices per type name in tree order (memory children first) and freezes. */
    private static TopologyNode freeze(Builder b, Map<String, Integer> counters) {
        int logical = counters.merge(b.typeName(), 1, Integer::sum) - 1;
        List<TopologyNode> children = new ArrayList<>();
        for (Builder m : b.memory) {
            children.add(freeze(m, counters));
        }
        for (Builder c : b.children) {
            children.add(freeze(c, counters));
        }
        return new TopologyNode(b.type, logical, b.osIndex, List.copyOf(b.cpus), b.memoryBytes, b.cache, b.info, children);
    }

    // ---- reading sysfs ------------------------------------------------------------------------

    private static TreeSet<Integer> onlineCpus(Path cpuDir) throws IOException {
        TreeSet<Integer> online = readList(cpuDir.resolve("online"));
        if (online != null) {
            return online;
        }
        TreeSet<Integer> out = new TreeSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(cpuDir, "cpu[0-9]*")) {
            for (Path p : ds) {
                out.add(Integer.parseInt(p.getFileName().toString().substring(3)));
            }
        }
        return out;
    }

    private static void readCaches(Path cacheDir, TreeSet<Integer> online, Map<String, Builder> caches) throws IOException {
        if (!Files.isDirectory(cacheDir)) {
            return;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(cacheDir, "index[0-9]*")) {
            for (Path idx : ds) {
                String type = readString(idx.resolve("type"));
                int level = readInt(idx.resolve("level"), -1);
                TreeSet<Integer> shared = readList(idx.resolve("shared_cpu_list"));
                if (type == null || level < 1 || shared == null || type.equals("Instruction")) {
                    continue;   // hwloc filters instruction caches out by default
                }
                shared.retainAll(online);
                TopologyNode.Cache.Kind kind = type.equals("Data") ? TopologyNode.Cache.Kind.DATA : TopologyNode.Cache.Kind.UNIFIED;
                long size = parseSize(readString(idx.resolve("size")));
                int line = readInt(idx.resolve("coherency_line_size"), 0);
                int id = readInt(idx.resolve("id"), -1);
                String key = level + type + shared;
                caches.computeIfAbsent(key, k -> new Builder(TopologyNode.Type.CACHE, id, shared,
                        new TopologyNode.Cache(level, size, line, kind), Map.of()));
            }
        }
    }

    private List<Builder> numaNodes(TreeSet<Integer> online) throws IOException {
        Path nodeDir = systemDir.resolve("node");
        List<Builder> out = new ArrayList<>();
        if (Files.isDirectory(nodeDir)) {
            TreeSet<Integer> nodes = readList(nodeDir.resolve("online"));
            if (nodes == null) {
                nodes = new TreeSet<>();
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(nodeDir, "node[0-9]*")) {
                    for (Path p : ds) {
                        nodes.add(Integer.parseInt(p.getFileName().toString().substring(4)));
                    }
                }
            }
            for (int node : nodes) {
                Path dir = nodeDir.resolve("node" + node);
                TreeSet<Integer> cpus = readList(dir.resolve("cpulist"));
                if (cpus == null) {
                    cpus = new TreeSet<>();
                }
                cpus.retainAll(online);
                Builder b = new Builder(TopologyNode.Type.NUMANODE, node, cpus, null, Map.of());
                b.memoryBytes = memTotal(dir.resolve("meminfo"));
                out.add(b);
            }
        }
        if (out.isEmpty()) {
            // no NUMA support in the kernel: one node with everything, as hwloc does
            Builder b = new Builder(TopologyNode.Type.NUMANODE, 0, new TreeSet<>(online), null, Map.of());
            b.memoryBytes = memTotal(procDir.resolve("meminfo"));
            out.add(b);
        }
        return out;
    }

    /** The first processor block of {@code /proc/cpuinfo}, under hwloc's info names. */
    private Map<String, String> cpuInfo() throws IOException {
        Path p = procDir.resolve("cpuinfo");
        Map<String, String> out = new LinkedHashMap<>();
        if (!Files.isReadable(p)) {
            return out;
        }
        for (String line : Files.readAllLines(p)) {
            if (line.isBlank() && !out.isEmpty()) {
                break;
            }
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String key = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            switch (key) {
                case "vendor_id" -> out.put("CPUVendor", value);
                case "cpu family" -> out.put("CPUFamilyNumber", value);
                case "model" -> out.put("CPUModelNumber", value);
                case "model name" -> out.put("CPUModel", value);
                default -> { }
            }
        }
        return out;
    }

    /** {@code MemTotal} in bytes from a (node) meminfo file: "Node 0 MemTotal:  4679884 kB" or "MemTotal: 4679884 kB". */
    private static long memTotal(Path meminfo) throws IOException {
        if (!Files.isReadable(meminfo)) {
            return 0;
        }
        for (String line : Files.readAllLines(meminfo)) {
            int i = line.indexOf("MemTotal:");
            if (i >= 0) {
                String[] parts = line.substring(i + "MemTotal:".length()).trim().split("\\s+");
                long v = Long.parseLong(parts[0]);
                return parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? v * 1024 : v;
            }
        }
        return 0;
    }

    private static String readString(Path p) throws IOException {
        return Files.isReadable(p) ? Files.readString(p).trim() : null;
    }

    private static int readInt(Path p, int absent) throws IOException {
        String s = readString(p);
        if (s == null || s.isEmpty()) {
            return absent;
        }
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return absent;
        }
    }

    /** A Linux CPU list ("0-3,8,10-11"), or {@code null} when the file is absent. */
    static TreeSet<Integer> readList(Path p) throws IOException {
        String s = readString(p);
        return s == null ? null : parseList(s);
    }

    /** Parses a Linux CPU list ("0-3,8,10-11"; empty for ""). */
    static TreeSet<Integer> parseList(String s) {
        TreeSet<Integer> out = new TreeSet<>();
        for (String part : s.trim().split(",")) {
            String t = part.trim();
            if (t.isEmpty()) {
                continue;
            }
            int dash = t.indexOf('-');
            if (dash < 0) {
                out.add(Integer.parseInt(t));
            } else {
                int a = Integer.parseInt(t.substring(0, dash));
                int b = Integer.parseInt(t.substring(dash + 1));
                for (int i = a; i <= b; i++) {
                    out.add(i);
                }
            }
        }
        return out;
    }

    /** A sysfs cache size ("32K", "1024K", "32768K", "2M") in bytes. */
    static long parseSize(String s) {
        if (s == null || s.isEmpty()) {
            return 0;
        }
        String t = s.trim().toUpperCase(Locale.ROOT);
        long mult = switch (t.charAt(t.length() - 1)) {
            case 'K' -> 1L << 10;
            case 'M' -> 1L << 20;
            case 'G' -> 1L << 30;
            default -> 1;
        };
        String digits = mult == 1 ? t : t.substring(0, t.length() - 1);
        return Long.parseLong(digits.trim()) * mult;
    }
}
