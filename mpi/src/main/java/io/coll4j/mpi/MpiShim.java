package io.coll4j.mpi;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * FFM downcalls into {@code libcoll4j_mpi.so} (src/main/c/coll4j_mpi.c): every MPI handle stays on the C
 * side, so nothing here depends on one MPI implementation. Datatypes and ops are the ordinals of
 * {@code DType} and {@code Op}; communicators are indices of the shim's table (0 = world). Every int
 * return is an MPI error code. Initialised on first use, after {@link ShimLibrary#open()} has succeeded, when a
 * team asks for MPI. The handles are static finals so that the JIT inlines the downcall into the latency path
 * (through an instance field it is an unknown MethodHandle: invokeBasic and a LambdaForm on every call).
 */
final class MpiShim {
    static final MethodHandle INIT;
    static final MethodHandle FINALIZE_MPI;
    static final MethodHandle COMM_RANK;
    static final MethodHandle COMM_SIZE;
    static final MethodHandle COMM_SPLIT;
    static final MethodHandle COMM_FREE;
    static final MethodHandle PROCESSOR_NAME;
    static final MethodHandle ALLREDUCE;
    static final MethodHandle BCAST;
    /**
     * The same carrying the check word of a small call ({descriptor, count, chain}): inside the payload as extra
     * elements (coll4j_mpi_*_tag) or, for a bcast and the reductions without an exact encoding, in a header in front
     * of it (coll4j_mpi_*_chk).
     */
    static final MethodHandle ALLREDUCE_TAG;
    static final MethodHandle REDUCE_TAG;
    static final MethodHandle ALLGATHER_TAG;
    static final MethodHandle BCAST_CHK;
    static final MethodHandle REDUCE_SCATTER_BLOCK_TAG;
    static final MethodHandle GATHERV_BYTES_TAG;
    static final MethodHandle SCATTERV_BYTES_TAG;
    static final MethodHandle ALLGATHERV_BYTES_TAG;
    static final MethodHandle ALLTOALLV_BYTES_TAG;
    static final MethodHandle REDUCE;
    static final MethodHandle REDUCE_SCATTER_BLOCK;
    static final MethodHandle ALLGATHER;
    static final MethodHandle BARRIER;
    static final MethodHandle GATHERV_BYTES;
    static final MethodHandle SCATTERV_BYTES;
    static final MethodHandle ALLGATHERV_BYTES;
    static final MethodHandle ALLTOALLV_BYTES;
    static final MethodHandle SEND;
    static final MethodHandle RECV;
    static final MethodHandle ERROR_STRING;
    static final MethodHandle ABORT;
    static final MethodHandle WTIME;
    static final MethodHandle OP_CREATE;
    static final MethodHandle ALLREDUCE_USER;
    static final MethodHandle REDUCE_USER;
    static final MethodHandle REDUCE_SCATTER_BLOCK_USER;
    static final MethodHandle IALLREDUCE;
    static final MethodHandle IBCAST;
    static final MethodHandle IREDUCE;
    static final MethodHandle IREDUCE_SCATTER_BLOCK;
    static final MethodHandle IALLGATHER;
    static final MethodHandle IBARRIER;
    static final MethodHandle IGATHERV_BYTES;
    static final MethodHandle ISCATTERV_BYTES;
    static final MethodHandle IALLGATHERV_BYTES;
    static final MethodHandle IALLTOALLV_BYTES;
    static final MethodHandle ISEND;
    static final MethodHandle IRECV;
    static final MethodHandle TEST;
    /** Point-to-point between the ranks of a team (MpiMessages). */
    static final MethodHandle P2P_ISEND;
    static final MethodHandle P2P_ISEND_LARGE;
    static final MethodHandle P2P_POLL;
    static final MethodHandle P2P_PROBE_PAYLOAD;
    static final MethodHandle P2P_MRECV;

    static {
        SymbolLookup lib = ShimLibrary.open();
        Linker linker = Linker.nativeLinker();
        FunctionDescriptor i = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
        INIT = h(linker, lib, "coll4j_mpi_init", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        FINALIZE_MPI = h(linker, lib, "coll4j_mpi_finalize", FunctionDescriptor.of(JAVA_INT));
        COMM_RANK = h(linker, lib, "coll4j_mpi_comm_rank", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        COMM_SIZE = h(linker, lib, "coll4j_mpi_comm_size", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        COMM_SPLIT = h(linker, lib, "coll4j_mpi_comm_split", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
        COMM_FREE = h(linker, lib, "coll4j_mpi_comm_free", i);
        PROCESSOR_NAME = h(linker, lib, "coll4j_mpi_processor_name", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        ALLREDUCE = h(linker, lib, "coll4j_mpi_allreduce",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        BCAST = h(linker, lib, "coll4j_mpi_bcast", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        ALLREDUCE_TAG = h(linker, lib, "coll4j_mpi_allreduce_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        REDUCE_TAG = h(linker, lib, "coll4j_mpi_reduce_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
        ALLGATHER_TAG = h(linker, lib, "coll4j_mpi_allgather_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        BCAST_CHK = h(linker, lib, "coll4j_mpi_bcast_chk",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        REDUCE_SCATTER_BLOCK_TAG = h(linker, lib, "coll4j_mpi_reduce_scatter_block_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        GATHERV_BYTES_TAG = h(linker, lib, "coll4j_mpi_gatherv_bytes_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        SCATTERV_BYTES_TAG = h(linker, lib, "coll4j_mpi_scatterv_bytes_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        ALLGATHERV_BYTES_TAG = h(linker, lib, "coll4j_mpi_allgatherv_bytes_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        ALLTOALLV_BYTES_TAG = h(linker, lib, "coll4j_mpi_alltoallv_bytes_tag",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        REDUCE = h(linker, lib, "coll4j_mpi_reduce",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT));
        REDUCE_SCATTER_BLOCK = h(linker, lib, "coll4j_mpi_reduce_scatter_block",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        ALLGATHER = h(linker, lib, "coll4j_mpi_allgather", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        BARRIER = h(linker, lib, "coll4j_mpi_barrier", i);
        GATHERV_BYTES = h(linker, lib, "coll4j_mpi_gatherv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_INT));
        SCATTERV_BYTES = h(linker, lib, "coll4j_mpi_scatterv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
        ALLGATHERV_BYTES = h(linker, lib, "coll4j_mpi_allgatherv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS));
        ALLTOALLV_BYTES = h(linker, lib, "coll4j_mpi_alltoallv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        SEND = h(linker, lib, "coll4j_mpi_send", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        RECV = h(linker, lib, "coll4j_mpi_recv", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
        ERROR_STRING = h(linker, lib, "coll4j_mpi_error_string", FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, JAVA_INT));
        ABORT = h(linker, lib, "coll4j_mpi_abort", i);
        WTIME = h(linker, lib, "coll4j_mpi_wtime", FunctionDescriptor.of(JAVA_DOUBLE));
        OP_CREATE = h(linker, lib, "coll4j_mpi_op_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        ALLREDUCE_USER = h(linker, lib, "coll4j_mpi_allreduce_user",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        REDUCE_USER = h(linker, lib, "coll4j_mpi_reduce_user",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT));
        REDUCE_SCATTER_BLOCK_USER = h(linker, lib, "coll4j_mpi_reduce_scatter_block_user",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT));
        // the non-blocking calls: the last argument receives the index of the request in the shim's table
        IALLREDUCE = h(linker, lib, "coll4j_mpi_iallreduce",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        IBCAST = h(linker, lib, "coll4j_mpi_ibcast",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        IREDUCE = h(linker, lib, "coll4j_mpi_ireduce",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
        IREDUCE_SCATTER_BLOCK = h(linker, lib, "coll4j_mpi_ireduce_scatter_block",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        IALLGATHER = h(linker, lib, "coll4j_mpi_iallgather",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        IBARRIER = h(linker, lib, "coll4j_mpi_ibarrier", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        IGATHERV_BYTES = h(linker, lib, "coll4j_mpi_igatherv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        ISCATTERV_BYTES = h(linker, lib, "coll4j_mpi_iscatterv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        IALLGATHERV_BYTES = h(linker, lib, "coll4j_mpi_iallgatherv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        IALLTOALLV_BYTES = h(linker, lib, "coll4j_mpi_ialltoallv_bytes",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        ISEND = h(linker, lib, "coll4j_mpi_isend", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        IRECV = h(linker, lib, "coll4j_mpi_irecv", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS));
        TEST = h(linker, lib, "coll4j_mpi_test", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        P2P_ISEND = h(linker, lib, "coll4j_mpi_p2p_isend",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        P2P_ISEND_LARGE = h(linker, lib, "coll4j_mpi_p2p_isend_large",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
        P2P_POLL = h(linker, lib, "coll4j_mpi_p2p_poll",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
        P2P_PROBE_PAYLOAD = h(linker, lib, "coll4j_mpi_p2p_probe_payload",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
        P2P_MRECV = h(linker, lib, "coll4j_mpi_p2p_mrecv", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    }

    private static MethodHandle h(Linker linker, SymbolLookup lib, String name, FunctionDescriptor d) {
        MemorySegment sym = lib.find(name).orElseThrow(() -> new IllegalStateException(
                "libcoll4j_mpi.so has no symbol " + name + " (a stale build? rebuild coll4j-mpi)"));
        return linker.downcallHandle(sym, d);
    }

    private MpiShim() {
    }
}
