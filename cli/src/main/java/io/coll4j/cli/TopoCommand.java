package io.coll4j.cli;

import io.coll4j.topology.BindResult;
import io.coll4j.topology.Binder;
import io.coll4j.topology.CacheLevel;
import io.coll4j.topology.Fallbacks;
import io.coll4j.reductions.internal.Reducers;
import io.coll4j.topology.LstopoFormat;
import io.coll4j.topology.MemoryBindResult;
import io.coll4j.topology.NumaNode;
import io.coll4j.topology.Placement;
import io.coll4j.topology.PlacementPlan;
import io.coll4j.topology.Pu;
import io.coll4j.topology.Topology;
import io.coll4j.topology.TopologyNode;
import io.coll4j.bindings.copy.Copy;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code collbench topo}: the machine as coll4j sees it — source, lstopo-style tree, caches, NUMA
 * nodes, the placement of {@code -t N} ranks, whether thread and memory binding actually work here
 * (tried on a helper thread and a small segment, then read back), and whether the non-temporal copy
 * is available.
 */
@Command(name = "topo",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        description = {
                "Print the machine topology, the placement of -t ranks, and whether binding and NT copy work.",
                "Binding is tried, not assumed: a helper thread is bound to every PU and read back with "
                        + "hwloc_get_last_cpu_location (or sched_getcpu), and a small segment is bound to a NUMA node, "
                        + "touched, and its node read back with hwloc_get_area_memlocation (or move_pages)."})
final class TopoCommand implements Callable<Integer> {

    /** Bytes of the segment the memory-binding check binds: whole pages for 4K, 16K and 64K page sizes. */
    static final long MEMORY_CHECK_BYTES = 256 << 10;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Mixin
    PlacementOptions where = new PlacementOptions();

    @Option(names = {"-t", "--threads"}, paramLabel = "N",
            description = "ranks to place (default: number of PUs, or the length of a --bind PU list); "
                    + "more ranks than PUs is oversubscribed")
    Integer threads;

    @CommandLine.Mixin
    FormatOption format = new FormatOption();

    @Option(names = "--mpi", description = "under mpirun: also build a team over the job's processes and print their layout "
            + "and the MPI thread level (process 0 prints)")
    boolean mpi;

    @Option(names = "--processes", paramLabel = "N", description = "also build a team over N JVM processes of this host, "
            + "without MPI (collbench starts the other N - 1; a shared mapping in /dev/shm joins them), and print its layout "
            + "and process-level path (process 0 prints)")
    Integer processes;

    @Option(names = "--process-child", hidden = true, paramLabel = "INDEX:JOB")
    String processChild;

    @Override
    public Integer call() throws Exception {
        OutputFormat fmt = treeFormat(format.format());
        Placement placement = where.placement();
        if (threads != null && threads < 1) {
            throw new IllegalArgumentException("--threads: must be >= 1, got " + threads);
        }
        Topology t = where.topology();
        int ranks = threads != null ? threads
                : placement instanceof Placement.Explicit e ? e.osIndices().length : t.pus().size();
        Resources.threads(ranks, t.pus().size());   // the plan lists every rank
        PlacementPlan plan = placement.plan(t, ranks);
        Binder binder = Binder.forTopology(t);
        Check threadCheck = threadCheck(binder, t);
        Check memoryCheck = memoryCheck(binder, t);
        String ntCopy = ntCopyStatus();

        PrintWriter out = spec.commandLine().getOut();
        java.util.Map<String, Object> processes = null;
        RunOptions.Spanning spanning = RunOptions.spanning(this.processes, processChild);
        if (mpi && spanning != null) {
            throw new IllegalArgumentException("--processes N spans processes without MPI; --mpi spans an mpirun job: pick one");
        }
        if (mpi || spanning != null) {
            var level = new Object() {
                java.util.Map<String, Object> processes;   // stays null outside process 0: one report for the job
            };
            int rc = ProcessChildren.run(spanning, spec, () -> {
                io.coll4j.Team.Builder b = io.coll4j.Team.builder().ranks(ranks).topology(t).placement(placement);
                try (io.coll4j.Team team = (spanning != null ? b.processes(spanning.n(), spanning.index()).name(spanning.job())
                        : b.mpi()).build()) {
                    if (team.processIndex() == 0) {
                        level.processes = new java.util.LinkedHashMap<>();
                        level.processes.put("processes", team.processes());
                        level.processes.put("ranks", team.globalSize());
                        level.processes.put("layout", Hierarchical.layout(team));
                        level.processes.put("transport", team.transport());
                    }
                }
                return 0;
            });
            if (rc != 0 || level.processes == null) {
                return rc;
            }
            processes = level.processes;
        }
        if (fmt == OutputFormat.JSON) {
            java.util.Map<String, Object> j = json(t, plan, binder, threadCheck, memoryCheck, ntCopy);
            if (processes != null) {
                j.put(mpi ? "mpi" : "sharedMapping", processes);
            }
            out.println(Json.pretty(j));
        } else {
            table(out, t, plan, binder, threadCheck, memoryCheck, ntCopy);
            if (processes != null) {
                out.println("processes: " + processes.get("processes") + " (" + processes.get("ranks") + " ranks): "
                        + processes.get("layout"));
                out.println((mpi ? "mpi:       " : "process level: ") + processes.get("transport"));
            } else {
                out.println("process level: one process (--processes N: N JVMs of this host through a shared mapping in "
                        + "/dev/shm; --mpi: the processes of an mpirun job)");
            }
        }
        out.flush();
        return 0;
    }

