package io.coll4j.mpi;

import io.coll4j.Collective;
import io.coll4j.Rank;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import java.util.stream.IntStream;

/**
 * One rank's side of the cross-process suite for {@link Rank#split} on a team that spans processes: colors that
 * give sub-teams across processes (global id mod 2; local id, one rank per process; the whole team, reversed)
 * and inside one (process index), processes holding different numbers of members (the last rank undefined; the
 * t + 1 lowest ranks, in both orders; id mod 2 with an odd t), a rank passing {@link Team#UNDEFINED}, keys
 * reversing the order, and the splits that must be refused (interleaved process blocks; two spanning sub-teams in
 * one process below THREAD_MULTIPLE), on one-package machines splitLeaders (local rank 0 of each process) and splitByPackage
 * (each process's ranks), and a split of a sub-team across processes (closed with it). On each sub-team: its size,
 * every member's id (the (key, parent id) order), then allreduce (f64 sum, i64 max), bcast, allgather, reduce-scatter, barrier and an allreduce plan at counts 0, 1
 * and odd, heap and native, in place and not, against a scalar reference over the members' parent ids (so a
 * contribution from a non-member shows); on sub-teams whose processes hold different numbers of members also the
 * rest of the vocabulary ({@link SubTeamVocabulary}). Sub-teams are closed by their members, except the last split's, which
 * the parent's close must close before MPI is finalised; the parent's allreduce is checked after them.
 */
final class SplitChecker {
    private static final ValueLayout.OfDouble F = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    private final Rank parent;
    private final int g;
    private final int p;
    private final int t;
    private final boolean multiple;
    private int checks;

    SplitChecker(Rank parent) {
        this.parent = parent;
        this.g = parent.id();
        this.p = parent.size();
        this.t = parent.localSize();
        // the shared mapping (no MPI) lets every thread call at once, as MPI_THREAD_MULTIPLE
        this.multiple = parent.team().transport().contains("MPI_THREAD_MULTIPLE") || parent.team().transport().contains("shared mapping");
    }

    int all() {
        int last = p - 1;
        // with T > 1 every process holds both colors, each spanning: two spanning sub-teams in one process
        check("id mod 2", q -> q % 2, q -> q, !multiple && t > 1, true);
        check("process index, keys reversed", q -> q / t, q -> -q, false, true);
        check("local id, keys reversed, last rank undefined", q -> q == last ? Team.UNDEFINED : q % t, q -> -q,
                !multiple && t > 1 && p / t > 2, true);
        if (t > 1) {
            // processes holding different numbers of members: the last one a rank fewer; the first process's ranks and
            // one of the second's (t and 1), and reversed (1 and t) — every collective of the vocabulary on these
            check("uneven blocks", q -> q == last ? Team.UNDEFINED : 0, q -> q, false, true);
            check("t + 1 lowest ranks", q -> q <= t ? 0 : Team.UNDEFINED, q -> q, false, true);
            check("t + 1 lowest ranks, keys reversed", q -> q <= t ? 0 : Team.UNDEFINED, q -> -q, false, true);
            // one process's members between another's in (key, rank) order: refused on every rank
            check("interleaved blocks", q -> 0, q -> (q % t) * p + q / t, true, true);
        }
        if (parent.team().topology().packages().size() == 1) {
            // one package per process: the leaders are local rank 0 of each process (the bridge communicator),
            // the package sub-teams each process's ranks
            check("splitLeaders", q -> q % t == 0 ? 0 : Team.UNDEFINED, q -> q, false, true, parent::splitLeaders);
            check("splitByPackage", q -> q / t, q -> q, false, true, parent::splitByPackage);
        }
        Rank whole = check("the whole team reversed, left to the parent's close", q -> 0, q -> -q, false, false);
        // a split of a sub-team across processes (its communicator split again), reversed back: closed with it
        Rank nested = whole.split(0, -whole.id());
        if (nested.id() != g || nested.team().parent() != whole.team() || nested.team().processes() != p / t) {
            throw new AssertionError("nested split on global rank " + g + ": rank " + nested.id() + " over "
                    + nested.team().processes() + " processes");
        }
        new OnSubTeam(nested, IntStream.range(0, p).toArray(), "nested split on global rank " + g).run();
        double[] x = {g + 1};
        parent.allreduce(x, x, Op.SUM);
        if (x[0] != p * (p + 1) / 2.0) {
            throw new AssertionError("parent allreduce after the splits on global rank " + g + ": " + x[0]);
        }
        return checks + 1;
    }

