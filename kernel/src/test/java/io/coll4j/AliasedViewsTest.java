package io.coll4j;

import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.UserOp;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 30, defect 2: the overlap rules hold for every kind of view. For every collective with an overlap rule,
 * in its blocking form under every catalogue algorithm (and {@code auto}), its non-blocking form, its
 * persistent form and (reductions) its blocking form with a user-defined op, for p = 2 and 3, buffers of every
 * storage (heap arrays of two types, native, a mapped file) seen through every view (writable, read-only, a read-only slice), and three layouts of send and recv
 * in ONE storage — the collective's in-place form, a forbidden overlap, and disjoint ranges — the call is
 * either refused up front with an {@link IllegalArgumentException} on the calling rank (then the rank takes
 * part with separate buffers, so the team goes on and the refusal is shown to have touched nothing shared), or
 * its result equals the scalar reference. A forbidden overlap must be refused, the other two layouts must
 * run; a view's read-only-ness never changes the verdict.
 */
class AliasedViewsTest {
    static final DType T = DType.F64;
    static final long ES = 8;
    static final int ROOT_OFFSET = 1;          // root = p − 1 − ROOT_OFFSET: not rank 0, not the last rank at p = 3

    /** Heap segments of every array type are compared alike ({@code AliasingTest} covers each); two here. */
    enum Storage { HEAP_DOUBLES, HEAP_BYTES, NATIVE, MAPPED }

    enum View { WRITABLE, READ_ONLY, READ_ONLY_SLICE }

    /** IN_PLACE: the API's in-place form; OVERLAP: a forbidden overlap; DISJOINT: separate ranges of one storage. */
    enum Layout { IN_PLACE, OVERLAP, DISJOINT }

    /** USER_OP: the blocking form with a user-defined op (blocking only), whose fold has its own in-place test. */
    enum Form { BLOCKING, NONBLOCKING, PERSISTENT, USER_OP }

    static final UserOp PLUS = UserOp.ofDoubles("plus", true, Double::sum);

    static final List<Collective> COLLECTIVES = List.of(Collective.ALLREDUCE, Collective.REDUCE, Collective.SCAN,
            Collective.EXSCAN, Collective.REDUCE_SCATTER, Collective.REDUCE_SCATTER_V, Collective.ALLGATHER,
            Collective.ALLGATHERV, Collective.GATHER, Collective.GATHERV, Collective.SCATTER, Collective.SCATTERV,
            Collective.ALLTOALL, Collective.ALLTOALLV);

    static final long[] COUNTS = {3, 37};  // the staged and the sliced path of the non-blocking engine

    static double value(int rank, long i) {
        return (rank + 1) * 1000.0 + i;
    }

    /** Per-rank block sizes: equal for the block collectives, n + j for the v-variants (except alltoallv: in place needs one layout). */
    static long[] counts(Collective c, int p, long n) {
        long[] k = new long[p];
        for (int j = 0; j < p; j++) {
            k[j] = switch (c) {
                case REDUCE_SCATTER_V, ALLGATHERV, GATHERV, SCATTERV -> n + j;
                default -> n;
            };
        }
        return k;
    }

    static long[] displs(long[] counts) {
        long[] d = new long[counts.length];
        for (int j = 1; j < d.length; j++) {
            d[j] = d[j - 1] + counts[j - 1];
        }
        return d;
    }

    static long sum(long[] a) {
        long s = 0;
        for (long x : a) {
            s += x;
        }
        return s;
    }

    /** Elements of the (logical) send and recv buffers of rank r. */
    static long sendElems(Collective c, int p, long n, int r, int root) {
        long[] k = counts(c, p, n);
        return switch (c) {
            case ALLREDUCE, REDUCE, SCAN, EXSCAN -> n;
            case REDUCE_SCATTER, REDUCE_SCATTER_V -> sum(k);
            case ALLGATHER, ALLGATHERV, GATHER, GATHERV -> k[r];
            case SCATTER, SCATTERV -> sum(k);
            case ALLTOALL, ALLTOALLV -> p * n;
            default -> throw new AssertionError(c);
        };
    }

