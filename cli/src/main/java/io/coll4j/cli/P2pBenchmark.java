package io.coll4j.cli;

import io.coll4j.PointToPoint;
import io.coll4j.Rank;
import io.coll4j.Request;
import io.coll4j.Team;
import io.coll4j.WaitStrategy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;

/**
 * The point-to-point measurements of {@code collbench latency | bw | bibw | multi-lat}, timed as the OSU
 * micro-benchmarks time {@code osu_latency}, {@code osu_bw}, {@code osu_bibw} and {@code osu_multi_lat} (the
 * methodology of [AMPI §4.1]): a warm-up, then rank 0's wall clock over the timed iterations.
 *
 * <ul>
 * <li>latency: ping-pong of blocking send/recv, half the round trip: elapsed / (2 × iterations);</li>
 * <li>bw: rank 0 posts a window of isends, rank 1 a window of irecvs; both wait for all, rank 1 answers with 4 bytes;
 * bandwidth = bytes × window × iterations / elapsed;</li>
 * <li>bibw: both ranks post a window of irecvs and one of isends and wait for all (the two directions count);</li>
 * <li>multi-lat: ranks 2k and 2k+1 ping-pong at once; the latency is the mean over the pairs.</li>
 * <li>neighbor: every rank of a periodic ring does a neighborhood alltoall (a block of the size to each of its two
 * neighbours, a block from each): the time per call, as OSU times a collective, and the bytes a rank receives per
 * second.</li>
 * </ul>
 * One team per row set, bound as the collectives' rows are; after the timed loop one message of each direction is
 * checked byte by byte (the row's {@code valid}).
 */
final class P2pBenchmark {
    enum Test {
        LATENCY("latency"), BW("bw"), BIBW("bibw"), MULTI_LAT("multi-lat"), NEIGHBOR("neighbor");

        final String cli;

        Test(String cli) {
            this.cli = cli;
        }

        boolean bandwidth() {
            return this == BW || this == BIBW;
        }
    }

    /** OSU's large_message_size: above it the default iteration counts drop. */
    static final long LARGE = 8192;

    record Row(Test test, int ranks, long bytes, long iterations, int window, int round, double latencyUs,
               double bandwidthMBps, boolean valid, long eagerLimit) {
    }

    /** OSU's default iterations for {@code test} at {@code bytes}. */
    static long defaultIterations(Test test, long bytes) {
        if (test.bandwidth()) {
            return bytes > LARGE ? 20 : 100;
        }
        return bytes > LARGE ? 1000 : 10000;
    }

    /**
     * The default warm-up for {@code test} at {@code bytes}: 100 000 round trips for latency up to 8K, 100 above;
     * for bandwidth 1000 windows up to 8K (64 000 messages; the loop method needs 600 calls, one window each, before
     * C2 compiles it: with 300 the timed windows ran its C1 code, and before 2026-11-29 the interpreter) and 4 above. OSU's 100 are over before C2 has
     * compiled the send/recv path, and so were the 10 000 used before: with them the first 8-byte row read
     * 1.7-6.3 µs where the steady state is below 0.5 (-XX:+PrintCompilation: Endpoint.recv's C2 code arrived during
     * the timed loop; docs/measurements.md, 2026-11-29). The Open MPI reference ({@code scripts/ompi/ompi_p2p.c})
     * uses the same counts.
     */
    static long defaultWarmup(Test test, long bytes) {
        if (test.bandwidth()) {
            return bytes > LARGE ? 4 : 1000;
        }
        if (test == Test.NEIGHBOR) {
            return bytes > LARGE ? 100 : 20_000;
        }
        return bytes > LARGE ? 100 : 100_000;
    }

    /**
     * Warm-up iterations run per call of {@link #iterations} (round trips; windows for bandwidth, each 64+ calls),
     * so the loop method itself is compiled by invocation count before the timed call. Latency's chunk is 10 round
     * trips, 10 000 calls of the 100 000 warm-up: C2 compiles a method at 5 000 calls (Tier4InvocationThreshold).
     * With chunks of 1000 (100 calls) it was compiled only by its loop's back-edges, an OSR compilation that arrived
     * after the first timed round (-XX:+PrintCompilation), so the first round timed other code than the later ones.
     */
    private static long warmupChunk(Test test) {
        return test.bandwidth() ? 1 : 10;
    }

    private final Test test;
    private final int ranks;
    private final int window;
    private final int localRanks;
    private final Long iterations;
    private final Long warmup;
    private final WaitStrategy wait;

    P2pBenchmark(Test test, int ranks, int window, Long iterations, Long warmup, WaitStrategy wait) {
        this(test, ranks, ranks, window, iterations, warmup, wait);
    }

    /** {@code localRanks} of the {@code ranks} in this process (fewer when the builder spans processes). */
    P2pBenchmark(Test test, int ranks, int localRanks, int window, Long iterations, Long warmup, WaitStrategy wait) {
        this.test = test;
        this.ranks = ranks;
        this.localRanks = localRanks;
        this.window = window;
        this.iterations = iterations;
        this.warmup = warmup;
        this.wait = wait;
    }

