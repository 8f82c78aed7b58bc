package io.coll4j.mpi;

import io.coll4j.CartesianTopology;
import io.coll4j.MessageRequest;
import io.coll4j.MessageStatus;
import io.coll4j.MessageTruncatedException;
import io.coll4j.PointToPoint;
import io.coll4j.Rank;
import io.coll4j.Request;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Point-to-point on an {@code mpi()} team, run by {@link CrossProcessDriver}'s {@code p2p} mode on every rank: every
 * protocol size (0 B, 8 B, 40 B, 2 KiB, 64 KiB, 1 MiB) around a ring of every global rank, blocking and non-blocking,
 * the receive posted before and after the message came, on the heap, the team's memory and the user's native memory;
 * ANY_SOURCE and ANY_TAG over senders of this process and of others with MPI's order per (source, tag); probe and
 * iprobe; truncation that fails the receive alone and loses nothing after it; a neighbor allgather on a ring. Over
 * the shared mapping or MPI alike (the job chooses): a wrong byte, order or status throws, which ends the job.
 */
final class P2pChecker {
    private static final int[] SIZES = {0, 8, 40, 2048, 65536, 1 << 20};
    /** The wildcard stream's sizes by tag: inline, eager and rendezvous on both transports. */
    private static final int[] STREAM = {8, 1500, 70_000};
    private static final int PER = 24;

    private final Rank rank;
    private final PointToPoint p;
    private final int me;
    private final int n;

    P2pChecker(Rank rank) {
        this.rank = rank;
        this.p = rank.p2p();
        this.me = rank.id();
        this.n = rank.size();
    }

    /** Runs every check; returns how many messages this rank received. */
    int all() {
        int received = ring();
        received += wildcardsAndOrder();
        received += probeAndTruncation();
        received += neighbors();
        received += subTeam();
        rank.barrier();
        return received;
    }

    private static byte value(int source, int seq, long i) {
        return (byte) (source * 31 + seq * 7 + i * 13);
    }