    /** topo prints a tree: table or json. */
    private static OutputFormat treeFormat(OutputFormat f) {
        if (f == OutputFormat.CSV) {
            throw new IllegalArgumentException("--format: topo prints a tree, not rows: use table or json");
        }
        return f;
    }

    // ---- binding checks -------------------------------------------------------------------------

    /** Outcome of one binding check. */
    record Check(boolean works, String detail) {
    }

    /** Binds one helper thread to every PU in turn and reads each binding back; the caller's thread is never bound. */
    static Check threadCheck(Binder binder, Topology t) {
        if (!binder.canBindThreads()) {
            return new Check(false, "not attempted: the binder cannot bind threads here (see binding)");
        }
        AtomicReference<Check> result = new AtomicReference<>();
        Thread helper = Thread.ofPlatform().name("collbench-topo-bind-check").start(() -> {
            int verified = 0;
            BindResult last = null;
            for (Pu pu : t.pus()) {
                BindResult r = binder.bindCurrentThread(pu);
                if (!r.bound()) {
                    result.set(new Check(false, "P#" + pu.osIndex() + " (" + r.method() + "): " + r.detail()));
                    return;
                }
                verified++;
                last = r;
            }
            result.set(new Check(true, "helper thread bound to each of " + verified + " PUs and seen on it ("
                    + last.method() + ", last: " + last.detail() + ")"));
        });
        try {
            helper.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Check(false, "interrupted");
        }
        return result.get() == null ? new Check(false, "helper thread failed") : result.get();
    }

