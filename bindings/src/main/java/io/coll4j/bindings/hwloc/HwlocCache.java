package io.coll4j.bindings.hwloc;

/**
 * The cache attributes of a cache object ({@code attr->cache}).
 *
 * @param sizeBytes     size in bytes (0 when unknown)
 * @param level         1 for L1, 2 for L2, …
 * @param lineBytes     line size in bytes (0 when unknown)
 * @param associativity ways; 0 unknown, -1 fully associative
 * @param kind          unified, data or instruction
 */
public record HwlocCache(long sizeBytes, int level, int lineBytes, int associativity, Kind kind) {
    /** {@code hwloc_obj_cache_type_t}. */
    public enum Kind { UNIFIED, DATA, INSTRUCTION }
}
