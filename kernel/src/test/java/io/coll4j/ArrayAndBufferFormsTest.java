package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The array forms with offsets, the ByteBuffer forms (direct and heap) and the scalar allreduces: each
 * touches exactly its range, gives the segment form's answer, and names the argument it rejects.
 */
class ArrayAndBufferFormsTest {

    /** Runs {@code body} on every rank of a p-rank team and fails with the first rank's error. */
    private static void onTeam(int p, RankBody body) {
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        try (Team team = Team.builder().ranks(p).build()) {
            team.run(rank -> {
                try {
                    body.run(rank);
                } catch (Throwable t) {
                    errors.add(t);
                }
            });
        }
        if (!errors.isEmpty()) {
            throw new AssertionError("rank failed: " + errors.peek(), errors.peek());
        }
    }

    interface RankBody {
        void run(Rank rank) throws Exception;
    }

    @Test
    void offsetFormsTouchOnlyTheirRange() {
        for (int p : new int[] {1, 2, 3, 5}) {
            onTeam(p, rank -> {
                int r = rank.id();
                double[] send = {-1, r + 1, r + 2, r + 3, -1};
                double[] recv = {7, 7, 7, 7, 7};
                rank.allreduce(send, 1, recv, 2, 3, Op.AVG);
                double mean = (p + 1) / 2.0;
                assertArrayEquals(new double[] {7, 7, mean, mean + 1, mean + 2}, recv);
                long[] scanned = new long[4];
                rank.scan(new long[] {9, r, 9, 9}, 1, scanned, 0, 1, Op.SUM);
                assertEquals((long) r * (r + 1) / 2, scanned[0]);
                int[] gathered = new int[p + 2];
                rank.gather(new int[] {0, r * 10}, 1, gathered, 2, 1, 0);
                if (r == 0) {
                    for (int q = 0; q < p; q++) {
                        assertEquals(q * 10, gathered[2 + q]);
                    }
                }
                float[] all = new float[p + 1];
                rank.allgather(new float[] {r + 0.5f}, 0, all, 1, 1);
                assertEquals(0f, all[0]);
                assertEquals(p - 0.5f, all[p]);
                long[] buf = {0, 0, 0};
                if (r == p - 1) {
                    buf[1] = 42;
                }
                rank.bcast(buf, 1, 1, p - 1);
                assertArrayEquals(new long[] {0, 42, 0}, buf);
                int[] block = new int[2];
                int[] rsSend = new int[p + 1];
                Arrays.fill(rsSend, 1);
                rank.reduceScatter(rsSend, 1, block, 1, 1, Op.SUM);
                assertEquals(p, block[1]);
                double[] a2a = new double[p + 2];                  // block q (one element) goes to rank q
                for (int q = 0; q < p; q++) {
                    a2a[1 + q] = 100 * r + q;
                }
                double[] a2aIn = a2a.clone();
                double[] a2aOut = new double[p + 1];
                rank.alltoall(a2a, 1, a2aOut, 0, 1);
                rank.alltoall(a2aIn, 1, a2aIn, 1, 1);              // in place: same array, same offset
                for (int q = 0; q < p; q++) {
                    assertEquals(100 * q + r, a2aOut[q]);
                    assertEquals(100 * q + r, a2aIn[1 + q]);
                }
                assertEquals(0, a2aOut[p]);
                assertEquals(0, a2aIn[0]);
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> rank.allreduce(send, 3, recv, 0, 3, Op.SUM));
                assertTrue(e.getMessage().startsWith("send"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class, () -> rank.allreduce(send, null, Op.SUM));
                assertTrue(e.getMessage().contains("recv must not be null"), e.getMessage());
            });
        }
    }

