package io.coll4j.mpi;

import io.coll4j.Collective;
import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cross-process suite's program, started by {@link MpiJobTest} under {@code mpirun}:
 * {@code check T} runs every hierarchical collective × dtype × op at counts 0, 1, odd, not divisible by
 * the rank count and a few MiB, heap and native, in place and not, on a team of T ranks per process (the core
 * dtypes and ops and user ops ({@link UserOpChecker}) in both, every other dtype and op in {@link EveryDtypeChecker};
 * {@code check-core T} leaves that one out), and
 * compares every rank's result with the reference left fold over global ranks (inputs are small
 * integers and powers of two, so every order is exact and any wrong element shows); it also checks that
 * every rank's result hash is bitwise the same for inexact sums. A wrong element throws, which ends the
 * job with MPI_Abort and a nonzero exit. {@code throw T} makes global rank 1 throw before a collective;
 * {@code mismatch T} has process 0 allreduce one element more than the others (a checked size), and
 * {@code mismatch-nb T} the same with iallreduce, {@code mismatch-nb-rest T} has process 0 start a gatherInit where the
 * others start a scatterInit (a persistent request's first round is checked), {@code mismatch-plan T} has it plan an allreduce where the others
 * plan a bcast; {@code throw-nb T} has global rank 1 throw while
 * requests of every kind are outstanding, {@code unawaited T} leaves requests un-awaited when the team closes;
 * {@code split T} runs the sub-team checks ({@link SplitChecker}) alone, {@code requests T} the
 * request checks ({@link RequestChecker}), {@code p2p T} point-to-point ({@link P2pChecker}).
 */
public final class CrossProcessDriver {
    private CrossProcessDriver() {
    }

    /** {@code n} ones (one element per rank). */
    private static long[] ones(int n) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, 1);
        return a;
    }

    /** 0, 1, …, n − 1 (packed displacements of one element per rank). */
    private static long[] iota(int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    /**
     * {@code mpi()}, or with {@code -Dcoll4j.test.shm=N:I:JOB} (SharedMappingJobTest) the shared-mapping span:
     * {@code processes(N, I).name(JOB)}, no MPI.
     */
    static Team.Builder spanning(Team.Builder b) {
        String shm = System.getProperty("coll4j.test.shm");
        if (shm == null) {
            return b.mpi();
        }
        String[] f = shm.split(":");
        return b.processes(Integer.parseInt(f[0]), Integer.parseInt(f[1])).name(f[2]);
    }

    public static void main(String[] args) {
        String mode = args[0];
        int t = Integer.parseInt(args[1]);
        Team.Builder builder = spanning(Team.builder().ranks(t)).timeout(Duration.ofSeconds(40)).reproducible(mode.equals("reproducible"));
        if (mode.equals("mapped") || mode.equals("mixed")) {
            builder.sharedMemory(16 << 20);   // MappedBufferChecker's pool, whatever /dev/shm's free space (CI's may be small)
        }
        try (Team team = builder.build()) {
            if (mode.equals("loop")) {
                // the fault case of SharedMappingJobTest: allreduce until the test kills one process (kill -9)
                team.run(rank -> {
                    double[] x = new double[1024];
                    for (long i = 0; ; i++) {
                        rank.allreduce(x, x, Op.SUM);
                        if (i == 100 && rank.id() == 0) {
                            System.out.println("looping in process " + team.processIndex());
                        }
                    }
                });
                return;
            }
            if (mode.equals("mismatch-kind")) {
                // small calls of different kinds: process 0 barriers, the others broadcast one element
                team.run(rank -> {
                    if (team.processIndex() == 0) {
                        rank.barrier();
                    } else {
                        rank.bcast(new long[1], 0);
                    }
                });
                return;
            }
            if (mode.equals("reproducible")) {
                team.run(rank -> {
                    new Checker(rank).reproducible();
                    new EveryDtypeChecker(rank).reproducible();
                });
                if (team.processIndex() == 0) {
                    System.out.println("cross-process reproducible OK: " + team.processes() + " processes x " + t + " ranks");
                }
                return;
            }
            if (mode.equals("split")) {
                // the sub-team checks alone (the check modes run them too): a quick run while working on split
                team.run(rank -> new SplitChecker(rank).all());
                if (team.processIndex() == 0) {
                    System.out.println("cross-process split OK: " + team.processes() + " processes x " + t + " ranks, " + team.transport());
                }
                return;
            }
            if (mode.equals("mapped") || mode.equals("mixed")) {
                // buffers from rank.allocate, in the mapping (mixed: some processes' on the heap), SharedMappingJobTest
                java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
                team.run(rank -> checks.addAndGet(new MappedBufferChecker(rank, mode.equals("mixed")).all()));
                if (team.processIndex() == 0) {
                    System.out.println("cross-process " + mode + " buffers OK: " + team.processes() + " processes x " + t
                            + " ranks, " + checks.get() + " checks in process 0");
                }
                return;
            }
            if (mode.equals("p2p")) {
                // point-to-point and a neighbor allgather (P2pChecker), over the mapping or MPI as the job chose
                java.util.concurrent.atomic.AtomicInteger got = new java.util.concurrent.atomic.AtomicInteger();
                team.run(rank -> got.addAndGet(new P2pChecker(rank).all()));
                if (team.processIndex() == 0) {
                    System.out.println("cross-process p2p OK: " + team.processes() + " processes x " + t + " ranks, "
                            + got.get() + " messages received in process 0, " + team.transport());
                }
                return;
            }
            if (mode.equals("requests")) {
                // the request checks alone (the check modes run them too): a quick run while working on requests
                java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
                team.run(rank -> checks.addAndGet(new RequestChecker(rank).all()));
                if (team.processIndex() == 0) {
                    System.out.println("cross-process requests OK: " + team.processes() + " processes x " + t + " ranks, "
                            + checks.get() + " checks in process 0, " + team.transport());
                }
                return;
            }
            if (mode.equals("mismatch")) {
                // a call large enough to be checked: process 0 reduces one element more than the others
                team.run(rank -> {
                    long n = SpanCheckSize.ELEMENTS + (team.processIndex() == 0 ? 1 : 0);
                    rank.allreduce(rank.allocate(n * 8), rank.allocate(n * 8), n, DType.F64, Op.SUM);
                });
                return;
            }
            if (mode.equals("mismatch-nb")) {
                // the same as a non-blocking call: the leader checks before its MPI_Iallreduce
                team.run(rank -> {
                    long n = SpanCheckSize.ELEMENTS + (team.processIndex() == 0 ? 1 : 0);
                    rank.iallreduce(rank.allocate(n * 8), rank.allocate(n * 8), n, DType.F64, Op.SUM).await();
                });
                return;
            }
            if (mode.equals("mismatch-nb-rest")) {
                // persistent requests, checked at their first round: process 0 gathers, the others scatter
                team.run(rank -> {
                    MemorySegment one = rank.allocate(8);
                    MemorySegment all = rank.allocate(8L * rank.size());
                    try (io.coll4j.PersistentRequest r = team.processIndex() == 0 ? rank.gatherInit(one, all, 1, DType.I64, 0)
                            : rank.scatterInit(all, one, 1, DType.I64, 0)) {
                        r.start();
                        r.await();
                    }
                });
                return;
            }
            if (mode.equals("mismatch-plan")) {
                // one-element plans, checked at their first call: process 0 plans allreduce, the others bcast
                team.run(rank -> {
                    MemorySegment b = rank.allocate(8);
                    (team.processIndex() == 0 ? rank.plan(io.coll4j.Collective.ALLREDUCE, 1, DType.F64, Op.SUM)
                            : rank.plan(io.coll4j.Collective.BCAST, 1, DType.F64, null, 0)).execute(b, b);
                });
                return;
            }
            if (mode.equals("throw-user")) {
                // a commutative user op whose function throws in process 1, inside MPI's call of it
                io.coll4j.reductions.UserOp boom = io.coll4j.reductions.UserOp.ofDoubles("boom", true, (a, b) -> {
                    if (team.processIndex() == 1) {
                        throw new IllegalStateException("planned failure of a user op in process 1");
                    }
                    return a + b;
                });
                team.run(rank -> {
                    MemorySegment x = rank.allocate(64);
                    rank.allreduce(x, x, 8, boom);
                    rank.barrier();
                });
                return;
            }
            if (mode.equals("throw-nb")) {
                // global rank 1 throws while requests of every kind are outstanding on every rank; the others wait
                team.run(rank -> {
                    int p = rank.size();
                    MemorySegment one = rank.allocate(8);
                    MemorySegment all = rank.allocate(8L * p);
                    io.coll4j.Request a = rank.igather(one, all, 1, DType.I64, 0);
                    io.coll4j.Request b = rank.ialltoall(all, rank.allocate(8L * p), 1, DType.I64);
                    io.coll4j.Request c = rank.iscan(one, rank.allocate(8), 1, DType.I64, Op.SUM);
                    io.coll4j.Request d = rank.iallgatherv(one, 1, all, ones(p), iota(p), DType.I64);
                    if (rank.id() == 1) {
                        throw new IllegalStateException("planned failure of global rank 1 with requests outstanding");
                    }
                    d.await();
                    c.await();
                    b.await();
                    a.await();
                    rank.barrier();
                });
                return;
            }
            if (mode.equals("unawaited")) {
                // requests of every kind left un-awaited on every rank (one-shot and persistent, some started twice):
                // the team's close and MPI_Finalize must neither hang nor fail
                team.run(rank -> {
                    int p = rank.size();
                    MemorySegment one = rank.allocate(8);
                    MemorySegment all = rank.allocate(8L * p);
                    rank.igatherv(one, 1, all, ones(p), iota(p), DType.I64, p - 1);
                    rank.ialltoallv(all, ones(p), iota(p), rank.allocate(8L * p), ones(p), iota(p), DType.I64);
                    rank.iexscan(one, rank.allocate(8), 1, DType.I64, Op.SUM);
                    io.coll4j.PersistentRequest r = rank.scatterInit(all, rank.allocate(8), 1, DType.I64, 0);
                    r.start();
                    r.await();
                    r.start();
                    rank.iallreduce(one, rank.allocate(8), 1, DType.I64, Op.SUM);
                });
                if (team.processIndex() == 0) {
                    System.out.println("un-awaited requests closed: " + team.processes() + " processes x " + t + " ranks");
                }
                return;
            }
            if (mode.equals("mismatch-small")) {
                mismatchSmall(team, args[2]);
                return;
            }
            if (mode.startsWith("closed-")) {
                closedArena(team, mode, t, args.length > 2 ? Long.parseLong(args[2]) : 1);
                return;
            }
            if (mode.equals("throw")) {
                team.run(rank -> {
                    if (rank.id() == 1) {
                        throw new IllegalStateException("planned failure of global rank 1");
                    }
                    rank.allreduce(new double[8], new double[8], Op.SUM);
                });
                return;
            }
            java.util.concurrent.atomic.AtomicInteger checks = new java.util.concurrent.atomic.AtomicInteger();
            // "check" runs the core suite and every other dtype and op; "check-core" the core suite only
            team.run(rank -> checks.addAndGet(new Checker(rank).all() + (mode.equals("check") ? new EveryDtypeChecker(rank).all() : 0)));
            if (team.processIndex() == 0) {
                System.out.println("cross-process OK: " + team.processes() + " processes x " + t + " ranks, "
                        + checks.get() + " checks in process 0, " + team.transport() + "; the f64 user op's function ran "
                        + UserOpChecker.bigSumCalls + " times in process 0 for its 1 MiB allreduce");
            }
        }
    }

    /**
     * Issue 30, defect 1: requests whose buffers come from an {@code Arena.ofShared()} closed while the request is in
     * flight ({@code mib} MiB per buffer). {@code closed-await}: iallreduce, close, await — the owning rank gets an
     * IllegalArgumentException ("... is not alive: its arena was closed"), the other local ranks a
     * TeamAbortedException, and the job ends through the failure path (was: SIGSEGV in memcpy under MPI_Test).
     * {@code closed-persistent}: the same on a persistent allreduce's second round. {@code closed-unawaited}: every
     * request kind on its own arena, closed, never awaited; the team's close (MPI_Finalize) must end cleanly (was:
     * SIGSEGV under MPI_Finalize).
     */
    private static void closedArena(Team team, String mode, int t, long mib) {
        long n = (mib << 20) / 8;
        team.run(rank -> {
            int p = rank.size();
            if (mode.equals("closed-unawaited")) {
                for (int kind = 0; kind < 12; kind++) {
                    // the iallreduce at the size asked for (the crash of the issue: 64 MiB), the other kinds at most 1 MiB
                    long each = Math.max(1, (kind == 0 ? n : Math.min(n, 1 << 17)) / p);
                    java.lang.foreign.Arena a = java.lang.foreign.Arena.ofShared();
                    MemorySegment x = a.allocate(8 * each * p, 64);
                    MemorySegment y = a.allocate(8 * each * p, 64);
                    switch (kind) {
                        case 0 -> rank.iallreduce(x, y, each * p, DType.F64, Op.SUM);
                        case 1 -> rank.ibcast(x, each * p, DType.F64, 0);
                        case 2 -> rank.ireduce(x, y, each * p, DType.F64, Op.SUM, p - 1);
                        case 3 -> rank.ireduceScatter(x, y, each, DType.F64, Op.SUM);
                        case 4 -> rank.iallgather(x.asSlice(0, 8 * each), y, each, DType.F64);
                        case 5 -> rank.igather(x.asSlice(0, 8 * each), y, each, DType.F64, 0);
                        case 6 -> rank.iscatter(x, y.asSlice(0, 8 * each), each, DType.F64, p - 1);
                        case 7 -> rank.ialltoall(x, y, each, DType.F64);
                        case 8 -> rank.iscan(x, y, each, DType.F64, Op.SUM);
                        case 9 -> rank.iallgatherv(x.asSlice(0, 8 * each), each, y, fill(p, each), steps(p, each), DType.F64);
                        case 10 -> rank.iallreduce(y, y, each * p, DType.F64, Op.SUM);   // in place
                        default -> {
                            io.coll4j.PersistentRequest r = rank.allreduceInit(x, y, each * p, DType.F64, Op.SUM);
                            r.start();
                        }
                    }
                    a.close();
                }
                return;
            }
            java.lang.foreign.Arena a = java.lang.foreign.Arena.ofShared();
            MemorySegment send = a.allocate(8 * n, 64);
            MemorySegment recv = a.allocate(8 * n, 64);
            io.coll4j.Request r;
            if (mode.equals("closed-persistent")) {
                io.coll4j.PersistentRequest pr = rank.allreduceInit(send, recv, n, DType.F64, Op.SUM);
                pr.start();
                pr.await();
                pr.start();
                r = pr;
            } else {
                r = rank.iallreduce(send, recv, n, DType.F64, Op.SUM);
            }
            a.close();
            try {
                r.await();
                System.out.println("closed arena: global rank " + rank.id() + " awaited without an error");
            } catch (RuntimeException e) {
                System.out.println("closed arena: global rank " + rank.id() + ": " + e);
                throw e;
            }
        });
        if (team.processIndex() == 0) {
            System.out.println(mode + " closed: " + team.processes() + " processes x " + t + " ranks");
        }
    }

    /**
     * Issue 30, defect 4: small calls (below SpanCheck's size) that differ between the processes, then a matched 8-byte
     * bcast and allreduce. Was: exit 0, the matched bcast delivering the mismatched one's stale payload. {@code kase}:
     * bcast-root (process 0 broadcasts from global rank 0, the others from the first rank of process 1),
     * bcast-count (1 element against 2), allreduce-count, allreduce-op (SUM against MAX), allreduce-vs-bcast,
     * reduce-root, scan-vs-allreduce, and (the word carried inside the payload) allreduce-f64-count,
     * allreduce-f32-op, allreduce-i32-band, allreduce-dtype, allreduce-prod (a header), reduce-count, allgather-count,
     * barrier-vs-allreduce, gather-count, scatter-count, alltoall-count, reduce-scatter-count, scan-count,
     * iallreduce-count (a request compares at every size), reduce-rootlocal-count (2 ranks a process: root 1 is local
     * rank 1) and allreduce-user-count (both take the separate check); MpiJobTest runs a selection. allreduce-vs-bcast, reduce-root and scan-vs-allreduce are not in the suite: MPI cannot match an allreduce with a bcast,
     * two reduces with different roots, or an allgatherv with an allreduce, so they end through the watchdog after the
     * team timeout (as before; not silently), not with a CollectiveMismatchException.
     */
    private static void mismatchSmall(Team team, String kase) {
        int me = team.processIndex();
        team.run(rank -> {
            int t = rank.localSize();
            MemorySegment a = rank.allocate(64);
            MemorySegment b = rank.allocate(64);
            a.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 0, 100 + rank.id());
            a.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, 1, 200 + rank.id());
            switch (kase) {
                case "bcast-root" -> rank.bcast(a, 1, DType.I64, me == 0 ? 0 : t);
                case "bcast-count" -> rank.bcast(a, me == 0 ? 1 : 2, DType.I64, 0);
                case "allreduce-count" -> rank.allreduce(a, b, me == 0 ? 1 : 2, DType.I64, Op.SUM);
                case "allreduce-op" -> rank.allreduce(a, b, 1, DType.I64, me == 0 ? Op.SUM : Op.MAX);
                case "allreduce-vs-bcast" -> {
                    if (me == 0) {
                        rank.allreduce(a, b, 1, DType.I64, Op.SUM);
                    } else {
                        rank.bcast(a, 1, DType.I64, 0);
                    }
                }
                case "reduce-root" -> rank.reduce(a, b, 1, DType.I64, Op.SUM, me == 0 ? 0 : t);
                case "allreduce-f64-count" -> rank.allreduce(a, b, me == 0 ? 1 : 2, DType.F64, Op.SUM);
                case "allreduce-f32-op" -> rank.allreduce(a, b, 2, DType.F32, me == 0 ? Op.MIN : Op.MAX);
                case "allreduce-i32-band" -> rank.allreduce(a, b, me == 0 ? 3 : 2, DType.I32, Op.BAND);
                case "allreduce-dtype" -> rank.allreduce(a, b, 1, me == 0 ? DType.I64 : DType.F64, Op.SUM);
                case "allreduce-prod" -> rank.allreduce(a, b, me == 0 ? 1 : 2, DType.I64, Op.PROD);
                case "reduce-count" -> rank.reduce(a, b, me == 0 ? 1 : 2, DType.I64, Op.SUM, 0);
                case "allgather-count" -> rank.allgather(a, rank.allocate(64L * rank.size()), me == 0 ? 1 : 2, DType.I64);
                case "gather-count" -> rank.gather(a, rank.allocate(64L * rank.size()), me == 0 ? 1 : 2, DType.I64, 0);
                case "scatter-count" -> rank.scatter(rank.allocate(64L * rank.size()), b, me == 0 ? 1 : 2, DType.I64, 0);
                case "alltoall-count" -> rank.alltoall(rank.allocate(64L * rank.size()), rank.allocate(64L * rank.size()),
                        me == 0 ? 1 : 2, DType.I64);
                case "reduce-scatter-count" -> rank.reduceScatter(rank.allocate(64L * rank.size()), b, me == 0 ? 1 : 2,
                        DType.I64, Op.SUM);
                case "scan-count" -> rank.scan(a, b, me == 0 ? 1 : 2, DType.I64, Op.SUM);
                case "reduce-rootlocal-count" -> rank.reduce(a, b, me == 0 ? 1 : 2, DType.I64, Op.SUM, 1);
                case "allreduce-user-count" -> rank.allreduce(a, b, me == 0 ? 1 : 2,
                        io.coll4j.reductions.UserOp.ofLongs("sum", DType.I64, true, Long::sum));
                case "iallreduce-count" -> rank.iallreduce(a, b, me == 0 ? 1 : 2, DType.I64, Op.SUM).await();
                case "barrier-vs-allreduce" -> {
                    if (me == 0) {
                        rank.barrier();
                    } else {
                        rank.allreduce(a, b, 1, DType.I64, Op.BAND);
                    }
                }
                case "scan-vs-allreduce" -> {
                    if (me == 0) {
                        rank.scan(a, b, 1, DType.I64, Op.SUM);
                    } else {
                        rank.allreduce(a, b, 1, DType.I64, Op.SUM);
                    }
                }
                default -> throw new IllegalArgumentException(kase);
            }
            MemorySegment c = rank.allocate(8);
            c.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, rank.id() == 0 ? 4242 : -1);
            rank.bcast(c, 1, DType.I64, 0);
            rank.allreduce(a, b, 1, DType.I64, Op.SUM);
            System.out.println("mismatch-small " + kase + ": global rank " + rank.id() + " ended without an error; the "
                    + "matched bcast delivered " + c.get(java.lang.foreign.ValueLayout.JAVA_LONG, 0) + " (4242 sent)");
        });
    }

    private static long[] fill(int n, long v) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, v);
        return a;
    }

    private static long[] steps(int n, long v) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = i * v;
        }
        return a;
    }

    /** The f64 count of a call the cross-process check covers by its size alone (SpanCheck.MIN_BYTES). */
    static final class SpanCheckSize {
        static final long ELEMENTS = io.coll4j.kernel.span.SpanCheck.MIN_BYTES / 8;
    }

    /** One rank's side of the suite. */
    static final class Checker {
        private final Rank rank;
        private final int g;
        private final int p;
        private int checks;
        private final Buffers buffers;

        Checker(Rank rank) {
            this.rank = rank;
            this.g = rank.id();
            this.p = rank.size();
            this.buffers = new Buffers(rank);
        }

        int all() {
            rank.barrier();
            long big = (3L << 20) / 8;   // 3 MiB of f64
            // the core dtypes and ops; EveryDtypeChecker runs the others (u32, u64, halves, pairs, AVG)
            for (DType d : new DType[]{DType.F32, DType.F64, DType.I32, DType.I64}) {
                for (Op op : ops(d)) {
                    for (long n : new long[]{0, 1, 7, 3L * p + 1}) {
                        allreduce(d, op, n, false);
                        allreduce(d, op, n, true);
                        reduce(d, op, n, p - 1, false);
                        reduce(d, op, n, 0, true);
                        reduceScatter(d, op, n);
                    }
                }
                allreduce(d, Op.SUM, big * 8 / d.size(), true);
                for (long n : new long[]{0, 1, 7, 3L * p + 1, big * 8 / d.size() / p}) {
                    bcast(d, n, (int) (n % p));
                    allgather(d, n, false);
                    allgather(d, n, true);
                }
            }
            reduceScatter(DType.F64, Op.SUM, big / p);
            plans();
            reusedPlans();
            sharedViews();
            checks += new UserOpChecker(rank).all();
            checks += new RequestChecker(rank).all();
            checks += new SplitChecker(rank).all();
            vocabulary();
            inexactAgreement();
            rank.barrier();
            return checks;
        }

        /**
         * Plans across processes take global roots (the last rank, in the last process) and check only their
         * buffers per call: each core collective through a plan, results checked as for the calls.
         */
        private void plans() {
            for (DType d : new DType[]{DType.F64, DType.I32}) {
                for (long n : new long[]{1, 7, 3L * p + 1}) {
                    allreduce(d, Op.SUM, n, n == 7, true);
                    reduce(d, Op.MAX, n, p - 1, n == 1, true);
                    reduceScatter(d, Op.SUM, n, true);
                    bcast(d, n, p - 1, true);
                    allgather(d, n, n == 1, true);
                }
            }
            rank.plan(Collective.BARRIER, 0, null, null).execute(null, null);
        }

        /**
         * One allreduce plan called again and again, as a hot loop does: after its first call a plan of one rank
         * per process runs MPI_Allreduce directly (HierarchicalCollectives#execute), in place and not; recv is overwritten
         * before each call, so a call that did nothing fails.
         */
        private void reusedPlans() {
            for (DType d : new DType[]{DType.F64, DType.I32}) {
                for (Op op : new Op[]{Op.SUM, Op.MAX}) {
                    for (long n : new long[]{1, 7}) {
                        io.coll4j.CollectivePlan plan = rank.plan(Collective.ALLREDUCE, n, d, op);
                        for (int call = 0; call < 4; call++) {
                            boolean inPlace = call % 2 == 1;
                            MemorySegment send = buffer(d, n);
                            fill(send, d, g, 0, n, op);
                            MemorySegment recv = inPlace ? send : buffer(d, n);
                            if (!inPlace) {
                                recv.fill((byte) 0x5a);
                            }
                            plan.execute(send, recv);
                            expect("reused plan allreduce " + op + " call " + call + (inPlace ? " in place" : ""), recv, d,
                                    0, n, i -> expected(d, op, i));
                        }
                    }
                }
            }
        }

        /**
         * allgatherShared and allreduceShared across processes: one result per process, read-only, checked as
         * the copying calls, at counts 0, 1, odd and not divisible by the rank count (consecutive calls
         * alternate the process's two shared buffers).
         */
        private void sharedViews() {
            for (DType d : new DType[]{DType.F64, DType.I64}) {
                for (long n : new long[]{0, 1, 7, 3L * p + 1}) {
                    MemorySegment send = buffer(d, n);
                    fill(send, d, g, g * n, n, Op.SUM);
                    MemorySegment all = rank.allgatherShared(send, n, d);
                    long each = n;
                    expect("allgatherShared", all, d, 0, n * p, i -> bitsOf(d, value((int) (i / Math.max(each, 1)), i, Op.SUM)));
                    for (Op op : new Op[]{Op.SUM, Op.MAX}) {
                        MemorySegment in = buffer(d, n);
                        fill(in, d, g, 0, n, op);
                        MemorySegment r = rank.allreduceShared(in, n, d, op);
                        expect("allreduceShared " + op, r, d, 0, n, i -> expected(d, op, i));
                    }
                    if (n > 0 && !all.isReadOnly()) {
                        throw new AssertionError("allgatherShared returned a writable view on global rank " + g);
                    }
                }
            }
        }

        /**
         * The rest of the vocabulary across processes: gather, scatter (roots on local rank 0 and not, in place
         * and not), alltoall, scan and exscan (SUM and MIN), allgatherv and reduce-scatter-v (uneven counts,
         * gaps), every core dtype, counts 0, 1, odd, not divisible by the rank count, and one large.
         */
        private void vocabulary() {
            for (DType d : new DType[]{DType.F32, DType.F64, DType.I32, DType.I64}) {
                for (long n : new long[]{0, 1, 7, 3L * p + 1}) {
                    for (int root : new int[]{0, p - 1, p / 2}) {
                        gather(d, n, root, root == p / 2);
                        scatter(d, n, root, root == p - 1);
                    }
                    alltoall(d, n, false);
                    alltoall(d, n, true);
                    for (Op op : new Op[]{Op.SUM, Op.MIN}) {
                        scan(d, op, n, false, n % 2 == 0);
                        scan(d, op, n, true, n % 2 == 1);
                        reduceScatterV(d, op, n);
                    }
                    allgatherv(d, n, false);
                    allgatherv(d, n, true);
                    for (int root : new int[]{0, p - 1}) {
                        gatherv(d, n, root, root == 0);
                        scatterv(d, n, root, root == p - 1);
                    }
                    alltoallv(d, n, false);
                    alltoallv(d, n, true);
                }
            }
            long big = (1L << 20) / 8;   // 1 MiB of f64 per rank: over SpanCheck's size, in several MPI messages
            gather(DType.F64, big / p, p - 1, false);
            alltoall(DType.F64, big / p / p, false);
            scan(DType.F64, Op.SUM, big, false, false);
            allgatherv(DType.F64, big / p, false);
        }

        /** Element i of global rank r's block: distinct per rank and index. */
        private static double mark(int r, long i) {
            return value(r, r * 1009L + i, Op.SUM) * 1000 + (i % 500);
        }

        private void gather(DType d, long n, int root, boolean inPlace) {
            MemorySegment recv = g == root ? buffer(d, n * p) : null;
            MemorySegment send = inPlace && g == root ? recv.asSlice(g * n * d.size(), n * d.size()) : buffer(d, n);
            putAll(send, d, n, i -> mark(g, i));
            rank.gather(send, recv, n, d, root);
            if (g == root) {
                expect("gather root " + root + (inPlace ? " in place" : ""), recv, d, 0, n * p,
                        i -> bitsOf(d, mark((int) (i / n), i % n)));
            }
        }

        private void scatter(DType d, long n, int root, boolean inPlace) {
            MemorySegment send = g == root ? buffer(d, n * p) : null;
            if (send != null) {
                putAll(send, d, n * p, i -> mark((int) (i / Math.max(n, 1)), i % Math.max(n, 1)));
            }
            MemorySegment recv = inPlace && g == root ? send.asSlice(g * n * d.size(), n * d.size()) : buffer(d, n);
            rank.scatter(send, recv, n, d, root);
            expect("scatter root " + root + (inPlace ? " in place" : ""), recv, d, 0, n, i -> bitsOf(d, mark(g, i)));
        }

        private void alltoall(DType d, long n, boolean inPlace) {
            MemorySegment send = buffer(d, n * p);
            putAll(send, d, n * p, i -> mark(g, i));   // block j for rank j: element j·n + i
            MemorySegment recv = inPlace ? send : buffer(d, n * p);
            rank.alltoall(send, recv, n, d);
            expect("alltoall" + (inPlace ? " in place" : ""), recv, d, 0, n * p,
                    i -> bitsOf(d, mark((int) (i / n), g * n + i % n)));
        }

        private void scan(DType d, Op op, long n, boolean exclusive, boolean inPlace) {
            MemorySegment send = buffer(d, n);
            fill(send, d, g, 0, n, op);
            MemorySegment recv = inPlace ? send : buffer(d, n);
            if (exclusive) {
                rank.exscan(send, recv, n, d, op);
            } else {
                rank.scan(send, recv, n, d, op);
            }
            int last = exclusive ? g - 1 : g;
            if (last >= 0) {
                expect((exclusive ? "exscan " : "scan ") + op + (inPlace ? " in place" : ""), recv, d, 0, n,
                        i -> expected(d, op, i, last));
            }
        }

        /** Uneven counts around n (some 0) for the v-variants. */
        private long[] unevenCounts(long n) {
            long[] c = new long[p];
            for (int r = 0; r < p; r++) {
                c[r] = Math.max(0, n + (r % 3) - 1);
            }
            return c;
        }

        private void allgatherv(DType d, long n, boolean inPlace) {
            long[] c = unevenCounts(n);
            long[] displs = new long[p];
            for (int r = 1; r < p; r++) {
                displs[r] = displs[r - 1] + c[r - 1] + 2;   // a gap of two elements between blocks
            }
            MemorySegment recv = buffer(d, displs[p - 1] + c[p - 1]);
            MemorySegment send = inPlace ? recv.asSlice(displs[g] * d.size(), c[g] * d.size()) : buffer(d, c[g]);
            putAll(send, d, c[g], i -> mark(g, i));
            rank.allgatherv(send, c[g], recv, c, displs, d);
            for (int r = 0; r < p; r++) {
                int from = r;
                expect("allgatherv" + (inPlace ? " in place" : ""), recv, d, displs[r], c[r], i -> bitsOf(d, mark(from, i)));
            }
        }

        /** Displacements of {@code c} with a gap of two elements between blocks; entry p is the extent. */
        private long[] gapped(long[] c) {
            long[] displs = new long[c.length + 1];
            for (int r = 1; r <= c.length; r++) {
                displs[r] = displs[r - 1] + c[r - 1] + 2;
            }
            return displs;
        }

        private void gatherv(DType d, long n, int root, boolean inPlace) {
            long[] c = unevenCounts(n);
            long[] displs = gapped(c);
            MemorySegment recv = g == root ? buffer(d, displs[p]) : null;
            MemorySegment send = inPlace && g == root ? recv.asSlice(displs[g] * d.size(), c[g] * d.size()) : buffer(d, c[g]);
            putAll(send, d, c[g], i -> mark(g, i));
            rank.gatherv(send, c[g], recv, g == root ? c : null, g == root ? java.util.Arrays.copyOf(displs, p) : null, d, root);
            for (int r = 0; g == root && r < p; r++) {
                int from = r;
                expect("gatherv root " + root + (inPlace ? " in place" : ""), recv, d, displs[r], c[r], i -> bitsOf(d, mark(from, i)));
            }
        }

        private void scatterv(DType d, long n, int root, boolean inPlace) {
            long[] c = unevenCounts(n);
            long[] displs = gapped(c);
            MemorySegment send = g == root ? buffer(d, displs[p]) : null;
            for (int r = 0; g == root && r < p; r++) {
                int to = r;
                putAll(send.asSlice(displs[r] * d.size()), d, c[r], i -> mark(to, i));
            }
            MemorySegment recv = inPlace && g == root ? send.asSlice(displs[g] * d.size(), c[g] * d.size()) : buffer(d, c[g]);
            rank.scatterv(send, g == root ? c : null, g == root ? java.util.Arrays.copyOf(displs, p) : null, recv, c[g], d, root);
            expect("scatterv root " + root + (inPlace ? " in place" : ""), recv, d, 0, c[g], i -> bitsOf(d, mark(g, i)));
        }

        /** Rank s sends about n/2 elements to rank r, unevenly, and mostly none when n is 0 (symmetric in s and r). */
        private static long pairCount(long n, int s, int r) {
            long c = (n + s + r) % 3 + n / 2;
            return n == 0 ? Math.max(0, c - 1) : c;
        }

        private void alltoallv(DType d, long n, boolean inPlace) {
            long[] sc = new long[p];
            long[] rc = new long[p];
            for (int r = 0; r < p; r++) {
                sc[r] = pairCount(n, g, r);
                rc[r] = pairCount(n, r, g);
            }
            // pairCount is symmetric, so the send and receive counts agree, as in place needs
            long[] sd = gapped(sc);
            long[] rd = inPlace ? sd : gapped(rc);
            MemorySegment send = buffer(d, sd[p]);
            for (int r = 0; r < p; r++) {
                int to = r;
                putAll(send.asSlice(sd[r] * d.size()), d, sc[r], i -> mark(g, to * 100L + i));
            }
            MemorySegment recv = inPlace ? send : buffer(d, rd[p]);
            rank.alltoallv(send, sc, java.util.Arrays.copyOf(sd, p), recv, rc, java.util.Arrays.copyOf(rd, p), d);
            for (int r = 0; r < p; r++) {
                int from = r;
                expect("alltoallv" + (inPlace ? " in place" : ""), recv, d, rd[r], rc[r], i -> bitsOf(d, mark(from, g * 100L + i)));
            }
        }

        private void reduceScatterV(DType d, Op op, long n) {
            long[] c = unevenCounts(n);
            long total = java.util.Arrays.stream(c).sum();
            long at = 0;
            for (int r = 0; r < g; r++) {
                at += c[r];
            }
            MemorySegment send = buffer(d, total);
            fill(send, d, g, 0, total, op);
            MemorySegment recv = buffer(d, c[g]);
            rank.reduceScatterV(send, recv, c, d, op);
            long first = at;
            expect("reduce-scatter-v " + op, recv, d, 0, c[g], i -> expected(d, op, first + i));
        }

        private void putAll(MemorySegment s, DType d, long n, java.util.function.LongToDoubleFunction v) {
            for (long i = 0; i < n; i++) {
                put(s, d, i, v.applyAsDouble(i));
            }
        }

        private static List<Op> ops(DType d) {
            List<Op> ops = new ArrayList<>(List.of(Op.SUM, Op.PROD, Op.MIN, Op.MAX));
            if (!d.isFloating()) {
                ops.addAll(List.of(Op.BAND, Op.BOR, Op.BXOR));
            }
            return ops;
        }

        /** Rank r's element i: small integers (exact in every dtype and order), or ±1, ±2, ±1/2 for PROD. */
        static double value(int r, long i, Op op) {
            if (op == Op.PROD) {
                double[] f = {1, 2, 0.5, -1, 1, -2};
                return f[(int) ((r * 5 + i * 3) % f.length)];
            }
            return (r * 31 + i * 7) % 13 - 6;
        }

        private MemorySegment buffer(DType d, long n) {
            return buffers.of(d, n);
        }

        private void fill(MemorySegment s, DType d, int r, long from, long n, Op op) {
            for (long i = 0; i < n; i++) {
                put(s, d, i, value(r, from + i, op));
            }
        }

        static void put(MemorySegment s, DType d, long i, double v) {
            switch (d) {
                case F32 -> s.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) v);
                case F64 -> s.setAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, i, v);
                case I32 -> s.setAtIndex(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, i, (int) v);
                case I64 -> s.setAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i, (long) v);
            }
        }

        static long bits(MemorySegment s, DType d, long i) {
            return switch (d) {
                case F32 -> Float.floatToRawIntBits(s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED, i));
                case F64 -> Double.doubleToRawLongBits(s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, i));
                case I32 -> s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, i);
                case I64 -> s.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, i);
                default -> throw new IllegalArgumentException("the cross-process driver runs the core dtypes, not " + d);
            };
        }

        /** The left fold over global ranks 0..p-1 of element i, as the dtype's bits. */
        private long expected(DType d, Op op, long i) {
            return expected(d, op, i, p - 1);
        }

        /** The left fold over global ranks 0..last of element i (scan, exscan). */
        private long expected(DType d, Op op, long i, int last) {
            if (d.isFloating()) {
                double acc = value(0, i, op);
                for (int r = 1; r <= last; r++) {
                    double v = value(r, i, op);
                    acc = switch (op) {
                        case SUM -> acc + v;
                        case PROD -> acc * v;
                        case MIN -> Math.min(acc, v);
                        default -> Math.max(acc, v);
                    };
                }
                return d == DType.F32 ? Float.floatToRawIntBits((float) acc) : Double.doubleToRawLongBits(acc);
            }
            long acc = (long) value(0, i, op);
            for (int r = 1; r <= last; r++) {
                long v = (long) value(r, i, op);
                acc = switch (op) {
                    case SUM -> acc + v;
                    case PROD -> acc * v;
                    case MIN -> Math.min(acc, v);
                    case MAX -> Math.max(acc, v);
                    case BAND -> acc & v;
                    case BOR -> acc | v;
                    case BXOR -> acc ^ v;
                    default -> throw new IllegalArgumentException("the cross-process driver runs the core ops, not " + op);
                };
            }
            return d == DType.I32 ? (int) acc : acc;
        }

        private void expect(String what, MemorySegment s, DType d, long at, long n, java.util.function.LongUnaryOperator want) {
            for (long i = 0; i < n; i++) {
                long got = bits(s, d, at + i);
                long w = want.applyAsLong(i);
                if (got != w) {
                    throw new AssertionError(what + " " + d + " count " + n + ": global rank " + g + " element " + i
                            + " has bits " + Long.toHexString(got) + ", expected " + Long.toHexString(w));
                }
            }
            checks++;
        }

        private void allreduce(DType d, Op op, long n, boolean inPlace) {
            allreduce(d, op, n, inPlace, false);
        }

        private void allreduce(DType d, Op op, long n, boolean inPlace, boolean planned) {
            MemorySegment send = buffer(d, n);
            fill(send, d, g, 0, n, op);
            MemorySegment recv = inPlace ? send : buffer(d, n);
            if (planned) {
                rank.plan(Collective.ALLREDUCE, n, d, op).execute(send, recv);
            } else {
                rank.allreduce(send, recv, n, d, op);
            }
            expect((planned ? "planned " : "") + "allreduce " + op + (inPlace ? " in place" : ""), recv, d, 0, n, i -> expected(d, op, i));
        }

        private void reduce(DType d, Op op, long n, int root, boolean inPlace) {
            reduce(d, op, n, root, inPlace, false);
        }

        private void reduce(DType d, Op op, long n, int root, boolean inPlace, boolean planned) {
            MemorySegment send = buffer(d, n);
            fill(send, d, g, 0, n, op);
            MemorySegment recv = g != root ? null : inPlace ? send : buffer(d, n);
            if (planned) {
                rank.plan(Collective.REDUCE, n, d, op, root).execute(send, recv);
            } else {
                rank.reduce(send, recv, n, d, op, root);
            }
            if (g == root) {
                expect((planned ? "planned " : "") + "reduce " + op + " root " + root, recv, d, 0, n, i -> expected(d, op, i));
            }
        }

        private void reduceScatter(DType d, Op op, long n) {
            reduceScatter(d, op, n, false);
        }

        private void reduceScatter(DType d, Op op, long n, boolean planned) {
            MemorySegment send = buffer(d, n * p);
            fill(send, d, g, 0, n * p, op);
            MemorySegment recv = buffer(d, n);
            if (planned) {
                rank.plan(Collective.REDUCE_SCATTER, n, d, op).execute(send, recv);
            } else {
                rank.reduceScatter(send, recv, n, d, op);
            }
            expect((planned ? "planned " : "") + "reduce-scatter " + op, recv, d, 0, n, i -> expected(d, op, g * n + i));
        }

        private void bcast(DType d, long n, int root) {
            bcast(d, n, root, false);
        }

        private void bcast(DType d, long n, int root, boolean planned) {
            MemorySegment buf = buffer(d, n);
            if (g == root) {
                fill(buf, d, root, 0, n, Op.SUM);
            }
            if (planned) {
                rank.plan(Collective.BCAST, n, d, null, root).execute(buf, null);
            } else {
                rank.bcast(buf, n, d, root);
            }
            expect((planned ? "planned " : "") + "bcast root " + root, buf, d, 0, n, i -> bitsOf(d, value(root, i, Op.SUM)));
        }

        private void allgather(DType d, long n, boolean inPlace) {
            allgather(d, n, inPlace, false);
        }

        private void allgather(DType d, long n, boolean inPlace, boolean planned) {
            MemorySegment recv = buffer(d, n * p);
            MemorySegment send = inPlace ? recv.asSlice(g * n * d.size(), n * d.size()) : buffer(d, n);
            fill(send, d, g, g * n, n, Op.SUM);
            if (planned) {
                rank.plan(Collective.ALLGATHER, n, d, null).execute(send, recv);
            } else {
                rank.allgather(send, recv, n, d);
            }
            expect((planned ? "planned " : "") + "allgather" + (inPlace ? " in place" : ""), recv, d, 0, n * p, i -> bitsOf(d, value((int) (i / Math.max(n, 1)), i, Op.SUM)));
        }

        private static long bitsOf(DType d, double v) {
            return switch (d) {
                case F32 -> Float.floatToRawIntBits((float) v);
                case F64 -> Double.doubleToRawLongBits(v);
                default -> (long) v;
            };
        }

        /** An inexact input: rank r's element i (sums of these depend on the order). */
        static double inexact(int r, long i) {
            return Math.sin(r * 1000.0 + i) * 1e-3 + 1.0 / (i + 1 + r);
        }

        /**
         * reproducible(true): allreduce, reduce, reduce-scatter(-v), scan and exscan of inexact f64 and f32 sums are
         * bitwise the left fold over global ranks in ascending order, at counts 0, 1, odd and not divisible by the rank
         * count.
         */
        void reproducible() {
            for (long n : new long[]{0, 1, 7, 3L * p + 1, 4097}) {
                for (DType d : new DType[]{DType.F64, DType.F32}) {
                    MemorySegment send = buffer(d, n * p);
                    for (long i = 0; i < n * p; i++) {
                        put(send, d, i, inexact(g, i));
                    }
                    MemorySegment recv = buffer(d, n * p);
                    rank.allreduce(send, recv, n * p, d, Op.SUM);
                    expect("reproducible allreduce", recv, d, 0, n * p, i -> leftFold(d, i, p - 1));
                    MemorySegment root = g == p - 1 ? buffer(d, n) : null;
                    rank.reduce(send, root, n, d, Op.SUM, p - 1);
                    if (root != null) {
                        expect("reproducible reduce", root, d, 0, n, i -> leftFold(d, i, p - 1));
                    }
                    MemorySegment block = buffer(d, n);
                    rank.reduceScatter(send, block, n, d, Op.SUM);
                    expect("reproducible reduce-scatter", block, d, 0, n, i -> leftFold(d, g * n + i, p - 1));
                    long[] counts = unevenCounts(n);
                    long at = java.util.Arrays.stream(counts).limit(g).sum();
                    long total = java.util.Arrays.stream(counts).sum();
                    MemorySegment whole = buffer(d, total);
                    for (long i = 0; i < total; i++) {
                        put(whole, d, i, inexact(g, i));
                    }
                    MemorySegment v = buffer(d, counts[g]);
                    rank.reduceScatterV(whole, v, counts, d, Op.SUM);
                    expect("reproducible reduce-scatter-v", v, d, 0, counts[g], i -> leftFold(d, at + i, p - 1));
                    MemorySegment prefix = buffer(d, n);
                    rank.scan(send.asSlice(0, n * d.size()), prefix, n, d, Op.SUM);
                    expect("reproducible scan", prefix, d, 0, n, i -> leftFold(d, i, g));
                    rank.exscan(send.asSlice(0, n * d.size()), prefix, n, d, Op.SUM);
                    if (g > 0) {
                        expect("reproducible exscan", prefix, d, 0, n, i -> leftFold(d, i, g - 1));
                    }
                    expect("reproducible allreduceShared", rank.allreduceShared(send, n * p, d, Op.SUM), d, 0, n * p,
                            i -> leftFold(d, i, p - 1));
                }
            }
            // the reductions' requests run the leaders' chain too (MPI_Irecv → fold → MPI_Isend): bitwise the same left
            // fold, one-shot and persistent, in place, several outstanding and awaited out of order
            for (long n : new long[]{0, 1, 7, 3L * p + 1}) {
                DType d = DType.F64;
                MemorySegment send = buffer(d, n * p);
                for (long i = 0; i < n * p; i++) {
                    put(send, d, i, inexact(g, i));
                }
                MemorySegment all = buffer(d, n * p);
                MemorySegment root = buffer(d, n);
                MemorySegment block = buffer(d, n);
                MemorySegment prefix = buffer(d, n);
                MemorySegment inPlace = buffer(d, n);
                MemorySegment.copy(send, 0, inPlace, 0, n * d.size());
                io.coll4j.Request a = rank.iallreduce(send, all, n * p, d, Op.SUM);
                io.coll4j.Request r = rank.ireduce(send, g == p - 1 ? root : null, n, d, Op.SUM, p - 1);
                io.coll4j.Request b = rank.ireduceScatter(send, block, n, d, Op.SUM);
                io.coll4j.Request e = rank.iexscan(send.asSlice(0, n * d.size()), prefix, n, d, Op.SUM);
                io.coll4j.Request q = rank.iscan(inPlace, inPlace, n, d, Op.SUM);
                q.await();
                e.await();
                b.await();
                r.await();
                a.await();
                expect("reproducible iallreduce", all, d, 0, n * p, i -> leftFold(d, i, p - 1));
                if (g == p - 1) {
                    expect("reproducible ireduce", root, d, 0, n, i -> leftFold(d, i, p - 1));
                }
                expect("reproducible ireduceScatter", block, d, 0, n, i -> leftFold(d, g * n + i, p - 1));
                if (g > 0) {
                    expect("reproducible iexscan", prefix, d, 0, n, i -> leftFold(d, i, g - 1));
                }
                expect("reproducible iscan in place", inPlace, d, 0, n, i -> leftFold(d, i, g));
                long[] counts = unevenCounts(n);
                long at = java.util.Arrays.stream(counts).limit(g).sum();
                long total = java.util.Arrays.stream(counts).sum();
                MemorySegment whole = buffer(d, total);
                for (long i = 0; i < total; i++) {
                    put(whole, d, i, inexact(g, i));
                }
                MemorySegment v = buffer(d, counts[g]);
                try (io.coll4j.PersistentRequest pr = rank.reduceScatterVInit(whole, v, counts, d, Op.SUM)) {
                    for (int round = 0; round < 2; round++) {
                        pr.start();
                        pr.await();
                        expect("reproducible reduceScatterVInit", v, d, 0, counts[g], i -> leftFold(d, at + i, p - 1));
                    }
                }
            }
        }

        /** The left fold over global ranks 0..last of inexact element i. */
        private long leftFold(DType d, long i, int last) {
            if (d == DType.F32) {
                float acc = (float) inexact(0, i);
                for (int r = 1; r <= last; r++) {
                    acc += (float) inexact(r, i);
                }
                return Float.floatToRawIntBits(acc);
            }
            double acc = inexact(0, i);
            for (int r = 1; r <= last; r++) {
                acc += inexact(r, i);
            }
            return Double.doubleToRawLongBits(acc);
        }

        /** Inexact f64 sums: every rank's result must be bitwise the same (its hash's min and max agree). */
        private void inexactAgreement() {
            int n = 4097;
            double[] x = new double[n];
            for (int i = 0; i < n; i++) {
                x[i] = inexact(g, i);
            }
            double[] r = new double[n];
            rank.allreduce(x, r, Op.SUM);
            Buffers.sameEverywhere(rank, java.util.Arrays.hashCode(r), "inexact allreduce");
            checks++;
        }
    }
}
