package io.coll4j.topology;

import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The places where coll4j quietly chose a slower path because something was missing on this machine —
 * libhwloc (topology from sysfs), libcoll4j.so or AVX2 (copies through {@code MemorySegment.copy}, folds
 * in Java), a thread or memory binding that did not take — each logged once per process through
 * {@link System.Logger} (logger {@value #LOGGER}, level WARNING) and kept here for {@code collbench topo}.
 * The scalar-reduction fallback is logged by {@code io.coll4j.reductions.internal.Reducers}, which does not depend
 * on this module.
 */
public final class Fallbacks {

    /** The name of the logger every fallback is logged to. */
    public static final String LOGGER = "io.coll4j";

    private static final System.Logger LOG = System.getLogger(LOGGER);
    private static final Map<String, String> NOTED = new ConcurrentSkipListMap<>();

    private Fallbacks() {
    }

    /**
     * Records that the fallback {@code what} (a short key such as {@code "topology"}) is in use, and why;
     * logs {@code message} at WARNING the first time {@code what} is noted in this process.
     */
    public static void note(String what, String message) {
        if (NOTED.putIfAbsent(what, message) == null) {
            LOG.log(Level.WARNING, "coll4j: " + message);
        }
    }

    /** Every fallback noted so far, as {@code "what: message"} lines, sorted by {@code what}. */
    public static List<String> noted() {
        return NOTED.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue()).toList();
    }
}