    static long recvElems(Collective c, int p, long n, int r, int root) {
        long[] k = counts(c, p, n);
        return switch (c) {
            case ALLREDUCE, REDUCE, SCAN, EXSCAN -> n;
            case REDUCE_SCATTER, REDUCE_SCATTER_V -> k[r];
            case ALLGATHER, ALLGATHERV, GATHER, GATHERV -> sum(k);
            case SCATTER, SCATTERV -> k[r];
            case ALLTOALL, ALLTOALLV -> p * n;
            default -> throw new AssertionError(c);
        };
    }

    /** Logical send element i of rank r (for scatter only the root's matters). */
    static double sendValue(Collective c, int r, long i) {
        return value(r, i);
    }

    /** The scalar reference: recv element i of rank r, or NaN where the result is not defined (not checked). */
    static double expected(Collective c, int p, long n, int r, int root, long i) {
        long[] k = counts(c, p, n);
        long[] d = displs(k);
        switch (c) {
            case ALLREDUCE -> {
                double s = 0;
                for (int q = 0; q < p; q++) {
                    s += value(q, i);
                }
                return s;
            }
            case REDUCE -> {
                return r == root ? expected(Collective.ALLREDUCE, p, n, r, root, i) : Double.NaN;
            }
            case SCAN, EXSCAN -> {
                int upTo = c == Collective.SCAN ? r : r - 1;
                if (upTo < 0) {
                    return Double.NaN;
                }
                double s = 0;
                for (int q = 0; q <= upTo; q++) {
                    s += value(q, i);
                }
                return s;
            }
            case REDUCE_SCATTER, REDUCE_SCATTER_V -> {
                double s = 0;
                for (int q = 0; q < p; q++) {
                    s += value(q, d[r] + i);
                }
                return s;
            }
            case ALLGATHER, ALLGATHERV, GATHER, GATHERV -> {
                if ((c == Collective.GATHER || c == Collective.GATHERV) && r != root) {
                    return Double.NaN;
                }
                int j = 0;
                while (j + 1 < p && d[j + 1] <= i) {
                    j++;
                }
                return value(j, i - d[j]);
            }
            case SCATTER, SCATTERV -> {
                return value(root, d[r] + i);
            }
            case ALLTOALL, ALLTOALLV -> {
                long j = i / n;
                return value((int) j, r * n + i % n);
            }
            default -> throw new AssertionError(c);
        }
    }

    /** Where send and recv lie (elements from the storage's start) for rank r, and whether the call must be refused. */
    record Placement(long sendAt, long recvAt, boolean refuse) {
    }

    static Placement place(Collective c, Layout layout, int p, long n, int r, int root) {
        long[] k = counts(c, p, n);
        long[] d = displs(k);
        long total = sum(k);
        int other = (r + 1) % p;
        switch (c) {
            case ALLREDUCE, REDUCE, SCAN, EXSCAN, ALLTOALL, ALLTOALLV -> {
                long len = recvElems(c, p, n, r, root);
                if (c == Collective.REDUCE && r != root) {
                    return new Placement(0, len, false);          // recv is not looked at off the root
                }
                return switch (layout) {
                    case IN_PLACE -> new Placement(0, 0, false);
                    case OVERLAP -> new Placement(1, 0, true);
                    case DISJOINT -> new Placement(len, 0, false);
                };
            }
            case REDUCE_SCATTER, REDUCE_SCATTER_V -> {
                // no in-place form: recv at this rank's block of send is an overlap too
                return switch (layout) {
                    case IN_PLACE -> new Placement(0, d[r], true);
                    case OVERLAP -> new Placement(0, total - 1, true);
                    case DISJOINT -> new Placement(0, total, false);
                };
            }
            case ALLGATHER, ALLGATHERV, GATHER, GATHERV -> {
                boolean rooted = c == Collective.GATHER || c == Collective.GATHERV;
                if (rooted && r != root) {
                    return new Placement(total, 0, false);
                }
                return switch (layout) {
                    case IN_PLACE -> new Placement(d[r], 0, false);
                    case OVERLAP -> new Placement(d[other], 0, true);   // another rank's block of recv
                    case DISJOINT -> new Placement(total, 0, false);
                };
            }
            case SCATTER, SCATTERV -> {
                if (r != root) {
                    return new Placement(k[r], 0, false);              // send is not looked at off the root
                }
                return switch (layout) {
                    case IN_PLACE -> new Placement(0, d[r], false);
                    case OVERLAP -> new Placement(0, d[other], true);  // recv is another rank's block of send
                    case DISJOINT -> new Placement(0, total, false);
                };
            }
            default -> throw new AssertionError(c);
        }
    }

