package io.coll4j;

import io.coll4j.kernel.model.MachineModel;
import io.coll4j.reductions.DType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static io.coll4j.PointToPoint.ANY_SOURCE;
import static io.coll4j.PointToPoint.ANY_TAG;
import static org.junit.jupiter.api.Assertions.*;

/** Point-to-point (issue 33): protocols by size, dtypes and buffer kinds, matching, requests, errors, sub-teams. */
class PointToPointTest {
    private static final long EAGER = MachineModel.P2P_EAGER_MAX_BYTES;
    /** 0 B, one element, odd, around the inline limit (40) and the crossover, a large odd size and 4 MiB. */
    private static final long[] SIZES = {0, 1, 8, 13, 40, 41, 1000, EAGER - 1, EAGER, EAGER + 1, 100_003, 4 << 20};

    private static Team team(int p) {
        return Team.builder().ranks(p).timeout(Duration.ofSeconds(30)).build();
    }

    /** Byte i of message {@code id}: a pattern that differs per message and position. */
    private static byte pattern(long id, long i) {
        return (byte) (id * 31 + i * 7 + (i >>> 8));
    }

    private static void fill(MemorySegment s, long id) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, pattern(id, i));
        }
    }

    private static void verify(MemorySegment s, long bytes, long id) {
        for (long i = 0; i < bytes; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != pattern(id, i)) {
                fail("message " + id + " byte " + i + " of " + bytes + " is wrong");
            }
        }
    }

    /** Every rank sends to its right neighbour and receives from its left, every size, through sendrecv and i-forms. */
    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 8})
    void ringOfEverySize(int p) {
        try (Team team = team(p)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                int me = rank.id(), right = (me + 1) % p, left = (me + p - 1) % p;
                MessageStatus st = new MessageStatus();
                for (long size : SIZES) {
                    MemorySegment send = rank.allocate(size);
                    MemorySegment recv = rank.allocate(size + 16);    // larger than the message: allowed
                    fill(send, me * 1000L + size);
                    pp.sendrecv(send, right, 7, recv, left, 7, st);
                    assertEquals(left, st.source());
                    assertEquals(7, st.tag());
                    assertEquals(size, st.bytes());
                    verify(recv, size, left * 1000L + size);
                    // the same with requests, awaited receive first
                    MessageRequest r = pp.irecv(recv, left, 8);
                    MessageRequest s = pp.isend(send, right, 8);
                    r.await();
                    s.await();
                    assertEquals(size, r.status().bytes());
                    verify(recv, size, left * 1000L + size);
                }
            });
        }
    }

    /** Blocking send/recv ping-pong, large messages by rendezvous, on heap and native segments. */
    @Test
    void pingPongHeapAndNative() {
        try (Team team = team(2)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                for (long size : SIZES) {
                    MemorySegment heap = MemorySegment.ofArray(new byte[(int) size]);
                    MemorySegment nat = rank.allocate(size);
                    if (rank.id() == 0) {
                        fill(heap, size);
                        pp.send(heap, 1, 1);
                        pp.recv(nat, 1, 2);
                        verify(nat, size, size + 1);
                    } else {
                        pp.recv(heap, 0, 1);
                        verify(heap, size, size);
                        fill(nat, size + 1);
                        pp.send(nat, 0, 2);
                    }
                }
            });
        }
    }

    @Test
    void typedArraysAndBuffers() {
        try (Team team = team(2)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                int n = 1001;                                           // odd; 8008 bytes of longs: rendezvous
                if (rank.id() == 0) {
                    byte[] b = new byte[n];
                    short[] s = new short[n];
                    char[] c = new char[n];
                    int[] i = new int[n];
                    long[] l = new long[n];
                    float[] f = new float[n];
                    double[] d = new double[n];
                    for (int k = 0; k < n; k++) {
                        b[k] = (byte) k;
                        s[k] = (short) (k * 3);
                        c[k] = (char) (k + 40000);
                        i[k] = k * 100_003;
                        l[k] = k * 10_000_000_019L;
                        f[k] = k * 0.5f;
                        d[k] = k * 0.25;
                    }
                    pp.send(b, 1, 0);
                    pp.send(s, 1, 1);
                    pp.send(c, 1, 2);
                    pp.send(i, 1, 3);
                    pp.send(l, 1, 4);
                    pp.send(f, 1, 5);
                    pp.send(d, 1, 6);
                    pp.send(d, 10, 3, 1, 7);                            // a range: elements 10, 11, 12
                    pp.isend(i, 1, 8).await();
                    ByteBuffer direct = ByteBuffer.allocateDirect(24);
                    direct.putLong(0, 42).putLong(8, 43).putLong(16, 44);
                    pp.send(direct, 1, 9);
                    pp.send(ByteBuffer.wrap(new byte[]{5, 6, 7}), 1, 10);
                } else {
                    byte[] b = new byte[n];
                    short[] s = new short[n];
                    char[] c = new char[n];
                    int[] i = new int[n];
                    long[] l = new long[n];
                    float[] f = new float[n];
                    double[] d = new double[n];
                    MessageStatus st = new MessageStatus();
                    pp.recv(b, 0, 0);
                    pp.recv(s, 0, 1);
                    pp.recv(c, 0, 2);
                    pp.recv(i, 0, 3);
                    pp.recv(l, 0, 4, st);
                    assertEquals(n, st.count(DType.I64));
                    pp.recv(f, 0, 5);
                    pp.recv(d, 0, 6);
                    for (int k = 0; k < n; k++) {
                        assertEquals((byte) k, b[k]);
                        assertEquals((short) (k * 3), s[k]);
                        assertEquals((char) (k + 40000), c[k]);
                        assertEquals(k * 100_003, i[k]);
                        assertEquals(k * 10_000_000_019L, l[k]);
                        assertEquals(k * 0.5f, f[k]);
                        assertEquals(k * 0.25, d[k]);
                    }
                    double[] part = new double[5];
                    pp.recv(part, 1, 4, 0, 7, st);
                    assertEquals(3, st.count(DType.F64));
                    assertArrayEquals(new double[]{0, 2.5, 2.75, 3.0, 0}, part);
                    int[] i2 = new int[n];
                    MessageRequest r = pp.irecv(i2, 0, 8);
                    r.await();
                    assertArrayEquals(i, i2);
                    ByteBuffer heap = ByteBuffer.allocate(24);
                    pp.recv(heap, 0, 9, st);
                    assertEquals(44, heap.getLong(16));
                    assertEquals(0, heap.position());
                    ByteBuffer direct = ByteBuffer.allocateDirect(8);
                    pp.recv(direct, 0, 10, st);
                    assertEquals(3, st.bytes());
                    assertEquals(7, direct.get(2));
                }
            });
        }
    }

    /** Every dtype through the collectives' (count, dtype) form, counted back by the status. */
    @Test
    void everyDtypeCounted() {
        try (Team team = team(2)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                for (DType dt : DType.values()) {
                    for (long count : new long[]{0, 1, 7, EAGER / dt.size() + 3}) {
                        MemorySegment buf = rank.allocate((count + 2) * dt.size());
                        if (rank.id() == 0) {
                            fill(buf, count + dt.ordinal());
                            pp.send(buf, count, dt, 1, dt.ordinal());
                        } else {
                            MessageStatus st = new MessageStatus();
                            pp.recv(buf, count + 2, dt, 0, dt.ordinal(), st);
                            assertEquals(count, st.count(dt), dt + " " + count);
                            verify(buf, count * dt.size(), count + dt.ordinal());
                        }
                    }
                }
            });
        }
    }

    /** ANY_SOURCE / ANY_TAG, probe and iprobe, and the order of one source's messages (non-overtaking). */
    @ParameterizedTest
    @ValueSource(ints = {3, 5, 8})
    void wildcardsProbesAndOrder(int p) {
        int perRank = 12;
        try (Team team = team(p)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                List<Request> sent = new ArrayList<>();
                if (rank.id() != 0) {
                    // sizes across all three protocols, in one stream: the order must hold across protocols
                    for (int k = 0; k < perRank; k++) {
                        long size = new long[]{8, 3000, 9000, 0, 40, 70_000}[k % 6];
                        MemorySegment m = rank.allocate(Math.max(size, 8));
                        fill(m, rank.id() * 100L + k);
                        m.set(ValueLayout.JAVA_INT_UNALIGNED, 0, k);
                        sent.add(pp.isend(m.asSlice(0, size), 0, k % 3));
                    }
                }
                rank.barrier();                             // everything posted before rank 0 looks
                if (rank.id() == 0) {
                    assertNull(pp.iprobe(0, ANY_TAG));
                    int[] next = new int[p];
                    MemorySegment buf = rank.allocate(70_000);
                    MessageStatus st = new MessageStatus();
                    for (int m = 0; m < (p - 1) * perRank; m++) {
                        MessageStatus probed = m % 2 == 0 ? pp.probe(ANY_SOURCE, ANY_TAG) : null;
                        if (probed != null) {
                            pp.recv(buf, probed.source(), probed.tag(), st);
                            assertEquals(probed.source(), st.source());
                            assertEquals(probed.bytes(), st.bytes());
                        } else {
                            pp.recv(buf, ANY_SOURCE, ANY_TAG, st);
                        }
                        int k = next[st.source()]++;
                        assertEquals(k % 3, st.tag(), "message " + k + " of rank " + st.source() + " overtaken");
                        long size = new long[]{8, 3000, 9000, 0, 40, 70_000}[k % 6];
                        assertEquals(size, st.bytes());
                        if (size >= 8) {
                            assertEquals(k, buf.get(ValueLayout.JAVA_INT_UNALIGNED, 0));
                        }
                    }
                    assertNull(pp.iprobe(ANY_SOURCE, ANY_TAG));
                }
                Request.awaitAll(sent.toArray(new Request[0]));
                rank.barrier();
            });
        }
    }

    /** Receives posted with distinct tags, sends in the reverse order, waits in a random order. */
    @Test
    void outOfOrderWaits() {
        int n = 40;
        try (Team team = team(4)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                int me = rank.id();
                List<MessageRequest> reqs = new ArrayList<>();
                List<MemorySegment> bufs = new ArrayList<>();
                for (int t = 0; t < n; t++) {
                    MemorySegment b = rank.allocate(20_000);
                    bufs.add(b);
                    reqs.add(pp.irecv(b, (me + 3) % 4, t));
                }
                List<MessageRequest> sends = new ArrayList<>();
                for (int t = n - 1; t >= 0; t--) {
                    MemorySegment m = rank.allocate(t * 500L);
                    fill(m, me * 1000L + t);
                    sends.add(pp.isend(m, (me + 1) % 4, t));
                }
                List<Integer> order = new ArrayList<>();
                for (int t = 0; t < n; t++) {
                    order.add(t);
                }
                Collections.shuffle(order, new Random(me));
                for (int t : order) {
                    reqs.get(t).await();
                    assertEquals(t * 500L, reqs.get(t).status().bytes());
                    verify(bufs.get(t), t * 500L, ((me + 3) % 4) * 1000L + t);
                }
                Collections.shuffle(sends, new Random(me + 9));
                Request.awaitAll(sends.toArray(new Request[0]));
            });
        }
    }

    @Test
    void requestFamily() {
        try (Team team = team(2)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                MemorySegment buf = rank.allocate(64);
                if (rank.id() == 0) {
                    MessageRequest a = pp.irecv(buf, 1, 1);
                    MessageRequest b = pp.irecv(buf.asSlice(32), 1, 2);
                    assertFalse(a.isDone());
                    assertThrows(IllegalStateException.class, a::status);
                    assertFalse(a.await(Duration.ofMillis(20)));
                    rank.barrier();                                     // now rank 1 sends tag 2, later tag 1
                    assertEquals(1, Request.awaitAny(a, b));
                    assertEquals(2, b.status().tag());
                    rank.barrier();
                    a.toFuture().join();
                    assertTrue(a.isDone());
                    assertEquals(1, a.status().tag());
                    assertEquals(16, a.status().bytes());
                } else {
                    rank.barrier();
                    MemorySegment m = rank.allocate(16);
                    pp.send(m, 0, 2);
                    rank.barrier();
                    pp.send(m, 0, 1);
                }
            });
        }
    }

    /** MPI_ERR_TRUNCATE: the receiver fails, the prefix arrives, the next message is intact, the sender is fine. */
    @Test
    void truncationLosesNothingElse() {
        try (Team team = team(2)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                long[] sizes = {41, 3000, 50_000};                      // eager, eager, rendezvous
                for (long size : sizes) {
                    MemorySegment m = rank.allocate(size);
                    if (rank.id() == 0) {
                        fill(m, size);
                        MessageRequest big = pp.isend(m, 1, 5);
                        pp.send(m.asSlice(0, 24), 1, 6);
                        big.await();                                    // completed by the failed receive's copy
                        rank.barrier();
                        pp.send(m, 1, 7);                               // an unexpected message, truncated too
                    } else {
                        MemorySegment small = rank.allocate(size / 2);
                        MessageTruncatedException e = assertThrows(MessageTruncatedException.class,
                                () -> pp.recv(small, 0, 5));
                        assertEquals(size, e.messageBytes());
                        assertEquals(size / 2, e.bufferBytes());
                        assertEquals(0, e.source());
                        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
                        verify(small, size / 2, size);
                        MessageStatus st = new MessageStatus();
                        pp.recv(m, 0, 6, st);
                        assertEquals(24, st.bytes());
                        verify(m, 24, size);
                        rank.barrier();
                        while (pp.iprobe(0, 7) == null) {
                            Thread.onSpinWait();
                        }
                        MessageRequest r = pp.irecv(small, 0, 7);
                        MessageTruncatedException first = assertThrows(MessageTruncatedException.class, r::await);
                        assertSame(first, assertThrows(MessageTruncatedException.class, r::isDone));
                        assertTrue(r.toFuture().isCompletedExceptionally());
                    }
                }
                rank.barrier();                                         // the team is healthy
            });
        }
    }

    @Test
    void unmatchedReceiveTimesOutNamingThePeer() {
        AtomicReference<Throwable> zero = new AtomicReference<>();
        long t0 = System.nanoTime();
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofMillis(500)).build()) {
            assertThrows(CollectiveException.class, () -> team.run(rank -> {
                if (rank.id() == 0) {
                    try {
                        rank.p2p().recv(rank.allocate(8), 1, 3);
                    } catch (RuntimeException e) {
                        zero.set(e);
                        throw e;
                    }
                } else {
                    Thread.sleep(3000);                                 // computing, not sending
                }
            }));
        }
        CollectiveTimeoutException e = assertInstanceOf(CollectiveTimeoutException.class, zero.get());
        assertEquals(List.of(1), e.missingRanks());
        assertTrue(e.getMessage().contains("recv(source 1, tag 3"), e.getMessage());
        assertTrue(e.getMessage().contains("rank 1 (thread"), e.getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void peerThatReturnedIsReportedAtOnce() {
        AtomicReference<Throwable> zero = new AtomicReference<>();
        long t0 = System.nanoTime();
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(30)).build()) {
            assertThrows(CollectiveException.class, () -> team.run(rank -> {
                if (rank.id() == 0) {
                    try {
                        rank.p2p().recv(rank.allocate(8), ANY_SOURCE, 3);
                    } catch (RuntimeException e) {
                        zero.set(e);
                        throw e;
                    }
                }
            }));
        }
        assertInstanceOf(CollectiveTimeoutException.class, zero.get());
        assertTrue(zero.get().getMessage().contains("returned"), zero.get().getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10), "not at the timeout");
    }

    @Test
    void interruptEndsAWaitAtOnce() {
        // the flag set before the wait: seen in the wait's first rounds, which poll without the strategy's idle
        AtomicReference<Throwable> zero = new AtomicReference<>();
        long t0 = System.nanoTime();
        try (Team team = team(2)) {
            assertThrows(RuntimeException.class, () -> team.run(rank -> {
                if (rank.id() == 0) {
                    Thread.currentThread().interrupt();
                    try {
                        rank.p2p().recv(rank.allocate(8), 1, 0);
                    } catch (RuntimeException e) {
                        zero.set(e);
                        throw e;
                    }
                } else {
                    rank.p2p().recv(rank.allocate(8), 0, 0);            // ended by the abort
                }
            }));
        }
        CollectiveInterruptedException e = assertInstanceOf(CollectiveInterruptedException.class, zero.get());
        assertTrue(e.getMessage().contains("recv(source 1, tag 0"), e.getMessage());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10), "not at the timeout");
    }

    @Test
    void abortEndsPendingReceives() {
        AtomicReference<Throwable> zero = new AtomicReference<>();
        try (Team team = Team.builder().ranks(3).timeout(Duration.ofSeconds(30)).build()) {
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> team.run(rank -> {
                if (rank.id() == 0) {
                    MessageRequest r = rank.p2p().irecv(rank.allocate(8), 2, 0);
                    try {
                        rank.p2p().recv(rank.allocate(8), 1, 0);
                    } catch (RuntimeException e) {
                        zero.set(e);
                    }
                    assertThrows(TeamAbortedException.class, r::await);
                    // an aborted team sends nothing more
                    assertThrows(TeamAbortedException.class, () -> rank.p2p().send(rank.allocate(8), 2, 0));
                } else if (rank.id() == 1) {
                    Thread.sleep(50);
                    throw new IllegalStateException("rank 1 fails");
                }
            }));
            assertEquals("rank 1 fails", thrown.getMessage());
        }
        assertInstanceOf(TeamAbortedException.class, zero.get());
        assertTrue(zero.get().getMessage().contains("rank 1 failed"), zero.get().getMessage());
    }

    @Test
    void badArgumentsRefusedUpFront() {
        try (Team team = team(3)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                MemorySegment b = rank.allocate(8);
                assertMessage("dest 3 is out of range", () -> pp.send(b, 3, 0));
                assertMessage("dest -1 is out of range", () -> pp.send(b, ANY_SOURCE, 0));
                assertMessage("tag must be >= 0, got -1", () -> pp.send(b, 1, ANY_TAG));
                assertMessage("tag must be >= 0, got -7", () -> pp.isend(b, 1, -7));
                assertMessage("source 5 is out of range", () -> pp.recv(b, 5, 0));
                assertMessage("source -2 is out of range", () -> pp.irecv(b, -2, 0));
                assertMessage("tag must be >= 0 or ANY_TAG", () -> pp.probe(0, -3));
                assertMessage("buf must not be null", () -> pp.send((MemorySegment) null, 1, 0));
                assertMessage("buf is read-only", () -> pp.recv(b.asReadOnly(), 1, 0));
                assertMessage("buf is too small", () -> pp.send(b, 2, DType.F64, 1, 0));
                assertMessage("do not fit", () -> pp.send(new int[4], 2, 3, 1, 0));
                assertMessage("overlap", () -> pp.sendrecv(b, 1, 0, b, 1, 0));
                try (Arena confined = Arena.ofConfined()) {
                    assertMessage("confined", () -> pp.send(confined.allocate(8), 1, 0));
                }
                rank.barrier();                                         // nothing was sent: the team is healthy
                assertNull(pp.iprobe(ANY_SOURCE, ANY_TAG));
            });
        }
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    /** A sub-team numbers its own ranks, and a parent's message never matches a sub-team's receive. */
    @Test
    void subTeamsKeepTheirOwnMessages() {
        try (Team team = team(4)) {
            team.run(rank -> {
                int me = rank.id();
                try (Rank sub = rank.split(me % 2, me)) {                // {0, 2} and {1, 3}: sub ranks 0 and 1
                    MemorySegment b = rank.allocate(8);
                    if (sub.id() == 0) {
                        b.set(ValueLayout.JAVA_LONG, 0, 100 + me);
                        rank.p2p().send(b, me + 2, 4);                  // parent: to the same peer, same tag
                        b.set(ValueLayout.JAVA_LONG, 0, 200 + me);
                        sub.p2p().send(b, 1, 4);
                    } else {
                        MessageStatus st = new MessageStatus();
                        sub.p2p().recv(b, ANY_SOURCE, ANY_TAG, st);
                        assertEquals(0, st.source());                   // the sub-team's number of rank me - 2
                        assertEquals(200 + me - 2, b.get(ValueLayout.JAVA_LONG, 0));
                        assertNull(sub.p2p().iprobe(ANY_SOURCE, ANY_TAG));
                        rank.p2p().recv(b, me - 2, 4, st);
                        assertEquals(100 + me - 2, b.get(ValueLayout.JAVA_LONG, 0));
                    }
                }
            });
        }
    }

    @Test
    void selfSendAndReplace() {
        try (Team team = team(3)) {
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                int me = rank.id();
                long[] v = {me, me * 10L};
                pp.send(v, me, 0);
                long[] w = new long[2];
                pp.recv(w, me, 0);
                assertArrayEquals(v, w);
                for (long size : new long[]{8, EAGER + 8, 80_000}) {
                    MemorySegment b = rank.allocate(size);
                    fill(b, me);
                    MessageStatus st = new MessageStatus();
                    pp.sendrecvReplace(b, (me + 1) % 3, 1, (me + 2) % 3, 1, st);
                    assertEquals(size, st.bytes());
                    verify(b, size, (me + 2) % 3);
                }
            });
        }
    }
}
