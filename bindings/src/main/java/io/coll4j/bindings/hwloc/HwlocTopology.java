package io.coll4j.bindings.hwloc;

import io.coll4j.bindings.hwloc.internal.HwlocInlines;
import io.coll4j.bindings.hwloc.internal.hwloc_cache_attr_s;
import io.coll4j.bindings.hwloc.internal.hwloc_info_s;
import io.coll4j.bindings.hwloc.internal.hwloc_numanode_attr_s;
import io.coll4j.bindings.hwloc.internal.hwloc_obj;
import io.coll4j.bindings.hwloc.internal.hwloc_obj_attr_u;
import io.coll4j.bindings.hwloc.internal.hwloc_topology_cpubind_support;
import io.coll4j.bindings.hwloc.internal.hwloc_topology_discovery_support;
import io.coll4j.bindings.hwloc.internal.hwloc_topology_membind_support;
import io.coll4j.bindings.hwloc.internal.hwloc_topology_support;
import io.coll4j.bindings.libc.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.coll4j.bindings.hwloc.internal.hwloc_binding_h.*;
import static io.coll4j.bindings.hwloc.internal.hwloc_bitmap_h.*;
import static io.coll4j.bindings.hwloc.internal.hwloc_h.*;

/**
 * A loaded hwloc topology: owns one {@code hwloc_topology_t}, destroyed by {@link #close()}. Reads
 * return immutable Java copies ({@link HwlocObject}, {@link HwlocSupport}); the binding calls act on
 * the calling thread and on memory ranges, and may be made from several threads at once (hwloc
 * allows concurrent use of a loaded topology that is not modified). Use after close throws
 * {@link IllegalStateException}.
 */
@SuppressWarnings("restricted")   // FFM binding code: reinterpret/downcall are its job
public final class HwlocTopology implements AutoCloseable {
    private final String description;
    private volatile MemorySegment topology;
    private HwlocObject root;

    private HwlocTopology(MemorySegment topology, String description) {
        this.topology = topology;
        this.description = description;
    }

    @FunctionalInterface
    private interface Configure {
        /** Configures {@code t} before load; throws to abort (the topology is then destroyed). */
        void apply(MemorySegment t, Arena arena, MemorySegment callState);
    }

    /** Discovers this machine (Linux backend, plus x86 CPUID annotations such as cache inclusiveness). */
    public static HwlocTopology loadHost() {
        return load("this machine", (t, arena, cs) -> { });
    }