    /** The read side of the call (send; recv is always a writable slice): the view kind under test. */
    static MemorySegment view(MemorySegment storage, View v, long at, long elems) {
        return switch (v) {
            case WRITABLE -> storage.asSlice(at * ES, elems * ES);
            case READ_ONLY -> storage.asReadOnly().asSlice(at * ES);               // longer than the call needs
            case READ_ONLY_SLICE -> storage.asSlice(at * ES, elems * ES).asReadOnly();
        };
    }

    /** One rank's storages, created in its own thread; shared arenas, so every rank may read them. */
    static final class Memory implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final MemorySegment mapped;
        long mappedUsed;
        final Path file;

        Memory(long mappedBytes) {
            try {
                file = Files.createTempFile("coll4j-alias", ".bin");
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, mappedBytes, arena);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        MemorySegment storage(Storage s, long elems) {
            long bytes = elems * ES;
            return switch (s) {
                case HEAP_DOUBLES -> MemorySegment.ofArray(new double[(int) elems]);
                case HEAP_BYTES -> MemorySegment.ofArray(new byte[(int) bytes]);
                case NATIVE -> arena.allocate(bytes, 64);
                case MAPPED -> {
                    MemorySegment m = mapped.asSlice(mappedUsed, bytes);    // fresh bytes per case: nothing reused
                    mappedUsed += (bytes + 63) & ~63L;
                    yield m;
                }
            };
        }

        @Override
        public void close() {
            arena.close();
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }

    record Case(Storage storage, View view, Layout layout, long n) {
        @Override
        public String toString() {
            return storage + "/" + view + "/" + layout + "/n=" + n;
        }
    }

    static List<Case> cases() {
        List<Case> all = new ArrayList<>();
        for (long n : COUNTS) {
            for (Storage s : Storage.values()) {
                for (View v : View.values()) {
                    for (Layout l : Layout.values()) {
                        all.add(new Case(s, v, l, n));
                    }
                }
            }
        }
        return all;
    }

    /** Calls collective c in form f; returns nothing, throws what the call throws. */
    static void call(Rank rank, Collective c, Form f, MemorySegment send, MemorySegment recv, int p, long n, int root) {
        long[] k = counts(c, p, n);
        long[] d = displs(k);
        int r = rank.id();
        Request req = switch (c) {
            case ALLREDUCE -> switch (f) {
                case BLOCKING -> { rank.allreduce(send, recv, n, T, Op.SUM); yield null; }
                case USER_OP -> { rank.allreduce(send, recv, n, PLUS); yield null; }
                case NONBLOCKING -> rank.iallreduce(send, recv, n, T, Op.SUM);
                case PERSISTENT -> rank.allreduceInit(send, recv, n, T, Op.SUM);
            };
            case REDUCE -> switch (f) {
                case BLOCKING -> { rank.reduce(send, recv, n, T, Op.SUM, root); yield null; }
                case USER_OP -> { rank.reduce(send, recv, n, PLUS, root); yield null; }
                case NONBLOCKING -> rank.ireduce(send, recv, n, T, Op.SUM, root);
                case PERSISTENT -> rank.reduceInit(send, recv, n, T, Op.SUM, root);
            };
            case SCAN -> switch (f) {
                case BLOCKING -> { rank.scan(send, recv, n, T, Op.SUM); yield null; }
                case USER_OP -> { rank.scan(send, recv, n, PLUS); yield null; }
                case NONBLOCKING -> rank.iscan(send, recv, n, T, Op.SUM);
                case PERSISTENT -> rank.scanInit(send, recv, n, T, Op.SUM);
            };
            case EXSCAN -> switch (f) {
                case BLOCKING -> { rank.exscan(send, recv, n, T, Op.SUM); yield null; }
                case USER_OP -> { rank.exscan(send, recv, n, PLUS); yield null; }
                case NONBLOCKING -> rank.iexscan(send, recv, n, T, Op.SUM);
                case PERSISTENT -> rank.exscanInit(send, recv, n, T, Op.SUM);
            };
            case REDUCE_SCATTER -> switch (f) {
                case BLOCKING -> { rank.reduceScatter(send, recv, n, T, Op.SUM); yield null; }
                case USER_OP -> { rank.reduceScatter(send, recv, n, PLUS); yield null; }
                case NONBLOCKING -> rank.ireduceScatter(send, recv, n, T, Op.SUM);
                case PERSISTENT -> rank.reduceScatterInit(send, recv, n, T, Op.SUM);
            };
            case REDUCE_SCATTER_V -> switch (f) {
                case BLOCKING -> { rank.reduceScatterV(send, recv, k, T, Op.SUM); yield null; }
                case USER_OP -> { rank.reduceScatterV(send, recv, k, PLUS); yield null; }
                case NONBLOCKING -> rank.ireduceScatterV(send, recv, k, T, Op.SUM);
                case PERSISTENT -> rank.reduceScatterVInit(send, recv, k, T, Op.SUM);
            };
            case ALLGATHER -> switch (f) {
                case BLOCKING -> { rank.allgather(send, recv, n, T); yield null; }
                case USER_OP -> throw new AssertionError(f);
                case NONBLOCKING -> rank.iallgather(send, recv, n, T);
                case PERSISTENT -> rank.allgatherInit(send, recv, n, T);
            };
            case ALLGATHERV -> switch (f) {
                case BLOCKING -> { rank.allgatherv(send, k[r], recv, k, d, T); yield null; }
                case USER_OP -> throw new AssertionError(f);
                case NONBLOCKING -> rank.iallgatherv(send, k[r], recv, k, d, T);
                case PERSISTENT -> rank.allgathervInit(send, k[r], recv, k, d, T);
            };
            case GATHER -> switch (f) {
                case BLOCKING -> { rank.gather(send, recv, n, T, root); yield null; }
                case USER_OP -> throw new AssertionError(f);
                case NONBLOCKING -> rank.igather(send, recv, n, T, root);
                case PERSISTENT -> rank.gatherInit(send, recv, n, T, root);
            };
            case GATHERV -> switch (f) {
                case BLOCKING -> { rank.gatherv(send, k[r], recv, k, d, T, root); yield null; }
                case USER_OP -> throw new AssertionError(f);
                case NONBLOCKING -> rank.igatherv(send, k[r], recv, k, d, T, root);
                case PERSISTENT -> rank.gathervInit(send, k[r], recv, k, d, T, root);
            };
            case SCATTER -> switch (f) {
                case BLOCKING -> { rank.scatter(send, recv, n, T, root); yield null; }
                case USER_OP -> throw new AssertionError(f);
                case NONBLOCKING -> rank.iscatter(send, recv, n, T, root);
                case PERSISTENT -> rank.scatterInit(send, recv, n, T, root);
            };
            case SCATTERV -> switch (f) {
                case BLOCKING -> { rank.scatterv(send, k, d, recv, k[r], T, root); yield null; }
                case USER_OP -> throw new AssertionError(f);
                case NONBLOCKING -> rank.iscatterv(send, k, d, recv, k[r], T, root);
                case PERSISTENT -> rank.scattervInit(send, k, d, recv, k[r], T, root);
            };
            case ALLTOALL -> switch (f) {
                case BLOCKING -> { rank.alltoall(send, recv, n, T); yield null; }
                case USER_OP -> throw new AssertionError(f);
                case NONBLOCKING -> rank.ialltoall(send, recv, n, T);
                case PERSISTENT -> rank.alltoallInit(send, recv, n, T);
            };
            case ALLTOALLV -> {
                long[] kk = new long[p];
                long[] dd = new long[p];
                for (int j = 0; j < p; j++) {
                    kk[j] = n;
                    dd[j] = j * n;
                }
                yield switch (f) {
                    case BLOCKING -> { rank.alltoallv(send, kk, dd, recv, kk, dd, T); yield null; }
                    case USER_OP -> throw new AssertionError(f);
                    case NONBLOCKING -> rank.ialltoallv(send, kk, dd, recv, kk, dd, T);
                    case PERSISTENT -> rank.alltoallvInit(send, kk, dd, recv, kk, dd, T);
                };
            }
            default -> throw new AssertionError(c);
        };
        if (f == Form.PERSISTENT) {
            PersistentRequest pr = (PersistentRequest) req;
            pr.start();
            pr.await();
            pr.close();
        } else if (req != null) {
            req.await();
        }
    }

    static void fillSend(MemorySegment storage, long at, Collective c, int r, long elems) {
        for (long i = 0; i < elems; i++) {
            storage.set(ValueLayout.JAVA_DOUBLE_UNALIGNED, (at + i) * ES, sendValue(c, r, i));
        }
    }

    /** Runs every case of (c, form, algorithm, p) on one rank; failures named by case. */
    static void runCases(Rank rank, Collective c, Form form, String label, List<Case> cases, AtomicIntegerArray at,
                         int from, Queue<String> failures, Memory mem) {
        int p = rank.size();
        int r = rank.id();
        int root = Math.max(0, p - 1 - ROOT_OFFSET);
        for (int ci = from; ci < cases.size(); ci++) {
            at.set(r, ci);
            Case k = cases.get(ci);
            long n = k.n();
            Placement pl = place(c, k.layout(), p, n, r, root);
            long sendElems = sendElems(c, p, n, r, root);
            long recvElems = recvElems(c, p, n, r, root);
            long storageElems = Math.max(pl.sendAt() + sendElems, pl.recvAt() + recvElems) + 8;
            MemorySegment storage = mem.storage(k.storage(), storageElems);
            storage.fill((byte) 0xFF);                                   // NaN everywhere nothing was put
            fillSend(storage, pl.sendAt(), c, r, sendElems);
            MemorySegment send = view(storage, k.view(), pl.sendAt(), sendElems);
            MemorySegment recv = storage.asSlice(pl.recvAt() * ES, recvElems * ES);
            String where = c.cliName() + " " + label + (form == Form.USER_OP ? " (user op)" : "") + " p=" + p + " " + k + " rank " + r;
            boolean check = true;
            try {
                call(rank, c, form, send, recv, p, n, root);
                if (pl.refuse()) {
                    failures.add(where + ": accepted an overlap the API forbids");
                    check = false;                                       // no result is defined for it
                }
            } catch (IllegalArgumentException e) {
                if (!pl.refuse()) {
                    failures.add(where + ": refused (" + e.getMessage() + ")");
                }
                // take part with separate buffers, so the peers' collective completes: the refusal touched nothing
                MemorySegment cleanSend = MemorySegment.ofArray(new double[(int) sendElems]);
                fillSend(cleanSend, 0, c, r, sendElems);
                recv = MemorySegment.ofArray(new double[(int) recvElems]);
                recv.fill((byte) 0xFF);
                call(rank, c, form, cleanSend, recv, p, n, root);
            }
            if (check) {
                for (long i = 0; i < recvElems; i++) {
                    double want = expected(c, p, n, r, root, i);
                    double got = recv.get(ValueLayout.JAVA_DOUBLE_UNALIGNED, i * ES);
                    if (!Double.isNaN(want) && got != want) {
                        failures.add(where + ": recv[" + i + "] = " + got + ", the reference " + want);
                        break;
                    }
                }
            }
        }
    }

    /** The algorithms of c (with auto) for the blocking form; the engine for the others. */
    static List<String> labels(Collective c, Form f) {
        if (f == Form.USER_OP && !c.reduces()) {
            return List.of();
        }
        if (f == Form.NONBLOCKING || f == Form.PERSISTENT) {
            return List.of(f.name().toLowerCase());
        }
        List<String> names = new ArrayList<>();
        names.add("auto");
        for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
            if (f == Form.USER_OP && AlgorithmCatalog.isBaseline(a)) {
                continue;                    // the cyclicbarrier baselines refuse user ops by design
            }
            names.add(a.name());
        }
        return names;
    }