    /**
     * Splits by {@code color}/{@code key} of every parent rank; expects an UnsupportedOperationException on every
     * rank when {@code refused}, else checks the sub-team and, when {@code close}, closes it; returns the sub-team
     * rank (null when refused or UNDEFINED).
     */
    private Rank check(String what, IntUnaryOperator color, IntUnaryOperator key, boolean refused, boolean close) {
        return check(what, color, key, refused, close, () -> parent.split(color.applyAsInt(g), key.applyAsInt(g)));
    }

    /** As above, with {@code split} making the split that {@code color}/{@code key} describe (a topology split). */
    private Rank check(String what, IntUnaryOperator color, IntUnaryOperator key, boolean refused, boolean close,
                       java.util.function.Supplier<Rank> split) {
        Rank sub;
        try {
            sub = split.get();
        } catch (UnsupportedOperationException e) {
            if (!refused) {
                throw new AssertionError(what + ": refused on global rank " + g + ": " + e.getMessage(), e);
            }
            checks++;
            return null;
        }
        if (refused) {
            throw new AssertionError(what + ": global rank " + g + " expected the split to be refused");
        }
        int c = color.applyAsInt(g);
        if (c == Team.UNDEFINED) {
            if (sub != null) {
                throw new AssertionError(what + ": global rank " + g + " passed UNDEFINED and got a sub-team");
            }
            if (close) {
                parent.barrier();   // the members' barrier below
            }
            return null;
        }
        int[] members = IntStream.range(0, p).filter(q -> color.applyAsInt(q) == c).boxed()
                .sorted((a, b) -> key.applyAsInt(a) != key.applyAsInt(b) ? Integer.compare(key.applyAsInt(a), key.applyAsInt(b))
                        : Integer.compare(a, b)).mapToInt(Integer::intValue).toArray();
        String at = what + " (color " + c + ", members " + Arrays.toString(members) + ") on global rank " + g;
        if (sub.size() != members.length || members[sub.id()] != g) {
            throw new AssertionError(at + ": sub-team rank " + sub.id() + " of " + sub.size());
        }
        // members in one process: an ordinary sub-team (no MPI); in several: one across exactly those processes, its
        // processes in the order of their members' blocks, each holding as many ranks as its block
        int processes = (int) Arrays.stream(members).map(q -> q / t).distinct().count();
        int block = 0;
        int[] lengths = new int[processes];
        for (int i = 0; i < members.length; i++) {
            block += i > 0 && members[i] / t != members[i - 1] / t ? 1 : 0;
            lengths[block]++;
        }
        int mine = 0;
        for (int i = 1; i <= sub.id(); i++) {
            mine += members[i] / t != members[i - 1] / t ? 1 : 0;
        }
        if (sub.team().processes() != processes || sub.processIndex() != mine || sub.localSize() != lengths[mine]
                || sub.team().globalSize() != members.length) {
            throw new AssertionError(at + ": sub-team over " + sub.team().processes() + " processes, this one "
                    + sub.processIndex() + " with " + sub.localSize() + " ranks; want block " + mine + " of "
                    + Arrays.toString(lengths));
        }
        new OnSubTeam(sub, members, at).run();
        if (Arrays.stream(lengths).distinct().count() > 1) {
            new SubTeamVocabulary(sub, members, at).run();
            if (multiple) {
                // below MULTIPLE the left-out rank's next collective on the parent could hold the process's one MPI
                // thread while its peers wait for the nested sub-team (design.md, sub-teams across processes)
                nestedOfUneven(sub, members, at);
            }
        }
        if (close) {
            sub.close();
            parent.barrier();   // every member has detached: local rank 0 of each process frees its copy
            if (sub.localId() == 0) {
                sub.team().close();
            }
        }
        checks++;
        return sub;
    }

    /**
     * A split of an uneven sub-team, which numbers its parent's ranks by that parent's own layout: its rank 0 left out,
     * the rest in reverse order; the nested sub-team is closed with its parent.
     */
    private void nestedOfUneven(Rank sub, int[] members, String at) {
        Rank nested = sub.split(sub.id() == 0 ? Team.UNDEFINED : 0, -sub.id());
        if (sub.id() == 0) {
            return;
        }
        int[] rest = new int[members.length - 1];
        for (int i = 0; i < rest.length; i++) {
            rest[i] = members[members.length - 1 - i];
        }
        String where = at + ", nested split without its rank 0, reversed (members " + Arrays.toString(rest) + ")";
        if (nested.size() != rest.length || rest[nested.id()] != g) {
            throw new AssertionError(where + ": rank " + nested.id() + " of " + nested.size());
        }
        new OnSubTeam(nested, rest, where).run();
        nested.close();
    }

