package io.coll4j.mpi;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * FFM downcalls into {@code libcoll4j_mpi.so} (src/main/c/coll4j_mpi.c): every MPI handle stays on the C
 * side, so nothing here depends on one MPI implementation. Datatypes and ops are the ordinals of
 * {@code DType} and {@code Op}; communicators are indices of the shim's table (0 = world). Every int
 * return is an MPI error code. Loaded by {@link #load()} only, when a team asks for MPI.
 */
final class MpiShim {
    static final String RESOURCE = "native/linux-x86_64/libcoll4j_mpi.so";

    final MethodHandle init;
    final MethodHandle finalizeMpi;
    final MethodHandle commRank;
    final MethodHandle commSize;
    final MethodHandle commSplit;
    final MethodHandle processorName;
    final MethodHandle allreduce;
    final MethodHandle bcast;
    final MethodHandle reduce;
    final MethodHandle reduceScatterBlock;
    final MethodHandle allgather;
    final MethodHandle barrier;
    final MethodHandle gathervBytes;
    final MethodHandle scattervBytes;
    final MethodHandle allgathervBytes;
    final MethodHandle alltoallvBytes;
    final MethodHandle send;
    final MethodHandle recv;
    final MethodHandle errorString;
    final MethodHandle abort;
    final MethodHandle wtime;

    private MpiShim(SymbolLookup lib) {
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor i = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
        init = h(linker, lib, "coll4j_mpi_init", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        finalizeMpi = h(linker, lib, "coll4j_mpi_finalize", FunctionDescriptor.of(JAVA_INT));
        commRank = h(linker, lib, "coll4j_mpi_comm_rank", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        commSize = h(linker, lib, "coll4j_mpi_comm_size", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        commSplit = h(linker, lib, "coll4j_mpi_comm_split", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
        processorName = h(linker, lib, "coll4j_mpi_processor_name", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        allreduce = h(linker, lib, "coll4j_mpi_allreduce",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        bcast = h(linker, lib, "coll4j_mpi_bcast", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        reduce = h(linker, lib, "coll4j_mpi_reduce",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT));
        reduceScatterBlock = h(linker, lib, "coll4j_mpi_reduce_scatter_block",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        allgather = h(linker, lib, "coll4j_mpi_allgather", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        barrier = h(linker, lib, "coll4j_mpi_barrier", i);
        gathervBytes = h(linker, lib, "coll4j_mpi_gatherv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        scattervBytes = h(linker, lib, "coll4j_mpi_scatterv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        allgathervBytes = h(linker, lib, "coll4j_mpi_allgatherv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS));
        alltoallvBytes = h(linker, lib, "coll4j_mpi_alltoallv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        send = h(linker, lib, "coll4j_mpi_send", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        recv = h(linker, lib, "coll4j_mpi_recv", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        errorString = h(linker, lib, "coll4j_mpi_error_string", FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, JAVA_INT));
        abort = h(linker, lib, "coll4j_mpi_abort", i);
        wtime = h(linker, lib, "coll4j_mpi_wtime", FunctionDescriptor.of(JAVA_DOUBLE));
    }

    private static MethodHandle h(Linker linker, SymbolLookup lib, String name, FunctionDescriptor d) {
        MemorySegment sym = lib.find(name).orElseThrow(() -> new IllegalStateException(
                "libcoll4j_mpi.so has no symbol " + name + " (a stale build? rebuild coll4j-mpi)"));
        return linker.downcallHandle(sym, d);
    }

    /**
     * Extracts the shim from the jar and opens it (which loads the MPI library it links against).
     *
     * @throws IllegalStateException naming what is missing: the shim (mpicc absent at build time) or the
     *                               MPI library (dlopen's message)
     */
    static MpiShim load() {
        Path file = null;
        try (InputStream in = MpiShim.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("MPI: " + RESOURCE + " is not in coll4j-mpi's jar: mpicc was missing when it was "
                        + "built (install openmpi-bin libopenmpi-dev, or another MPI, and rebuild)");
            }
            file = Files.createTempFile("libcoll4j_mpi-", ".so");
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            return new MpiShim(SymbolLookup.libraryLookup(file, Arena.global()));
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
