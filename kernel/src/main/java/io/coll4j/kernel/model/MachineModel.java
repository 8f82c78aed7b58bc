package io.coll4j.kernel.model;

import io.coll4j.reductions.DType;
import io.coll4j.topology.Topology;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The machine parameters the algorithms' cost functions are written in (docs/design.md, "Machine model and selection"; [HMPI §2.1]):
 * a read or write of m contiguous bytes costs {@code a + m/b}; {@code a} is a latency (one cache-line
 * transfer between cores), {@code b} a bandwidth. All times in seconds, bandwidths in bytes/second.
 *
 * @param lineLatencySameL3      a_α: one modified line moved between two cores sharing the LLC
 * @param lineLatencyCrossL3     between cores of one package in different LLC groups
 * @param lineLatencyCrossPackage a_β: between packages
 * @param copyBandwidthCached    one core copying in cache data another core has just written (read + write of
 *                               m bytes takes m / this): HMPI's 1/b_α, the copy every collective makes
 * @param copyBandwidthStream    one core copying from/to DRAM with temporal stores
 * @param ntCopyBandwidth        one core copying to DRAM with non-temporal stores
 * @param memoryBandwidth        all cores of a package together, DRAM (1/B_α of HMPI's congestion term)
 * @param crossPackageBandwidth  all traffic between two packages together (1/B_β)
 * @param reduceBandwidthCached  one core, {@code dst = a op b} in cache, bytes of dst per second (f64 sum)
 * @param reduceBandwidthStream  the same from/to DRAM
 * @param cacheCapacity          C of [YHCCL §4.2]: LLC, or LLC + p·L2 for a non-inclusive LLC
 * @param l2Bytes                private L2 per core (sets the default slice size of the sliced algorithms)
 * @param source                 where the numbers come from: "defaults for &lt;topology&gt;" or a profile path
 * @param reduceCachedByDtype    {@code reduceBandwidthCached} per element type (every dtype present)
 * @param reduceStreamByDtype    {@code reduceBandwidthStream} per element type (every dtype present)
 * @param callOverhead           o: the software cost of one collective call on a rank (argument checks,
 *                               sequence stamps, plan dispatch), paid once per call whatever the algorithm;
 *                               the LogP "o" that HMPI's hardware-only model leaves out and that dominates
 *                               small messages on a JVM
 * @param peerLinePull           seconds per 64-byte line another core wrote during the call, over reading it in cache
 *                               ({@link #peerLinePrice}); NaN: not calibrated, a_α / {@value #OVERLAPPED_PULLS}
 * @param consumedLinePull       the same for a result line read after the call ({@link #consumedLinePrice}); NaN as above
 * @param llcRateShare           the share of the in-cache copy and fold rates a rank gets once its message exceeds a
 *                               quarter of its L2 ({@link #forMessage}); NaN: not calibrated, the same rates at every size
 *
 * <p>A profile ({@code collbench tune} writes it; {@link #load}, {@code Team.Builder.profile} and the
 * environment variable {@value #PROFILE_ENV} read it) is a JSON object with one number per scalar
 * component under the component's name, and {@code reduceBandwidthByDtype: {f32: {cached, stream}, …}}.
 */
public record MachineModel(
        double lineLatencySameL3,
        double lineLatencyCrossL3,
        double lineLatencyCrossPackage,
        double copyBandwidthCached,
        double copyBandwidthStream,
        double ntCopyBandwidth,
        double memoryBandwidth,
        double crossPackageBandwidth,
        double reduceBandwidthCached,
        double reduceBandwidthStream,
        long cacheCapacity,
        long l2Bytes,
        String source,
        Map<DType, Double> reduceCachedByDtype,
        Map<DType, Double> reduceStreamByDtype,
        double callOverhead,
        double peerLinePull,
        double consumedLinePull,
        double llcRateShare) {

    /** Default o: what a collective call costs on a 2020s core before it touches a peer's line. */
    public static final double DEFAULT_CALL_OVERHEAD = 150e-9;

    /**
     * The point-to-point crossover: messages up to this many bytes are sent eagerly (copied through the pair's ring,
     * the send completes at once), larger ones by rendezvous (one copy by the receiver from the sender's buffer).
     * AMPI measured 4 KB in latency [AMPI §5.3.2]. Here both protocols were run at every size from 1 KiB to 64 KiB
     * ({@code collbench latency|bw --eager-limit 64K} against {@code --eager-limit 64}): rendezvous was ahead from
     * 4 KiB in latency and bandwidth, eager ahead at 2 KiB and below in bandwidth (its send completes without the
     * receiver), so the crossover is 2 KiB; docs/measurements.md, "Point-to-point", has the numbers and commands.
     */
    public static final long P2P_EAGER_MAX_BYTES = 2048;

    /** Environment variable naming a profile every team without an explicit model or profile loads. */
    public static final String PROFILE_ENV = "COLL4J_PROFILE";

    /** Value of the profile's {@code format} field. */
    public static final String PROFILE_FORMAT = "coll4j-profile/1";

    /** Names of the scalar numeric fields of a profile, in component order. */
    public static final List<String> PROFILE_FIELDS = List.of("lineLatencySameL3", "lineLatencyCrossL3",
            "lineLatencyCrossPackage", "copyBandwidthCached", "copyBandwidthStream", "ntCopyBandwidth", "memoryBandwidth",
            "crossPackageBandwidth", "reduceBandwidthCached", "reduceBandwidthStream", "cacheCapacity", "l2Bytes",
            "callOverhead");

    /**
     * Line pulls from a peer's cache in flight at once in a sequential read, while {@link #peerLinePull} and
     * {@link #consumedLinePull} are not calibrated: a_α / this per line (it fits one state of the machine it was
     * measured on and not another: docs/design.md, "Where the model is still wrong"; the numbers:
     * docs/measurements.md).
     */
    public static final int OVERLAPPED_PULLS = 6;

    /** Profile fields of the calibrated line pulls: optional (a profile without them prices a_α / {@value #OVERLAPPED_PULLS}). */
    public static final List<String> LINE_PULL_FIELDS = List.of("peerLinePull", "consumedLinePull");

    /** Profile field of {@link #llcRateShare}: optional (a profile without it prices in-cache rates alike at every size). */
    public static final String LLC_RATE_SHARE_FIELD = "llcRateShare";

    public MachineModel {
        reduceCachedByDtype = perDtype(reduceCachedByDtype, reduceBandwidthCached);
        reduceStreamByDtype = perDtype(reduceStreamByDtype, reduceBandwidthStream);
    }

    /** The model with the line pulls not calibrated ({@link #peerLinePrice}: a_α / {@value #OVERLAPPED_PULLS}). */
    public MachineModel(double lineLatencySameL3, double lineLatencyCrossL3, double lineLatencyCrossPackage,
                        double copyBandwidthCached, double copyBandwidthStream, double ntCopyBandwidth,
                        double memoryBandwidth, double crossPackageBandwidth, double reduceBandwidthCached,
                        double reduceBandwidthStream, long cacheCapacity, long l2Bytes, String source,
                        Map<DType, Double> reduceCachedByDtype, Map<DType, Double> reduceStreamByDtype, double callOverhead) {
        this(lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached, copyBandwidthStream,
                ntCopyBandwidth, memoryBandwidth, crossPackageBandwidth, reduceBandwidthCached, reduceBandwidthStream,
                cacheCapacity, l2Bytes, source, reduceCachedByDtype, reduceStreamByDtype, callOverhead, Double.NaN, Double.NaN,
                Double.NaN);
    }

    /**
     * What pulling one 64-byte line costs, over reading it at {@code copyBandwidthCached}, when another core wrote it
     * during the call and it is still modified in that core's cache (a transfer between cores per line, several in
     * flight; HMPI's a and b depend on the line's state [HMPI §2.1]): {@link #peerLinePull} when calibrated, else
     * a_α / {@value #OVERLAPPED_PULLS}.
     */
    public double peerLinePrice() {
        return Double.isNaN(peerLinePull) ? lineLatencySameL3 / OVERLAPPED_PULLS : peerLinePull;
    }

    /**
     * The same for a line of the result that the caller reads after the call ({@code --consume}, an application):
     * {@link #consumedLinePull} when calibrated, else a_α / {@value #OVERLAPPED_PULLS}. A price of its own: the
     * reader comes after the whole call, with no copy of its own overlapping the transfers (measured 2–3x the
     * pull inside a call, docs/design.md).
     */
    public double consumedLinePrice() {
        return Double.isNaN(consumedLinePull) ? lineLatencySameL3 / OVERLAPPED_PULLS : consumedLinePull;
    }

    /** This model with both line-pull prices calibrated, seconds per line ({@code collbench explain --measure} fits them). */
    public MachineModel withLinePulls(double inCall, double consumed) {
        return with(source, callOverhead, inCall, consumed, llcRateShare);
    }

    /**
     * This model with every line hand-over (a_α, and across L3 groups and packages) times {@code share} and the call
     * overhead o taking the rest of one same-L3 hand-over, so an 8-byte dissemination allreduce (o + a_α, what o is
     * calibrated on) is priced the same: what the collectives' dependent hand-overs cost of the ping-pong's, which
     * measures one line moved with nothing else in flight ({@code collbench explain --measure} fits it).
     */
    public MachineModel withHandOverShare(double share) {
        return new MachineModel(lineLatencySameL3 * share, lineLatencyCrossL3 * share, lineLatencyCrossPackage * share,
                copyBandwidthCached, copyBandwidthStream, ntCopyBandwidth, memoryBandwidth, crossPackageBandwidth,
                reduceBandwidthCached, reduceBandwidthStream, cacheCapacity, l2Bytes, source, reduceCachedByDtype,
                reduceStreamByDtype, Math.max(MIN_CALL_OVERHEAD, callOverhead + (1 - share) * lineLatencySameL3), peerLinePull,
                consumedLinePull, llcRateShare);
    }

    /** The least o {@link #withHandOverShare} leaves: a call costs something, and a profile's o must be positive. */
    public static final double MIN_CALL_OVERHEAD = 1e-9;

    /** This model with {@link #llcRateShare} set ({@code collbench explain --measure} fits it). */
    public MachineModel withLlcRateShare(double share) {
        return with(source, callOverhead, peerLinePull, consumedLinePull, share);
    }

    /**
     * This model for a call of {@code bytes} per rank: with {@link #llcRateShare} calibrated and the message beyond a
     * quarter of the L2, the in-cache copy and fold rates times that share. Such a rank's send and receive buffers and
     * the peers' lines it reads no longer fit its L2 together, so its in-cache copies and folds stream from the shared
     * LLC, not at the L2-resident rates the probes measure (without it the rows from 512 KiB measured over their
     * prediction in every session; the numbers: docs/measurements.md). The result has
     * the share spent ({@code NaN}), so applying this twice scales once.
     */
    public MachineModel forMessage(long bytes) {
        if (Double.isNaN(llcRateShare) || bytes <= l2Bytes / 4) {
            return this;
        }
        double f = llcRateShare;
        Map<DType, Double> cached = new EnumMap<>(DType.class);
        reduceCachedByDtype.forEach((t, v) -> cached.put(t, v * f));
        return new MachineModel(lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached * f,
                copyBandwidthStream, ntCopyBandwidth, memoryBandwidth, crossPackageBandwidth, reduceBandwidthCached * f,
                reduceBandwidthStream, cacheCapacity, l2Bytes, source, cached, reduceStreamByDtype, callOverhead,
                peerLinePull, consumedLinePull, Double.NaN);
    }

    /**
     * This model with every rate beyond the cache (streaming copy, NT copy, DRAM, streaming folds of every dtype)
     * times {@code factor}: what the collectives' own access patterns achieve of the probes' single-pattern rates
     * ({@code collbench explain --measure} fits it to the rows beyond the cache).
     */
    public MachineModel withStreamingRates(double factor) {
        Map<DType, Double> stream = new EnumMap<>(DType.class);
        reduceStreamByDtype.forEach((t, v) -> stream.put(t, v * factor));
        return new MachineModel(lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached,
                copyBandwidthStream * factor, ntCopyBandwidth * factor, memoryBandwidth * factor, crossPackageBandwidth,
                reduceBandwidthCached, reduceBandwidthStream * factor, cacheCapacity, l2Bytes, source, reduceCachedByDtype,
                stream, callOverhead, peerLinePull, consumedLinePull, llcRateShare);
    }

    /** The model without per-dtype reduction rates: every dtype reduces at the f64 rates given. */
    public MachineModel(double lineLatencySameL3, double lineLatencyCrossL3, double lineLatencyCrossPackage,
                        double copyBandwidthCached, double copyBandwidthStream, double ntCopyBandwidth,
                        double memoryBandwidth, double crossPackageBandwidth, double reduceBandwidthCached,
                        double reduceBandwidthStream, long cacheCapacity, long l2Bytes, String source) {
        this(lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached, copyBandwidthStream,
                ntCopyBandwidth, memoryBandwidth, crossPackageBandwidth, reduceBandwidthCached, reduceBandwidthStream,
                cacheCapacity, l2Bytes, source, null, null, DEFAULT_CALL_OVERHEAD);
    }

    private static Map<DType, Double> perDtype(Map<DType, Double> given, double fallback) {
        EnumMap<DType, Double> m = new EnumMap<>(DType.class);
        for (DType t : DType.values()) {
            Double v = given == null ? null : given.get(t);
            m.put(t, v != null ? v : fallback);
        }
        return Collections.unmodifiableMap(m);
    }

    /**
     * Defaults for a topology, from typical 2020s x86 server numbers: ~80 ns to move a modified line
     * inside an LLC group, ~150 ns across LLC groups, ~250 ns across packages; ~25 GB/s single-core
     * copy in cache, ~10 GB/s to DRAM (~14 GB/s with NT stores); ~20 GB/s of DRAM per core up to
     * ~100 GB/s per package. `collbench tune` replaces them with measurements.
     */
    public static MachineModel defaults(Topology t) {
        int coresPerPackage = Math.max(1, t.cores().size() / Math.max(1, t.packages().size()));
        double mem = Math.min(100e9, 20e9 * coresPerPackage);
        long l2 = t.l2Bytes() > 0 ? t.l2Bytes() : 1L << 20;
        long llc = t.llcBytes() > 0 ? t.llcBytes() : 8L << 20;
        return new MachineModel(80e-9, 150e-9, 250e-9, 25e9, 10e9, 14e9, mem, 40e9, 20e9, 8e9,
                t.llcInclusive() ? llc : llc + l2 * t.cores().size(), l2, "defaults for " + t.source());
    }

    /**
     * The model a team gets when none is given: the profile named by {@value #PROFILE_ENV} in {@code env}
     * when set and non-empty (an unreadable profile is an error, never silently the defaults), else
     * {@link #defaults}.
     */
    public static MachineModel fromEnvironment(Topology t, Map<String, String> env) {
        String path = env.get(PROFILE_ENV);
        if (path == null || path.isBlank()) {
            return defaults(t);
        }
        try {
            return load(Path.of(path));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(PROFILE_ENV + ": " + e.getMessage(), e);
        }
    }

    /** This model with the reduction rates of {@code dtype} in {@code reduceBandwidthCached/Stream}, what cost() reads. */
    public MachineModel forDtype(DType dtype) {
        double c = reduceCachedByDtype.get(dtype);
        double s = reduceStreamByDtype.get(dtype);
        if (c == reduceBandwidthCached && s == reduceBandwidthStream) {
            return this;
        }
        return new MachineModel(lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached,
                copyBandwidthStream, ntCopyBandwidth, memoryBandwidth, crossPackageBandwidth, c, s, cacheCapacity, l2Bytes,
                source, reduceCachedByDtype, reduceStreamByDtype, callOverhead, peerLinePull, consumedLinePull, llcRateShare);
    }

    /**
     * This model for a team spread over {@code packages} packages: each package's DRAM serves its own
     * ranks, so the congestion term's bandwidth (B_α, {@code memoryBandwidth}, per package) is
     * {@code packages} times larger [HMPI §2.1]. The β terms (traffic between packages) are the cost
     * functions' to add. One package: this model.
     */
    public MachineModel forPackages(int packages) {
        if (packages < 1) {
            throw new IllegalArgumentException("packages must be >= 1, got " + packages);
        }
        if (packages == 1) {
            return this;
        }
        return new MachineModel(lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached,
                copyBandwidthStream, ntCopyBandwidth, memoryBandwidth * packages, crossPackageBandwidth, reduceBandwidthCached,
                reduceBandwidthStream, cacheCapacity, l2Bytes, source, reduceCachedByDtype, reduceStreamByDtype, callOverhead,
                peerLinePull, consumedLinePull, llcRateShare);
    }

    /** The same numbers with another {@code source}. */
    public MachineModel withSource(String newSource) {
        return with(newSource, callOverhead, peerLinePull, consumedLinePull, llcRateShare);
    }

    /** This model's rates and latencies with the given source, o and fitted values. */
    private MachineModel with(String src, double o, double peer, double consumed, double llc) {
        return new MachineModel(lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached,
                copyBandwidthStream, ntCopyBandwidth, memoryBandwidth, crossPackageBandwidth, reduceBandwidthCached,
                reduceBandwidthStream, cacheCapacity, l2Bytes, src, reduceCachedByDtype, reduceStreamByDtype, o, peer, consumed, llc);
    }

    /** This model with the per-call overhead o replaced ({@code collbench explain --measure} calibrates it per collective). */
    public MachineModel withCallOverhead(double o) {
        return with(source, o, peerLinePull, consumedLinePull, llcRateShare);
    }

    /** The scalar fields of a profile, by {@link #PROFILE_FIELDS} name. */
    public Map<String, Number> profileFields() {
        Map<String, Number> m = new LinkedHashMap<>();
        double[] d = {lineLatencySameL3, lineLatencyCrossL3, lineLatencyCrossPackage, copyBandwidthCached,
                copyBandwidthStream, ntCopyBandwidth, memoryBandwidth, crossPackageBandwidth, reduceBandwidthCached,
                reduceBandwidthStream};
        for (int k = 0; k < d.length; k++) {
            m.put(PROFILE_FIELDS.get(k), d[k]);
        }
        m.put("cacheCapacity", cacheCapacity);
        m.put("l2Bytes", l2Bytes);
        m.put("callOverhead", callOverhead);
        if (!Double.isNaN(peerLinePull)) {
            m.put(LINE_PULL_FIELDS.get(0), peerLinePull);
            m.put(LINE_PULL_FIELDS.get(1), consumedLinePull);
        }
        if (!Double.isNaN(llcRateShare)) {
            m.put(LLC_RATE_SHARE_FIELD, llcRateShare);
        }
        return m;
    }

    /**
     * Reads a profile. A missing or unreadable file, bad JSON, or a field that is missing, not a number or
     * not positive is an {@link IllegalArgumentException} naming the path and the field.
     */
    public static MachineModel load(Path path) {
        String text;
        try {
            text = Files.readString(path);
        } catch (IOException e) {
            throw new IllegalArgumentException("profile " + path + ": cannot read (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")", e);
        }
        Object root;
        try {
            root = ProfileJson.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("profile " + path + ": " + e.getMessage(), e);
        }
        if (!(root instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException("profile " + path + ": not a JSON object");
        }
        double[] d = new double[10];
        for (int k = 0; k < d.length; k++) {
            d[k] = positive(path, PROFILE_FIELDS.get(k), m.get(PROFILE_FIELDS.get(k)), m.containsKey(PROFILE_FIELDS.get(k)));
        }
        long cache = bytes(path, "cacheCapacity", m);
        long l2 = bytes(path, "l2Bytes", m);
        double o = positive(path, "callOverhead", m.get("callOverhead"), m.containsKey("callOverhead"));
        Object byDtype = m.get("reduceBandwidthByDtype");
        if (!(byDtype instanceof Map<?, ?> bd)) {
            throw new IllegalArgumentException("profile " + path + ": field 'reduceBandwidthByDtype' is "
                    + (byDtype == null ? "missing" : "not an object"));
        }
        Map<DType, Double> cached = new EnumMap<>(DType.class);
        Map<DType, Double> stream = new EnumMap<>(DType.class);
        for (DType t : DType.values()) {
            String f = "reduceBandwidthByDtype." + t.cliName();
            if (bd.get(t.cliName()) == null && rateBase(t) != t) {
                continue;   // a profile from before this dtype existed: its base type's rates, below
            }
            if (!(bd.get(t.cliName()) instanceof Map<?, ?> one)) {
                throw new IllegalArgumentException("profile " + path + ": field '" + f + "' is "
                        + (bd.get(t.cliName()) == null ? "missing" : "not an object"));
            }
            cached.put(t, positive(path, f + ".cached", one.get("cached"), one.containsKey("cached")));
            stream.put(t, positive(path, f + ".stream", one.get("stream"), one.containsKey("stream")));
        }
        for (DType t : DType.values()) {
            cached.putIfAbsent(t, cached.get(rateBase(t)));
            stream.putIfAbsent(t, stream.get(rateBase(t)));
        }
        double[] pulls = {Double.NaN, Double.NaN, Double.NaN};
        for (int k = 0; k < pulls.length; k++) {
            String f = k < 2 ? LINE_PULL_FIELDS.get(k) : LLC_RATE_SHARE_FIELD;
            if (m.containsKey(f)) {   // optional: a profile from before they were calibrated prices a_α / OVERLAPPED_PULLS
                Object v = m.get(f);
                if (!(v instanceof Double x) || !(x >= 0) || x.isInfinite()) {
                    throw new IllegalArgumentException("profile " + path + ": field '" + f + "' must be a number >= 0, got " + v);
                }
                pulls[k] = x;
            }
        }
        return new MachineModel(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], cache, l2,
                PROFILE_SOURCE + path, cached, stream, o, pulls[0], pulls[1], pulls[2]);
    }

    /**
     * The dtype whose rates stand in for {@code t} in a profile without it: F16/BF16 → F32, U32 → I32,
     * U64 → I64, a pair → its value type; the four original dtypes are their own (and required).
     */
    static DType rateBase(DType t) {
        return switch (t) {
            case F16, BF16 -> DType.F32;
            case U32 -> DType.I32;
            case U64 -> DType.I64;
            default -> t.valueType();
        };
    }

    private static double positive(Path path, String field, Object v, boolean present) {
        if (!present || v == null) {
            throw new IllegalArgumentException("profile " + path + ": field '" + field + "' is missing");
        }
        if (!(v instanceof Double d)) {
            throw new IllegalArgumentException("profile " + path + ": field '" + field + "' is not a number");
        }
        if (!(d > 0) || d.isInfinite()) {
            throw new IllegalArgumentException("profile " + path + ": field '" + field + "' must be > 0, got " + d);
        }
        return d;
    }

    private static long bytes(Path path, String field, Map<?, ?> m) {
        double d = positive(path, field, m.get(field), m.containsKey(field));
        if (d != Math.rint(d) || d > Long.MAX_VALUE) {
            throw new IllegalArgumentException("profile " + path + ": field '" + field + "' must be a whole number of bytes, got " + d);
        }
        return (long) d;
    }

    /** What {@link #source} of a loaded profile starts with, before its path. */
    private static final String PROFILE_SOURCE = "profile ";

    /** The profile file this model was read from ({@link #load}), or null for defaults and measured models. */
    public Path profilePath() {
        return source.startsWith(PROFILE_SOURCE) ? Path.of(source.substring(PROFILE_SOURCE.length())) : null;
    }

    /** Optional profile field: the inter-process latency α in microseconds ({@code collbench tune --mpi}). */
    public static final String MPI_ALPHA_FIELD = "mpiAlphaUs";
    /** Optional profile field: the inter-process time per byte β in nanoseconds ({@code collbench tune --mpi}). */
    public static final String MPI_BETA_FIELD = "mpiBetaNsPerByte";

    /** The profile at {@code path} as a JSON object, fields in file order. */
    private static Map<String, Object> profileObject(Path path) {
        try {
            Object root = ProfileJson.parse(Files.readString(path));
            if (root instanceof Map<?, ?> m) {
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = (Map<String, Object>) m;
                return fields;
            }
            throw new IllegalArgumentException("not a JSON object");
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("profile " + path + ": " + e.getMessage(), e);
        }
    }

    /** A top-level number of the profile at {@code path}; NaN when the profile has no such field (optional fields). */
    public static double profileNumber(Path path, String field) {
        Object v = profileObject(path).get(field);
        if (v == null) {
            return Double.NaN;
        }
        if (!(v instanceof Double d) || !(d >= 0) || d.isInfinite()) {
            throw new IllegalArgumentException("profile " + path + ": field '" + field + "' must be a non-negative number, got " + v);
        }
        return d;
    }

    /**
     * Adds {@code fields} to the valid profile at {@code path}, replacing fields of the same names and keeping
     * every other field (how {@code collbench tune --mpi} adds the inter-process pair to a machine's profile).
     */
    public static void putProfileFields(Path path, Map<String, ?> fields) throws IOException {
        load(path);
        Map<String, Object> all = new java.util.LinkedHashMap<>(profileObject(path));
        all.putAll(fields);
        StringBuilder sb = new StringBuilder("{\n");
        boolean first = true;
        for (Map.Entry<String, Object> e : all.entrySet()) {
            sb.append(first ? "" : ",\n").append("  \"").append(escape(e.getKey())).append("\": ").append(jsonValue(exact(e.getValue())));
            first = false;
        }
        Files.writeString(path, sb.append("\n}\n").toString());
    }

    /**
     * A parsed JSON value ready to be written back without loss: whole numbers (byte counts, repetitions) as
     * longs, since {@link #jsonValue} writes doubles with six significant digits (which reproduce every double a
     * profile holds, as it wrote them so).
     */
    private static Object exact(Object v) {
        if (v instanceof Double d && d == Math.rint(d) && Math.abs(d) < 0x1p53) {
            return d.longValue();
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new java.util.LinkedHashMap<>();
            m.forEach((k, x) -> out.put(k, exact(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            return l.stream().map(MachineModel::exact).toList();
        }
        return v;
    }

    /** The profile JSON of this model ({@code extra} fields, e.g. machine and spreads, go first). */
    public String toProfileJson(Map<String, ?> extra) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"format\": \"").append(PROFILE_FORMAT).append("\",\n");
        for (Map.Entry<String, ?> e : extra.entrySet()) {
            sb.append("  \"").append(escape(e.getKey())).append("\": ").append(jsonValue(e.getValue())).append(",\n");
        }
        for (Map.Entry<String, Number> e : profileFields().entrySet()) {
            sb.append("  \"").append(e.getKey()).append("\": ").append(jsonValue(e.getValue())).append(",\n");
        }
        sb.append("  \"reduceBandwidthByDtype\": {");
        boolean first = true;
        for (DType t : DType.values()) {
            sb.append(first ? "\n" : ",\n");
            first = false;
            sb.append("    \"").append(t.cliName()).append("\": {\"cached\": ").append(jsonValue(reduceCachedByDtype.get(t)))
                    .append(", \"stream\": ").append(jsonValue(reduceStreamByDtype.get(t))).append("}");
        }
        sb.append("\n  }\n}\n");
        return sb.toString();
    }

    private static String jsonValue(Object v) {
        if (v instanceof Double d) {
            return String.format(Locale.ROOT, "%.6g", d);
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        if (v instanceof Map<?, ?> m) {
            StringBuilder sb = new StringBuilder("{");
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(first ? "" : ", ").append('"').append(escape(String.valueOf(e.getKey()))).append("\": ")
                        .append(jsonValue(e.getValue()));
                first = false;
            }
            return sb.append('}').toString();
        }
        if (v instanceof List<?> l) {
            StringBuilder sb = new StringBuilder("[");
            for (int k = 0; k < l.size(); k++) {
                sb.append(k == 0 ? "" : ", ").append(jsonValue(l.get(k)));
            }
            return sb.append(']').toString();
        }
        return v == null ? "null" : '"' + escape(v.toString()) + '"';
    }

    private static String escape(String s) {
        StringBuilder sb = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /**
     * Default I_max [YHCCL §5.1]: a quarter of the private L2, so a slice of every input plus the output
     * stay in L2 between copy-in and reduction (YHCCL used 256 KiB with 512 KiB L2s).
     */
    public long defaultMaxSliceBytes() {
        return Math.max(4096, l2Bytes / 4);
    }

    /** Time of the cheapest synchronisation between two ranks at a level: one line there and back is 2·a. */
    public double flagLatency(boolean samePackage) {
        return samePackage ? lineLatencySameL3 : lineLatencyCrossPackage;
    }

    /** Single-core copy time of {@code bytes}: in cache when the working set {@code ws} fits the cache capacity. */
    public double copyTime(long bytes, long ws) {
        return bytes / (ws <= cacheCapacity ? copyBandwidthCached : copyBandwidthStream);
    }

    /**
     * Single-core k-ary fold {@code dst = s0 op … op s(k−1)} in ONE pass over {@code dstBytes} of dst: k + 1
     * streams against the 3 of the measured {@code dst = a op b}, so (k + 1)/3 of its time per dst byte.
     */
    public double foldTime(long dstBytes, int k, long ws) {
        return reduceTime(dstBytes, ws) * (Math.max(2, k) + 1) / 3.0;
    }

    /**
     * HMPI's congestion term B·d·m [HMPI §2.1]: all cores together moving {@code trafficBytes} (reads plus
     * writes) to or from DRAM; 0 while the working set fits the cache (caches serve the fan-out).
     */
    public double dramTime(long trafficBytes, long ws) {
        return ws > cacheCapacity ? trafficBytes / memoryBandwidth : 0;
    }

    /** Single-core {@code dst = a op b} time for {@code bytes} of dst. */
    public double reduceTime(long bytes, long ws) {
        return bytes / (ws <= cacheCapacity ? reduceBandwidthCached : reduceBandwidthStream);
    }
}
