package io.coll4j.topology;

import java.util.Map;
import java.util.Set;

/**
 * Whether a cache is inclusive of the levels above it. The YHCCL copy rule needs it: the capacity a
 * working set can stay in is the LLC when it is inclusive, and LLC + p·L2 when it is not
 * [YHCCL §4.2; docs/design.md, "Copy engine"].
 *
 * <p>The rule, in order:
 * <ol>
 * <li>hwloc's {@code Inclusive} info on the cache object. hwloc 2.9 sets it on Linux x86 from CPUID
 *     (leaf 4 on Intel, leaf 0x8000001D on AMD, EDX bit 1 "cache inclusive of lower levels"); it
 *     survives an XML export. On this kind of machine (AMD EPYC, Zen 4) hwloc reports L3
 *     {@code Inclusive=0} and L2 {@code Inclusive=1}. Synthetic topologies have no such info.</li>
 * <li>Otherwise (sysfs has no inclusiveness file), a vendor rule for L3 from the package's CPU
 *     identification ({@code /proc/cpuinfo}, or hwloc's {@code CPUVendor}/{@code CPUFamilyNumber}/
 *     {@code CPUModelNumber}):
 *     <ul>
 *     <li>AMD and Hygon: non-inclusive. Zen's L3 is a victim cache filled by L2 evictions; the
 *         K10/Bulldozer L3 was a non-inclusive victim cache as well.</li>
 *     <li>Intel family 6: non-inclusive from Skylake-SP on for servers (models 0x55 Skylake/Cascade/
 *         Cooper Lake-SP, 0x6A/0x6C Ice Lake-SP/D, 0x8F Sapphire Rapids, 0xCF Emerald Rapids,
 *         0xAD/0xAE Granite Rapids, 0xAF Sierra Forest) and from Tiger Lake on for clients (0x8C/0x8D
 *         Tiger Lake, 0x97/0x9A Alder Lake, 0xB7/0xBA/0xBF Raptor Lake, 0xAA/0xAC Meteor Lake,
 *         0xBD Lunar Lake, 0xC5/0xC6 Arrow Lake); inclusive before (Nehalem through Broadwell,
 *         client Skylake through Ice Lake).</li>
 *     </ul></li>
 * <li>Otherwise unknown, assumed inclusive: capacity C = LLC, YHCCL's plain rule, which never
 *     overestimates what fits.</li>
 * </ol>
 */
public final class CacheInclusion {
    private static final Set<Integer> INTEL_NON_INCLUSIVE_L3 = Set.of(
            0x55, 0x6A, 0x6C, 0x8F, 0xCF, 0xAD, 0xAE, 0xAF,
            0x8C, 0x8D, 0x97, 0x9A, 0xB7, 0xBA, 0xBF, 0xAA, 0xAC, 0xBD, 0xC5, 0xC6);

    private CacheInclusion() {
    }

    /**
     * The verdict for one cache.
     *
     * @param inclusive whether the cache is (taken as) inclusive
     * @param source    where that comes from, one line
     */
    public record Verdict(boolean inclusive, String source) {
    }

    /**
     * Applies the rule to {@code cache} (a {@link TopologyNode.Type#CACHE} node), with {@code cpu} the
     * CPU identification infos of its package (may be empty).
     */
    public static Verdict of(TopologyNode cache, Map<String, String> cpu) {
        String hw = cache.info().get("Inclusive");
        if (hw != null) {
            return new Verdict("1".equals(hw.trim()), "hwloc (CPUID): Inclusive=" + hw.trim());
        }
        int level = cache.cache().level();
        String vendor = cpu.getOrDefault("CPUVendor", "");
        if (level >= 3 && (vendor.equals("AuthenticAMD") || vendor.equals("HygonGenuine"))) {
            return new Verdict(false, "vendor rule: " + vendor + " L3 is a victim cache, non-inclusive");
        }
        if (level == 3 && vendor.equals("GenuineIntel")) {
            int family = parseInt(cpu.get("CPUFamilyNumber"));
            int model = parseInt(cpu.get("CPUModelNumber"));
            if (family == 6 && INTEL_NON_INCLUSIVE_L3.contains(model)) {
                return new Verdict(false, "vendor rule: Intel family 6 model 0x" + Integer.toHexString(model)
                        + " (Skylake-SP+ server / Tiger Lake+ client) L3 is non-inclusive");
            }
            if (family == 6) {
                return new Verdict(true, "vendor rule: Intel family 6 model 0x" + Integer.toHexString(model)
                        + " (before Skylake-SP / Tiger Lake) L3 is inclusive");
            }
        }
        return new Verdict(true, "unknown: assumed inclusive (capacity = LLC)");
    }

    private static int parseInt(String s) {
        if (s == null) {
            return -1;
        }
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