    private static void fill(MemorySegment s, int source, int seq) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, value(source, seq, i));
        }
    }

    private static void check(MemorySegment s, long bytes, int source, int seq) {
        for (long i = 0; i < bytes; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != value(source, seq, i)) {
                throw new AssertionError("byte " + i + " of message " + seq + " from rank " + source + " is "
                        + s.get(ValueLayout.JAVA_BYTE, i) + ", expected " + value(source, seq, i));
            }
        }
    }

    private static void expect(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    /** A buffer of kind k: 0 the team's memory (rank.allocate), 1 the heap, 2 the user's own native memory. */
    private MemorySegment buffer(int kind, long bytes) {
        return switch (kind) {
            case 0 -> rank.allocate(Math.max(1, bytes)).asSlice(0, bytes);
            case 1 -> MemorySegment.ofArray(new byte[(int) bytes]);
            default -> Arena.ofAuto().allocate(Math.max(1, bytes)).asSlice(0, bytes);
        };
    }

    /** Every size to the right neighbour of the global ring, from the left one: blocking, then non-blocking. */
    private int ring() {
        int right = (me + 1) % n;
        int left = (me + n - 1) % n;
        int seq = 0;
        int got = 0;
        for (int size : SIZES) {
            for (int kind = 0; kind < 3; kind++) {
                seq++;
                MemorySegment out = buffer(kind, size);
                MemorySegment in = buffer((kind + 1) % 3, size);
                fill(out, me, seq);
                MessageStatus st = new MessageStatus();
                p.sendrecv(out, right, seq, in, left, seq, st);
                expect(st.source() == left && st.tag() == seq && st.bytes() == size, "sendrecv status " + st);
                check(in, size, left, seq);
                got++;
                // the receive posted after the message came (odd ranks wait for their send first) or before it
                seq++;
                fill(out, me, seq);
                MessageRequest s = p.isend(out, right, seq);
                if ((me & 1) == 1) {
                    s.await();
                }
                MessageRequest r = p.irecv(in, left, seq);
                Request.awaitAll(s, r);
                expect(r.status().bytes() == size && r.status().source() == left, "irecv status " + r.status());
                check(in, size, left, seq);
                got++;
            }
        }
        return got;
    }

    /**
     * Every other rank sends rank 0 a stream across the crossover with three tags; rank 0 takes the first half with
     * ANY_SOURCE and ANY_TAG (each source's messages then come exactly in the order sent: a wildcard receive could
     * match any of them), the rest by (source, tag), in the order sent per tag; none is lost or received twice.
     */
    private int wildcardsAndOrder() {
        int got = 0;
        if (me != 0) {
            MessageRequest[] rs = new MessageRequest[PER];
            for (int k = 0; k < PER; k++) {
                MemorySegment own = Arena.ofAuto().allocate(STREAM[k % 3]);
                fill(own, me, 1000 + k);
                rs[k] = p.isend(own, 0, k % 3);
            }
            Request.awaitAll(rs);
        } else {
            MemorySegment in = Arena.ofAuto().allocate(STREAM[2]);
            int[] next = new int[n];
            MessageStatus st = new MessageStatus();
            for (int k = 0; k < (n - 1) * PER / 2; k++) {
                p.recv(in, PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG, st);
                int s = st.source();
                expect(s != 0 && st.tag() == next[s] % 3 && st.bytes() == STREAM[next[s] % 3], "wildcard receive "
                        + k + ": " + st + " where message " + next[s] + " of rank " + s + " was next");
                check(in, st.bytes(), s, 1000 + next[s]);
                next[s]++;
                got++;
            }
            for (int s = 1; s < n; s++) {
                for (int tag = 0; tag < 3; tag++) {
                    for (int k = next[s]; k < PER; k++) {
                        if (k % 3 == tag) {
                            p.recv(in, s, tag, st);
                            expect(st.bytes() == STREAM[tag] && st.tag() == tag, "from rank " + s + ", tag " + tag + ": " + st);
                            check(in, st.bytes(), s, 1000 + k);
                            got++;
                        }
                    }
                }
            }
            expect(p.iprobe(PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG) == null, "a message left over");
        }
        rank.barrier();
        return got;
    }

    /** Probe, iprobe and truncation between ranks 0 and the last one (another process's). */
    private int probeAndTruncation() {
        int last = n - 1;
        int got = 0;
        if (me == last) {
            for (int size : new int[]{8, 3000, 100_000}) {
                MemorySegment m = Arena.ofAuto().allocate(size);
                fill(m, me, size);
                p.send(m, 0, 9);                // probed, then received
                p.send(m, 0, 10);               // truncated
                MemorySegment after = Arena.ofAuto().allocate(64);
                fill(after, me, size + 1);
                p.send(after, 0, 10);           // intact after the truncation
            }
        } else if (me == 0) {
            for (int size : new int[]{8, 3000, 100_000}) {
                MessageStatus st = p.probe(PointToPoint.ANY_SOURCE, 9);
                expect(st.source() == last && st.tag() == 9 && st.bytes() == size, "probe " + st);
                MessageStatus again;
                while ((again = p.iprobe(last, PointToPoint.ANY_TAG)) == null) {
                    Thread.onSpinWait();
                }
                expect(again.tag() == 9 && again.bytes() == size, "iprobe " + again);
                MemorySegment in = MemorySegment.ofArray(new byte[size]);
                p.recv(in, last, 9);
                check(in, size, last, size);
                MemorySegment small = Arena.ofAuto().allocate(5);
                try {
                    p.recv(small, last, 10);
                    throw new AssertionError("a " + size + "-byte message into 5 bytes was not truncated");
                } catch (MessageTruncatedException e) {
                    expect(e.messageBytes() == size && e.bufferBytes() == 5 && e.source() == last, e.getMessage());
                }
                check(small, 5, last, size);
                MemorySegment after = rank.allocate(64);
                MessageStatus st2 = new MessageStatus();
                p.recv(after, last, 10, st2);
                expect(st2.bytes() == 64, "after the truncation " + st2);
                check(after, 64, last, size + 1);
                got += 3;
            }
        }
        rank.barrier();
        return got;
    }

    /**
     * A sub-team of one rank per process (split by local id): over MPI or the mapping (its own rings) its ranks exchange
     * messages around their ring, ANY_SOURCE at its rank 0, and a message sent on the parent with the same peer and tag
     * never matches the sub-team's receive.
     */
    private int subTeam() {
        int got = 0;
        try (Rank sub = rank.split(rank.localId(), rank.id())) {
            PointToPoint sp = sub.p2p();
            int m = sub.id();
            int k = sub.size();
            int right = (m + 1) % k;
            int left = (m + k - 1) % k;
            // the parent's numbers of the sub-team's neighbours: one rank per process, the same local id
            int parentRight = right * (n / k) + rank.localId();
            for (int size : new int[]{8, 70_000}) {
                MemorySegment parentMsg = Arena.ofAuto().allocate(size);
                fill(parentMsg, me, 500 + size);
                MessageRequest pr = p.isend(parentMsg, parentRight, 5);
                MemorySegment out = Arena.ofAuto().allocate(size);
                fill(out, m, 600 + size);
                MemorySegment in = Arena.ofAuto().allocate(size);
                MessageStatus st = new MessageStatus();
                sp.sendrecv(out, right, 5, in, PointToPoint.ANY_SOURCE, 5, st);
                expect(st.source() == left && st.bytes() == size, "sub-team status " + st);
                check(in, size, left, 600 + size);
                int parentLeft = left * (n / k) + rank.localId();
                p.recv(in, parentLeft, 5, st);
                check(in, size, parentLeft, 500 + size);
                pr.await();
                got += 2;
            }
            sub.barrier();
        }
        return got;
    }

    /** MPI_Neighbor_allgather on a periodic ring of every global rank, rendezvous-sized blocks. */
    private int neighbors() {
        CartesianTopology ring = CartesianTopology.of(new int[]{n}, new boolean[]{true});
        int block = 3000;
        MemorySegment send = rank.allocate(block);
        MemorySegment recv = MemorySegment.ofArray(new byte[2 * block]);
        fill(send, me, 7);
        p.neighborAllgather(ring, send, recv);
        int[] from = ring.sources(me);
        for (int i = 0; i < from.length; i++) {
            check(recv.asSlice((long) i * block, block), block, from[i], 7);
        }
        return from.length;
    }
}
