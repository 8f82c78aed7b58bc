/*
 * coll4j_mpi: the C shim between coll4j's FFM bindings (io.coll4j.mpi.MpiShim) and the installed MPI.
 *
 * MPI handle types differ between implementations (Open MPI: pointers to global objects; MPICH:
 * integers), so Java never sees one: datatypes and ops travel as small ints (the ordinals of coll4j's
 * DType and Op), communicators as indices into the table below. Compiled against the installed mpi.h
 * with mpicc at build time (build-mpi.sh). Every function returns an MPI error code (0 = MPI_SUCCESS).
 * Counts are 64-bit on the Java side; the rooted and all-to-all calls are cut into chunks of at most
 * CHUNK elements so that MPI's int counts never overflow.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#define MAX_COMMS 1024
#define CHUNK (1L << 28)

static MPI_Comm comms[MAX_COMMS];
static int ncomms;

static MPI_Datatype dtype_of(int d) {
    switch (d) {   /* io.coll4j.reductions.DType ordinals */
        case 0: return MPI_FLOAT;
        case 1: return MPI_DOUBLE;
        case 2: return MPI_INT32_T;
        case 3: return MPI_INT64_T;
        default: return MPI_DATATYPE_NULL;
    }
}

static int dsize(int d) {
    return (d == 1 || d == 3) ? 8 : 4;
}

static MPI_Op op_of(int o) {
    switch (o) {   /* io.coll4j.reductions.Op ordinals */
        case 0: return MPI_SUM;
        case 1: return MPI_PROD;
        case 2: return MPI_MIN;
        case 3: return MPI_MAX;
        case 4: return MPI_BAND;
        case 5: return MPI_BOR;
        case 6: return MPI_BXOR;
        default: return MPI_OP_NULL;
    }
}

static MPI_Comm comm_of(int c) {
    return (c >= 0 && c < ncomms) ? comms[c] : MPI_COMM_NULL;
}

/*
 * Open MPI loads its components with dlopen and they expect libmpi's symbols in the global namespace;
 * the JVM opens this shim (and so libmpi) RTLD_LOCAL. Re-opening libmpi RTLD_GLOBAL first fixes that;
 * on implementations without that need the dlopen is harmless, and a failed one is not an error.
 */
static void promote_libmpi(void) {
    Dl_info info;
    if (dladdr((void *) &MPI_Init_thread, &info) && info.dli_fname) {
        dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    }
}

/* Initialises MPI asking for `required`: 3 = MPI_THREAD_MULTIPLE, 2 = SERIALIZED, 1 = FUNNELED, 0 = SINGLE. Writes the
 * level provided, coded 0 single, 1 funneled, 2 serialized, 3 multiple. Communicator 0 is the world. */
int coll4j_mpi_init(int required, int *provided) {
    promote_libmpi();
    int want = required == 3 ? MPI_THREAD_MULTIPLE : required == 2 ? MPI_THREAD_SERIALIZED
             : required == 1 ? MPI_THREAD_FUNNELED : MPI_THREAD_SINGLE;
    int got = MPI_THREAD_SINGLE;
    int rc = MPI_Init_thread(NULL, NULL, want, &got);
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    /* errors come back as codes, so the Java side can name the call that failed before it aborts */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    *provided = got == MPI_THREAD_MULTIPLE ? 3 : got == MPI_THREAD_SERIALIZED ? 2 : got == MPI_THREAD_FUNNELED ? 1 : 0;
    comms[0] = MPI_COMM_WORLD;
    ncomms = 1;
    return MPI_SUCCESS;
}

int coll4j_mpi_finalize(void) {
    for (int i = 1; i < ncomms; i++) {
        MPI_Comm_free(&comms[i]);
    }
    ncomms = 0;
    return MPI_Finalize();
}

int coll4j_mpi_comm_rank(int comm, int *rank) {
    return MPI_Comm_rank(comm_of(comm), rank);
}

int coll4j_mpi_comm_size(int comm, int *size) {
    return MPI_Comm_size(comm_of(comm), size);
}

/* MPI_Comm_split of `comm`; writes the new communicator's index. Collective over `comm`. */
int coll4j_mpi_comm_split(int comm, int color, int key, int *out) {
    if (ncomms == MAX_COMMS) {
        return MPI_ERR_COMM;
    }
    MPI_Comm c;
    int rc = MPI_Comm_split(comm_of(comm), color, key, &c);
    if (rc == MPI_SUCCESS) {
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        comms[ncomms] = c;
        *out = ncomms++;
    }
    return rc;
}

