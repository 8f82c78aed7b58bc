package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A team spanning processes runs its collectives as compositions of its process's local collectives with the span
 * ({@link HierarchicalCollectives} over {@link LocalCollectives}; the requests' schedules {@link HierarchicalRequests}).
 * Here the "processes" are teams of this JVM joined as one shared-mapping job ({@code processes(n, index).name(job)},
 * each built on a thread of its own): the compositions' results (blocking, non-blocking, persistent, chained) on 2
 * processes of 1 and 2 ranks and 3 processes of 1, the MPI_Allreduce shortcut of one rank per process (a plan's later
 * calls included), and the error contract — a spanning call's arguments are checked against global ids and sizes, a
 * one-process team's against its own, and a refused call leaves the team usable. The real multi-process runs are
 * coll4j-mpi's MpiJobTest and SharedMappingJobTest.
 */
class HierarchicalCollectivesTest {

    /** Runs {@code body} on every rank of {@code processes} teams of {@code ranks} ranks joined as one job; rethrows the first failure. */
    private static void job(int processes, int ranks, RankBody body) throws InterruptedException {
        String job = ProcessThreads.jobName("hier-test");
        ProcessThreads.run(processes, index -> {
            try (Team team = Team.builder().ranks(ranks).processes(processes, index).name(job)
                    .timeout(Duration.ofSeconds(30)).build()) {
                team.run(body);
            }
        });
    }

    private static MemorySegment longs(Rank rank, long... values) {
        MemorySegment s = rank.allocate(Math.max(8, 8L * values.length));
        MemorySegment.copy(values, 0, s, ValueLayout.JAVA_LONG, 0, values.length);
        return s;
    }

    private static long[] read(MemorySegment s, int n) {
        long[] a = new long[n];
        MemorySegment.copy(s, ValueLayout.JAVA_LONG, 0, a, 0, n);
        return a;
    }

    /** The compositions' results, checked against what every rank computes alone. */
    private static void compose(Rank rank) {
        int p = rank.size();
        int me = rank.id();
        for (int n : new int[]{0, 1, 3}) {
            long[] mine = new long[n];
            long[] sum = new long[n];
            for (int i = 0; i < n; i++) {
                mine[i] = (me + 1L) * (i + 1);
                sum[i] = (long) p * (p + 1) / 2 * (i + 1);
            }
            MemorySegment buf = longs(rank, mine);
            rank.allreduce(buf, buf, n, DType.I64, Op.SUM);
            assertArrayEquals(sum, read(buf, n), "allreduce of " + n + " at rank " + me);
        }
        int last = p - 1;   // on 2 x 2 ranks local rank 1 of process 1: a root that is not its process's leader
        MemorySegment max = rank.allocate(8);
        rank.reduce(longs(rank, me + 1L), max, 1, DType.I64, Op.MAX, last);
        if (me == last) {
            assertEquals(p, read(max, 1)[0]);
        }
        MemorySegment b = longs(rank, me == last ? 7 : 0, me == last ? 8 : 0, me == last ? 9 : 0);
        rank.bcast(b, 3, DType.I64, last);
        assertArrayEquals(new long[]{7, 8, 9}, read(b, 3));
        MemorySegment all = rank.allocate(8L * p);
        rank.gather(longs(rank, me + 1L), all, 1, DType.I64, 1 % p);
        long[] ranks = new long[p];
        for (int j = 0; j < p; j++) {
            ranks[j] = j + 1;
        }
        if (me == 1 % p) {
            assertArrayEquals(ranks, read(all, p));
        }
        MemorySegment every = rank.allocate(8L * p);
        rank.allgather(longs(rank, me + 1L), every, 1, DType.I64);
        assertArrayEquals(ranks, read(every, p));
        MemorySegment prefix = rank.allocate(8);
        rank.scan(longs(rank, me + 1L), prefix, 1, DType.I64, Op.SUM);
        assertEquals((me + 1L) * (me + 2) / 2, read(prefix, 1)[0]);
        MemorySegment before = longs(rank, -1);
        rank.exscan(longs(rank, me + 1L), before, 1, DType.I64, Op.SUM);
        if (me > 0) {
            assertEquals((long) me * (me + 1) / 2, read(before, 1)[0]);
        }
        long[] out = new long[p];
        long[] in = new long[p];
        for (int j = 0; j < p; j++) {
            out[j] = 10L * me + j;
            in[j] = 10L * j + me;
        }
        MemorySegment got = rank.allocate(8L * p);
        rank.alltoall(longs(rank, out), got, 1, DType.I64);
        assertArrayEquals(in, read(got, p));
        MemorySegment avg = rank.allocate(8);
        avg.set(ValueLayout.JAVA_DOUBLE, 0, me);
        rank.allreduce(avg, avg, 1, DType.F64, Op.AVG);
        assertEquals((p - 1) / 2.0, avg.get(ValueLayout.JAVA_DOUBLE, 0));
        // the requests' compositions (HierarchicalRequests): non-blocking, persistent, and a chain's stage
        MemorySegment nb = longs(rank, me + 1L, 1, 2);
        rank.iallreduce(nb, nb, 3, DType.I64, Op.SUM).await();
        assertArrayEquals(new long[]{(long) p * (p + 1) / 2, p, 2L * p}, read(nb, 3));
        MemorySegment root = rank.allocate(8);
        PersistentRequest persistent = rank.reduceInit(longs(rank, me + 1L), root, 1, DType.I64, Op.MAX, last);
        for (int k = 0; k < 2; k++) {
            persistent.start();
            persistent.await();
            if (me == last) {
                assertEquals(p, read(root, 1)[0]);
            }
        }
        MemorySegment chained = longs(rank, me + 1L);
        MemorySegment gathered = rank.allocate(8L * p);
        rank.chain().allreduce(chained, chained, 1, DType.I64, Op.SUM).allgather(chained, gathered, 1, DType.I64).start()
                .await();
        long[] sums = new long[p];
        java.util.Arrays.fill(sums, (long) p * (p + 1) / 2);
        assertArrayEquals(sums, read(gathered, p));
        // a plan: its first call is compared across processes; with one rank per process its later calls are
        // MPI_Allreduce itself (the span's allreduce)
        CollectivePlan plan = rank.plan(Collective.ALLREDUCE, 1, DType.I64, Op.SUM);
        for (int k = 0; k < 3; k++) {
            MemorySegment one = longs(rank, me + 1L);
            plan.execute(one, one);
            assertEquals((long) p * (p + 1) / 2, read(one, 1)[0]);
        }
    }

    @Test
    void collectivesComposeTheLocalOnesWithTheSpan() throws InterruptedException {
        job(2, 1, HierarchicalCollectivesTest::compose);   // one rank per process: the MPI_Allreduce shortcut
        job(2, 2, HierarchicalCollectivesTest::compose);
        job(3, 1, HierarchicalCollectivesTest::compose);
    }

    /** The refusals every rank meets alike, naming the team's ranks and size: global ones on a spanning team. */
    private static void refusals(Rank rank) {
        int p = rank.size();
        int me = rank.id();
        MemorySegment one = rank.allocate(8);
        MemorySegment all = rank.allocate(8L * p);
        IllegalArgumentException root = assertThrows(IllegalArgumentException.class,
                () -> rank.gather(one, all, 1, DType.I64, p));
        assertEquals("root " + p + " is out of range: the team has ranks 0.." + (p - 1), root.getMessage());
        IllegalArgumentException bcastRoot = assertThrows(IllegalArgumentException.class,
                () -> rank.bcast(one, 1, DType.I64, -1));
        assertEquals("root -1 is out of range: the team has ranks 0.." + (p - 1), bcastRoot.getMessage());
        IllegalArgumentException entries = assertThrows(IllegalArgumentException.class,
                () -> rank.allgatherv(one, 1, all, new long[p + 1], new long[p + 1], DType.I64));
        assertEquals("recvCounts has " + (p + 1) + " entries, the team has " + p + " ranks", entries.getMessage());
        long[] twos = new long[p];
        java.util.Arrays.fill(twos, 2);
        IllegalArgumentException own = assertThrows(IllegalArgumentException.class,
                () -> rank.allgatherv(one, 1, all, twos, new long[p], DType.I64));
        assertEquals("sendCount 1 differs from recvCounts[" + me + "] = 2", own.getMessage());
        IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
                () -> rank.allgather(one, one, 1, DType.I64));
        assertEquals("recv is too small: 8 bytes, the call needs " + 8 * p, small.getMessage());
        IllegalArgumentException user = assertThrows(IllegalArgumentException.class,
                () -> rank.allreduce(one, one, 1, DType.I64, Op.USER));
        assertEquals("op user stands for a UserOp: call the overload that takes the UserOp", user.getMessage());
        CollectivePlan gatherv = rank.plan(Collective.GATHERV, 1, DType.I64, Op.SUM, 0);
        IllegalArgumentException counts = assertThrows(IllegalArgumentException.class, () -> gatherv.execute(one, all));
        assertEquals("gatherv needs its count arrays: use execute(send, sendCounts, sendDispls, recv, recvCounts, "
                + "recvDispls)", counts.getMessage());
        // nothing was shared: the team goes on
        MemorySegment x = longs(rank, 1);
        rank.allreduce(x, x, 1, DType.I64, Op.SUM);
        assertEquals(p, read(x, 1)[0]);
    }

    @Test
    void aSpanningCallIsCheckedAgainstGlobalIds() throws InterruptedException {
        job(2, 2, HierarchicalCollectivesTest::refusals);
    }

    @Test
    void aOneProcessCallIsCheckedAgainstItsOwnIds() {
        try (Team team = Team.builder().ranks(2).build()) {
            team.run(HierarchicalCollectivesTest::refusals);
        }
    }
}