    /**
     * A synthetic topology ({@code hwloc_topology_set_synthetic}), e.g. {@code "pack:2 numa:2 l3:1 core:4 pu:2"}.
     *
     * @throws IllegalArgumentException naming the spec when hwloc rejects it
     */
    public static HwlocTopology loadSynthetic(String spec) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("synthetic topology: empty description (e.g. \"pack:2 core:4 pu:2\")");
        }
        return load("synthetic:" + spec, (t, arena, cs) -> {
            if (hwloc_topology_set_synthetic(cs, t, arena.allocateFrom(spec)) != 0) {
                throw new IllegalArgumentException("bad synthetic topology '" + spec
                        + "': hwloc_topology_set_synthetic rejected it (" + errnoText(cs)
                        + "); expected levels like \"pack:2 numa:2 l3:1 core:4 pu:2\"");
            }
        });
    }

    /**
     * A topology exported by hwloc as XML ({@code hwloc_topology_set_xml}), e.g. by {@code lstopo file.xml}.
     *
     * @throws IllegalArgumentException naming the file when it is missing or not a valid hwloc XML topology
     */
    public static HwlocTopology loadXml(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("XML topology file not found: " + file);
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("XML topology file not readable: " + file);
        }
        String path = file.toAbsolutePath().toString();
        try {
            return load("xml:" + path, (t, arena, cs) -> {
                if (hwloc_topology_set_xml(cs, t, arena.allocateFrom(path)) != 0) {
                    throw new IllegalArgumentException("not a valid hwloc XML topology: " + file
                            + " (hwloc_topology_set_xml: " + errnoText(cs) + ")");
                }
            });
        } catch (HwlocException e) {
            throw new IllegalArgumentException("not a valid hwloc XML topology: " + file + " (" + e.getMessage() + ")", e);
        }
    }

    /**
     * A topology from an XML string ({@code hwloc_topology_set_xmlbuffer}).
     *
     * @throws IllegalArgumentException when the text is not a valid hwloc XML topology
     */
    public static HwlocTopology loadXmlBuffer(String xml) {
        try {
            return load("xml buffer", (t, arena, cs) -> {
                MemorySegment buf = arena.allocateFrom(xml);
                // size includes the terminating NUL, as hwloc_topology_export_xmlbuffer's buflen does
                if (hwloc_topology_set_xmlbuffer(cs, t, buf, Math.toIntExact(buf.byteSize())) != 0) {
                    throw new IllegalArgumentException("not a valid hwloc XML topology (hwloc_topology_set_xmlbuffer: "
                            + errnoText(cs) + ")");
                }
            });
        } catch (HwlocException e) {
            throw new IllegalArgumentException("not a valid hwloc XML topology (" + e.getMessage() + ")", e);
        }
    }

    private static HwlocTopology load(String description, Configure configure) {
        Hwloc.requireAvailable();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = allocateCallState(arena);
            MemorySegment tp = arena.allocate(C_POINTER);
            if (hwloc_topology_init(cs, tp) != 0) {
                throw new HwlocException("hwloc_topology_init", errno(cs));
            }
            MemorySegment t = tp.get(C_POINTER, 0);
            boolean ok = false;
            try {
                configure.apply(t, arena, cs);
                if (hwloc_topology_load(cs, t) != 0) {
                    throw new HwlocException("hwloc_topology_load", errno(cs), description);
                }
                ok = true;
                return new HwlocTopology(t, description);
            } finally {
                if (!ok) {
                    hwloc_topology_destroy(t);
                }
            }
        }
    }

    private static String errnoText(MemorySegment cs) {
        return Errno.describe(errno(cs));
    }

    private MemorySegment handle() {
        MemorySegment t = topology;
        if (t == null) {
            throw new IllegalStateException("hwloc topology (" + description + ") already destroyed");
        }
        return t;
    }

    /** What was loaded: "this machine", "synthetic:SPEC", "xml:PATH". */
    public String description() {
        return description;
    }

    /** The object tree, copied once from the native topology (NUMA nodes among {@code memoryChildren}). */
    public synchronized HwlocObject root() {
        if (root == null) {
            root = copy(HwlocInlines.hwloc_get_root_obj(handle()));
        }
        return root;
    }

    /** {@code hwloc_topology_get_depth}: the number of normal levels. */
    public int levels() {
        return hwloc_topology_get_depth(handle());
    }

    /** {@code hwloc_get_type_depth}: the depth of {@code type}; special negative depths for memory/I/O types, -1 when absent, -2 when at several depths. */
    public int depthOf(HwlocObjectType type) {
        return hwloc_get_type_depth(handle(), type.code());
    }

    /** {@code hwloc_get_nbobjs_by_type}: how many objects of {@code type} (-1 when at several depths). */
    public int count(HwlocObjectType type) {
        return HwlocInlines.hwloc_get_nbobjs_by_type(handle(), type.code());
    }

    /** {@code hwloc_get_nbobjs_by_depth}. */
    public int countAtDepth(int depth) {
        return hwloc_get_nbobjs_by_depth(handle(), depth);
    }

    /** Copies of every object of {@code type} in logical order ({@code hwloc_get_obj_by_depth} at the type's depth). */
    public List<HwlocObject> objects(HwlocObjectType type) {
        MemorySegment t = handle();
        int depth = hwloc_get_type_depth(t, type.code());
        List<HwlocObject> out = new ArrayList<>();
        if (depth == HWLOC_TYPE_DEPTH_UNKNOWN || depth == HWLOC_TYPE_DEPTH_MULTIPLE) {
            return out;
        }
        int n = hwloc_get_nbobjs_by_depth(t, depth);
        for (int i = 0; i < n; i++) {
            out.add(copy(hwloc_obj.reinterpret(hwloc_get_obj_by_depth(t, depth, i))));
        }
        return out;
    }

    /** The OS index of the nearest ancestor of type {@code ancestor} of the PU with OS index {@code osPu}, or -1. */
    public int ancestorOsIndex(int osPu, HwlocObjectType ancestor) {
        MemorySegment t = handle();
        MemorySegment pu = HwlocInlines.hwloc_get_pu_obj_by_os_index(t, osPu);
        if (pu.address() == 0) {
            return -1;
        }
        MemorySegment a = HwlocInlines.hwloc_get_ancestor_obj_by_type(t, ancestor.code(), pu);
        return a.address() == 0 ? -1 : hwloc_obj.os_index(a);
    }

    /** True when this topology has a PU with OS index {@code osPu}. */
    public boolean hasPu(int osPu) {
        return HwlocInlines.hwloc_get_pu_obj_by_os_index(handle(), osPu).address() != 0;
    }

    /** True when this topology has a NUMA node with OS index {@code osNode}. */
    public boolean hasNumaNode(int osNode) {
        return HwlocInlines.hwloc_get_numanode_obj_by_os_index(handle(), osNode).address() != 0;
    }

    /** {@code hwloc_topology_get_support}. */
    public HwlocSupport support() {
        MemorySegment s = hwloc_topology_support.reinterpret(hwloc_topology_get_support(handle()));
        MemorySegment d = hwloc_topology_discovery_support.reinterpret(hwloc_topology_support.discovery(s));
        MemorySegment c = hwloc_topology_cpubind_support.reinterpret(hwloc_topology_support.cpubind(s));
        MemorySegment m = hwloc_topology_membind_support.reinterpret(hwloc_topology_support.membind(s));
        return new HwlocSupport(
                hwloc_topology_discovery_support.pu(d) != 0,
                hwloc_topology_discovery_support.numa(d) != 0,
                hwloc_topology_discovery_support.numa_memory(d) != 0,
                hwloc_topology_cpubind_support.set_thisthread_cpubind(c) != 0,
                hwloc_topology_cpubind_support.get_thisthread_cpubind(c) != 0,
                hwloc_topology_cpubind_support.get_thisthread_last_cpu_location(c) != 0,
                hwloc_topology_membind_support.set_area_membind(m) != 0,
                hwloc_topology_membind_support.get_area_memlocation(m) != 0,
                hwloc_topology_membind_support.alloc_membind(m) != 0,
                hwloc_topology_membind_support.bind_membind(m) != 0,
                hwloc_topology_membind_support.migrate_membind(m) != 0);
    }

    /** The topology as hwloc 2 XML ({@code hwloc_topology_export_xmlbuffer}). */
    public String exportXml() {
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = allocateCallState(arena);
            MemorySegment bufp = arena.allocate(C_POINTER);
            MemorySegment lenp = arena.allocate(C_INT);
            if (hwloc_topology_export_xmlbuffer(cs, t, bufp, lenp, 0L) != 0) {
                throw new HwlocException("hwloc_topology_export_xmlbuffer", errno(cs));
            }
            MemorySegment buf = bufp.get(C_POINTER, 0);
            try {
                return buf.reinterpret(lenp.get(C_INT, 0)).getString(0);
            } finally {
                hwloc_free_xmlbuffer(t, buf);
            }
        }
    }

    /** Writes the topology as hwloc 2 XML to {@code file} ({@code hwloc_topology_export_xml}). */
    public void exportXml(Path file) throws IOException {
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = allocateCallState(arena);
            if (hwloc_topology_export_xml(cs, t, arena.allocateFrom(file.toAbsolutePath().toString()), 0L) != 0) {
                throw new IOException("cannot export topology to " + file + ": hwloc_topology_export_xml: " + errnoText(cs));
            }
        }
    }

    /**
     * Binds the calling thread to the PU with OS index {@code osPu}
     * ({@code hwloc_set_cpubind(…, HWLOC_CPUBIND_THREAD)}).
     *
     * @throws HwlocException with errno (ENOSYS: not supported; EXDEV: this binding cannot be enforced)
     */
    public void bindCurrentThread(int osPu) {
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined(); HwlocBitmap set = HwlocBitmap.only(osPu)) {
            MemorySegment cs = allocateCallState(arena);
            if (hwloc_set_cpubind(cs, t, set.segment(), HWLOC_CPUBIND_THREAD) != 0) {
                throw new HwlocException("hwloc_set_cpubind", errno(cs), "P#" + osPu + ", THREAD");
            }
        }
    }

    /** The PUs (OS indices) the calling thread is bound to ({@code hwloc_get_cpubind(…, THREAD)}). */
    public List<Integer> currentThreadBinding() {
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined(); HwlocBitmap set = HwlocBitmap.allocate()) {
            MemorySegment cs = allocateCallState(arena);
            if (hwloc_get_cpubind(cs, t, set.segment(), HWLOC_CPUBIND_THREAD) != 0) {
                throw new HwlocException("hwloc_get_cpubind", errno(cs), "THREAD");
            }
            return set.toList();
        }
    }

    /** The PU (OS index) the calling thread last ran on ({@code hwloc_get_last_cpu_location(…, THREAD)}). */
    public int currentThreadLastCpu() {
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined(); HwlocBitmap set = HwlocBitmap.allocate()) {
            MemorySegment cs = allocateCallState(arena);
            if (hwloc_get_last_cpu_location(cs, t, set.segment(), HWLOC_CPUBIND_THREAD) != 0) {
                throw new HwlocException("hwloc_get_last_cpu_location", errno(cs), "THREAD");
            }
            return set.first();
        }
    }

    /**
     * Binds the pages of {@code range} to the NUMA node with OS index {@code osNode}:
     * {@code hwloc_set_area_membind(…, HWLOC_MEMBIND_BIND, BYNODESET | MIGRATE)} — later faults
     * allocate there, pages already touched are migrated. {@code range} should be page aligned;
     * the kernel rounds otherwise.
     *
     * @throws IllegalArgumentException for a heap segment
     * @throws HwlocException           with errno (ENOSYS, EXDEV, EINVAL)
     */
    public void bindArea(MemorySegment range, int osNode) {
        bindArea(range, osNode, true);
    }

    /**
     * {@link #bindArea(MemorySegment, int)}, migrating touched pages only when {@code migrate}: without it the
     * call sets the policy for later faults and leaves touched pages in place, which spares the kernel's
     * migration work (a drain of every CPU's page lists, the mmap lock held for writing).
     */
    public void bindArea(MemorySegment range, int osNode, boolean migrate) {
        if (!range.isNative()) {
            throw new IllegalArgumentException("range: a heap segment cannot be bound to a NUMA node");
        }
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined(); HwlocBitmap nodes = HwlocBitmap.only(osNode)) {
            MemorySegment cs = allocateCallState(arena);
            int flags = HWLOC_MEMBIND_BYNODESET | (migrate ? HWLOC_MEMBIND_MIGRATE : 0);
            if (hwloc_set_area_membind(cs, t, range, range.byteSize(), nodes.segment(), HWLOC_MEMBIND_BIND, flags) != 0) {
                throw new HwlocException("hwloc_set_area_membind", errno(cs), "node " + osNode + ", BIND" + (migrate ? ", MIGRATE" : ""));
            }
        }
    }

    /**
     * The NUMA nodes (OS indices) holding the pages of {@code range}
     * ({@code hwloc_get_area_memlocation(…, BYNODESET)}); pages never touched have no location and
     * are not counted, so an untouched range gives an empty list.
     */
    public List<Integer> areaMemoryLocation(MemorySegment range) {
        if (!range.isNative()) {
            throw new IllegalArgumentException("range: a heap segment has no fixed NUMA placement");
        }
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined(); HwlocBitmap nodes = HwlocBitmap.allocate()) {
            MemorySegment cs = allocateCallState(arena);
            if (hwloc_get_area_memlocation(cs, t, range, range.byteSize(), nodes.segment(), HWLOC_MEMBIND_BYNODESET) != 0) {
                throw new HwlocException("hwloc_get_area_memlocation", errno(cs));
            }
            return nodes.toList();
        }
    }

    /**
     * {@code bytes} of memory bound to NUMA node {@code osNode}
     * ({@code hwloc_alloc_membind(…, HWLOC_MEMBIND_BIND, BYNODESET)}); release with {@link #free}.
     */
    public MemorySegment allocateOnNode(long bytes, int osNode) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("bytes: must be > 0, got " + bytes);
        }
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined(); HwlocBitmap nodes = HwlocBitmap.only(osNode)) {
            MemorySegment cs = allocateCallState(arena);
            MemorySegment p = hwloc_alloc_membind(cs, t, bytes, nodes.segment(), HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET);
            if (p.address() == 0) {
                throw new HwlocException("hwloc_alloc_membind", errno(cs), bytes + " bytes, node " + osNode);
            }
            return p.reinterpret(bytes);
        }
    }

    /** {@code hwloc_free}: releases memory from {@link #allocateOnNode}. */
    public void free(MemorySegment memory) {
        MemorySegment t = handle();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cs = allocateCallState(arena);
            if (hwloc_free(cs, t, memory, memory.byteSize()) != 0) {
                throw new HwlocException("hwloc_free", errno(cs));
            }
        }
    }

    /** {@code hwloc_topology_destroy}; idempotent. */
    @Override
    public synchronized void close() {
        MemorySegment t = topology;
        if (t != null) {
            topology = null;
            hwloc_topology_destroy(t);
        }
    }

    // ---- copying the tree ---------------------------------------------------------------------

    private static HwlocObject copy(MemorySegment o) {
        HwlocObjectType type = HwlocObjectType.of(hwloc_obj.type(o));
        MemorySegment attrPtr = hwloc_obj.attr(o);
        long localMemory = 0;
        HwlocCache cache = null;
        if (attrPtr.address() != 0) {
            MemorySegment attr = hwloc_obj_attr_u.reinterpret(attrPtr);
            if (type == HwlocObjectType.NUMANODE) {
                localMemory = hwloc_numanode_attr_s.local_memory(hwloc_obj_attr_u.numanode(attr));
            } else if (type.isDataCache() || type.isInstructionCache()) {
                MemorySegment c = hwloc_obj_attr_u.cache(attr);
                cache = new HwlocCache(hwloc_cache_attr_s.size(c), hwloc_cache_attr_s.depth(c),
                        hwloc_cache_attr_s.linesize(c), hwloc_cache_attr_s.associativity(c),
                        HwlocCache.Kind.values()[hwloc_cache_attr_s.type(c)]);
            }
        }
        List<HwlocObject> children = new ArrayList<>();
        for (MemorySegment c = child(hwloc_obj.first_child(o)); c != null; c = child(hwloc_obj.next_sibling(c))) {
            children.add(copy(c));
        }
        List<HwlocObject> memory = new ArrayList<>();
        for (MemorySegment c = child(hwloc_obj.memory_first_child(o)); c != null; c = child(hwloc_obj.next_sibling(c))) {
            memory.add(copy(c));
        }
        return new HwlocObject(type, hwloc_obj.logical_index(o), hwloc_obj.os_index(o), hwloc_obj.depth(o),
                HwlocInlines.string(hwloc_obj.name(o)), HwlocInlines.string(hwloc_obj.subtype(o)),
                HwlocBitmap.toList(hwloc_obj.cpuset(o)), HwlocBitmap.toList(hwloc_obj.nodeset(o)),
                hwloc_obj.total_memory(o), localMemory, cache, infos(o), children, memory);
    }

    private static MemorySegment child(MemorySegment addr) {
        return addr.address() == 0 ? null : hwloc_obj.reinterpret(addr);
    }

    private static Map<String, String> infos(MemorySegment o) {
        int n = hwloc_obj.infos_count(o);
        Map<String, String> out = new LinkedHashMap<>();
        if (n == 0) {
            return out;
        }
        long size = hwloc_info_s.sizeof();
        MemorySegment infos = hwloc_obj.infos(o).reinterpret(n * size);
        for (int i = 0; i < n; i++) {
            MemorySegment info = infos.asSlice(i * size, size);
            String name = HwlocInlines.string(hwloc_info_s.name(info));
            String value = HwlocInlines.string(hwloc_info_s.value(info));
            if (name != null) {
                out.putIfAbsent(name, value == null ? "" : value);
            }
        }
        return out;
    }
}
