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
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMMS 1024
#define CHUNK (1L << 28)

static MPI_Comm comms[MAX_COMMS];
static int ncomms;

/* io.coll4j.reductions.DType ordinals */
enum { F32, F64, I32, I64, F16, BF16, U32, U64, F32_I32, F64_I64, I32_I32, I64_I64, NDTYPES };
/* io.coll4j.reductions.Op ordinals (AVG reaches MPI as SUM: Java divides after the fold; USER through the *_user calls) */
enum { SUM, PROD, MIN, MAX, BAND, BOR, BXOR, AVG, MINLOC, MAXLOC, USER, NOPS };

static const int sizes[NDTYPES] = {4, 8, 4, 8, 2, 2, 4, 8, 8, 16, 8, 16};
/* Filled by coll4j_mpi_init (the derived types and user ops need MPI initialised); MPI_DATATYPE_NULL /
 * MPI_OP_NULL where coll4j defines no such combination (the Java side refuses it before calling). */
static MPI_Datatype types[NDTYPES];
static MPI_Op ops[NDTYPES][NOPS];
/* what coll4j_mpi_finalize frees: the derived types and the user ops made by init_types_and_ops */
static MPI_Datatype own_types[2];
static int nown_types;
static MPI_Op own_ops[32];
static int nown_ops;
/* The MPI ops of coll4j's UserOps (io.coll4j.mpi.UserOpUpcalls): made on first use from an FFM upcall stub, one per
 * UserOp, addressed by index; freed by coll4j_mpi_finalize before MPI_Finalize. */
#define MAX_USER_OPS 4096
static MPI_Op user_ops[MAX_USER_OPS];
static int nuser_ops;
/* the op of the checked allreduce (coll4j_mpi_allreduce_chk), made on first use */
static MPI_Op chk_op;

static MPI_Datatype dtype_of(int d) {
    return d >= 0 && d < NDTYPES ? types[d] : MPI_DATATYPE_NULL;
}

static int dsize(int d) {
    return d >= 0 && d < NDTYPES ? sizes[d] : 1;
}

static MPI_Op op_of(int d, int o) {
    return d >= 0 && d < NDTYPES && o >= 0 && o < NOPS ? ops[d][o] : MPI_OP_NULL;
}

/*
 * f16 and bf16 (MPI has no half types): carried as MPI_UINT16_T, reduced by user ops with coll4j's scalar
 * semantics (io.coll4j.reductions.ElementOps.half): both operands widen to f32 exactly, one f32 operation,
 * the result rounds to nearest, ties to even. MIN and MAX return one operand's own bits, ordered as Java's
 * Math.min/max (NaN wins, -0 below +0). The conversions are bit-level ports of the JDK's
 * Float.float16ToFloat / floatToFloat16 and of coll4j's HalfFloats.floatToBf16, so every non-NaN result is
 * bitwise what one JVM computes; NaN payloads, as on the Java side, are not fixed.
 */
