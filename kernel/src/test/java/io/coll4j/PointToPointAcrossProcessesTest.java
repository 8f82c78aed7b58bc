package io.coll4j;

import io.coll4j.kernel.span.shm.SharedMemorySpan;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Point-to-point between the ranks of different processes of a shared-mapping team ({@code processes(n, i)}), the
 * processes simulated by threads of this JVM ({@link ProcessThreads}): every protocol (0 B, inline, eager, rendezvous
 * read in place from the mapping and staged from the heap and from the user's native memory), on segments, arrays and
 * ByteBuffers; wildcards that see local and remote senders alike; probes; MPI's order; truncation that loses nothing
 * else; requests in the wait-any/wait-all family; the neighborhood collectives; a dead peer process. The real
 * multi-process run is coll4j-mpi's SharedMappingJobTest.
 */
class PointToPointAcrossProcessesTest {
    /** One of each protocol: 0 B, inline (≤ 40 B), eager (≤ the crossover, 2 KiB), rendezvous (above). */
    private static final int[] SIZES = {0, 1, 40, 41, 1000, 2048, 2049, 70_000, 1 << 20};

    private static void job(int processes, int ranks, RankBody body) throws InterruptedException {
        String job = ProcessThreads.jobName("p2p-span");
        ProcessThreads.run(processes, index -> {
            try (Team team = Team.builder().ranks(ranks).processes(processes, index).name(job)
                    .timeout(Duration.ofSeconds(30)).build()) {
                team.run(body);
            }
        });
    }

    private static byte value(int source, int seq, long i) {
        return (byte) (source * 31 + seq * 7 + i * 13);
    }

    private static void fill(MemorySegment s, int source, int seq) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, value(source, seq, i));
        }
    }

    private static void check(MemorySegment s, long n, int source, int seq) {
        for (long i = 0; i < n; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != value(source, seq, i)) {
                throw new AssertionError("byte " + i + " of message " + seq + " from " + source + " is wrong");
            }
        }
    }

    /** A buffer of {@code bytes} of kind k: 0 the mapping (rank.allocate), 1 the heap, 2 the user's native memory. */
    private static MemorySegment buffer(Rank rank, int kind, long bytes) {
        return switch (kind) {
            case 0 -> rank.allocate(bytes);
            case 1 -> MemorySegment.ofArray(new byte[(int) bytes]);
            default -> Arena.ofAuto().allocate(Math.max(1, bytes)).asSlice(0, bytes);
        };
    }

    @Test
    void everyProtocolAndBufferKindAroundARingOfProcesses() throws Exception {
        job(3, 1, rank -> {
            PointToPoint p = rank.p2p();
            int me = rank.id();
            int n = rank.size();
            int right = (me + 1) % n;
            int left = (me + n - 1) % n;
            int seq = 0;
            for (int size : SIZES) {
                for (int kind = 0; kind < 3; kind++) {
                    seq++;
                    MemorySegment out = buffer(rank, kind, size);
                    MemorySegment in = buffer(rank, (kind + 1) % 3, size);
                    fill(out, me, seq);
                    MessageStatus st = new MessageStatus();
                    p.sendrecv(out, right, seq, in, left, seq, st);
                    assertEquals(left, st.source());
                    assertEquals(seq, st.tag());
                    assertEquals(size, st.bytes());
                    check(in, size, left, seq);
                    // the non-blocking forms, the receive posted late (unexpected) on odd ranks
                    seq++;
                    fill(out, me, seq);
                    MessageRequest s = p.isend(out, right, seq);
                    MessageRequest r;
                    if ((me & 1) == 1) {
                        s.await();
                    }
                    r = p.irecv(in, left, seq);
                    Request.awaitAll(s, r);
                    assertEquals(size, r.status().bytes());
                    check(in, size, left, seq);
                }
            }
            // arrays and ByteBuffers, and sendrecv in place
            int[] ints = new int[5000];
            for (int i = 0; i < ints.length; i++) {
                ints[i] = me * 100_000 + i;
            }
            p.sendrecvReplace(ints, right, 1, left, 1);
            for (int i = 0; i < ints.length; i++) {
                assertEquals(left * 100_000 + i, ints[i]);
            }
            ByteBuffer bb = ByteBuffer.allocateDirect(3000);
            for (int i = 0; i < 3000; i++) {
                bb.put(i, (byte) (me + i));
            }
            ByteBuffer got = ByteBuffer.allocate(3000);
            p.sendrecv(bb, right, 2, got, left, 2, null);
            for (int i = 0; i < 3000; i++) {
                assertEquals((byte) (left + i), got.get(i));
            }
        });
    }

    @Test
    void anySourceSeesLocalAndRemoteSendersInTheirOrder() throws Exception {
        // 2 processes of 2 ranks: rank 0's peers are rank 1 (its process) and ranks 2, 3 (the other)
        job(2, 2, rank -> {
            PointToPoint p = rank.p2p();
            int me = rank.id();
            int per = 40;
            if (me == 0) {
                MemorySegment buf = MemorySegment.ofArray(new byte[5000]);
                int[] next = new int[4];
                TreeSet<Integer> sources = new TreeSet<>();
                MessageStatus st = new MessageStatus();
                for (int k = 0; k < 3 * per; k++) {
                    p.recv(buf, PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG, st);
                    int src = st.source();
                    sources.add(src);
                    // non-overtaking: each source's messages in the order sent (the tag is its sequence number)
                    assertEquals(next[src]++, st.tag(), "from " + src);
                    assertEquals(size(src, st.tag()), st.bytes());
                    check(buf, st.bytes(), src, st.tag());
                }
                assertEquals(List.of(1, 2, 3), new ArrayList<>(sources));
                assertEquals(null, p.iprobe(PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG));
            } else {
                List<MessageRequest> reqs = new ArrayList<>();
                for (int k = 0; k < per; k++) {
                    MemorySegment m = MemorySegment.ofArray(new byte[(int) size(me, k)]);
                    fill(m, me, k);
                    reqs.add(p.isend(m, 0, k));
                }
                Request.awaitAll(reqs.toArray(new Request[0]));
            }
        });
    }

    /** Mixed protocols per message: 0 B, inline, eager and rendezvous in turn. */
    private static long size(int source, int k) {
        return switch ((k + source) % 4) {
            case 0 -> 0;
            case 1 -> 24;
            case 2 -> 1500;
            default -> 4000;
        };
    }

    @Test
    void tagsProbesTruncationAndWaitAnyAcrossProcesses() throws Exception {
        job(2, 1, rank -> {
            PointToPoint p = rank.p2p();
            if (rank.id() == 1) {
                for (int size : new int[]{16, 1500, 100_000}) {
                    MemorySegment a = MemorySegment.ofArray(new byte[size]);
                    fill(a, 1, size);
                    MessageRequest s5 = p.isend(a, 0, 5);     // tag 5 first, received second
                    MemorySegment b = MemorySegment.ofArray(new byte[size + 1]);
                    fill(b, 1, size + 1);
                    p.isend(b, 0, 6).await();
                    p.send(a, 0, 7);                  // truncated at the receiver
                    p.send(b, 0, 8);                  // still delivered after the truncation
                    s5.await();
                }
                rank.barrier();
            } else {
                for (int size : new int[]{16, 1500, 100_000}) {
                    MemorySegment a = MemorySegment.ofArray(new byte[size + 1]);
                    MemorySegment b = MemorySegment.ofArray(new byte[size + 1]);
                    MessageStatus probed = p.probe(1, 6);
                    assertEquals(size + 1, probed.bytes());
                    assertEquals(6, probed.tag());
                    MessageRequest r6 = p.irecv(b, 1, 6);
                    MessageRequest r5 = p.irecv(a, PointToPoint.ANY_SOURCE, 5);
                    int first = Request.awaitAny(r6, r5);
                    assertTrue(first == 0 || first == 1);
                    Request.awaitAll(r6, r5);
                    check(a, size, 1, size);
                    check(b, size + 1, 1, size + 1);
                    MemorySegment small = MemorySegment.ofArray(new byte[size / 2]);
                    MessageTruncatedException t = assertThrows(MessageTruncatedException.class, () -> p.recv(small, 1, 7));
                    assertEquals(size, t.messageBytes());
                    check(small, size / 2, 1, size);
                    MessageStatus st = new MessageStatus();
                    p.recv(b, 1, 8, st);
                    assertEquals(size + 1, st.bytes());
                    check(b, size + 1, 1, size + 1);
                }
                assertEquals(null, p.iprobe(1, PointToPoint.ANY_TAG));
                rank.barrier();
            }
        });
    }

    @Test
    void subTeamsAcrossProcessesExchangeTheirOwnMessagesAndNeighborsAndAnUnevenOneRefuses() throws Exception {
        job(2, 4, rank -> {
            // two sub-teams of two ranks in each process (local ids 0-1 and 2-3), numbered process by process; each
            // rank sends every other member of its sub-team an inline, an eager and a rendezvous message (tagged with
            // its size), and its parent peer a message with the same tag, which the sub-team's wildcard receives must
            // never match
            int width = 2;
            try (Rank sub = rank.split(rank.localId() / width, rank.id())) {
                assertEquals(4, sub.size());
                assertEquals(rank.processIndex() * width + rank.localId() % width, sub.id());
                PointToPoint sp = sub.p2p();
                PointToPoint p = rank.p2p();
                int k = sub.size();
                int m = sub.id();
                // the parent's number of sub-team rank q: the same process, the same half of its local ids
                int[] parentOf = new int[k];
                for (int q = 0; q < k; q++) {
                    parentOf[q] = q / width * rank.localSize() + rank.localId() / width * width + q % width;
                }
                assertEquals(rank.id(), parentOf[m]);
                for (int size : new int[]{8, 1500, 70_000}) {
                    List<Request> sends = new ArrayList<>();
                    for (int q = 0; q < k; q++) {
                        if (q != m) {
                            MemorySegment parentMsg = buffer(rank, q % 3, size);
                            fill(parentMsg, rank.id(), 900 + size);
                            sends.add(p.isend(parentMsg, parentOf[q], size));
                            MemorySegment out = buffer(rank, (q + 1) % 3, size);
                            fill(out, m, size);
                            sends.add(sp.isend(out, q, size));
                        }
                    }
                    TreeSet<Integer> from = new TreeSet<>();
                    for (int i = 0; i < k - 1; i++) {
                        MemorySegment in = buffer(rank, i % 3, size);
                        MessageStatus st = new MessageStatus();
                        sp.recv(in, PointToPoint.ANY_SOURCE, size, st);
                        assertEquals(size, st.bytes());
                        check(in, size, st.source(), size);
                        assertTrue(from.add(st.source()), "one message from each member: " + from + " + " + st.source());
                    }
                    for (int q = 0; q < k; q++) {
                        if (q != m) {
                            MemorySegment in = buffer(rank, q % 3, size);
                            p.recv(in, parentOf[q], size);
                            check(in, size, parentOf[q], 900 + size);
                        }
                    }
                    Request.awaitAll(sends.toArray(new Request[0]));
                }
                assertEquals(null, sp.iprobe(PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG));
                // a neighborhood collective on the sub-team's ring of its four ranks, rendezvous-sized blocks
                CartesianTopology ring = CartesianTopology.of(new int[]{k}, new boolean[]{true});
                int block = 3000;
                MemorySegment send = sub.allocate(block);
                MemorySegment recv = MemorySegment.ofArray(new byte[2 * block]);
                fill(send, m, 11);
                sp.neighborAllgather(ring, send, recv);
                int[] nb = ring.sources(m);
                for (int i = 0; i < nb.length; i++) {
                    check(recv.asSlice((long) i * block, block), block, nb[i], 11);
                }
                sub.barrier();
            }
            // processes holding different numbers of a sub-team's ranks (three in one, one in the other): refused,
            // saying so, and the team goes on
            try (Rank uneven = rank.split(rank.id() <= rank.localSize() ? 0 : Team.UNDEFINED, rank.id())) {
                if (uneven != null) {
                    UnsupportedOperationException u = assertThrows(UnsupportedOperationException.class,
                            () -> uneven.p2p().send(new byte[1], 0, 0));
                    assertTrue(u.getMessage().contains("different numbers"), u.getMessage());
                }
            }
            rank.barrier();
        });
    }

    @Test
    void neighborhoodCollectivesOnAGridAcrossProcesses() throws Exception {
        job(2, 2, rank -> {
            int n = rank.size();
            int me = rank.id();
            CartesianTopology ring = CartesianTopology.of(new int[]{n}, new boolean[]{true});
            int block = 3000;   // rendezvous blocks
            MemorySegment send = rank.allocate(block);
            MemorySegment recv = MemorySegment.ofArray(new byte[2 * block]);
            fill(send, me, 1);
            rank.p2p().neighborAllgather(ring, send, recv);
            int[] from = ring.sources(me);
            for (int i = 0; i < from.length; i++) {
                check(recv.asSlice((long) i * block, block), block, from[i], 1);
            }
        });
    }

    @Test
    void aPeerProcessThatDiesFailsTheWaitOnItInsteadOfHanging() throws Exception {
        Process dead = new ProcessBuilder("sleep", "600").start();
        dead.destroyForcibly().waitFor();
        CountDownLatch waited = new CountDownLatch(1);
        String job = ProcessThreads.jobName("p2p-dead");
        AtomicReference<Throwable> seen = new AtomicReference<>();
        AtomicLong waitedMillis = new AtomicLong(-1);
        ProcessThreads.run(2, index -> {
            Team team = Team.builder().ranks(1).processes(2, index).name(job).timeout(Duration.ofSeconds(60)).build();
            try {
                team.run(rank -> {
                    rank.barrier();
                    if (index == 1) {
                        // this process "dies": a dead pid in its line of the mapping (offset 2048 + 64 p, Mapping's
                        // layout), where the peers' liveness checks read it
                        MemorySegment m = ((SharedMemorySpan) rank.span.span()).p2pMemory().memory();
                        m.set(ValueLayout.JAVA_LONG, 2048 + 64, dead.pid());
                        assertTrue(waited.await(30, TimeUnit.SECONDS));
                    } else {
                        long t0 = System.nanoTime();
                        try {
                            rank.p2p().recv(MemorySegment.ofArray(new byte[8]), 1, 0);
                        } finally {
                            waitedMillis.set((System.nanoTime() - t0) / 1_000_000);
                            waited.countDown();
                        }
                    }
                });
            } catch (RuntimeException e) {
                if (index == 0) {
                    seen.set(e);
                }
            } finally {
                try {
                    team.close();
                } catch (RuntimeException ignored) {
                    // the job is aborted: process 1's close may fail, which is not what this test checks
                }
            }
        });
        Throwable e = seen.get();
        assertNotNull(e, "the receive from the dead process returned");
        assertInstanceOf(TeamAbortedException.class, e, String.valueOf(e));
        assertTrue(e.getMessage().contains("process 1 (pid " + dead.pid()), e.getMessage());
        assertTrue(waitedMillis.get() >= 0 && waitedMillis.get() < 5_000, "the wait ended after " + waitedMillis.get() + " ms");
    }
}
