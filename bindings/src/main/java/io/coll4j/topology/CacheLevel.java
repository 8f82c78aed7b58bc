package io.coll4j.topology;

/**
 * One level of data (or unified) caches.
 *
 * @param level           1 for L1, …
 * @param name            lstopo's name: "L1d", "L2", "L3"
 * @param sizeBytes       size of one instance (the largest, where instances differ as on hybrid CPUs)
 * @param lineBytes       line size in bytes (0 when unknown)
 * @param instances       how many instances the machine has
 * @param inclusive       whether this level holds a copy of everything in the levels above it
 * @param inclusiveSource where {@code inclusive} comes from: hwloc's CPUID reading, a vendor rule, or an assumption
 */
public record CacheLevel(int level, String name, long sizeBytes, int lineBytes, int instances, boolean inclusive,
                         String inclusiveSource) {
}