    /** Every size in order, {@code rounds} times over; {@code sink} gets each row as it is measured (rank 0's thread). */
    void run(Team.Builder builder, List<Long> sizes, int rounds, java.util.function.Consumer<Row> sink) {
        run(builder, sizes, rounds, sink, t -> { });
    }

    /** As above; {@code transport} gets the team's transport first (process 0, a team that spans processes). */
    void run(Team.Builder builder, List<Long> sizes, int rounds, java.util.function.Consumer<Row> sink,
             java.util.function.Consumer<String> transport) {
        if (wait != null) {
            builder.waitStrategy(wait);
        }
        long max = sizes.stream().mapToLong(Long::longValue).max().orElse(0);
        try (Team team = builder.ranks(localRanks).timeout(Duration.ofMinutes(10)).build()) {
            if (team.processes() > 1 && team.processIndex() == 0) {
                transport.accept(team.transport());
            }
            team.run(rank -> {
                // a neighborhood alltoall sends and receives two blocks of the size
                int blocks = test == Test.NEIGHBOR ? 2 : 1;
                MemorySegment send = rank.allocate(Math.max(blocks * max, 8));
                MemorySegment recv = rank.allocate(Math.max(blocks * max, 8));
                MemorySegment ack = rank.allocate(8);
                for (int round = 1; round <= rounds; round++) {
                    for (long bytes : sizes) {
                        Row row = row(rank, send.asSlice(0, blocks * bytes), recv.asSlice(0, blocks * bytes), ack.asSlice(0, 4),
                                bytes, round);
                        if (rank.id() == 0) {
                            sink.accept(row);
                        }
                    }
                }
            });
        }
    }

    private Row row(Rank rank, MemorySegment send, MemorySegment recv, MemorySegment ack, long bytes, int round) {
        PointToPoint pp = rank.p2p();
        long iters = iterations != null ? iterations : defaultIterations(test, bytes);
        long skip = warmup != null ? warmup : defaultWarmup(test, bytes);
        int me = rank.id();
        int peer = me ^ 1;
        boolean active = test == Test.NEIGHBOR || (peer < ranks && (test == Test.MULTI_LAT || me < 2));
        io.coll4j.Neighborhood ring = test == Test.NEIGHBOR ? pp.neighborhood(ring(ranks)) : null;
        Request[] reqs = new Request[test == Test.BIBW ? 2 * window : window];
        rank.barrier();
        // the row's check first, untimed: its sendrecv is the row's only send that waits, and run first after a warm-up
        // of receive-only waits it trapped the compiled wait (profiled on one request class) and the next row's timed
        // round trips ran while it was recompiled (docs/measurements.md, 2026-11-30, "Point-to-point")
        boolean validBefore = ring != null ? checkRing(rank, ring, send, recv, bytes) : check(rank, pp, send, recv, bytes, active, peer);
        // the warm-up in chunks: the loop method is then compiled by invocation and the timed call below runs its
        // C2 code (one long loop in this method stayed interpreted: its back-edge count never reached an OSR
        // compilation within a row, and the interpreter's call per message was part of every latency read)
        if (active) {
            long chunk = warmupChunk(test);
            if (warmup == null && bytes > LARGE) {
                // a large size's few warm-up iterations leave its protocol's code in the interpreter or C1 (4 windows
                // of 64 KiB: its rendezvous path then cost ~25 µs a message, docs/measurements.md 2026-11-29): the
                // small sizes' count first, on the smallest message that takes the same protocol
                long path = Math.min(bytes, pp.eagerLimit() + 64);
                long paths = defaultWarmup(test, LARGE);
                for (long done = 0; done < paths; done += chunk) {
                    iterations(pp, ring, send.asSlice(0, blocksOf(send, bytes) * path), recv.asSlice(0, blocksOf(recv, bytes) * path),
                            ack, reqs, me, peer, Math.min(chunk, paths - done));
                }
            }
            for (long done = 0; done < skip; done += chunk) {
                iterations(pp, ring, send, recv, ack, reqs, me, peer, Math.min(chunk, skip - done));
            }
        }
        // as the collectives' rows do: the warm-up queued compilations that C2 finishes in the background, and on 2
        // CPUs a compiler thread at work takes a rank's CPU during the timed 10 000 round trips (~1 ms at 8 B): the
        // first round read 0.16-0.65 µs against 0.06-0.07 settled (docs/measurements.md, 2026-11-30); every
        // process's local rank 0 waits for its own JVM's JIT, the others at the barrier
        if (rank.localId() == 0 && skip >= JitQuiet.MIN_WARMUP) {
            JitQuiet.await();
        }
        rank.barrier();
        long start = System.nanoTime();
        if (active) {
            iterations(pp, ring, send, recv, ack, reqs, me, peer, iters);
        }
        long elapsed = System.nanoTime() - start;
        // every pair's own latency, averaged over the pairs (osu_multi_lat); the others' time is rank 0's
        double lat = elapsed / 1e3 / (2.0 * iters);
        if (test == Test.MULTI_LAT) {
            lat = rank.allreduce(active && (me & 1) == 0 ? lat : 0.0, io.coll4j.reductions.Op.SUM) / (ranks / 2);
        }
        if (test == Test.NEIGHBOR) {
            lat = elapsed / 1e3 / iters;
        }
        boolean valid = validBefore
                && (ring != null ? checkRing(rank, ring, send, recv, bytes) : check(rank, pp, send, recv, bytes, active, peer));
        double seconds = elapsed / 1e9;
        double mb = test == Test.BIBW || test == Test.NEIGHBOR ? 2.0 * bytes * window * iters / 1e6
                : (double) bytes * window * iters / 1e6;
        return new Row(test, ranks, bytes, iters, test.bandwidth() ? window : 1, round, test.bandwidth()
                ? elapsed / 1e3 / iters / window : lat, test.bandwidth() || test == Test.NEIGHBOR ? mb / seconds : bytes / lat,
                valid, pp.eagerLimit());
    }