    /**
     * The array forms are typed: a matched pair compiles, a mismatched pair or an element type without an array
     * form does not (they were one {@code Object} method each and failed at run time). Compiled with this JDK's
     * javac against the library's classes; the matched control proves the class path, so the refusals are the
     * overloads'.
     */
    @Test
    void mismatchedArrayTypesDoNotCompile() throws Exception {
        ReadmeExampleTest.Result ok = compile(List.of("rank.allreduce(new double[2], new double[2], Op.SUM);"
                + " rank.gather(new int[1], null, 0); rank.scan(new long[3], 1, new long[3], 0, 2, Op.SUM);"));
        assertEquals(0, ok.rc(), ok.out());
        List<String> bad = List.of("rank.allreduce(new double[2], new float[2], Op.SUM);",
                "rank.allreduce(new short[2], new short[2], Op.SUM);",
                "rank.bcast((Object) new double[2], 0);",
                "rank.alltoallv(new int[2], new int[2], new int[2], new long[2], new int[2], new int[2]);");
        ReadmeExampleTest.Result refused = compile(bad);
        assertTrue(refused.rc() != 0, refused.out());
        for (String m : List.of("allreduce(double[],float[],Op)", "allreduce(short[],short[],Op)", "bcast(Object,int)",
                "alltoallv(int[],int[],int[],long[],int[],int[])")) {
            assertTrue(refused.out().contains("no suitable method found for " + m), m + ":\n" + refused.out());
        }
    }

    /** javac's result for a class with one method per call, each on a {@code Rank rank}. */
    private static ReadmeExampleTest.Result compile(List<String> calls) throws Exception {
        StringBuilder src = new StringBuilder("import io.coll4j.Rank;\nimport io.coll4j.reductions.Op;\nclass Use {\n");
        for (int i = 0; i < calls.size(); i++) {
            src.append("    static void f").append(i).append("(Rank rank) { ").append(calls.get(i)).append(" }\n");
        }
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("coll4j-typed");
        java.nio.file.Path file = dir.resolve("Use.java");
        java.nio.file.Files.writeString(file, src.append("}\n"));
        String javac = System.getProperty("java.home") + "/bin/javac";
        return ReadmeExampleTest.run(List.of(javac, "-proc:none", "-d", dir.resolve("classes").toString(), "-cp",
                ReadmeExampleTest.libraryClassPath(), file.toString()), 120);
    }

    @Test
    void byteBufferFormsDirectAndHeap() {
        onTeam(3, rank -> {
            int r = rank.id();
            for (boolean direct : new boolean[] {true, false}) {
                ByteBuffer send = (direct ? ByteBuffer.allocateDirect(24) : ByteBuffer.allocate(24)).order(ByteOrder.nativeOrder());
                ByteBuffer recv = (direct ? ByteBuffer.allocateDirect(24) : ByteBuffer.allocate(24)).order(ByteOrder.nativeOrder());
                // only the remaining bytes take part: position 8 leaves two f32 pairs... two u32 elements
                send.putInt(8, r == 1 ? -1 : 5).putInt(12, r);
                send.position(8);
                recv.position(8);
                rank.allreduce(send, recv, 2, DType.U32, Op.MAX);
                assertEquals(-1, recv.getInt(8), "u32 max: 0xFFFFFFFF is the largest");
                assertEquals(2, recv.getInt(12));
                assertEquals(0, recv.getInt(0));
                rank.scan(send, recv, 2, DType.U32, Op.MIN);
                assertEquals(r == 0 ? 5 : 5, recv.getInt(8));
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> rank.allreduce(ByteBuffer.allocate(8), ByteBuffer.allocate(8).asReadOnlyBuffer(), 1, DType.F64, Op.SUM));
            assertTrue(e.getMessage().startsWith("recv"), e.getMessage());
        });
    }

    @Test
    void scalarAllreducesAgree() {
        onTeam(3, rank -> {
            int r = rank.id();
            assertEquals(1.0 + 2 + 3, rank.allreduce(r + 1.0, Op.SUM));
            assertEquals(2.0, rank.allreduce(r + 1.0, Op.AVG));
            assertEquals(0.5f, rank.allreduce(r == 2 ? 0.5f : 4f, Op.MIN));
            assertEquals(Long.MAX_VALUE, rank.allreduce(r == 1 ? Long.MAX_VALUE : 0L, Op.MAX));
            assertEquals(6, rank.allreduce(r + 1, Op.PROD));
            double sum = 0;
            for (int i = 0; i < 1000; i++) {
                sum += rank.allreduce(1.0, Op.SUM);
            }
            assertEquals(3.0 * 1000, sum);
        });
    }
}
