package io.coll4j.bindings.copy;

import io.coll4j.topology.Fallbacks;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code libcoll4j.so}, the native part of coll4j (C sources in {@code bindings/src/main/c}, built by
 * the Maven build with gcc and packed into the jar at {@value #RESOURCE}). Loaded once, on first use:
 * the resource is extracted to a temporary file, opened with
 * {@link SymbolLookup#libraryLookup(Path, Arena) libraryLookup} in the global arena (it is never
 * unloaded), and the file is deleted again right away (on Linux an opened shared object stays mapped).
 *
 * <p>When it cannot be loaded the reason is recorded ({@link #unavailableReason()}) and every caller
 * falls back to Java; nothing here throws at class initialisation. Reasons: the system property
 * {@value #DISABLE_PROPERTY}{@code =true} (forces the fallback, for tests and comparisons), not
 * Linux x86-64, the resource missing from the class path (gcc was absent at build time), or the
 * loader's error.
 *
 * <p>Public only for {@link #available()} and {@link #status()}; the bindings themselves are
 * {@link NativeCopy} and {@link NativeReduce}.
 */
public final class NativeLibrary {

    /** Class-path location of the library. */
    static final String RESOURCE = "native/linux-x86_64/libcoll4j.so";

    /** {@code -Dcoll4j.native.disable=true}: do not load the library; every copy uses MemorySegment.copy. */
    static final String DISABLE_PROPERTY = "coll4j.native.disable";

    /** The outcome of loading. */
    sealed interface Load permits Loaded, Unavailable {
    }

    /** The library is loaded; {@code lookup} finds its symbols. */
    record Loaded(SymbolLookup lookup) implements Load {
    }

    /** The library is not loaded, for {@code reason} (one line, no trailing period). */
    record Unavailable(String reason) implements Load {
    }

    private static final Load LOAD = load(Boolean.getBoolean(DISABLE_PROPERTY),
            System.getProperty("os.name", ""), System.getProperty("os.arch", ""),
            NativeLibrary.class.getClassLoader(), RESOURCE);

    static {
        if (LOAD instanceof Unavailable(String reason)) {
            Fallbacks.note("native library", "libcoll4j.so not loaded (" + reason
                    + "); copies use MemorySegment.copy and folds the Java kernels (no NT stores)");
        }
    }

    private NativeLibrary() {
    }

    /** True when libcoll4j.so is loaded in this JVM. */
    public static boolean available() {
        return LOAD instanceof Loaded;
    }

    /** One line: {@code "libcoll4j.so loaded from the jar"}, or why it is not loaded. */
    public static String status() {
        return LOAD instanceof Unavailable(String reason) ? reason : "libcoll4j.so loaded from the jar";
    }

    /** Why the library is not loaded, or empty when it is. */
    static Optional<String> unavailableReason() {
        return LOAD instanceof Unavailable(String reason) ? Optional.of(reason) : Optional.empty();
    }

    /**
     * A downcall handle for {@code name}. When the library or the symbol is missing, a handle of the
     * same type that throws {@link UnsatisfiedLinkError} naming the reason when invoked (as jextract's
     * generated code does), so holder classes always initialise; callers check {@link #available()}.
     */
    static MethodHandle downcall(String name, FunctionDescriptor desc, Linker.Option... options) {
        String missing;
        if (LOAD instanceof Loaded(SymbolLookup lookup)) {
            Optional<MemorySegment> symbol = lookup.find(name);
            if (symbol.isPresent()) {
                return Linker.nativeLinker().downcallHandle(symbol.get(), desc, options);
            }
            missing = name + " not found in libcoll4j.so";
        } else {
            missing = "libcoll4j.so unavailable: " + ((Unavailable) LOAD).reason();
        }
        MethodHandle thrower = MethodHandles.throwException(desc.toMethodType().returnType(), UnsatisfiedLinkError.class)
                .bindTo(new UnsatisfiedLinkError(missing));
        return MethodHandles.dropArguments(thrower, 0, desc.toMethodType().parameterList());
    }

    /**
     * Loads the library from {@code resource} of {@code loader} unless {@code disabled} or the
     * platform is not Linux x86-64. Never throws: every failure becomes an {@link Unavailable}.
     * Package-private so tests can reach every outcome.
     */
    static Load load(boolean disabled, String osName, String osArch, ClassLoader loader, String resource) {
        if (disabled) {
            return new Unavailable("disabled by -D" + DISABLE_PROPERTY + "=true");
        }
        String arch = osArch.toLowerCase(Locale.ROOT);
        if (!osName.toLowerCase(Locale.ROOT).startsWith("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            return new Unavailable("built for linux-x86_64 only, this is " + osName + "/" + osArch);
        }
        Path file = null;
        try (InputStream in = loader == null ? null : loader.getResourceAsStream(resource)) {
            if (in == null) {
                return new Unavailable(resource + " not on the class path (was gcc missing at build time?)");
            }
            file = Files.createTempFile("libcoll4j-", ".so");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return new Loaded(SymbolLookup.libraryLookup(file, Arena.global()));
        } catch (IOException | RuntimeException e) {
            // IllegalArgumentException carries dlopen's message; IOException a failed extraction
            return new Unavailable("cannot load: " + e.getMessage());
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);   // the mapping outlives the file
                } catch (IOException ignored) {
                    file.toFile().deleteOnExit();
                }
            }
        }
    }
}
