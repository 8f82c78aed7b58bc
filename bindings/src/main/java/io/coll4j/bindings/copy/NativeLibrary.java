package io.coll4j.bindings.copy;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * Loads {@code libcoll4j.so} (built from {@code bindings/src/main/c} by the Maven build and packed into
 * the jar under {@code native/linux-x86_64/}) once per process: the resource is extracted to a temporary
 * file and opened with {@link SymbolLookup#libraryLookup(Path, Arena)}. When it cannot be — another OS or
 * CPU, a build without gcc, a load error, or {@code -Dcoll4j.native.disable=true} — {@link #lookup()} is
 * empty and {@link #status()} says why; every user falls back to Java code.
 */
public final class NativeLibrary {
    /** Where the build puts the library inside the jar. */
    public static final String RESOURCE = "/native/linux-x86_64/libcoll4j.so";
    /** System property that forces the Java fallback (tests of the fallback path). */
    public static final String DISABLE_PROPERTY = "coll4j.native.disable";

    private static final Loaded LOADED = load();

    private record Loaded(SymbolLookup lookup, String status) {
    }

    private NativeLibrary() {
    }

    /** The library's symbols, or empty when it is not available. */
    public static Optional<SymbolLookup> lookup() {
        return Optional.ofNullable(LOADED.lookup());
    }

    /** "loaded from <path>" or why it is not available. */
    public static String status() {
        return LOADED.status();
    }

    private static Loaded load() {
        if (Boolean.getBoolean(DISABLE_PROPERTY)) {
            return new Loaded(null, "disabled by -D" + DISABLE_PROPERTY + "=true");
        }
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return new Loaded(null, "built for linux-x86_64 only (this is " + os + "-" + arch + ")");
        }
        try (InputStream in = NativeLibrary.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return new Loaded(null, RESOURCE.substring(1) + " is not in this build (gcc was missing when it was built)");
            }
            Path tmp = Files.createTempFile("libcoll4j", ".so");
            tmp.toFile().deleteOnExit();
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            SymbolLookup lookup = SymbolLookup.libraryLookup(tmp, Arena.global());
            return new Loaded(lookup, "libcoll4j.so loaded from the jar");
        } catch (IOException | RuntimeException e) {
            return new Loaded(null, "libcoll4j.so could not be loaded: " + e.getMessage());
        }
    }
}
