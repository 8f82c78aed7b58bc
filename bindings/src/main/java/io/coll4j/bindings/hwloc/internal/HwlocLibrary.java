package io.coll4j.bindings.hwloc.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Loads {@code libhwloc.so.15} (the hwloc 2.x ABI) by name, once per process, and links downcalls
 * against it. When the library cannot be loaded, {@link #isAvailable()} is false and
 * {@link #unavailableReason()} says why; nothing else in this package may then be called (the lazily
 * linked holders in {@link hwloc_h} would throw {@link IllegalStateException}).
 *
 * <p>The system property {@value #LIBRARY_PROPERTY} names another library to load instead (a path or
 * a soname); pointing it at a library that does not exist is how the sysfs fallback is exercised on a
 * machine that has hwloc.
 */
@SuppressWarnings("restricted")   // FFM binding code: reinterpret/downcall are its job
public final class HwlocLibrary {
    /** The soname of the hwloc 2.x ABI this binding is written against (Debian {@code libhwloc15}). */
    public static final String SONAME = "libhwloc.so.15";
    /** System property overriding {@link #SONAME}. */
    public static final String LIBRARY_PROPERTY = "coll4j.hwloc.library";
    /** Lowest runtime API version whose structs match the layouts here: hwloc 2.4 added the last field read (discovery.cpukind_efficiency). */
    public static final int MIN_API_VERSION = 0x00020400;

    private static final String NAME = System.getProperty(LIBRARY_PROPERTY, SONAME);
    private static final SymbolLookup LOOKUP;
    private static final String FAILURE;

    static {
        SymbolLookup lookup = null;
        String failure = null;
        try {
            // Arena.global(): the library stays loaded for the life of the process, as handles
            // linked against it are cached in static holders.
            lookup = SymbolLookup.libraryLookup(NAME, Arena.global());
        } catch (IllegalArgumentException | IllegalCallerException e) {
            failure = NAME + " not loadable: " + e.getMessage();
        }
        if (lookup != null) {
            failure = checkApiVersion(lookup);
            if (failure != null) {
                lookup = null;
            }
        }
        LOOKUP = lookup;
        FAILURE = failure;
    }

    private HwlocLibrary() {
    }

    private static String checkApiVersion(SymbolLookup lookup) {
        try {
            MethodHandle mh = Linker.nativeLinker().downcallHandle(
                    lookup.findOrThrow("hwloc_get_api_version"), FunctionDescriptor.of(hwloc_h.C_INT));
            int api = (int) mh.invokeExact();
            if ((api >>> 16) != 2 || api < MIN_API_VERSION) {
                return NAME + " has API version 0x" + Integer.toHexString(api)
                        + "; these bindings need the hwloc 2.x ABI, API >= 0x" + Integer.toHexString(MIN_API_VERSION);
            }
            return null;
        } catch (Throwable t) {
            return NAME + " loaded but hwloc_get_api_version failed: " + t;
        }
    }

    /** True when the library loaded and its API version matches these bindings. */
    public static boolean isAvailable() {
        return LOOKUP != null;
    }

    /** Why the library is unavailable ({@code null} when it is available). */
    public static String unavailableReason() {
        return FAILURE;
    }

    /** The library name that was (or was tried to be) loaded. */
    public static String name() {
        return NAME;
    }

    /** The address of {@code symbol}; {@link IllegalStateException} when the library is unavailable. */
    static MemorySegment find(String symbol) {
        if (LOOKUP == null) {
            throw new IllegalStateException("hwloc unavailable: " + FAILURE);
        }
        return LOOKUP.findOrThrow(symbol);
    }

    /** Links {@code symbol} with {@code desc}, the way jextract's generated holders do. */
    static MethodHandle downcall(String symbol, FunctionDescriptor desc, Linker.Option... options) {
        return Linker.nativeLinker().downcallHandle(find(symbol), desc, options);
    }
}
