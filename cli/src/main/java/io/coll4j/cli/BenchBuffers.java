package io.coll4j.cli;

import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.cli.CollectiveBenchmark.Shape;
import io.coll4j.reductions.DType;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Each rank's buffers of one benchmark: native memory from {@code rank.allocate} (NUMA-local) for coll4j's algorithms,
 * the dtype's Java arrays for the {@code cyclicbarrier} baseline, allocated once per team at the sweep's largest size
 * and sliced per size; with {@code --cold}, a region of at least 2·C/p bytes (C the cache capacity to overrun) cut
 * into page-aligned slots (see {@link CollectiveBenchmark}).
 */
final class BenchBuffers {
    static final long PAGE = 4096;

    private final DType dtype;
    /** Per rank: native send/recv at the sweep's largest size, and Java arrays for the baseline. */
    private final MemorySegment[] nativeSend;
    private final MemorySegment[] nativeRecv;
    private final MemorySegment[] heapSend;
    private final MemorySegment[] heapRecv;
    /** Cache capacity to overrun with {@code --cold}, 0 for warm runs. */
    private final long coldCache;
    private final long regionBytes;
    /** {@code --heap}: coll4j's algorithms get the Java arrays too (a process team then stages them through its transport). */
    private boolean heapForAll;

    BenchBuffers(DType dtype, long maxBytes, int threads, long coldCache) {
        this.dtype = dtype;
        this.nativeSend = new MemorySegment[threads];
        this.nativeRecv = new MemorySegment[threads];
        this.heapSend = new MemorySegment[threads];
        this.heapRecv = new MemorySegment[threads];
        this.coldCache = coldCache;
        // warm: the largest buffer; cold: at least 2C/p per send and per recv region, so the team's regions span 4C
        long region = Math.max(maxBytes, 1);
        if (coldCache > 0) {
            region = Math.max(2 * slotBytes(maxBytes), roundUp(2 * coldCache / threads, PAGE));
        }
        this.regionBytes = region;
    }

    private static long roundUp(long v, long to) {
        return (v + to - 1) / to * to;
    }

    private static long slotBytes(long bytes) {
        return roundUp(Math.max(bytes, 1), PAGE);
    }

    /** {@code --heap}: every algorithm gets the dtype's Java arrays, as the baseline does. */
    void heapForAll() {
        heapForAll = true;
    }

    /** True once a measured algorithm has allocated native buffers (what {@link #checkPlacement} inspects). */
    boolean hasNative() {
        return nativeSend[0] != null;
    }


    /**
     * Asks hwloc ({@code hwloc_get_area_memlocation}) on which NUMA nodes each rank's send and receive
     * pages are, prints one line per rank to {@code err}, and returns how many buffers are not wholly on
     * their rank's node.
     */
    long checkPlacement(Team team, java.io.PrintWriter err) {
        if (!io.coll4j.bindings.hwloc.Hwloc.isAvailable()) {
            err.println("placement: hwloc not available (" + io.coll4j.bindings.hwloc.Hwloc.unavailableReason() + "): not checked");
            return 0;
        }
        long bad = 0;
        try (io.coll4j.bindings.hwloc.HwlocTopology host = io.coll4j.bindings.hwloc.HwlocTopology.loadHost()) {
            io.coll4j.topology.Topology topo = team.topology();
            for (int r = 0; r < nativeSend.length; r++) {
                io.coll4j.topology.Pu pu = team.placement().pu(r);
                int node = pu.numa() >= 0 && pu.numa() < topo.numaNodes().size() ? topo.numaNodes().get(pu.numa()).osIndex() : -1;
                StringBuilder line = new StringBuilder("placement: rank " + r + " (PU " + pu.osIndex() + ", NUMA node " + node + "):");
                boolean ok = true;
                for (String which : new String[]{"send", "recv"}) {
                    MemorySegment seg = which.equals("send") ? nativeSend[r] : nativeRecv[r];
                    List<Integer> nodes = host.areaMemoryLocation(seg);
                    boolean local = nodes.equals(List.of(node));
                    ok &= local || nodes.isEmpty();
                    if (!local && !nodes.isEmpty()) {
                        bad++;
                    }
                    line.append(' ').append(which).append(' ').append(seg.byteSize()).append(" B on ")
                            .append(nodes.isEmpty() ? "no node yet (untouched)" : "node(s) " + nodes);
                }
                line.append(ok ? ": local" : ": WARNING pages off the rank's NUMA node");
                err.println(line);
            }
        } catch (RuntimeException e) {
            err.println("placement: hwloc query failed: " + e.getMessage());
        }
        err.flush();
        return bad;
    }

    /** A rank's buffer slots at one size: slot k's send and receive views (one slot when warm). */
    record Slots(MemorySegment[] sends, MemorySegment[] recvs) {
    }

    /**
     * This rank's slots at {@code shape}, cut from its regions (allocated on first use): Java arrays for the
     * {@code baseline}, native memory otherwise. Warm: one slot at offset 0; cold: every page-aligned slot of the region.
     */
    Slots slots(Rank rank, Shape shape, boolean baseline) {
        int me = rank.localId();  // this process's arrays
        MemorySegment sendRegion;
        MemorySegment recvRegion;
        if (baseline || heapForAll) {
            if (heapSend[me] == null) {
                heapSend[me] = array(regionBytes);
                heapRecv[me] = array(regionBytes);
            }
            sendRegion = heapSend[me];
            recvRegion = heapRecv[me];
        } else {
            if (nativeSend[me] == null) {
                nativeSend[me] = rank.allocate(regionBytes);
                nativeRecv[me] = rank.allocate(regionBytes);
            }
            sendRegion = nativeSend[me];
            recvRegion = nativeRecv[me];
        }
        int slots = coldCache > 0 ? (int) Math.max(1, Math.min(1 << 20,
                regionBytes / slotBytes(Math.max(shape.sendBytes(), shape.recvBytes())))) : 1;
        long stride = slotBytes(Math.max(shape.sendBytes(), shape.recvBytes()));
        MemorySegment[] sends = new MemorySegment[slots];
        MemorySegment[] recvs = new MemorySegment[slots];
        for (int k = 0; k < slots; k++) {
            sends[k] = sendRegion.asSlice(k * stride, shape.sendBytes());
            recvs[k] = recvRegion.asSlice(k * stride, shape.recvBytes());
        }
        return new Slots(sends, recvs);
    }

    private MemorySegment array(long bytes) {
        // the dtype's own array type; a pair's is long[], whose 8-byte slots are counted in bytes, not elements
        Class<?> component = dtype.arrayType().componentType();
        int slot = component == double.class || component == long.class ? 8 : component == short.class ? 2 : 4;
        int len = Math.toIntExact(Math.max(1, (bytes + slot - 1) / slot));
        return switch (java.lang.reflect.Array.newInstance(component, len)) {
            case double[] d -> MemorySegment.ofArray(d);
            case float[] f -> MemorySegment.ofArray(f);
            case int[] i -> MemorySegment.ofArray(i);
            case long[] l -> MemorySegment.ofArray(l);
            case short[] h -> MemorySegment.ofArray(h);
            default -> throw new IllegalStateException("no array for " + dtype);
        };
    }
}