/* The host name, NUL-terminated, at most len bytes. */
int coll4j_mpi_processor_name(char *buf, int len) {
    char name[MPI_MAX_PROCESSOR_NAME];
    int n = 0;
    int rc = MPI_Get_processor_name(name, &n);
    if (rc == MPI_SUCCESS && len > 0) {
        int m = n < len - 1 ? n : len - 1;
        memcpy(buf, name, (size_t) m);
        buf[m] = 0;
    }
    return rc;
}

/* send == NULL means in place (MPI_IN_PLACE). */
int coll4j_mpi_allreduce(int comm, const void *send, void *recv, int64_t count, int dtype, int op) {
    for (int64_t off = 0; off < count || (count == 0 && off == 0); off += CHUNK) {
        int n = (int) (count - off < CHUNK ? count - off : CHUNK);
        size_t b = (size_t) off * (size_t) dsize(dtype);
        int rc = MPI_Allreduce(send ? (const char *) send + b : MPI_IN_PLACE, (char *) recv + b, n,
                               dtype_of(dtype), op_of(op), comm_of(comm));
        if (rc != MPI_SUCCESS || count == 0) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

int coll4j_mpi_bcast(int comm, void *buf, int64_t count, int dtype, int root) {
    for (int64_t off = 0; off < count || (count == 0 && off == 0); off += CHUNK) {
        int n = (int) (count - off < CHUNK ? count - off : CHUNK);
        int rc = MPI_Bcast((char *) buf + (size_t) off * (size_t) dsize(dtype), n, dtype_of(dtype), root, comm_of(comm));
        if (rc != MPI_SUCCESS || count == 0) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* At the root send == NULL means in place (the contribution is in recv); elsewhere recv is unused. */
int coll4j_mpi_reduce(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int root) {
    for (int64_t off = 0; off < count || (count == 0 && off == 0); off += CHUNK) {
        int n = (int) (count - off < CHUNK ? count - off : CHUNK);
        size_t b = (size_t) off * (size_t) dsize(dtype);
        int rc = MPI_Reduce(send ? (const char *) send + b : MPI_IN_PLACE, recv ? (char *) recv + b : NULL, n,
                            dtype_of(dtype), op_of(op), root, comm_of(comm));
        if (rc != MPI_SUCCESS || count == 0) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

int coll4j_mpi_reduce_scatter_block(int comm, const void *send, void *recv, int64_t recvcount, int dtype, int op) {
    if (recvcount > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    return MPI_Reduce_scatter_block(send, recv, (int) recvcount, dtype_of(dtype), op_of(op), comm_of(comm));
}

/* send == NULL means in place: this process's block of recv already holds its contribution. */
int coll4j_mpi_allgather(int comm, const void *send, void *recv, int64_t count, int dtype) {
    if (count > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    return MPI_Allgather(send ? send : MPI_IN_PLACE, (int) count, dtype_of(dtype), recv, (int) count,
                         dtype_of(dtype), comm_of(comm));
}

int coll4j_mpi_barrier(int comm) {
    return MPI_Barrier(comm_of(comm));
}

int coll4j_mpi_send(int comm, const void *buf, int64_t bytes, int dest) {
    if (bytes > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    return MPI_Send(buf, (int) bytes, MPI_BYTE, dest, 0, comm_of(comm));
}

int coll4j_mpi_recv(int comm, void *buf, int64_t bytes, int src) {
    if (bytes > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    return MPI_Recv(buf, (int) bytes, MPI_BYTE, src, 0, comm_of(comm), MPI_STATUS_IGNORE);
}

/* The message of an MPI error code, NUL-terminated. */
void coll4j_mpi_error_string(int code, char *buf, int len) {
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, s, &n) != MPI_SUCCESS) {
        n = 0;
    }
    int m = n < len - 1 ? n : len - 1;
    if (len > 0) {
        memcpy(buf, s, (size_t) (m < 0 ? 0 : m));
        buf[m < 0 ? 0 : m] = 0;
    }
}

int coll4j_mpi_abort(int code) {
    return MPI_Abort(MPI_COMM_WORLD, code);
}

double coll4j_mpi_wtime(void) {
    return MPI_Wtime();
}

/*
 * The data-movement collectives (gather, scatter, alltoall and their v-forms) move bytes: MPI_BYTE works
 * for every coll4j dtype (half floats and pairs have no MPI type) and nothing is reduced. Counts and
 * displacements arrive as int64 byte counts, one per process, and must fit MPI's int.
 */
static int to_ints(const int64_t *in, int *out, int n) {
    for (int i = 0; i < n; i++) {
        if (in[i] < 0 || in[i] > INT_MAX) {
            return MPI_ERR_COUNT;
        }
        out[i] = (int) in[i];
    }
    return MPI_SUCCESS;
}

static int comm_size_of(int comm) {
    int n = 0;
    MPI_Comm_size(comm_of(comm), &n);
    return n;
}

/* MPI_Gatherv of bytes; at the root send == NULL means in place (its block of recv holds its part). */
int coll4j_mpi_gatherv_bytes(int comm, const void *send, int64_t send_bytes, void *recv, const int64_t *counts,
                             const int64_t *displs, int root) {
    int n = comm_size_of(comm), me = -1;
    MPI_Comm_rank(comm_of(comm), &me);
    if (send_bytes > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    int c[n > 0 ? n : 1], d[n > 0 ? n : 1];
    if (me == root && (to_ints(counts, c, n) != MPI_SUCCESS || to_ints(displs, d, n) != MPI_SUCCESS)) {
        return MPI_ERR_COUNT;
    }
    return MPI_Gatherv(send ? send : MPI_IN_PLACE, (int) send_bytes, MPI_BYTE, recv, c, d, MPI_BYTE, root, comm_of(comm));
}

/* MPI_Scatterv of bytes; at the root recv == NULL means in place (its block of send stays where it is). */
int coll4j_mpi_scatterv_bytes(int comm, const void *send, const int64_t *counts, const int64_t *displs, void *recv,
                              int64_t recv_bytes, int root) {
    int n = comm_size_of(comm), me = -1;
    MPI_Comm_rank(comm_of(comm), &me);
    if (recv_bytes > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    int c[n > 0 ? n : 1], d[n > 0 ? n : 1];
    if (me == root && (to_ints(counts, c, n) != MPI_SUCCESS || to_ints(displs, d, n) != MPI_SUCCESS)) {
        return MPI_ERR_COUNT;
    }
    return MPI_Scatterv(send, c, d, MPI_BYTE, recv ? recv : MPI_IN_PLACE, (int) recv_bytes, MPI_BYTE, root, comm_of(comm));
}

/* MPI_Allgatherv of bytes; send == NULL means in place. */
int coll4j_mpi_allgatherv_bytes(int comm, const void *send, int64_t send_bytes, void *recv, const int64_t *counts,
                                const int64_t *displs) {
    int n = comm_size_of(comm);
    if (send_bytes > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    int c[n > 0 ? n : 1], d[n > 0 ? n : 1];
    if (to_ints(counts, c, n) != MPI_SUCCESS || to_ints(displs, d, n) != MPI_SUCCESS) {
        return MPI_ERR_COUNT;
    }
    return MPI_Allgatherv(send ? send : MPI_IN_PLACE, (int) send_bytes, MPI_BYTE, recv, c, d, MPI_BYTE, comm_of(comm));
}

/* MPI_Alltoallv of bytes (send and recv distinct). */
int coll4j_mpi_alltoallv_bytes(int comm, const void *send, const int64_t *send_counts, const int64_t *send_displs,
                               void *recv, const int64_t *recv_counts, const int64_t *recv_displs) {
    int n = comm_size_of(comm);
    int sc[n > 0 ? n : 1], sd[n > 0 ? n : 1], rc[n > 0 ? n : 1], rd[n > 0 ? n : 1];
    if (to_ints(send_counts, sc, n) != MPI_SUCCESS || to_ints(send_displs, sd, n) != MPI_SUCCESS
        || to_ints(recv_counts, rc, n) != MPI_SUCCESS || to_ints(recv_displs, rd, n) != MPI_SUCCESS) {
        return MPI_ERR_COUNT;
    }
    return MPI_Alltoallv(send, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, comm_of(comm));
}