static float bits_to_float(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t float_to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float f16_to_float(uint16_t h) {
    uint32_t sign = (uint32_t) (h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    if (exp == 0x1f) {
        return bits_to_float(sign | 0x7f800000u | (mant << 13));    /* infinity, NaN with its payload */
    }
    if (exp == 0) {
        float m = (float) mant * 0x1p-24f;                         /* zero or subnormal: exact */
        return sign ? -m : m;
    }
    return bits_to_float(sign | ((exp + 112) << 23) | (mant << 13));
}

static uint16_t float_to_f16(float f) {
    uint32_t bits = float_to_bits(f);
    uint16_t sign = (uint16_t) ((bits & 0x80000000u) >> 16);
    if (f != f) {
        return (uint16_t) (sign | 0x7c00 | (bits & 0x007fe000u) >> 13 | (bits & 0x00001ff0u) >> 4 | (bits & 0xfu));
    }
    float a = f < 0 ? -f : f;
    if (a >= 0x1.ffcp15f + 0x0.002p15f) {
        return (uint16_t) (sign | 0x7c00);                          /* beyond MAX_VALUE + ulp/2: infinity */
    }
    if (a <= 0x1.0p-24f * 0.5f) {
        return sign;                                                /* half the smallest subnormal or less */
    }
    int exp = (int) ((bits >> 23) & 0xff) - 127;
    int delta = 0;
    uint32_t msb = 0;
    if (exp < -14) {                                                /* an f16 subnormal */
        delta = -14 - exp;
        exp = -15;
        msb = 0x00800000u;
    }
    uint32_t signif = (bits & 0x007fffffu) | msb;
    uint32_t out = signif >> (13 + delta);
    uint32_t lsb = signif & (1u << (13 + delta));
    uint32_t round = signif & (1u << (12 + delta));
    uint32_t sticky = signif & ((1u << (12 + delta)) - 1);
    if (round && (lsb | sticky)) {
        out++;                                                      /* a carry steps the exponent: right */
    }
    return (uint16_t) (sign | (((uint32_t) (exp + 15) << 10) + out));
}

static float bf16_to_float(uint16_t h) {
    return bits_to_float((uint32_t) h << 16);
}

static uint16_t float_to_bf16(float f) {
    uint32_t bits = float_to_bits(f);
    if (f != f) {
        return (uint16_t) ((bits >> 16) | 0x0040);
    }
    return (uint16_t) ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

/*
 * Java's Math.min(x, y) / Math.max(x, y) as a choice of operand: true when the result is x — x is NaN, or
 * below y (a NaN y fails every comparison, so it is taken), or equal with a sign bit at least y's (-0 against
 * +0; equal non-zero values have equal bits). Branch-free: NaN-free data pays for no mispredictions.
 * Floats widen to double exactly, so one version serves f16, bf16, f32, f64.
 */
static inline int min_takes_first(double x, double y) {
    return (x != x) | (x < y) | ((x == y) & ((signbit(x) != 0) >= (signbit(y) != 0)));
}

static inline int max_takes_first(double x, double y) {
    return (x != x) | (x > y) | ((x == y) & ((signbit(x) != 0) <= (signbit(y) != 0)));
}

/*
 * f32 and f64 MIN/MAX: MPI_MIN/MPI_MAX compare with <, which drops a NaN or keeps it depending on the
 * order the operands meet (so two ranks could even disagree) and treats -0 and +0 as equal; coll4j's MIN
 * and MAX are Math.min/max (NaN wins, -0 below +0), so these pick an operand exactly as the JVM does.
 */
#define MINMAX_OP(name, type, takes) \
    static void name(void *in, void *inout, int *len, MPI_Datatype *t) { \
        (void) t; \
        const type *a = (const type *) in; \
        type *b = (type *) inout; \
        for (int i = 0; i < *len; i++) { \
            b[i] = takes(a[i], b[i]) ? a[i] : b[i]; \
        } \
    }
MINMAX_OP(f32_min, float, min_takes_first)
MINMAX_OP(f32_max, float, max_takes_first)
MINMAX_OP(f64_min, double, min_takes_first)
MINMAX_OP(f64_max, double, max_takes_first)

/* inout[i] = in[i] op inout[i], MPI's user-function contract. */
static void half_fold(const uint16_t *in, uint16_t *inout, int n, int op, float (*to)(uint16_t), uint16_t (*from)(float)) {
    for (int i = 0; i < n; i++) {
        float x = to(in[i]);
        float y = to(inout[i]);
        switch (op) {
            case SUM: inout[i] = from(x + y); break;
            case PROD: inout[i] = from(x * y); break;
            case MIN: inout[i] = min_takes_first(x, y) ? in[i] : inout[i]; break;
            default: inout[i] = max_takes_first(x, y) ? in[i] : inout[i]; break;
        }
    }
}

#define HALF_OP(name, o, to, from) \
    static void name(void *in, void *inout, int *len, MPI_Datatype *t) { \
        (void) t; \
        half_fold((const uint16_t *) in, (uint16_t *) inout, *len, o, to, from); \
    }
HALF_OP(f16_sum, SUM, f16_to_float, float_to_f16)
HALF_OP(f16_prod, PROD, f16_to_float, float_to_f16)
HALF_OP(f16_min, MIN, f16_to_float, float_to_f16)
HALF_OP(f16_max, MAX, f16_to_float, float_to_f16)
HALF_OP(bf16_sum, SUM, bf16_to_float, float_to_bf16)
HALF_OP(bf16_prod, PROD, bf16_to_float, float_to_bf16)
HALF_OP(bf16_min, MIN, bf16_to_float, float_to_bf16)
HALF_OP(bf16_max, MAX, bf16_to_float, float_to_bf16)

/*
 * MINLOC/MAXLOC on coll4j's pairs (io.coll4j.reductions.PairOps): the smaller (larger) value wins, equal
 * values keep the lower index; floats order as Java's Double.compare (-0 below +0) except that NaN beats
 * every number, and between NaNs the lower index wins. MPI's own MINLOC compares with < and ==, which differs
 * on NaN and signed zeros, so the float pairs and (i64, i64), which MPI has no type for, use these.
 * cmp < 0: the first pair's value wins.
 */
static int cmp_value(double x, double y, int op) {
    int xn = x != x, yn = y != y;
    if (xn || yn) {
        return xn == yn ? 0 : xn ? -1 : 1;
    }
    int c = x < y ? -1 : x > y ? 1 : (signbit(x) && !signbit(y)) ? -1 : (!signbit(x) && signbit(y)) ? 1 : 0;
    return op == MINLOC ? c : -c;
}

static int cmp_long(int64_t x, int64_t y, int op) {
    int c = x < y ? -1 : x > y ? 1 : 0;
    return op == MINLOC ? c : -c;
}

/* inout[i] = the winner of in[i] and inout[i], copied whole. */
#define PAIR_OP(name, vtype, itype, cmp, o) \
    static void name(void *in, void *inout, int *len, MPI_Datatype *t) { \
        (void) t; \
        const char *a = (const char *) in; \
        char *b = (char *) inout; \
        for (int i = 0; i < *len; i++, a += 2 * sizeof(vtype), b += 2 * sizeof(vtype)) { \
            vtype va, vb; \
            itype ia, ib; \
            memcpy(&va, a, sizeof va); memcpy(&ia, a + sizeof(vtype), sizeof ia); \
            memcpy(&vb, b, sizeof vb); memcpy(&ib, b + sizeof(vtype), sizeof ib); \
            int c = cmp(va, vb, o); \
            if (c < 0 || (c == 0 && ia <= ib)) { \
                memcpy(b, a, 2 * sizeof(vtype)); \
            } \
        } \
    }
PAIR_OP(f32_i32_minloc, float, int32_t, cmp_value, MINLOC)
PAIR_OP(f32_i32_maxloc, float, int32_t, cmp_value, MAXLOC)
PAIR_OP(f64_i64_minloc, double, int64_t, cmp_value, MINLOC)
PAIR_OP(f64_i64_maxloc, double, int64_t, cmp_value, MAXLOC)
PAIR_OP(i64_i64_minloc, int64_t, int64_t, cmp_long, MINLOC)
PAIR_OP(i64_i64_maxloc, int64_t, int64_t, cmp_long, MAXLOC)

/* Every combination is commutative (IEEE + and * are, and min/max/minloc pick by a symmetric rule). */
static int user_op(int d, int o, MPI_User_function *f) {
    int rc = MPI_Op_create(f, 1, &ops[d][o]);
    if (rc == MPI_SUCCESS) {
        own_ops[nown_ops++] = ops[d][o];
    }
    return rc;
}

/* Commits t (made with return code rc) as the type of dtype d. */
static int derived_type(int d, int rc, MPI_Datatype t) {
    if (rc == MPI_SUCCESS) {
        rc = MPI_Type_commit(&t);
    }
    if (rc == MPI_SUCCESS) {
        types[d] = own_types[nown_types++] = t;
    }
    return rc;
}

/* The tables of dtype_of and op_of; MPI's own types and ops wherever their semantics are coll4j's exactly. */
static int init_types_and_ops(void) {
    MPI_Datatype plain[] = {MPI_FLOAT, MPI_DOUBLE, MPI_INT32_T, MPI_INT64_T, MPI_UINT16_T, MPI_UINT16_T, MPI_UINT32_T,
                            MPI_UINT64_T};
    MPI_Op arithmetic[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_BAND, MPI_BOR, MPI_BXOR};
    for (int d = 0; d < NDTYPES; d++) {
        types[d] = d < F32_I32 ? plain[d] : MPI_DATATYPE_NULL;
        int integer = d == I32 || d == I64 || d == U32 || d == U64;   /* MPI_MIN on unsigned types compares unsigned */
        for (int o = 0; o < NOPS; o++) {
            ops[d][o] = integer && o <= BXOR ? arithmetic[o] : MPI_OP_NULL;
        }
    }
    ops[F32][SUM] = ops[F64][SUM] = MPI_SUM;
    ops[F32][PROD] = ops[F64][PROD] = MPI_PROD;
    /* the pairs: MPI's own types where the layout is exactly coll4j's (value at 0, index right after it) */
    types[F32_I32] = MPI_FLOAT_INT;
    types[I32_I32] = MPI_2INT;
    /* on MPI_2INT, MPI's MINLOC (< then ==, lower index on a tie) is coll4j's rule exactly */
    ops[I32_I32][MINLOC] = MPI_MINLOC;
    ops[I32_I32][MAXLOC] = MPI_MAXLOC;
    MPI_Datatype members[] = {MPI_DOUBLE, MPI_INT64_T};
    int ones[] = {1, 1};
    MPI_Aint at[] = {0, 8};
    MPI_Datatype f64_i64 = MPI_DATATYPE_NULL, i64_i64 = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_struct(2, ones, at, members, &f64_i64);
    rc = derived_type(F64_I64, rc, f64_i64);
    rc = rc != MPI_SUCCESS ? rc : MPI_Type_contiguous(2, MPI_INT64_T, &i64_i64);
    rc = derived_type(I64_I64, rc, i64_i64);
    struct { int d, o; MPI_User_function *f; } user[] = {
        {F32, MIN, f32_min}, {F32, MAX, f32_max}, {F64, MIN, f64_min}, {F64, MAX, f64_max},
        {F16, SUM, f16_sum}, {F16, PROD, f16_prod}, {F16, MIN, f16_min}, {F16, MAX, f16_max},
        {BF16, SUM, bf16_sum}, {BF16, PROD, bf16_prod}, {BF16, MIN, bf16_min}, {BF16, MAX, bf16_max},
        {F32_I32, MINLOC, f32_i32_minloc}, {F32_I32, MAXLOC, f32_i32_maxloc},
        {F64_I64, MINLOC, f64_i64_minloc}, {F64_I64, MAXLOC, f64_i64_maxloc},
        {I64_I64, MINLOC, i64_i64_minloc}, {I64_I64, MAXLOC, i64_i64_maxloc},
    };
    for (size_t i = 0; rc == MPI_SUCCESS && i < sizeof user / sizeof user[0]; i++) {
        rc = user_op(user[i].d, user[i].o, user[i].f);
    }
    return rc;
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
    return init_types_and_ops();
}

static int reqs_in_flight(void);

int coll4j_mpi_finalize(void) {
    if (reqs_in_flight() > 0) {
        /*
         * A request left un-awaited (never completed here; it may never complete if another process did not post
         * its part): freeing the communicator or op it uses would leave libnbc's schedule pointing at freed
         * objects, which MPI_Finalize then progresses (a segfault in Open MPI 4.1). MPI_Finalize frees them.
         */
        ncomms = 0;
        nuser_ops = 0;
        nown_ops = 0;
        nown_types = 0;
        return MPI_Finalize();
    }
    for (int i = 1; i < ncomms; i++) {
        if (comms[i] != MPI_COMM_NULL) {
            MPI_Comm_free(&comms[i]);
        }
    }
    ncomms = 0;
    for (int i = 0; i < nuser_ops; i++) {
        MPI_Op_free(&user_ops[i]);
    }
    nuser_ops = 0;
    for (int i = 0; i < nown_ops; i++) {
        MPI_Op_free(&own_ops[i]);
    }
    if (chk_op != 0 && chk_op != MPI_OP_NULL) {
        MPI_Op_free(&chk_op);
    }
    chk_op = 0;
    nown_ops = 0;
    for (int i = 0; i < nown_types; i++) {
        MPI_Type_free(&own_types[i]);
    }
    nown_types = 0;
    return MPI_Finalize();
}

int coll4j_mpi_comm_rank(int comm, int *rank) {
    return MPI_Comm_rank(comm_of(comm), rank);
}

int coll4j_mpi_comm_size(int comm, int *size) {
    return MPI_Comm_size(comm_of(comm), size);
}

/* MPI_Comm_split of `comm`; writes the new communicator's index, or -1 when `color` < 0 (MPI_UNDEFINED: this
 * process joins none). Collective over `comm`. A slot freed by coll4j_mpi_comm_free is reused first, so a job that
 * makes and closes sub-teams in a loop never runs out of the table. */
int coll4j_mpi_comm_split(int comm, int color, int key, int *out) {
    int slot = 1;
    while (slot < ncomms && comms[slot] != MPI_COMM_NULL) {
        slot++;
    }
    if (slot == MAX_COMMS) {
        return MPI_ERR_COMM;
    }
    MPI_Comm c;
    int rc = MPI_Comm_split(comm_of(comm), color < 0 ? MPI_UNDEFINED : color, key, &c);
    *out = -1;
    if (rc == MPI_SUCCESS && c != MPI_COMM_NULL) {
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        comms[slot] = c;
        *out = slot;
        if (slot == ncomms) {
            ncomms++;
        }
    }
    return rc;
}

/* MPI_Comm_free of communicator `comm` (not the world); its slot is free again. */
int coll4j_mpi_comm_free(int comm) {
    if (comm <= 0 || comm >= ncomms || comms[comm] == MPI_COMM_NULL) {
        return MPI_ERR_COMM;
    }
    return MPI_Comm_free(&comms[comm]);   /* sets the slot to MPI_COMM_NULL */
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

/*
 * A user op: MPI calls `fn` (an FFM upcall stub into the JVM) as inout[i] = in[i] op inout[i], `len` elements of
 * the dtype's MPI type at a time. MPI_Op_create is local, so processes need not create their ops in the same
 * order. Writes the op's index for the *_user calls.
 */
int coll4j_mpi_op_create(void *fn, int commute, int *index) {
    if (nuser_ops == MAX_USER_OPS) {
        return MPI_ERR_OP;
    }
    int rc = MPI_Op_create((MPI_User_function *) fn, commute, &user_ops[nuser_ops]);
    if (rc == MPI_SUCCESS) {
        *index = nuser_ops++;
    }
    return rc;
}

static MPI_Op user_op_of(int u) {
    return u >= 0 && u < nuser_ops ? user_ops[u] : MPI_OP_NULL;
}

/* send == NULL means in place (MPI_IN_PLACE). */
/*
 * A call of at most one chunk is a tail call to MPI; the chunk loops live in functions of their own, since a loop
 * around the call (six registers saved, its state kept across the call) cost ~3.5 ns of a 13 ns one-process
 * MPI_Allreduce in a C loop, and the 8-byte allreduce is the latency path.
 */
static __attribute__((noinline)) int allreduce_op_chunks(int comm, const void *send, void *recv, int64_t count, int dtype,
                                                         MPI_Op op) {
    for (int64_t off = 0; off < count; off += CHUNK) {
        int n = (int) (count - off < CHUNK ? count - off : CHUNK);
        size_t b = (size_t) off * (size_t) dsize(dtype);
        int rc = MPI_Allreduce(send ? (const char *) send + b : MPI_IN_PLACE, (char *) recv + b, n,
                               dtype_of(dtype), op, comm_of(comm));
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

/* The op lookup stays out of coll4j_mpi_allreduce's one-chunk path (its code is then as without user ops). */
static __attribute__((noinline)) int allreduce_chunks(int comm, const void *send, void *recv, int64_t count, int dtype,
                                                      int op) {
    return allreduce_op_chunks(comm, send, recv, count, dtype, op_of(dtype, op));
}

int coll4j_mpi_allreduce(int comm, const void *send, void *recv, int64_t count, int dtype, int op) {
    if (count > CHUNK) {
        return allreduce_chunks(comm, send, recv, count, dtype, op);
    }
    return MPI_Allreduce(send ? send : MPI_IN_PLACE, recv, (int) count, dtype_of(dtype), op_of(dtype, op), comm_of(comm));
}

/*
 * The check word that travels with a small call's payload (issue 30): a call below the size the separate
 * cross-process check covers (io.coll4j.kernel.span.SpanCheck) carries {descriptor, count, chain} of the
 * collective each process called, the chain folding every earlier call of the team, in a header of CHK_HDR bytes
 * in front of the payload, in the same MPI call. A bcast's receivers compare the root's header with their own; an
 * allreduce combines the headers with the payload (chk_fold: max and min of each word, payload reduced only where
 * both headers agree on dtype, op and count), so every process sees the same extremes. A difference is returned as
 * CHK_MISMATCH with the other side's words in w[3..5]; the user's buffer is then left as it was.
 */
#define CHK_HDR 64
#define CHK_MISMATCH 0x40000000
/* header words: 0 max d, 1 -min d, 2 max c, 3 -min c, 4 max chain, 5 -min chain, 6 dtype | op << 8, 7 payload bytes */

static __thread char *chk_buf;
static __thread size_t chk_cap;

static char *chk_scratch(size_t bytes) {
    if (chk_cap < bytes) {
        free(chk_buf);
        size_t cap = bytes < 4096 ? 4096 : bytes;
        chk_buf = aligned_alloc(64, (cap + 63) & ~(size_t) 63);
        chk_cap = chk_buf ? cap : 0;
    }
    return chk_buf;
}

static void chk_header(int64_t *h, const int64_t *w, int dtype, int op, int64_t bytes) {
    h[0] = w[0];
    h[1] = -w[0];
    h[2] = w[1];
    h[3] = -w[1];
    h[4] = w[2];
    h[5] = -w[2];
    h[6] = (int64_t) dtype | (int64_t) op << 8;
    h[7] = bytes;
}

/* The type of one checked allreduce message of `bytes` payload bytes: one element, so MPI never cuts the header off
 * its payload (a ring allreduce splits by elements). A few per thread, made on first use, freed by MPI_Finalize. */
#define CHK_TYPES 8
static __thread struct { int64_t bytes; MPI_Datatype t; } chk_types[CHK_TYPES];
static __thread int chk_next;

static MPI_Datatype chk_type(int64_t bytes) {
    for (int i = 0; i < CHK_TYPES; i++) {
        if (chk_types[i].t != 0 && chk_types[i].bytes == bytes) {
            return chk_types[i].t;
        }
    }
    MPI_Datatype t;
    if (MPI_Type_contiguous((int) (CHK_HDR + bytes), MPI_BYTE, &t) != MPI_SUCCESS || MPI_Type_commit(&t) != MPI_SUCCESS) {
        return MPI_DATATYPE_NULL;
    }
    int i = chk_next++ % CHK_TYPES;   /* the type it replaces is left to MPI_Finalize: a request may still use it */
    chk_types[i].bytes = bytes;
    chk_types[i].t = t;
    return t;
}

static void chk_fold(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void) type;
    int64_t *a = in, *b = inout;
    int same = a[6] == b[6] && a[7] == b[7] && a[0] == b[0] && a[0] == -a[1] && b[0] == -b[1];
    if (same && *len == 1 && a[7] > 0) {
        int d = (int) (a[6] & 0xff), o = (int) (a[6] >> 8);
        MPI_Reduce_local((char *) in + CHK_HDR, (char *) inout + CHK_HDR, (int) (a[7] / dsize(d)), dtype_of(d),
                         op_of(d, o));
    }
    for (int k = 0; k < 6; k++) {
        if (a[k] > b[k]) {
            b[k] = a[k];
        }
    }
    if (!same) {
        b[7] = -1;   /* the payload was not reduced: it must not be delivered */
    }
}

/* 0 when every process's header in h equals w; else CHK_MISMATCH with the extremes the other side had in w[3..5]. */
static int chk_verdict(const int64_t *h, int64_t *w) {
    int64_t maxd = h[0], mind = -h[1], maxc = h[2], minc = -h[3], maxx = h[4], minx = -h[5];
    if (maxd == mind && maxc == minc && maxx == minx && h[7] >= 0) {
        return MPI_SUCCESS;
    }
    int hi = maxd != w[0] || maxc != w[1] || maxx != w[2];
    w[3] = hi ? maxd : mind;
    w[4] = hi ? maxc : minc;
    w[5] = hi ? maxx : minx;
    return CHK_MISMATCH;
}

/*
 * coll4j_mpi_allreduce carrying the check word w = {descriptor, count, chain, out: the other side's three} (payload
 * bytes below SpanCheck's size, a built-in or shim op). The payload is reduced as by MPI_Allreduce with dtype and op.
 */
int coll4j_mpi_allreduce_chk(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int64_t *w) {
    int64_t bytes = count * dsize(dtype);
    char *x = chk_scratch((size_t) (CHK_HDR + bytes));
    MPI_Datatype t = chk_type(bytes);
    if (x == NULL || t == MPI_DATATYPE_NULL) {
        return MPI_ERR_NO_MEM;
    }
    if (chk_op == 0 || chk_op == MPI_OP_NULL) {
        int rc = MPI_Op_create(chk_fold, 1, &chk_op);   /* once: only under MULTIPLE could two threads race, and a
                                                             * second op is then merely not freed */
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    chk_header((int64_t *) x, w, dtype, op, bytes);
    memcpy(x + CHK_HDR, send ? send : recv, (size_t) bytes);
    int rc = MPI_Allreduce(MPI_IN_PLACE, x, 1, t, chk_op, comm_of(comm));
    if (rc != MPI_SUCCESS) {
        int cls;
        MPI_Error_class(rc, &cls);
        if (cls == MPI_ERR_TRUNCATE) {
            w[3] = w[4] = w[5] = INT64_MIN;   /* another process's message was larger: a larger call */
            return CHK_MISMATCH;
        }
        return rc;
    }
    rc = chk_verdict((const int64_t *) x, w);
    if (rc == MPI_SUCCESS) {
        memcpy(recv, x + CHK_HDR, (size_t) bytes);
    }
    return rc;
}

/*
 * The check word inside a small reduction's payload (issue 30, defect 4): coll4j_mpi_allreduce_chk's header needs a
 * derived type and a user op, which took Open MPI 4.0-4.2 us at 8 B against 0.51-0.55 us for MPI_DOUBLE/MPI_SUM.
 * Instead the word travels as 2k extra elements of the call's own dtype, reduced by the call's own op, so the call
 * stays one MPI_Allreduce of a plain type. The word h is cut into k chunks c small enough to be exact in the dtype,
 * and each chunk adds a pair whose reduction over the P processes is a known function of c only when every process
 * had the same c:
 *   MIN, MAX:   (c, M - c)  the extremes of c and of M - c are c and M - c only when every c is this one;
 *   BAND, BOR:  (c, ~c)     likewise bit by bit;
 *   SUM:        (c, c*c)    sum c = P c_j and sum c*c = P c_j*c_j give sum (c_i - c_j)^2 = 0, i.e. every c_i = c_j,
 *                           exactly while P c*c cannot overflow: c has (W - 16) / 2 bits of the W the dtype holds
 *                           exactly, for P <= 2^16.
 * A process compares its 2k result elements with what they must be (memcmp of the same encoding), so every process
 * decides for itself, and a difference leaves the user's buffer as it was. Other ops and dtypes (PROD, BXOR, the
 * halves, the pairs) carry the header of coll4j_mpi_allreduce_chk.
 */
#define CHK_DIFFERS 0x40000001

int coll4j_mpi_reduce(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int root);
int coll4j_mpi_allgather(int comm, const void *send, void *recv, int64_t count, int dtype);
#define TAG_PROCS_MAX 65536

/* Bits per chunk of the word for (dtype, op), 0 where no exact encoding exists. */
static int tag_bits(int d, int o) {
    switch (o) {
    case MIN: case MAX:
        return d == I32 ? 31 : d == F32 ? 24 : (d == U32 || d == I64 || d == U64 || d == F64) ? 32 : 0;
    case BAND: case BOR:
        return (d == I32 || d == U32) ? 32 : (d == I64 || d == U64) ? 64 : 0;
    case SUM:
        return d == I32 ? 7 : d == U32 ? 8 : d == I64 ? 23 : d == U64 ? 24 : d == F32 ? 4 : d == F64 ? 18 : 0;
    default:
        return 0;
    }
}

static void tag_put(char *p, int d, int i, uint64_t v) {
    switch (d) {
    case I32: case U32: ((uint32_t *) p)[i] = (uint32_t) v; break;
    case F32: ((float *) p)[i] = (float) v; break;
    case F64: ((double *) p)[i] = (double) v; break;
    default: ((uint64_t *) p)[i] = v; break;
    }
}

/* The word folded from {descriptor, count, chain}: any function every process computes alike will do. */
static uint64_t tag_word(const int64_t *w) {
    uint64_t h = ((uint64_t) w[2] ^ (uint64_t) w[0]) * 0x9E3779B97F4A7C15ULL;
    h = (h ^ (uint64_t) w[1]) * 0xC2B2AE3D27D4EB4FULL;
    return h ^ (h >> 29);
}

/* Writes the 2k elements this process sends at t and the 2k it must receive back from p processes at e; returns 2k. */
static int tag_encode(char *t, char *e, int d, int o, int b, uint64_t h, int p) {
    int k = (64 + b - 1) / b;
    uint64_t mask = b == 64 ? ~0ULL : (1ULL << b) - 1;
    for (int i = 0; i < k; i++) {
        uint64_t c = b == 64 ? h : (h >> (i * b)) & mask;
        uint64_t second = o == SUM ? c * c : o == MIN || o == MAX ? mask - c : ~c & mask;
        tag_put(t, d, 2 * i, c);
        tag_put(t, d, 2 * i + 1, second);
        tag_put(e, d, 2 * i, o == SUM ? (uint64_t) p * c : c);
        tag_put(e, d, 2 * i + 1, o == SUM ? (uint64_t) p * second : second);
    }
    return 2 * k;
}

static int tag_failed(int rc, int64_t *w) {
    int cls;
    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_TRUNCATE) {
        w[3] = w[4] = w[5] = INT64_MIN;   /* another process's message was larger: a larger call */
        return CHK_MISMATCH;
    }
    return rc;
}

/*
 * coll4j_mpi_allreduce carrying the word of w = {descriptor, count, chain} inside its payload (below SpanCheck's
 * size). CHK_DIFFERS when another process called something else (or the same after other calls); the header path
 * (CHK_MISMATCH, the other side's words in w[3..5]) where the dtype and op have no exact encoding.
 */
int coll4j_mpi_allreduce_tag(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int64_t *w) {
    MPI_Comm c = comm_of(comm);
    int p;
    int b = tag_bits(dtype, op);
    if (b == 0 || MPI_Comm_size(c, &p) != MPI_SUCCESS || p > TAG_PROCS_MAX) {
        return coll4j_mpi_allreduce_chk(comm, send, recv, count, dtype, op, w);
    }
    int64_t size = dsize(dtype), bytes = count * size;
    int k2 = 2 * ((64 + b - 1) / b);
    char *x = chk_scratch((size_t) (bytes + 2 * k2 * size));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    char *t = x + bytes, *e = t + k2 * size;
    tag_encode(t, e, dtype, op, b, tag_word(w), p);
    if (bytes > 0) {
        memcpy(x, send ? send : recv, (size_t) bytes);
    }
    int rc = MPI_Allreduce(MPI_IN_PLACE, x, (int) (count + k2), dtype_of(dtype), op_of(dtype, op), c);
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    if (memcmp(t, e, (size_t) (k2 * size)) != 0) {
        return CHK_DIFFERS;
    }
    if (bytes > 0) {
        memcpy(recv, x, (size_t) bytes);
    }
    return MPI_SUCCESS;
}

/* coll4j_mpi_reduce with the word inside its payload (as coll4j_mpi_allreduce_tag): the root compares; where the
 * dtype and op have no exact encoding, a plain MPI_Reduce (the history word still folds the call). */
int coll4j_mpi_reduce_tag(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int root,
                          int64_t *w) {
    MPI_Comm c = comm_of(comm);
    int p, me;
    int b = tag_bits(dtype, op);
    if (b == 0 || MPI_Comm_size(c, &p) != MPI_SUCCESS || p > TAG_PROCS_MAX || MPI_Comm_rank(c, &me) != MPI_SUCCESS) {
        return coll4j_mpi_reduce(comm, send, recv, count, dtype, op, root);
    }
    int64_t size = dsize(dtype), bytes = count * size;
    int k2 = 2 * ((64 + b - 1) / b);
    char *x = chk_scratch((size_t) (2 * bytes + 3 * k2 * size));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    char *out = x + bytes + k2 * size, *t = x + bytes, *e = out + bytes + k2 * size;
    tag_encode(t, e, dtype, op, b, tag_word(w), p);
    if (bytes > 0) {
        memcpy(x, send ? send : recv, (size_t) bytes);
    }
    int rc = MPI_Reduce(x, me == root ? out : NULL, (int) (count + k2), dtype_of(dtype), op_of(dtype, op), root, c);
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    if (me != root) {
        return MPI_SUCCESS;
    }
    if (memcmp(out + bytes, e, (size_t) (k2 * size)) != 0) {
        return CHK_DIFFERS;
    }
    if (bytes > 0) {
        memcpy(recv, out, (size_t) bytes);
    }
    return MPI_SUCCESS;
}

/* coll4j_mpi_allgather with the word after every process's block: every process compares every block's word. */
int coll4j_mpi_allgather_tag(int comm, const void *send, void *recv, int64_t count, int dtype, int64_t *w) {
    MPI_Comm c = comm_of(comm);
    int p, me;
    if (MPI_Comm_size(c, &p) != MPI_SUCCESS || MPI_Comm_rank(c, &me) != MPI_SUCCESS || count > INT_MAX - 8) {
        return coll4j_mpi_allgather(comm, send, recv, count, dtype);
    }
    int64_t bytes = count * dsize(dtype), block = bytes + 8;
    char *x = chk_scratch((size_t) (block * (p + 1)));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    uint64_t h = tag_word(w);
    char *mine = x + block * p;
    if (bytes > 0) {
        memcpy(mine, send ? send : (const char *) recv + bytes * me, (size_t) bytes);
    }
    memcpy(mine + bytes, &h, 8);
    int rc = MPI_Allgather(mine, (int) block, MPI_BYTE, x, (int) block, MPI_BYTE, c);
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    for (int i = 0; i < p; i++) {
        if (memcmp(x + block * i + bytes, &h, 8) != 0) {
            return CHK_DIFFERS;
        }
    }
    for (int i = 0; i < p && bytes > 0; i++) {
        memcpy((char *) recv + bytes * i, x + block * i, (size_t) bytes);
    }
    return MPI_SUCCESS;
}

/* coll4j_mpi_bcast carrying the check word w (as coll4j_mpi_allreduce_chk): the receivers compare it with the root's. */
int coll4j_mpi_bcast_chk(int comm, void *buf, int64_t count, int dtype, int root, int64_t *w) {
    int64_t bytes = count * dsize(dtype);
    char *x = chk_scratch((size_t) (CHK_HDR + bytes));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    int me;
    MPI_Comm c = comm_of(comm);
    MPI_Comm_rank(c, &me);
    if (me == root) {
        chk_header((int64_t *) x, w, dtype, SUM, bytes);
        memcpy(x + CHK_HDR, buf, (size_t) bytes);
    } else {
        memset(x, 0, CHK_HDR);
        ((int64_t *) x)[7] = -1;   /* nothing received */
    }
    int rc = MPI_Bcast(x, (int) (CHK_HDR + bytes), MPI_BYTE, root, c);
    if (rc != MPI_SUCCESS) {
        int cls;
        MPI_Error_class(rc, &cls);
        if (cls == MPI_ERR_TRUNCATE && me != root) {
            w[3] = w[4] = w[5] = INT64_MIN;   /* the root sent more than this call takes: a larger call */
            return CHK_MISMATCH;
        }
        return rc;
    }
    if (me == root) {
        return MPI_SUCCESS;
    }
    const int64_t *h = (const int64_t *) x;
    if (h[0] == w[0] && h[2] == w[1] && h[4] == w[2] && h[6] == ((int64_t) dtype | (int64_t) SUM << 8) && h[7] == bytes) {
        memcpy(buf, x + CHK_HDR, (size_t) bytes);
        return MPI_SUCCESS;
    }
    w[3] = h[0];
    w[4] = h[2];
    w[5] = h[4];
    return CHK_MISMATCH;
}

/* As coll4j_mpi_allreduce with user op `uop` (an index from coll4j_mpi_op_create). */
int coll4j_mpi_allreduce_user(int comm, const void *send, void *recv, int64_t count, int dtype, int uop) {
    if (count > CHUNK) {
        return allreduce_op_chunks(comm, send, recv, count, dtype, user_op_of(uop));
    }
    return MPI_Allreduce(send ? send : MPI_IN_PLACE, recv, (int) count, dtype_of(dtype), user_op_of(uop), comm_of(comm));
}

static __attribute__((noinline)) int bcast_chunks(int comm, void *buf, int64_t count, int dtype, int root) {
    for (int64_t off = 0; off < count; off += CHUNK) {
        int n = (int) (count - off < CHUNK ? count - off : CHUNK);
        int rc = MPI_Bcast((char *) buf + (size_t) off * (size_t) dsize(dtype), n, dtype_of(dtype), root, comm_of(comm));
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

int coll4j_mpi_bcast(int comm, void *buf, int64_t count, int dtype, int root) {
    if (count > CHUNK) {
        return bcast_chunks(comm, buf, count, dtype, root);
    }
    return MPI_Bcast(buf, (int) count, dtype_of(dtype), root, comm_of(comm));
}

static __attribute__((noinline)) int reduce_op_chunks(int comm, const void *send, void *recv, int64_t count, int dtype,
                                                      MPI_Op op, int root) {
    for (int64_t off = 0; off < count; off += CHUNK) {
        int n = (int) (count - off < CHUNK ? count - off : CHUNK);
        size_t b = (size_t) off * (size_t) dsize(dtype);
        int rc = MPI_Reduce(send ? (const char *) send + b : MPI_IN_PLACE, recv ? (char *) recv + b : NULL, n,
                            dtype_of(dtype), op, root, comm_of(comm));
        if (rc != MPI_SUCCESS) {
            return rc;
        }
    }
    return MPI_SUCCESS;
}

static __attribute__((noinline)) int reduce_chunks(int comm, const void *send, void *recv, int64_t count, int dtype,
                                                   int op, int root) {
    return reduce_op_chunks(comm, send, recv, count, dtype, op_of(dtype, op), root);
}

/* At the root send == NULL means in place (the contribution is in recv); elsewhere recv is unused. */
int coll4j_mpi_reduce(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int root) {
    if (count > CHUNK) {
        return reduce_chunks(comm, send, recv, count, dtype, op, root);
    }
    return MPI_Reduce(send ? send : MPI_IN_PLACE, recv, (int) count, dtype_of(dtype), op_of(dtype, op), root,
                      comm_of(comm));
}

int coll4j_mpi_reduce_user(int comm, const void *send, void *recv, int64_t count, int dtype, int uop, int root) {
    if (count > CHUNK) {
        return reduce_op_chunks(comm, send, recv, count, dtype, user_op_of(uop), root);
    }
    return MPI_Reduce(send ? send : MPI_IN_PLACE, recv, (int) count, dtype_of(dtype), user_op_of(uop), root,
                      comm_of(comm));
}

static int reduce_scatter_block_with(int comm, const void *send, void *recv, int64_t recvcount, int dtype, MPI_Op op) {
    if (recvcount > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    return MPI_Reduce_scatter_block(send, recv, (int) recvcount, dtype_of(dtype), op, comm_of(comm));
}

int coll4j_mpi_reduce_scatter_block(int comm, const void *send, void *recv, int64_t recvcount, int dtype, int op) {
    return reduce_scatter_block_with(comm, send, recv, recvcount, dtype, op_of(dtype, op));
}

int coll4j_mpi_reduce_scatter_block_user(int comm, const void *send, void *recv, int64_t recvcount, int dtype, int uop) {
    return reduce_scatter_block_with(comm, send, recv, recvcount, dtype, user_op_of(uop));
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

/*
 * The data-movement collectives carrying the check word (issue 30, defect 4; as coll4j_mpi_allgather_tag): every
 * block travels with the sender's 8-byte word after it, through a scratch copy laid out block after block, and every
 * process that receives a block compares the word with its own (CHK_DIFFERS); a block of another size shows as
 * MPI_ERR_TRUNCATE or as a word out of place. Below SpanCheck's size only, so the copies stay small.
 */

/* Offsets of blocks of counts[i] + 8 bytes laid end to end; returns the total, or -1 when a count does not fit. */
static int64_t tag_layout(const int64_t *counts, int n, int *c, int *d) {
    int64_t at = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0 || counts[i] > INT_MAX - 8 || at > INT_MAX) {
            return -1;
        }
        c[i] = (int) counts[i] + 8;
        d[i] = (int) at;
        at += c[i];
    }
    return at > INT_MAX ? -1 : at;
}

/* CHK_DIFFERS unless every one of the n blocks at x (sizes c, offsets d) ends with h; then each block's counts[i]
 * bytes go to out + displs[i]. */
static int tag_blocks_out(const char *x, const int *c, const int *d, int n, uint64_t h, void *out, const int64_t *counts,
                          const int64_t *displs) {
    for (int i = 0; i < n; i++) {
        if (memcmp(x + d[i] + c[i] - 8, &h, 8) != 0) {
            return CHK_DIFFERS;
        }
    }
    for (int i = 0; i < n; i++) {
        memcpy((char *) out + displs[i], x + d[i], (size_t) counts[i]);
    }
    return MPI_SUCCESS;
}

int coll4j_mpi_gatherv_bytes_tag(int comm, const void *send, int64_t send_bytes, void *recv, const int64_t *counts,
                                 const int64_t *displs, int root, int64_t *w) {
    MPI_Comm comm_ = comm_of(comm);
    int n = comm_size_of(comm), me = -1;
    MPI_Comm_rank(comm_, &me);
    int c[n > 0 ? n : 1], d[n > 0 ? n : 1];
    int64_t total = me == root ? tag_layout(counts, n, c, d) : 0;
    if (send_bytes > INT_MAX - 8 || total < 0) {
        return MPI_ERR_COUNT;
    }
    char *x = chk_scratch((size_t) (send_bytes + 8 + total));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    uint64_t h = tag_word(w);
    const char *mine = send ? send : (const char *) recv + (me == root ? displs[me] : 0);
    memcpy(x, mine, (size_t) send_bytes);
    memcpy(x + send_bytes, &h, 8);
    char *all = x + send_bytes + 8;
    int rc = MPI_Gatherv(x, (int) send_bytes + 8, MPI_BYTE, all, c, d, MPI_BYTE, root, comm_);
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    if (me != root) {
        return MPI_SUCCESS;
    }
    return tag_blocks_out(all, c, d, n, h, recv, counts, displs);
}

int coll4j_mpi_scatterv_bytes_tag(int comm, const void *send, const int64_t *counts, const int64_t *displs, void *recv,
                                  int64_t recv_bytes, int root, int64_t *w) {
    MPI_Comm comm_ = comm_of(comm);
    int n = comm_size_of(comm), me = -1;
    MPI_Comm_rank(comm_, &me);
    int c[n > 0 ? n : 1], d[n > 0 ? n : 1];
    int64_t total = me == root ? tag_layout(counts, n, c, d) : 0;
    if (recv_bytes > INT_MAX - 8 || total < 0) {
        return MPI_ERR_COUNT;
    }
    char *x = chk_scratch((size_t) (recv_bytes + 8 + total));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    uint64_t h = tag_word(w);
    char *all = x + recv_bytes + 8;
    if (me == root) {
        for (int i = 0; i < n; i++) {
            memcpy(all + d[i], (const char *) send + displs[i], (size_t) counts[i]);
            memcpy(all + d[i] + counts[i], &h, 8);
        }
    }
    int rc = MPI_Scatterv(all, c, d, MPI_BYTE, x, (int) recv_bytes + 8, MPI_BYTE, root, comm_);
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    if (memcmp(x + recv_bytes, &h, 8) != 0) {
        return CHK_DIFFERS;
    }
    if (recv != NULL) {
        memcpy(recv, x, (size_t) recv_bytes);
    }
    return MPI_SUCCESS;
}

int coll4j_mpi_allgatherv_bytes_tag(int comm, const void *send, int64_t send_bytes, void *recv, const int64_t *counts,
                                    const int64_t *displs, int64_t *w) {
    MPI_Comm comm_ = comm_of(comm);
    int n = comm_size_of(comm), me = -1;
    MPI_Comm_rank(comm_, &me);
    int c[n > 0 ? n : 1], d[n > 0 ? n : 1];
    int64_t total = tag_layout(counts, n, c, d);
    if (send_bytes > INT_MAX - 8 || total < 0) {
        return MPI_ERR_COUNT;
    }
    char *x = chk_scratch((size_t) (send_bytes + 8 + total));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    uint64_t h = tag_word(w);
    memcpy(x, send ? send : (const char *) recv + displs[me], (size_t) send_bytes);
    memcpy(x + send_bytes, &h, 8);
    char *all = x + send_bytes + 8;
    int rc = MPI_Allgatherv(x, (int) send_bytes + 8, MPI_BYTE, all, c, d, MPI_BYTE, comm_);
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    return tag_blocks_out(all, c, d, n, h, recv, counts, displs);
}

int coll4j_mpi_alltoallv_bytes_tag(int comm, const void *send, const int64_t *send_counts, const int64_t *send_displs,
                                   void *recv, const int64_t *recv_counts, const int64_t *recv_displs, int64_t *w) {
    int n = comm_size_of(comm);
    int sc[n > 0 ? n : 1], sd[n > 0 ? n : 1], rc_[n > 0 ? n : 1], rd[n > 0 ? n : 1];
    int64_t out = tag_layout(send_counts, n, sc, sd), in = tag_layout(recv_counts, n, rc_, rd);
    if (out < 0 || in < 0) {
        return MPI_ERR_COUNT;
    }
    char *x = chk_scratch((size_t) (out + in));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    uint64_t h = tag_word(w);
    for (int i = 0; i < n; i++) {
        memcpy(x + sd[i], (const char *) send + send_displs[i], (size_t) send_counts[i]);
        memcpy(x + sd[i] + send_counts[i], &h, 8);
    }
    char *all = x + out;
    int rc = MPI_Alltoallv(x, sc, sd, MPI_BYTE, all, rc_, rd, MPI_BYTE, comm_of(comm));
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    return tag_blocks_out(all, rc_, rd, n, h, recv, recv_counts, recv_displs);
}

/* coll4j_mpi_reduce_scatter_block with the word's 2k elements after every block (as coll4j_mpi_allreduce_tag); a
 * plain call where the dtype and op have no exact encoding (the history word still folds the call). */
int coll4j_mpi_reduce_scatter_block_tag(int comm, const void *send, void *recv, int64_t recvcount, int dtype, int op,
                                        int64_t *w) {
    int p = comm_size_of(comm);
    int b = tag_bits(dtype, op);
    if (b == 0 || p > TAG_PROCS_MAX || recvcount > INT_MAX - 128) {
        return coll4j_mpi_reduce_scatter_block(comm, send, recv, recvcount, dtype, op);
    }
    int64_t size = dsize(dtype), bytes = recvcount * size;
    int k2 = 2 * ((64 + b - 1) / b);
    int64_t block = bytes + k2 * size;
    char *x = chk_scratch((size_t) (block * (p + 1) + k2 * size));
    if (x == NULL) {
        return MPI_ERR_NO_MEM;
    }
    char *out = x + block * p, *e = out + block;
    tag_encode(x + bytes, e, dtype, op, b, tag_word(w), p);
    for (int i = 0; i < p; i++) {
        char *at = x + block * i;
        memcpy(at, (const char *) send + bytes * i, (size_t) bytes);
        if (i > 0) {
            memcpy(at + bytes, x + bytes, (size_t) (k2 * size));
        }
    }
    int rc = MPI_Reduce_scatter_block(x, out, (int) (recvcount + k2), dtype_of(dtype), op_of(dtype, op), comm_of(comm));
    if (rc != MPI_SUCCESS) {
        return tag_failed(rc, w);
    }
    if (memcmp(out + bytes, e, (size_t) (k2 * size)) != 0) {
        return CHK_DIFFERS;
    }
    memcpy(recv, out, (size_t) bytes);
    return MPI_SUCCESS;
}

/*
 * Non-blocking collectives (MPI-3, libnbc in Open MPI 4.1). MPI_Request handles stay here, in a table whose
 * index Java holds; coll4j_mpi_test completes and frees a slot. Counts must fit MPI's int: one request per
 * call (no chunk loop: a chunked call would be several requests, and Java refuses such counts at issue).
 * The table is shared by every thread that calls MPI (THREAD_MULTIPLE: leaders of several teams), so a
 * spin lock guards taking and giving back a slot; it is never held across an MPI call.
 */
#define MAX_REQS 65536
static MPI_Request reqs[MAX_REQS];
/*
 * The int counts and displacements of a posted v-collective (NULL for the others): MPI may read them until
 * the request completes (MPI-3.1 §5.12: the arguments of a non-blocking call must not change while it is
 * active), so they live with the slot and are freed when coll4j_mpi_test finds it complete.
 */
static int *req_ints[MAX_REQS];
/* What a point-to-point send of slot r owns (the copy of its header and small payload), freed with the slot. */
static void *req_mem[MAX_REQS];
/* The message a point-to-point slot r holds between its MPI_Improbe and its MPI_(I)mrecv. */
static MPI_Message msgs[MAX_REQS];
static int free_reqs[MAX_REQS];
static int nfree;
static int next_req;
static volatile int reqs_lock;

static int req_take(void) {
    while (__sync_lock_test_and_set(&reqs_lock, 1)) {
    }
    int r = nfree > 0 ? free_reqs[--nfree] : next_req < MAX_REQS ? next_req++ : -1;
    __sync_lock_release(&reqs_lock);
    return r;
}

static void req_give(int r) {
    free(req_ints[r]);
    req_ints[r] = NULL;
    free(req_mem[r]);
    req_mem[r] = NULL;
    while (__sync_lock_test_and_set(&reqs_lock, 1)) {
    }
    free_reqs[nfree++] = r;
    __sync_lock_release(&reqs_lock);
}

/* Requests posted and not yet found complete by coll4j_mpi_test. */
static int reqs_in_flight(void) {
    while (__sync_lock_test_and_set(&reqs_lock, 1)) {
    }
    int n = next_req - nfree;
    __sync_lock_release(&reqs_lock);
    return n;
}

/* Stores the slot of a posted request in *index, or gives the slot back when posting failed. */
static int posted(int rc, int r, int *index) {
    if (rc != MPI_SUCCESS) {
        req_give(r);
        return rc;
    }
    *index = r;
    return MPI_SUCCESS;
}

#define TAKE_SLOT(count) \
    if ((count) > INT_MAX) { return MPI_ERR_COUNT; } \
    int r = req_take(); \
    if (r < 0) { return MPI_ERR_REQUEST; }

/* send == NULL means in place. */
int coll4j_mpi_iallreduce(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int *index) {
    TAKE_SLOT(count)
    return posted(MPI_Iallreduce(send ? send : MPI_IN_PLACE, recv, (int) count, dtype_of(dtype), op_of(dtype, op),
                                 comm_of(comm), &reqs[r]), r, index);
}

int coll4j_mpi_ibcast(int comm, void *buf, int64_t count, int dtype, int root, int *index) {
    TAKE_SLOT(count)
    return posted(MPI_Ibcast(buf, (int) count, dtype_of(dtype), root, comm_of(comm), &reqs[r]), r, index);
}

/* At the root send == NULL means in place; elsewhere recv is unused. */
int coll4j_mpi_ireduce(int comm, const void *send, void *recv, int64_t count, int dtype, int op, int root, int *index) {
    TAKE_SLOT(count)
    return posted(MPI_Ireduce(send ? send : MPI_IN_PLACE, recv, (int) count, dtype_of(dtype), op_of(dtype, op), root,
                              comm_of(comm), &reqs[r]), r, index);
}

int coll4j_mpi_ireduce_scatter_block(int comm, const void *send, void *recv, int64_t recvcount, int dtype, int op,
                                     int *index) {
    TAKE_SLOT(recvcount)
    return posted(MPI_Ireduce_scatter_block(send, recv, (int) recvcount, dtype_of(dtype), op_of(dtype, op), comm_of(comm),
                                            &reqs[r]), r, index);
}

/* send == NULL means in place: this process's block of recv holds its contribution. */
int coll4j_mpi_iallgather(int comm, const void *send, void *recv, int64_t count, int dtype, int *index) {
    TAKE_SLOT(count)
    return posted(MPI_Iallgather(send ? send : MPI_IN_PLACE, (int) count, dtype_of(dtype), recv, (int) count,
                                 dtype_of(dtype), comm_of(comm), &reqs[r]), r, index);
}

int coll4j_mpi_ibarrier(int comm, int *index) {
    TAKE_SLOT(0)
    return posted(MPI_Ibarrier(comm_of(comm), &reqs[r]), r, index);
}

/*
 * The int arrays of a non-blocking v-collective: `arrays` int64 byte arrays of n entries each (NULL where this
 * process passes none, e.g. a gatherv's counts off the root), converted into one allocation owned by slot r.
 * out[k] points at array k's ints (NULL where the input was NULL). MPI_ERR_COUNT when an entry does not fit an
 * int, MPI_ERR_NO_MEM when malloc fails.
 */
static int slot_ints(int r, int n, int arrays, const int64_t *const *in, int **out) {
    int *all = malloc(sizeof(int) * (size_t) (n > 0 ? n : 1) * (size_t) arrays);
    if (all == NULL) {
        return MPI_ERR_NO_MEM;
    }
    req_ints[r] = all;
    for (int k = 0; k < arrays; k++) {
        out[k] = NULL;
        if (in[k] != NULL) {
            out[k] = all + (size_t) k * (size_t) n;
            if (to_ints(in[k], out[k], n) != MPI_SUCCESS) {
                return MPI_ERR_COUNT;
            }
        }
    }
    return MPI_SUCCESS;
}

/* MPI_Igatherv of bytes; at the root send == NULL means in place; counts and displs are read at the root only. */
int coll4j_mpi_igatherv_bytes(int comm, const void *send, int64_t send_bytes, void *recv, const int64_t *counts,
                              const int64_t *displs, int root, int *index) {
    TAKE_SLOT(send_bytes)
    int me = -1;
    MPI_Comm_rank(comm_of(comm), &me);
    const int64_t *in[2] = {me == root ? counts : NULL, me == root ? displs : NULL};
    int *a[2];
    int rc = slot_ints(r, comm_size_of(comm), 2, in, a);
    if (rc != MPI_SUCCESS) {
        return posted(rc, r, index);
    }
    return posted(MPI_Igatherv(send ? send : MPI_IN_PLACE, (int) send_bytes, MPI_BYTE, recv, a[0], a[1], MPI_BYTE, root,
                               comm_of(comm), &reqs[r]), r, index);
}

/* MPI_Iscatterv of bytes; at the root recv == NULL means in place; send, counts and displs are read at the root only. */
int coll4j_mpi_iscatterv_bytes(int comm, const void *send, const int64_t *counts, const int64_t *displs, void *recv,
                               int64_t recv_bytes, int root, int *index) {
    TAKE_SLOT(recv_bytes)
    int me = -1;
    MPI_Comm_rank(comm_of(comm), &me);
    const int64_t *in[2] = {me == root ? counts : NULL, me == root ? displs : NULL};
    int *a[2];
    int rc = slot_ints(r, comm_size_of(comm), 2, in, a);
    if (rc != MPI_SUCCESS) {
        return posted(rc, r, index);
    }
    return posted(MPI_Iscatterv(send, a[0], a[1], MPI_BYTE, recv ? recv : MPI_IN_PLACE, (int) recv_bytes, MPI_BYTE, root,
                                comm_of(comm), &reqs[r]), r, index);
}

/* MPI_Iallgatherv of bytes; send == NULL means in place. */
int coll4j_mpi_iallgatherv_bytes(int comm, const void *send, int64_t send_bytes, void *recv, const int64_t *counts,
                                 const int64_t *displs, int *index) {
    TAKE_SLOT(send_bytes)
    const int64_t *in[2] = {counts, displs};
    int *a[2];
    int rc = slot_ints(r, comm_size_of(comm), 2, in, a);
    if (rc != MPI_SUCCESS) {
        return posted(rc, r, index);
    }
    return posted(MPI_Iallgatherv(send ? send : MPI_IN_PLACE, (int) send_bytes, MPI_BYTE, recv, a[0], a[1], MPI_BYTE,
                                  comm_of(comm), &reqs[r]), r, index);
}

/* MPI_Ialltoallv of bytes (send and recv distinct). */
int coll4j_mpi_ialltoallv_bytes(int comm, const void *send, const int64_t *send_counts, const int64_t *send_displs,
                                void *recv, const int64_t *recv_counts, const int64_t *recv_displs, int *index) {
    TAKE_SLOT(0)
    const int64_t *in[4] = {send_counts, send_displs, recv_counts, recv_displs};
    int *a[4];
    int rc = slot_ints(r, comm_size_of(comm), 4, in, a);
    if (rc != MPI_SUCCESS) {
        return posted(rc, r, index);
    }
    return posted(MPI_Ialltoallv(send, a[0], a[1], MPI_BYTE, recv, a[2], a[3], MPI_BYTE, comm_of(comm), &reqs[r]), r, index);
}

/*
 * Non-blocking point-to-point of bytes, tag 0 (the chain of a reproducible fold across processes): MPI keeps
 * messages of one (source, tag, communicator) in order, and the requests are posted in the same order in every
 * process, so consecutive chains never mix their partials.
 */
int coll4j_mpi_isend(int comm, const void *buf, int64_t bytes, int dest, int *index) {
    TAKE_SLOT(bytes)
    return posted(MPI_Isend(buf, (int) bytes, MPI_BYTE, dest, 0, comm_of(comm), &reqs[r]), r, index);
}

int coll4j_mpi_irecv(int comm, void *buf, int64_t bytes, int src, int *index) {
    TAKE_SLOT(bytes)
    return posted(MPI_Irecv(buf, (int) bytes, MPI_BYTE, src, 0, comm_of(comm), &reqs[r]), r, index);
}

/* MPI_Test of slot `index`: *flag = 1 when complete (the slot is then free for the next request). */
int coll4j_mpi_test(int index, int *flag) {
    if (index < 0 || index >= MAX_REQS) {
        return MPI_ERR_REQUEST;
    }
    int rc = MPI_Test(&reqs[index], flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && *flag) {
        req_give(index);
    }
    return rc;
}

/*
 * Point-to-point between the ranks of an MPI team (io.coll4j.mpi.MpiMessages), on the team's own copy of its
 * communicator, so no collective's message ever matches one. Every message to local rank d of a process starts with
 * a 16-byte envelope {source's local id, tag, bytes} on MPI tag 2d: MPI keeps one (source process, tag, communicator)
 * in order, so the envelopes of one rank to another arrive in the order sent, whatever their user tags (which need not
 * fit MPI's guaranteed 32767). A message up to the crossover travels inside its envelope's message; a larger one's
 * payload follows on tag 2d + 1, posted right after its envelope under send_lock, so the payloads from one process to
 * d are in the order of their envelopes and the receiver takes them in that order (MPI_Improbe right after the
 * envelope).
 */
static volatile int send_lock;

/* Sends `total` bytes of `msg` (envelope and payload) on `tag` to `dest`; the slot owns a copy of them. */
int coll4j_mpi_p2p_isend(int comm, const void *msg, int64_t total, int dest, int tag, int *index) {
    TAKE_SLOT(total)
    void *copy = malloc((size_t) (total > 0 ? total : 1));
    if (copy == NULL) {
        return posted(MPI_ERR_NO_MEM, r, index);
    }
    memcpy(copy, msg, (size_t) total);
    req_mem[r] = copy;
    return posted(MPI_Isend(copy, (int) total, MPI_BYTE, dest, tag, comm_of(comm), &reqs[r]), r, index);
}

/* A large message: the 16-byte envelope on `tag` (the slot in index[0] owns its copy), then `bytes` of `buf` on
 * tag + 1 (index[1]), the two posted together under send_lock. */
int coll4j_mpi_p2p_isend_large(int comm, const void *envelope, const void *buf, int64_t bytes, int dest, int tag,
                               int *index) {
    if (bytes > INT_MAX) {
        return MPI_ERR_COUNT;
    }
    while (__sync_lock_test_and_set(&send_lock, 1)) {
    }
    int rc = coll4j_mpi_p2p_isend(comm, envelope, 16, dest, tag, &index[0]);
    if (rc == MPI_SUCCESS) {
        int r = req_take();
        rc = r < 0 ? MPI_ERR_REQUEST
           : posted(MPI_Isend(buf, (int) bytes, MPI_BYTE, dest, tag + 1, comm_of(comm), &reqs[r]), r, &index[1]);
    }
    __sync_lock_release(&send_lock);
    return rc;
}

/* The next envelope on `tag` from any process, received into `scratch` (`cap` bytes): out = {1, source process,
 * bytes}, or out[0] = 0 when none has come. MPI_ERR_TRUNCATE (received and dropped) when it does not fit: a process
 * with another crossover. */
int coll4j_mpi_p2p_poll(int comm, int tag, void *scratch, int64_t cap, int64_t *out) {
    MPI_Message m;
    MPI_Status st;
    int flag = 0;
    out[0] = 0;
    int rc = MPI_Improbe(MPI_ANY_SOURCE, tag, comm_of(comm), &flag, &m, &st);
    if (rc != MPI_SUCCESS || !flag) {
        return rc;
    }
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    out[1] = st.MPI_SOURCE;
    out[2] = count;
    if (count > cap) {
        void *drop = malloc((size_t) count);
        MPI_Mrecv(drop, count, MPI_BYTE, &m, MPI_STATUS_IGNORE);
        free(drop);
        return MPI_ERR_TRUNCATE;
    }
    rc = MPI_Mrecv(scratch, count, MPI_BYTE, &m, MPI_STATUS_IGNORE);
    out[0] = rc == MPI_SUCCESS;
    return rc;
}

/* The payload of a large message from `source` on `tag`, if it has come: out = {1, slot holding it, bytes}, else
 * out[0] = 0. */
int coll4j_mpi_p2p_probe_payload(int comm, int source, int tag, int64_t *out) {
    MPI_Message m;
    MPI_Status st;
    int flag = 0;
    out[0] = 0;
    int rc = MPI_Improbe(source, tag, comm_of(comm), &flag, &m, &st);
    if (rc != MPI_SUCCESS || !flag) {
        return rc;
    }
    int r = req_take();
    if (r < 0) {
        return MPI_ERR_REQUEST;    /* the message stays matched; the job ends on this error */
    }
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    msgs[r] = m;
    out[0] = 1;
    out[1] = r;
    out[2] = count;
    return MPI_SUCCESS;
}

/* Receives the payload held by `slot` into `buf` (`bytes`, all of it): blocking when `wait`, else MPI_Imrecv on
 * the same slot, completed by coll4j_mpi_test. */
int coll4j_mpi_p2p_mrecv(int slot, void *buf, int64_t bytes, int wait) {
    if (slot < 0 || slot >= MAX_REQS) {
        return MPI_ERR_REQUEST;
    }
    if (wait) {
        int rc = MPI_Mrecv(buf, (int) bytes, MPI_BYTE, &msgs[slot], MPI_STATUS_IGNORE);
        req_give(slot);
        return rc;
    }
    return MPI_Imrecv(buf, (int) bytes, MPI_BYTE, &msgs[slot], &reqs[slot]);
}
