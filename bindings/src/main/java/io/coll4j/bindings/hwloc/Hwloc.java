package io.coll4j.bindings.hwloc;

import io.coll4j.bindings.hwloc.internal.HwlocLibrary;
import io.coll4j.bindings.hwloc.internal.hwloc_h;

/**
 * Whether hwloc is usable in this process, and which version. Everything else in this package needs
 * {@link #isAvailable()}; where it is false, {@link #unavailableReason()} says why (library absent,
 * wrong ABI) and coll4j's topology falls back to Linux sysfs.
 */
public final class Hwloc {
    private Hwloc() {
    }

    /** True when {@code libhwloc.so.15} loaded and has the hwloc 2.x API. */
    public static boolean isAvailable() {
        return HwlocLibrary.isAvailable();
    }

    /** Why hwloc is unavailable, e.g. {@code "libhwloc.so.15 not loadable: …"}; {@code null} when available. */
    public static String unavailableReason() {
        return HwlocLibrary.unavailableReason();
    }

    /** The library name loaded (or tried). */
    public static String libraryName() {
        return HwlocLibrary.name();
    }

    /** {@code hwloc_get_api_version()}, e.g. {@code 0x20800} for hwloc 2.8 and 2.9. */
    public static int apiVersion() {
        requireAvailable();
        return hwloc_h.hwloc_get_api_version();
    }

    /**
     * The release of the loaded library, e.g. {@code "2.9.0"}: the {@code hwlocVersion} info hwloc puts
     * on the root of every topology it loads (read once from a one-PU synthetic topology, which
     * touches nothing on the machine). Falls back to the API version when the info is missing.
     */
    public static String version() {
        return VersionHolder.VERSION;
    }

    static void requireAvailable() {
        if (!HwlocLibrary.isAvailable()) {
            throw new IllegalStateException("hwloc unavailable: " + HwlocLibrary.unavailableReason());
        }
    }

    private static final class VersionHolder {
        static final String VERSION = probe();

        private static String probe() {
            requireAvailable();
            try (HwlocTopology t = HwlocTopology.loadSynthetic("pu:1")) {
                String v = t.root().info("hwlocVersion");
                if (v != null) {
                    return v;
                }
            }
            int api = hwloc_h.hwloc_get_api_version();
            return (api >>> 16) + "." + ((api >>> 8) & 0xff) + " (API)";
        }
    }
}