    /** {@code n} iterations of the test (ping-pongs or windows) between this rank and {@code peer}. */
    private void iterations(PointToPoint pp, io.coll4j.Neighborhood ring, MemorySegment send, MemorySegment recv,
                            MemorySegment ack, Request[] reqs, int me, int peer, long n) {
        switch (test) {
            case NEIGHBOR -> {
                for (long i = 0; i < n; i++) {
                    ring.alltoall(send, recv);
                }
            }
            case LATENCY, MULTI_LAT -> {
                if ((me & 1) == 0) {
                    for (long i = 0; i < n; i++) {
                        pp.send(send, peer, 1);
                        pp.recv(recv, peer, 1);
                    }
                } else {
                    for (long i = 0; i < n; i++) {
                        pp.recv(recv, peer, 1);
                        pp.send(send, peer, 1);
                    }
                }
            }
            case BW -> {
                for (long i = 0; i < n; i++) {
                    for (int w = 0; w < window; w++) {
                        reqs[w] = me == 0 ? pp.isend(send, 1, 100) : pp.irecv(recv, 0, 100);
                    }
                    Request.awaitAll(reqs);
                    if (me == 0) {
                        pp.recv(ack, 1, 101);
                    } else {
                        pp.send(ack, 0, 101);
                    }
                }
            }
            case BIBW -> {
                for (long i = 0; i < n; i++) {
                    for (int w = 0; w < window; w++) {
                        reqs[w] = pp.irecv(recv, peer, 10);
                    }
                    for (int w = 0; w < window; w++) {
                        reqs[window + w] = pp.isend(send, peer, 10);
                    }
                    Request.awaitAll(reqs);
                }
            }
        }
    }

    /** Blocks of {@code bytes} in a row's buffer: two for a neighborhood alltoall, else one. */
    private static long blocksOf(MemorySegment buf, long bytes) {
        return bytes == 0 ? 1 : buf.byteSize() / bytes;
    }

    /** The periodic ring of {@code ranks}: each rank's neighbours are the ranks before and after it. */
    static io.coll4j.CartesianTopology ring(int ranks) {
        return io.coll4j.CartesianTopology.of(new int[]{ranks}, new boolean[]{true});
    }

    /** One neighborhood alltoall with a pattern, every block checked byte by byte on every rank. */
    private static boolean checkRing(Rank rank, io.coll4j.Neighborhood ring, MemorySegment send, MemorySegment recv, long bytes) {
        int me = rank.id();
        int[] nb = ring.topology().sources(me);
        for (int b = 0; b < 2; b++) {
            for (long i = 0; i < bytes; i++) {
                send.set(ValueLayout.JAVA_BYTE, b * bytes + i, (byte) (i * 13 + me * 3 + b));
            }
        }
        ring.alltoall(send, recv);
        boolean ok = true;
        for (int b = 0; b < 2 && ok; b++) {
            // block b came from neighbour b, which sent me its block b ^ 1 (the direction towards me)
            for (long i = 0; i < bytes && ok; i++) {
                ok = recv.get(ValueLayout.JAVA_BYTE, b * bytes + i) == (byte) (i * 13 + nb[b] * 3 + (b ^ 1));
            }
        }
        return rank.allreduce(ok ? 0 : 1, io.coll4j.reductions.Op.SUM) == 0;
    }

    /** One message each way with a pattern, checked byte by byte; the verdict is rank 0's and every pair's. */
    private static boolean check(Rank rank, PointToPoint pp, MemorySegment send, MemorySegment recv, long bytes,
                                 boolean active, int peer) {
        boolean ok = true;
        if (active) {
            int me = rank.id();
            for (long i = 0; i < bytes; i++) {
                send.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + me));
            }
            pp.sendrecv(send, peer, 2, recv, peer, 2);
            for (long i = 0; i < bytes && ok; i++) {
                ok = recv.get(ValueLayout.JAVA_BYTE, i) == (byte) (i * 13 + peer);
            }
        }
        return rank.allreduce(ok ? 0 : 1, io.coll4j.reductions.Op.SUM) == 0;
    }
}
