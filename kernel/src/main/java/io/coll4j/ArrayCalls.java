package io.coll4j;

import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * The array forms of {@link Rank}'s collectives behind {@link ArrayCollectives}' typed overloads: the arrays'
 * kind and dtype ({@link ArrayKind}), null and range checks naming the argument, the v-variants' {@code int[]}
 * counts widened to {@code long[]} per call, then the segment form. The typed overloads make both buffers of a
 * call one type at compile time; the checks here stay for what the compiler cannot see (null, ranges).
 */
final class ArrayCalls {
    private ArrayCalls() {
    }

    static void bcast(Rank r, Object buf, int root) {
        ArrayKind k = ArrayKind.of("buf", buf);
        r.bcast(k.segment("buf", buf), ArrayKind.length(buf), k.dtype(), root);
    }

    static void bcast(Rank r, Object buf, int offset, int count, int root) {
        ArrayKind k = ArrayKind.of("buf", buf);
        r.bcast(k.range("buf", buf, offset, count), count, k.dtype(), root);
    }

    static void reduce(Rank r, Object send, Object recv, Op op, int root) {
        ArrayKind k = ArrayKind.of("send", send);
        r.reduce(k.segment("send", send), k.optional("recv", recv), ArrayKind.length(send), k.dtype(), op, root);
    }

    static void reduce(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int count, Op op, int root) {
        ArrayKind k = ArrayKind.of("send", send);
        r.reduce(k.range("send", send, sendOffset, count), k.optionalRange("recv", recv, recvOffset, count), count,
                k.dtype(), op, root);
    }

    static void allreduce(Rank r, Object send, Object recv, Op op) {
        ArrayKind k = ArrayKind.of("send", send);
        r.allreduce(k.segment("send", send), k.segment("recv", recv), ArrayKind.length(send), k.dtype(), op);
    }

    static void allreduce(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int count, Op op) {
        ArrayKind k = ArrayKind.of("send", send);
        r.allreduce(k.range("send", send, sendOffset, count), k.range("recv", recv, recvOffset, count), count, k.dtype(), op);
    }

    static void reduceScatter(Rank r, Object send, Object recv, Op op) {
        ArrayKind k = ArrayKind.of("send", send);
        r.reduceScatter(k.segment("send", send), k.segment("recv", recv), ArrayKind.length(recv), k.dtype(), op);
    }

    static void reduceScatter(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int recvCount, Op op) {
        ArrayKind k = ArrayKind.of("send", send);
        r.reduceScatter(k.range("send", send, sendOffset, (long) recvCount * r.size()), k.range("recv", recv, recvOffset, recvCount),
                recvCount, k.dtype(), op);
    }

    static void allgather(Rank r, Object send, Object recv) {
        ArrayKind k = ArrayKind.of("send", send);
        r.allgather(k.segment("send", send), k.segment("recv", recv), ArrayKind.length(send), k.dtype());
    }

    static void allgather(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int sendCount) {
        ArrayKind k = ArrayKind.of("send", send);
        r.allgather(k.range("send", send, sendOffset, sendCount), k.range("recv", recv, recvOffset, (long) sendCount * r.size()),
                sendCount, k.dtype());
    }

    static void gather(Rank r, Object send, Object recv, int root) {
        ArrayKind k = ArrayKind.of("send", send);
        r.gather(k.segment("send", send), k.optional("recv", recv), ArrayKind.length(send), k.dtype(), root);
    }

    static void gather(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int count, int root) {
        ArrayKind k = ArrayKind.of("send", send);
        r.gather(k.range("send", send, sendOffset, count), k.optionalRange("recv", recv, recvOffset, (long) count * r.size()),
                count, k.dtype(), root);
    }

    static void scatter(Rank r, Object send, Object recv, int root) {
        ArrayKind k = ArrayKind.of("recv", recv);
        r.scatter(k.optional("send", send), k.segment("recv", recv), ArrayKind.length(recv), k.dtype(), root);
    }