    /** The collectives on one sub-team, checked against its members' parent ids. */
    private static final class OnSubTeam {
        private final Rank sub;
        private final int[] members;
        private final String at;
        private final int s;
        private final int me;
        private final Buffers buffers;

        OnSubTeam(Rank sub, int[] members, String at) {
            this.sub = sub;
            this.members = members;
            this.at = at;
            this.s = members.length;
            this.me = sub.id();
            this.buffers = new Buffers(sub);
        }

        /** Element i of parent rank q: small integers, exact in every order. */
        private static double value(int q, long i) {
            return (q * 31L + i * 7) % 13 - 6;
        }

        void run() {
            sub.barrier();
            for (long n : new long[]{0, 1, 7, 2L * s + 1}) {
                allreduce(n, false);
                allreduce(n, true);
                maxI64(n);
                bcast(n, (int) (n % s));
                allgather(n, n % 2 == 1);
                reduceScatter(n);
            }
            allreduce(64 << 10, false);   // 512 KiB: the multi-leader allreduce where the selector picks it
            MemorySegment b = buffers.of(DType.F64, 3);
            fill(b, 0, 3, i -> value(members[me], i));
            sub.plan(Collective.ALLREDUCE, 3, DType.F64, Op.SUM).execute(b, b);
            expect("allreduce plan", b, 0, 3, i -> sum(i));
            sub.barrier();
        }

        private double sum(long i) {
            double v = 0;
            for (int q : members) {
                v += value(q, i);
            }
            return v;
        }

        private void allreduce(long n, boolean inPlace) {
            MemorySegment send = buffers.of(DType.F64, n);
            fill(send, 0, n, i -> value(members[me], i));
            MemorySegment recv = inPlace ? send : buffers.of(DType.F64, n);
            sub.allreduce(send, recv, n, DType.F64, Op.SUM);
            expect("allreduce f64 sum" + (inPlace ? " in place" : ""), recv, 0, n, this::sum);
        }

        private void maxI64(long n) {
            MemorySegment x = buffers.of(DType.I64, n);
            for (long i = 0; i < n; i++) {
                x.setAtIndex(L, i, (long) value(members[me], i));
            }
            sub.allreduce(x, x, n, DType.I64, Op.MAX);
            for (long i = 0; i < n; i++) {
                long want = Long.MIN_VALUE;
                for (int q : members) {
                    want = Math.max(want, (long) value(q, i));
                }
                if (x.getAtIndex(L, i) != want) {
                    throw new AssertionError(at + ": allreduce i64 max element " + i + " = " + x.getAtIndex(L, i) + ", want " + want);
                }
            }
        }

        private void bcast(long n, int root) {
            MemorySegment b = buffers.of(DType.F64, n);
            fill(b, 0, n, i -> me == root ? value(members[root], i) : -99);
            sub.bcast(b, n, DType.F64, root);
            expect("bcast root " + root, b, 0, n, i -> value(members[root], i));
        }

        private void allgather(long n, boolean inPlace) {
            MemorySegment recv = buffers.of(DType.F64, n * s);
            MemorySegment send = inPlace ? recv.asSlice(me * n * 8, n * 8) : buffers.of(DType.F64, n);
            fill(send, 0, n, i -> value(members[me], i));
            sub.allgather(send, recv, n, DType.F64);
            expect("allgather" + (inPlace ? " in place" : ""), recv, 0, n * s, i -> value(members[(int) (i / n)], i % n));
        }

        private void reduceScatter(long n) {
            MemorySegment send = buffers.of(DType.F64, n * s);
            fill(send, 0, n * s, i -> value(members[me], i));
            MemorySegment recv = buffers.of(DType.F64, n);
            sub.reduceScatter(send, recv, n, DType.F64, Op.SUM);
            expect("reduce-scatter", recv, 0, n, i -> sum(me * n + i));
        }

        private static void fill(MemorySegment m, long from, long n, java.util.function.LongToDoubleFunction v) {
            for (long i = 0; i < n; i++) {
                m.setAtIndex(F, from + i, v.applyAsDouble(i));
            }
        }

        private void expect(String what, MemorySegment m, long from, long n, java.util.function.LongToDoubleFunction want) {
            for (long i = 0; i < n; i++) {
                double got = m.getAtIndex(F, from + i);
                if (got != want.applyAsDouble(i)) {
                    throw new AssertionError(at + ": " + what + " element " + i + " = " + got + ", want " + want.applyAsDouble(i));
                }
            }
        }
    }
}