    @Test
    void everyOverlapRuleHoldsForEveryView() {
        List<Case> cases = cases();
        Queue<String> failures = new ConcurrentLinkedQueue<>();
        assertTimeoutPreemptively(Duration.ofMinutes(5), () -> {
            for (Collective c : COLLECTIVES) {
                for (Form f : Form.values()) {
                    for (String label : labels(c, f)) {
                        for (int p = 2; p <= 3; p++) {
                            runTeams(c, f, label, p, cases, failures);
                        }
                    }
                }
            }
        });
        if (!failures.isEmpty()) {
            Set<String> byCase = new TreeSet<>();
            for (String s : failures) {
                byCase.add(s.replaceFirst(" rank \\d+:.*", ""));
            }
            try {
                // the whole list, for reading a failing run (the message shows the first ones)
                Files.write(Path.of("target", "aliased-views-failures.txt"), failures.stream().sorted().toList());
            } catch (IOException ignored) {
                // the message still says what failed
            }
            fail(byCase.size() + " of the cases failed (" + failures.size() + " rank reports); first ones:\n"
                    + String.join("\n", failures.stream().sorted().limit(40).toList()));
        }
    }

    /** Runs every case on one team; a team that aborts fails the case it was in, and the rest go on on a new team. */
    static void runTeams(Collective c, Form f, String label, int p, List<Case> cases, Queue<String> failures) {
        // each rank's case: a rank off the root may be one case ahead when the root's call aborts the team
        AtomicIntegerArray at = new AtomicIntegerArray(p);
        int from = 0;
        while (from < cases.size()) {
            Team.Builder b = Team.builder().ranks(p).timeout(Duration.ofSeconds(5)).maxSliceBytes(128);
            if (!label.equals("auto") && (f == Form.BLOCKING || f == Form.USER_OP)) {
                b.algorithm(c, label);
            }
            int start = from;
            long mappedBytes = (long) cases.size() * 4 * 3 * (COUNTS[COUNTS.length - 1] + 3) * ES * 2 + 4096;
            try (Team team = b.build()) {
                team.run(rank -> {
                    try (Memory mem = new Memory(mappedBytes)) {
                        runCases(rank, c, f, label, cases, at, start, failures, mem);
                    }
                });
                return;
            } catch (RuntimeException e) {
                int failed = Integer.MAX_VALUE;
                for (int r = 0; r < p; r++) {
                    failed = Math.min(failed, Math.max(at.get(r), start));
                }
                failures.add(c.cliName() + " " + label + (f == Form.USER_OP ? " (user op)" : "") + " p=" + p + " "
                        + cases.get(failed) + " rank -1: team failed: " + e);
                from = failed + 1;
            }
        }
    }
}