    static void scatter(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int count, int root) {
        ArrayKind k = ArrayKind.of("recv", recv);
        r.scatter(k.optionalRange("send", send, sendOffset, (long) count * r.size()), k.range("recv", recv, recvOffset, count),
                count, k.dtype(), root);
    }

    static void gatherv(Rank r, Object send, Object recv, int[] recvCounts, int[] displs, int root) {
        ArrayKind k = ArrayKind.of("send", send);
        r.gatherv(k.segment("send", send), ArrayKind.length(send), k.optional("recv", recv), Arguments.widen(recvCounts),
                Arguments.widen(displs), k.dtype(), root);
    }

    static void scatterv(Rank r, Object send, int[] sendCounts, int[] displs, Object recv, int root) {
        ArrayKind k = ArrayKind.of("recv", recv);
        r.scatterv(k.optional("send", send), Arguments.widen(sendCounts), Arguments.widen(displs), k.segment("recv", recv),
                ArrayKind.length(recv), k.dtype(), root);
    }

    static void allgatherv(Rank r, Object send, Object recv, int[] recvCounts, int[] displs) {
        ArrayKind k = ArrayKind.of("send", send);
        r.allgatherv(k.segment("send", send), ArrayKind.length(send), k.segment("recv", recv), Arguments.widen(recvCounts),
                Arguments.widen(displs), k.dtype());
    }

    static void reduceScatterV(Rank r, Object send, Object recv, int[] recvCounts, Op op) {
        ArrayKind k = ArrayKind.of("send", send);
        r.reduceScatterV(k.segment("send", send), k.segment("recv", recv), Arguments.widen(recvCounts), k.dtype(), op);
    }

    static void alltoall(Rank r, Object send, Object recv) {
        ArrayKind k = ArrayKind.of("send", send);
        r.alltoall(k.segment("send", send), k.segment("recv", recv), alltoallCount(r, send), k.dtype());
    }

    static void alltoall(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int count) {
        ArrayKind k = ArrayKind.of("send", send);
        long total = (long) count * r.size();
        r.alltoall(k.range("send", send, sendOffset, total), k.range("recv", recv, recvOffset, total), count, k.dtype());
    }

    static void alltoallv(Rank r, Object send, int[] sendCounts, int[] sendDispls, Object recv, int[] recvCounts, int[] recvDispls) {
        ArrayKind k = ArrayKind.of("send", send);
        r.alltoallv(k.segment("send", send), Arguments.widen(sendCounts), Arguments.widen(sendDispls), k.segment("recv", recv),
                Arguments.widen(recvCounts), Arguments.widen(recvDispls), k.dtype());
    }

    static void scan(Rank r, Object send, Object recv, Op op) {
        scanArrays(r, Collective.SCAN, send, 0, recv, 0, ArrayKind.length(send), op);
    }

    static void scan(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int count, Op op) {
        scanArrays(r, Collective.SCAN, send, sendOffset, recv, recvOffset, count, op);
    }

    static void exscan(Rank r, Object send, Object recv, Op op) {
        scanArrays(r, Collective.EXSCAN, send, 0, recv, 0, ArrayKind.length(send), op);
    }

    static void exscan(Rank r, Object send, int sendOffset, Object recv, int recvOffset, int count, Op op) {
        scanArrays(r, Collective.EXSCAN, send, sendOffset, recv, recvOffset, count, op);
    }

    private static void scanArrays(Rank r, Collective c, Object send, int sendOffset, Object recv, int recvOffset, int count, Op op) {
        ArrayKind k = ArrayKind.of("send", send);
        MemorySegment s = k.range("send", send, sendOffset, count);
        MemorySegment d = k.range("recv", recv, recvOffset, count);
        if (c == Collective.SCAN) {
            r.scan(s, d, count, k.dtype(), op);
        } else {
            r.exscan(s, d, count, k.dtype(), op);
        }
    }

    private static long alltoallCount(Rank r, Object send) {
        long n = ArrayKind.length(send);
        if (n % r.size() != 0) {
            throw new IllegalArgumentException("send has " + n + " elements, not a multiple of the team size " + r.size());
        }
        return n / r.size();
    }
}
