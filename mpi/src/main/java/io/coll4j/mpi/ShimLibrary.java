package io.coll4j.mpi;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Opens {@code libcoll4j_mpi.so} once per process. Separate from {@link MpiShim} so that a missing shim or MPI
 * library is a clear {@link IllegalStateException} a caller can report and retry, not a failed class
 * initialisation of the handles (which would surface as {@code NoClassDefFoundError} on the next attempt).
 */
final class ShimLibrary {
    static final String RESOURCE = "native/linux-x86_64/libcoll4j_mpi.so";

    private static SymbolLookup opened;

    private ShimLibrary() {
    }

    /**
     * Extracts the shim from the jar and opens it (which loads the MPI library it links against); later calls
     * return the same library.
     *
     * @throws IllegalStateException naming what is missing: the shim (mpicc absent at build time) or the
     *                               MPI library (dlopen's message)
     */
    static synchronized SymbolLookup open() {
        if (opened != null) {
            return opened;
        }
        Path file = null;
        try (InputStream in = ShimLibrary.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("MPI: " + RESOURCE + " is not in coll4j-mpi's jar: mpicc was missing when it was "
                        + "built (install openmpi-bin libopenmpi-dev, or another MPI, and rebuild)");
            }
            file = Files.createTempFile("libcoll4j_mpi-", ".so");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            opened = SymbolLookup.libraryLookup(file, Arena.global());
            return opened;
        } catch (IOException e) {
            throw new IllegalStateException("MPI: cannot extract " + RESOURCE + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("MPI: cannot load libcoll4j_mpi.so (" + e.getMessage()
                    + "); is the MPI runtime it was built against installed (libopenmpi3 / openmpi-bin)?", e);
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