    /** Binds a small segment to the last NUMA node, touches it, reads its node back. */
    static Check memoryCheck(Binder binder, Topology t) {
        if (!binder.canBindMemory()) {
            return new Check(false, "not attempted: the binder cannot bind memory here (see binding)");
        }
        NumaNode node = t.numaNodes().getLast();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(MEMORY_CHECK_BYTES, 64 << 10);
            MemoryBindResult r = binder.bindMemory(seg, node);
            if (!r.bound()) {
                return new Check(false, r.method() + ": " + r.detail());
            }
            seg.fill((byte) 1);
            OptionalInt back = binder.memoryNode(seg);
            if (back.isEmpty() || back.getAsInt() != node.osIndex()) {
                return new Check(false, r.method() + " to node P#" + node.osIndex() + " but read back "
                        + (back.isEmpty() ? "no single node" : "P#" + back.getAsInt()));
            }
            return new Check(true, r.method() + " to NUMA node P#" + node.osIndex() + ": " + r.detail()
                    + ", touched, read back P#" + back.getAsInt());
        }
    }

    /**
     * The non-temporal copy line. The copy engine ({@code io.coll4j.bindings.copy.Copy}, issue 4's
     * native work) reports its own status once it lands; until then this states the two facts that
     * decide it: whether the build packed the native library, and which AVX levels the CPU has.
     */
    /** The copy engine's own account: which NT path is active, or why it is not. */
    static String ntCopyStatus() {
        return Copy.nativeStatus();
    }

    /**
     * Every slower path coll4j chose on this machine: those {@link Fallbacks} noted while the checks above
     * ran (topology, native library, NT copy, binding), and scalar reductions instead of the Vector API.
     */
    static List<String> fallbacks() {
        List<String> all = new ArrayList<>(Fallbacks.noted());
        String reduction = Reducers.implementation();
        if (reduction.startsWith("scalar")) {
            all.add("reduction: " + reduction);
        }
        return all;
    }

    // ---- table ----------------------------------------------------------------------------------

    private static void table(PrintWriter out, Topology t, PlacementPlan plan, Binder binder, Check threads,
                              Check memory, String ntCopy) {
        out.println("source:    " + t.source());
        out.println("machine:   " + count(t.packages().size(), "package") + ", " + count(t.numaNodes().size(), "NUMA node")
                + ", " + count(t.l3Groups().size(), "L3") + ", " + count(t.cores().size(), "core") + ", "
                + count(t.pus().size(), "PU") + ", " + LstopoFormat.size(t.memoryBytes()) + " memory");
        out.println();
        out.print(LstopoFormat.tree(t.root()));
        out.println();
        out.println("caches:");
        out.printf("  %-5s %9s %6s %10s  %s%n", "level", "size", "line", "instances", "inclusive");
        for (CacheLevel c : t.caches()) {
            out.printf("  %-5s %9s %6d %10d  %-3s  (%s)%n", c.name(), LstopoFormat.size(c.sizeBytes()), c.lineBytes(),
                    c.instances(), c.inclusive() ? "yes" : "no", c.inclusiveSource());
        }
        out.println("  " + (t.llcBytes() == 0 ? "no cache reported"
                : "LLC " + LstopoFormat.size(t.llcBytes()) + " per instance" + (t.llcInclusive() ? " (inclusive)" : " (non-inclusive)"))
                + ", " + (t.l2Bytes() == 0 ? "no L2" : "L2 " + LstopoFormat.size(t.l2Bytes()) + " per core")
                + ", line " + t.cacheLineBytes() + " B");
        if (!t.llcNote().isEmpty()) {
            out.println("  note: " + t.llcNote());
        }
        out.println();
        out.println("NUMA nodes:");
        out.printf("  %-6s %-5s %9s %8s  %s%n", "node", "P#", "memory", "package", "PUs (P#)");
        for (NumaNode n : t.numaNodes()) {
            out.printf("  L#%-4d %-5d %9s %8s  %s%n", n.index(), n.osIndex(), LstopoFormat.size(n.memoryBytes()),
                    n.pkg() < 0 ? "-" : Integer.toString(n.pkg()), ranges(n.pus().stream().map(i -> t.pus().get(i).osIndex()).toList()));
        }
        out.println();
        out.println("placement: " + plan.describe());
        int shown = Math.min(plan.ranks(), 64);
        for (int r = 0; r < shown; r++) {
            Pu pu = plan.pu(r);
            out.printf("  rank %-4d PU L#%-4d P#%-4d core %-4s L3 %-3s NUMA %-3s package %s%n", r, pu.index(), pu.osIndex(),
                    idx(pu.core()), idx(pu.l3()), idx(pu.numa()), idx(pu.pkg()));
        }
        if (shown < plan.ranks()) {
            out.println("  … " + (plan.ranks() - shown) + " more ranks (--format json lists all)");
        }
        out.println();
        out.println("binding:   " + binder.describe());
        out.println("  threads: " + (threads.works() ? "yes" : "no") + " — " + threads.detail());
        out.println("  memory:  " + (memory.works() ? "yes" : "no") + " — " + memory.detail());
        out.println("nt copy:   " + ntCopy);
        out.println("reduction: " + Reducers.implementation());
        out.println("waiting:   " + waiting());
        List<String> fallbacks = fallbacks();
        out.println("fallbacks: " + (fallbacks.isEmpty() ? "none" : fallbacks.size() + " (each also logged once to System.Logger '"
                + Fallbacks.LOGGER + "')"));
        fallbacks.forEach(f -> out.println("  " + f));
    }

    /** How ranks wait by default and whether the contention detection of the adaptive strategy can work here. */
    static String waiting() {
        return "adaptive with a CPU per rank (spin ~100 us, then park; a rank whose core other work shares, while its"
                + " peers' cores are free, spins ~1 ms before parking, until quiet again: logged once, listed under fallbacks), "
                + "backoff-oversubscribed beyond; detection "
                + (io.coll4j.kernel.sync.Contention.available()
                        ? "available (per-thread run delay in /proc/self/task/TID/schedstat)"
                        : "unavailable (no /proc/thread-self/schedstat: the adaptive strategy stays the plain back-off)")
                + "; --wait spin forces pure spinning";
    }

    private static String count(int n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }

    private static String idx(int i) {
        return i < 0 ? "-" : Integer.toString(i);
    }

    /** "0-3,8,10-11" for an ascending list. */
    static String ranges(List<Integer> xs) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < xs.size(); ) {
            int j = i;
            while (j + 1 < xs.size() && xs.get(j + 1) == xs.get(j) + 1) {
                j++;
            }
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(xs.get(i));
            if (j > i) {
                sb.append('-').append(xs.get(j));
            }
            i = j + 1;
        }
        return sb.toString();
    }

    // ---- json -----------------------------------------------------------------------------------

    private static Map<String, Object> json(Topology t, PlacementPlan plan, Binder binder, Check threads, Check memory,
                                            String ntCopy) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("source", t.source());
        m.put("synthetic", t.isSynthetic());
        m.put("packages", t.packages().size());
        m.put("numaNodes", t.numaNodes().size());
        m.put("l3Caches", t.l3Groups().size());
        m.put("cores", t.cores().size());
        m.put("pus", t.pus().size());
        m.put("memoryBytes", t.memoryBytes());
        m.put("llcBytes", t.llcBytes());
        m.put("llcNote", t.llcNote());
        m.put("llcInclusive", t.llcInclusive());
        m.put("l2BytesPerCore", t.l2Bytes());
        m.put("cacheLineBytes", t.cacheLineBytes());
        List<Object> caches = new ArrayList<>();
        for (CacheLevel c : t.caches()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("level", c.level());
            cm.put("name", c.name());
            cm.put("sizeBytes", c.sizeBytes());
            cm.put("lineBytes", c.lineBytes());
            cm.put("instances", c.instances());
            cm.put("inclusive", c.inclusive());
            cm.put("inclusiveSource", c.inclusiveSource());
            caches.add(cm);
        }
        m.put("caches", caches);
        List<Object> numa = new ArrayList<>();
        for (NumaNode n : t.numaNodes()) {
            Map<String, Object> nm = new LinkedHashMap<>();
            nm.put("index", n.index());
            nm.put("osIndex", n.osIndex());
            nm.put("memoryBytes", n.memoryBytes());
            nm.put("package", n.pkg());
            nm.put("pus", n.pus().stream().map(i -> t.pus().get(i).osIndex()).toList());
            numa.add(nm);
        }
        m.put("numa", numa);
        Map<String, Object> pm = new LinkedHashMap<>();
        pm.put("policy", plan.placement().name());
        pm.put("ranks", plan.ranks());
        pm.put("binds", plan.placement().binds());
        pm.put("oversubscribed", plan.oversubscribed());
        pm.put("describe", plan.describe());
        List<Object> ranks = new ArrayList<>();
        for (int r = 0; r < plan.ranks(); r++) {
            Pu pu = plan.pu(r);
            Map<String, Object> rm = new LinkedHashMap<>();
            rm.put("rank", r);
            rm.put("pu", pu.index());
            rm.put("osIndex", pu.osIndex());
            rm.put("core", pu.core());
            rm.put("l3", pu.l3());
            rm.put("numa", pu.numa());
            rm.put("package", pu.pkg());
            ranks.add(rm);
        }
        pm.put("assignment", ranks);
        m.put("placement", pm);
        Map<String, Object> bm = new LinkedHashMap<>();
        bm.put("binder", binder.describe());
        bm.put("threads", check(threads));
        bm.put("memory", check(memory));
        m.put("binding", bm);
        m.put("ntCopy", ntCopy);
        m.put("reduction", Reducers.implementation());
        m.put("waiting", waiting());
        m.put("fallbacks", fallbacks());
        m.put("root", node(t.root()));
        return m;
    }

    private static Map<String, Object> check(Check c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("works", c.works());
        m.put("detail", c.detail());
        return m;
    }

    private static Map<String, Object> node(TopologyNode n) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", n.typeName());
        m.put("logicalIndex", n.logicalIndex());
        m.put("osIndex", n.osIndex());
        m.put("cpuset", ranges(n.cpuset()));
        if (n.type() == TopologyNode.Type.NUMANODE || n.type() == TopologyNode.Type.MACHINE) {
            m.put("memoryBytes", n.memoryBytes());
        }
        if (n.cache() != null) {
            m.put("sizeBytes", n.cache().sizeBytes());
            m.put("lineBytes", n.cache().lineBytes());
        }
        if (!n.info().isEmpty()) {
            m.put("info", new TreeMap<>(n.info()));
        }
        if (!n.children().isEmpty()) {
            m.put("children", n.children().stream().map(TopoCommand::node).toList());
        }
        return m;
    }
}
