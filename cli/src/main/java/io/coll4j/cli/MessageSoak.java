package io.coll4j.cli;

import io.coll4j.MessageRequest;
import io.coll4j.MessageStatus;
import io.coll4j.MessageTruncatedException;
import io.coll4j.PointToPoint;
import io.coll4j.Rank;
import io.coll4j.Team;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * {@code collbench p2p-soak}: random point-to-point traffic checked message by message (issue 33's soak). Teams of 2..8
 * ranks run rounds; every rank derives the round's plan from the round's seed (how many messages each rank sends each
 * other, their sizes: 0 B to 4 MiB, across the inline limit and the eager/rendezvous crossover), sends them with
 * {@code isend} (eager ones sometimes with a blocking {@code send}), and receives its own in one of five ways chosen per
 * rank and round: exact source and tag, {@code ANY_SOURCE} with the tag, the source with {@code ANY_TAG}, both wildcards,
 * or {@code probe(ANY_SOURCE, ANY_TAG)} then a receive of exactly what the probe found. Receives are awaited in a
 * shuffled order (out-of-order waits); some exact receives get a buffer one byte short of their message and must fail
 * with {@link MessageTruncatedException} holding the prefix, while everything else arrives.
 *
 * <p>The oracle: every planned message received exactly once (else lost), every byte as sent (else corrupted), and
 * — MPI's non-overtaking rule — the messages of one source taken by receives that could match each other's in the
 * order sent (tag = the message's sequence number on its pair in the round, so a receive's tags from one source must
 * increase in posting order; else reordered). A hang is ended by the team timeout and counted as lost.
 */
final class MessageSoak {
    /** The five ways a rank receives in a round. */
    private static final int EXACT = 0, ANY_SRC = 1, ANY_TG = 2, BOTH = 3, PROBE = 4;
    private static final long MAX_MESSAGE = 4L << 20;
    /** Per rank and round: bytes it may send (its send region) and receive with wildcards (its receive region). */
    private static final long REGION = 24L << 20;

    record Result(long messages, long bytes, long lost, long reordered, long corrupted, long truncationsExpected,
                  long truncationsSeen, long teams, List<String> failures) {
        boolean clean() {
            return lost == 0 && reordered == 0 && corrupted == 0 && truncationsExpected == truncationsSeen;
        }
    }

    private MessageSoak() {
    }

    /** One round's plan, the same on every rank: sizes[s][d] are the messages s sends d, in order. */
    private record Plan(long[][][] sizes, int[] mode, int[][][] shortBy, boolean[] blockingEager) {
        static Plan of(long seed, int p) {
            Random rnd = new Random(seed);
            long[][][] sizes = new long[p][p][];
            int[][][] shortBy = new int[p][p][];
            long[] out = new long[p];
            long[] in = new long[p];
            boolean[] big = new boolean[p];
            for (int s = 0; s < p; s++) {
                for (int d = 0; d < p; d++) {
                    int n = rnd.nextInt(100) < 70 ? rnd.nextInt(7) : 0;
                    sizes[s][d] = new long[n];
                    shortBy[s][d] = new int[n];
                    for (int k = 0; k < n; k++) {
                        long size = size(rnd);
                        if (out[s] + size > REGION - MAX_MESSAGE || in[d] + size > REGION - MAX_MESSAGE) {
                            size = rnd.nextInt(41);
                        }
                        out[s] += size;
                        in[d] += size;
                        sizes[s][d][k] = size;
                        big[d] |= size > 65536;
                    }
                }
            }
            int[] mode = new int[p];
            for (int d = 0; d < p; d++) {
                mode[d] = big[d] ? (rnd.nextBoolean() ? EXACT : PROBE) : rnd.nextInt(5);
                if (mode[d] == EXACT) {
                    for (int s = 0; s < p; s++) {
                        for (int k = 0; k < sizes[s][d].length; k++) {
                            if (sizes[s][d][k] > 0 && rnd.nextInt(40) == 0) {
                                shortBy[s][d][k] = 1;                  // this receive's buffer is one byte short
                            }
                        }
                    }
                }
            }
            boolean[] blockingEager = new boolean[p];
            for (int s = 0; s < p; s++) {
                blockingEager[s] = rnd.nextInt(3) == 0;
            }
            return new Plan(sizes, mode, shortBy, blockingEager);
        }

        private static long size(Random rnd) {
            int c = rnd.nextInt(1000);
            if (c < 350) {
                return rnd.nextInt(41);                                 // inline, 0 B included
            } else if (c < 700) {
                return 41 + rnd.nextInt(4096 - 40);                     // eager
            } else if (c < 995) {
                return 4097 + rnd.nextInt(61_440);                      // rendezvous, in cache
            }
            return 65_537 + (long) rnd.nextInt((int) (MAX_MESSAGE - 65_536));
        }
    }

    /** Byte i of message k from s to d in round r. */
    private static long base(int s, int d, long round, int k) {
        long h = (s * 0x9E3779B97F4A7C15L) ^ (d * 0xC2B2AE3D27D4EB4FL) ^ (round * 0x165667B19E3779F9L) ^ (k * 0x27D4EB2F165667C5L);
        return h ^ (h >>> 29);
    }

    private static void fill(MemorySegment m, long base) {
        long n = m.byteSize();
        long i = 0;
        for (; i + 8 <= n; i += 8) {
            m.set(ValueLayout.JAVA_LONG_UNALIGNED, i, base + i * 0x9E3779B97F4A7C15L);
        }
        for (; i < n; i++) {
            m.set(ValueLayout.JAVA_BYTE, i, (byte) (base + i * 31));
        }
    }

    /** True when the first {@code n} bytes of {@code m} are the message with this base of {@code size} bytes. */
    private static boolean check(MemorySegment m, long n, long size, long base) {
        long i = 0;
        long whole = size & ~7L;
        for (; i + 8 <= Math.min(n, whole); i += 8) {
            if (m.get(ValueLayout.JAVA_LONG_UNALIGNED, i) != base + i * 0x9E3779B97F4A7C15L) {
                return false;
            }
        }
        for (; i < n; i++) {
            byte want = i < whole ? (byte) ((base + (i & ~7L) * 0x9E3779B97F4A7C15L) >>> (8 * (i & 7)))
                    : (byte) (base + i * 31);
            if (m.get(ValueLayout.JAVA_BYTE, i) != want) {
                return false;
            }
        }
        return true;
    }

    static Result run(long messages, long seed, Duration maxTime, Consumer<String> log) {
        Random rnd = new Random(seed);
        long deadline = System.nanoTime() + maxTime.toNanos();
        AtomicLong sent = new AtomicLong(), bytes = new AtomicLong(), lost = new AtomicLong(), reordered = new AtomicLong(),
                corrupted = new AtomicLong(), truncExpected = new AtomicLong(), truncSeen = new AtomicLong();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        long teams = 0;
        while (sent.get() < messages && System.nanoTime() < deadline) {
            int p = 2 + rnd.nextInt(7);
            long teamSeed = rnd.nextLong();
            boolean heap = rnd.nextBoolean();
            long budget = Math.min(messages - sent.get(), 20_000 + rnd.nextInt(30_000));
            teams++;
            try (Team team = Team.builder().ranks(p).timeout(Duration.ofSeconds(60)).build()) {
                team.run(rank -> {
                    Side side = new Side(rank, heap);
                    long round = 0;
                    while (true) {
                        // rank 0 decides whether another round runs; the others learn it from the allreduce
                        boolean go = sent.get() < messages && System.nanoTime() < deadline && side.teamMessages < budget;
                        if (rank.allreduce(rank.id() == 0 && go ? 1L : 0L, io.coll4j.reductions.Op.SUM) == 0) {
                            return;
                        }
                        Plan plan = Plan.of(teamSeed ^ (round * 0x9E3779B97F4A7C15L), p);
                        side.round(plan, round, sent, bytes, lost, reordered, corrupted, truncExpected, truncSeen, failures,
                                teamSeed);
                        round++;
                    }
                });
            } catch (RuntimeException e) {
                lost.incrementAndGet();
                failures.add("team seed " + teamSeed + " (" + p + " ranks): " + e);
            }
            log.accept(String.format(java.util.Locale.ROOT, "# team %d: %d ranks, %s buffers, %d messages so far", teams, p,
                    heap ? "heap" : "native", sent.get()));
        }
        return new Result(sent.get(), bytes.get(), lost.get(), reordered.get(), corrupted.get(), truncExpected.get(),
                truncSeen.get(), teams, List.copyOf(failures));
    }

    /**
     * The soak on one team that spans processes ({@code builder} names them: {@code processes(n, i)}), {@code localRanks}
     * in each, every process running this with the same {@code seed}: the rounds' plans are the team's, so every
     * process derives the same ones; global rank 0 decides whether another round runs from the messages of every
     * process (an allreduce), and the counts returned are the whole team's (summed over the processes).
     */
    static Result runAcross(long messages, long seed, Duration maxTime, Team.Builder builder, int localRanks,
                            Consumer<String> log) {
        long deadline = System.nanoTime() + maxTime.toNanos();
        AtomicLong sent = new AtomicLong(), bytes = new AtomicLong(), lost = new AtomicLong(), reordered = new AtomicLong(),
                corrupted = new AtomicLong(), truncExpected = new AtomicLong(), truncSeen = new AtomicLong();
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        long teamSeed = new Random(seed).nextLong();
        long[] total = new long[7];
        try (Team team = builder.ranks(localRanks).timeout(Duration.ofSeconds(60)).build()) {
            team.run(rank -> {
                Side side = new Side(rank, (teamSeed & 1) == 0);
                int p = rank.size();
                long round = 0;
                while (true) {
                    // the team's messages so far: each process's count once (its local rank 0's contribution)
                    long all = rank.allreduce(rank.localId() == 0 ? sent.get() : 0L, io.coll4j.reductions.Op.SUM);
                    boolean go = all < messages && System.nanoTime() < deadline;
                    if (rank.allreduce(rank.id() == 0 && go ? 1L : 0L, io.coll4j.reductions.Op.SUM) == 0) {
                        break;
                    }
                    Plan plan = Plan.of(teamSeed ^ (round * 0x9E3779B97F4A7C15L), p);
                    side.round(plan, round, sent, bytes, lost, reordered, corrupted, truncExpected, truncSeen, failures,
                            teamSeed);
                    round++;
                    if (rank.id() == 0 && round % 16 == 0) {
                        log.accept("# round " + round + ": " + all + " messages so far");
                    }
                }
                AtomicLong[] mine = {sent, bytes, lost, reordered, corrupted, truncExpected, truncSeen};
                for (int i = 0; i < mine.length; i++) {
                    long v = rank.allreduce(rank.localId() == 0 ? mine[i].get() : 0L, io.coll4j.reductions.Op.SUM);
                    if (rank.localId() == 0) {
                        total[i] = v;
                    }
                }
            });
        } catch (RuntimeException e) {
            lost.incrementAndGet();
            failures.add("team seed " + teamSeed + " across processes: " + e);
            total[2] = Math.max(total[2], lost.get());
        }
        return new Result(total[0], total[1], total[2], total[3], total[4], total[5], total[6], 1, List.copyOf(failures));
    }

    /** One rank's buffers and the round it runs. */
    private static final class Side {
        final Rank rank;
        final PointToPoint pp;
        final MemorySegment sendRegion;
        final MemorySegment recvRegion;
        long teamMessages;

        Side(Rank rank, boolean heap) {
            this.rank = rank;
            this.pp = rank.p2p();
            this.sendRegion = heap ? MemorySegment.ofArray(new byte[(int) REGION]) : rank.allocate(REGION);
            this.recvRegion = heap ? MemorySegment.ofArray(new byte[(int) REGION]) : rank.allocate(REGION);
        }

        void round(Plan plan, long round, AtomicLong sent, AtomicLong bytes, AtomicLong lost, AtomicLong reordered,
                   AtomicLong corrupted, AtomicLong truncExpected, AtomicLong truncSeen, List<String> failures, long teamSeed) {
            int p = rank.size();
            int me = rank.id();
            Random rnd = new Random(round * 31 + me);
            String where = "team seed " + teamSeed + ", round " + round + ", rank " + me;
            // sends: every destination in turn, its messages in order (their order is what non-overtaking is about)
            List<MessageRequest> sends = new ArrayList<>();
            long off = 0;
            for (int d = 0; d < p; d++) {
                long[] sz = plan.sizes()[me][d];
                for (int k = 0; k < sz.length; k++) {
                    MemorySegment m = sendRegion.asSlice(off, sz[k]);
                    off += sz[k];
                    fill(m, base(me, d, round, k));
                    if (plan.blockingEager()[me] && sz[k] <= pp.eagerLimit()) {
                        pp.send(m, d, k);
                    } else {
                        sends.add(pp.isend(m, d, k));
                    }
                }
            }
            // receives
            int mode = plan.mode()[me];
            List<Posted> posted = new ArrayList<>();
            long roff = 0;
            long maxIn = 0;
            int count = 0;
            for (int s = 0; s < p; s++) {
                for (long z : plan.sizes()[s][me]) {
                    maxIn = Math.max(maxIn, z);
                    count++;
                }
            }
            if (mode == PROBE) {
                int[] nextSeq = new int[p];
                for (int i = 0; i < count; i++) {
                    MessageStatus st = pp.probe(PointToPoint.ANY_SOURCE, PointToPoint.ANY_TAG);
                    MemorySegment b = recvRegion.asSlice(0, st.bytes());
                    MessageStatus got = new MessageStatus();
                    pp.recv(b, st.source(), st.tag(), got);
                    if (got.source() != st.source() || got.tag() != st.tag() || got.bytes() != st.bytes()) {
                        corrupted.incrementAndGet();
                        failures.add(where + ": probe said " + st + ", the receive got " + got);
                    }
                    if (got.tag() < nextSeq[got.source()]) {
                        reordered.incrementAndGet();
                        failures.add(where + ": from rank " + got.source() + " tag " + got.tag() + " after " + (nextSeq[got.source()] - 1));
                    }
                    nextSeq[got.source()] = got.tag() + 1;
                    verify(plan, round, got.source(), me, got.tag(), b, got.bytes(), got.bytes(), corrupted, failures, where);
                }
            } else {
                for (int s = 0; s < p; s++) {
                    long[] sz = plan.sizes()[s][me];
                    for (int k = 0; k < sz.length; k++) {
                        int source = mode == EXACT || mode == ANY_TG ? s : PointToPoint.ANY_SOURCE;
                        int tag = mode == EXACT || mode == ANY_SRC ? k : PointToPoint.ANY_TAG;
                        long cap = mode == EXACT ? sz[k] - plan.shortBy()[s][me][k] : maxIn;
                        MemorySegment b = recvRegion.asSlice(roff, cap);
                        roff += cap;
                        posted.add(new Posted(pp.irecv(b, source, tag), b, s, k, cap, posted.size()));
                    }
                }
                List<Posted> order = new ArrayList<>(posted);
                Collections.shuffle(order, rnd);
                for (Posted x : order) {
                    long want = plan.sizes()[x.source][me][x.seq];
                    try {
                        x.req.await();
                        if (want > x.cap && mode == EXACT) {
                            corrupted.incrementAndGet();
                            failures.add(where + ": a receive one byte short of its message did not fail");
                        }
                    } catch (MessageTruncatedException e) {
                        truncSeen.incrementAndGet();
                        if (e.messageBytes() != want || e.bufferBytes() != x.cap || !check(x.buf, x.cap, want,
                                base(x.source, me, round, x.seq))) {
                            corrupted.incrementAndGet();
                            failures.add(where + ": truncation of message " + x.seq + " from " + x.source + " wrong: " + e.getMessage());
                        }
                    }
                }
                // which message each receive got, and the order per source (non-overtaking)
                int[] lastTag = new int[p];
                java.util.Arrays.fill(lastTag, -1);
                boolean[][] got = new boolean[p][];
                for (int s = 0; s < p; s++) {
                    got[s] = new boolean[plan.sizes()[s][me].length];
                }
                for (Posted x : posted) {
                    if (x.cap < plan.sizes()[x.source][me][x.seq]) {
                        got[x.source][x.seq] = true;          // the truncated one, checked above
                        continue;
                    }
                    MessageStatus st = x.req.status();
                    int s = st.source();
                    int k = st.tag();
                    if (s < 0 || s >= p || k < 0 || k >= got[s].length || got[s][k]) {
                        corrupted.incrementAndGet();
                        failures.add(where + ": receive " + x.index + " got a message that was not planned or came twice: " + st);
                        continue;
                    }
                    got[s][k] = true;
                    if (mode != ANY_SRC && mode != EXACT) {
                        if (k <= lastTag[s]) {
                            reordered.incrementAndGet();
                            failures.add(where + ": receive " + x.index + " got message " + k + " of rank " + s + " after " + lastTag[s]);
                        }
                        lastTag[s] = k;
                    }
                    verify(plan, round, s, me, k, x.buf, st.bytes(), st.bytes(), corrupted, failures, where);
                }
                for (int s = 0; s < p; s++) {
                    for (int k = 0; k < got[s].length; k++) {
                        if (!got[s][k]) {
                            lost.incrementAndGet();
                            failures.add(where + ": message " + k + " of rank " + s + " never received");
                        }
                    }
                }
            }
            Collections.shuffle(sends, rnd);
            for (MessageRequest r : sends) {
                r.await();
            }
            long mine = 0;
            long myBytes = 0;
            for (int d = 0; d < p; d++) {
                for (long z : plan.sizes()[me][d]) {
                    mine++;
                    myBytes += z;
                }
            }
            long all = rank.allreduce(mine, io.coll4j.reductions.Op.SUM);
            long allBytes = rank.allreduce(myBytes, io.coll4j.reductions.Op.SUM);
            for (int s = 0; s < p; s++) {
                for (int k = 0; k < plan.shortBy()[s][me].length; k++) {
                    truncExpected.addAndGet(plan.shortBy()[s][me][k]);
                }
            }
            if (me == 0) {
                sent.addAndGet(all);
                bytes.addAndGet(allBytes);
                teamMessages += all;
            }
        }

        private static void verify(Plan plan, long round, int s, int d, int k, MemorySegment buf, long n, long size,
                                   AtomicLong corrupted, List<String> failures, String where) {
            if (size != plan.sizes()[s][d][k]) {
                corrupted.incrementAndGet();
                failures.add(where + ": message " + k + " of rank " + s + " has " + size + " bytes, sent " + plan.sizes()[s][d][k]);
            } else if (!check(buf, n, size, base(s, d, round, k))) {
                corrupted.incrementAndGet();
                failures.add(where + ": message " + k + " of rank " + s + " (" + size + " bytes) corrupted");
            }
        }
    }

    private record Posted(MessageRequest req, MemorySegment buf, int source, int seq, long cap, int index) {
    }
}
