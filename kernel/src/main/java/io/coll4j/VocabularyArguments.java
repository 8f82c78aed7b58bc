package io.coll4j;

import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

import java.lang.foreign.MemorySegment;

/**
 * The argument checks of the collectives beyond the first six ({@link Arguments#collective} checks those): gather,
 * scatter, the v-variants, alltoall(v), scan and exscan. Each takes the rank number and team size the caller's
 * arguments name — global ids on a team spanning processes ({@link HierarchicalCollectives}), local ones on a
 * process's own ranks ({@link LocalCollectives}) — so an error names the ranks and roots the caller passed.
 */
final class VocabularyArguments {
    private VocabularyArguments() {
    }

    /** The argument checks of {@code gather}; returns the root's receive bytes. */
    static long gather(MemorySegment send, MemorySegment recv, long count, DType dtype, int root, int me, int n) {
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(count, dtype, 1);
        long total = Arguments.bytes(count, dtype, n);
        Arguments.readable("send", send, block, me);
        if (me == root) {
            Arguments.writable("recv", recv, total, me);
            blockOrDisjoint("send", send, block, "recv", recv, total, root * block);
        }
        return total;
    }

    /** The argument checks of {@code scatter}; returns the root's send bytes. */
    static long scatter(MemorySegment send, MemorySegment recv, long count, DType dtype, int root, int me, int n) {
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(count, dtype, 1);
        long total = Arguments.bytes(count, dtype, n);
        Arguments.writable("recv", recv, block, me);
        if (me == root) {
            Arguments.readable("send", send, total, me);
            blockOrDisjoint("recv", recv, block, "send", send, total, root * block);
        }
        return total;
    }

    /** The argument checks of {@code gatherv}. */
    static void gatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
            DType dtype, int root, int me, int n) {
        Arguments.count("sendCount", sendCount);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(sendCount, dtype, 1);
        Arguments.readable("send", send, block, me);
        if (me == root) {
            Arguments.perRank("recvCounts", recvCounts, n);
            Arguments.perRank("displs", displs, n);
            if (recvCounts[root] != sendCount) {
                throw new IllegalArgumentException("sendCount " + sendCount + " differs from recvCounts[" + root + "] = "
                        + recvCounts[root] + " at the root");
            }
            long extent = Arguments.extentBytes("recvCounts", recvCounts, "displs", displs, dtype);
            Arguments.writable("recv", recv, extent, me);
            Arguments.disjointBlocks("recvCounts", recvCounts, "displs", displs);
            blockOrDisjoint("send", send, block, "recv", recv, extent, displs[root] * dtype.size());
        }
    }

    /** The argument checks of {@code scatterv}. */
    static void scatterv(MemorySegment send, long[] sendCounts, long[] displs, MemorySegment recv, long recvCount,
            DType dtype, int root, int me, int n) {
        Arguments.count("recvCount", recvCount);
        Arguments.dtype(dtype);
        Arguments.root(root, n);
        long block = Arguments.bytes(recvCount, dtype, 1);
        Arguments.writable("recv", recv, block, me);
        if (me == root) {
            Arguments.perRank("sendCounts", sendCounts, n);
            Arguments.perRank("displs", displs, n);
            if (sendCounts[root] != recvCount) {
                throw new IllegalArgumentException("recvCount " + recvCount + " differs from sendCounts[" + root + "] = "
                        + sendCounts[root] + " at the root");
            }
            long extent = Arguments.extentBytes("sendCounts", sendCounts, "displs", displs, dtype);
            Arguments.readable("send", send, extent, me);
            blockOrDisjoint("recv", recv, block, "send", send, extent, displs[root] * dtype.size());
        }
    }

    /** The argument checks of {@code allgatherv}; returns the bytes of all blocks. */
    static long allgatherv(MemorySegment send, long sendCount, MemorySegment recv, long[] recvCounts, long[] displs,
            DType dtype, int me, int n) {
        Arguments.count("sendCount", sendCount);
        Arguments.dtype(dtype);
        Arguments.perRank("recvCounts", recvCounts, n);
        Arguments.perRank("displs", displs, n);
        if (recvCounts[me] != sendCount) {
            throw new IllegalArgumentException("sendCount " + sendCount + " differs from recvCounts[" + me + "] = "
                    + recvCounts[me]);
        }
        long block = Arguments.bytes(sendCount, dtype, 1);
        Arguments.readable("send", send, block, me);
        long extent = Arguments.extentBytes("recvCounts", recvCounts, "displs", displs, dtype);
        Arguments.writable("recv", recv, extent, me);
        Arguments.disjointBlocks("recvCounts", recvCounts, "displs", displs);
        blockOrDisjoint("send", send, block, "recv", recv, extent, displs[me] * dtype.size());
        return Arguments.totalBytes("recvCounts", recvCounts, dtype);
    }

    /** The argument checks of {@code reduceScatterV}; returns the send bytes. */
    static long reduceScatterV(MemorySegment send, MemorySegment recv, long[] recvCounts, DType dtype, Op op, int me,
            int n) {
        Arguments.dtype(dtype);
        Arguments.op(op, dtype);
        Arguments.perRank("recvCounts", recvCounts, n);
        long total = Arguments.totalBytes("recvCounts", recvCounts, dtype);
        long block = Arguments.bytes(recvCounts[me], dtype, 1);
        Arguments.readable("send", send, total, me);
        Arguments.writable("recv", recv, block, me);
        if (Aliasing.overlap(send, total, recv, block)) {
            throw new IllegalArgumentException("send and recv overlap: reduceScatterV needs separate buffers");
        }
        return total;
    }

    /** The argument checks of {@code alltoall}; returns the bytes per buffer. */
    static long alltoall(MemorySegment send, MemorySegment recv, long count, DType dtype, int me, int n) {
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        long total = Arguments.bytes(count, dtype, n);
        Arguments.readable("send", send, total, me);
        Arguments.writable("recv", recv, total, me);
        Arguments.inPlaceOrDisjoint("send", send, "recv", recv, total);
        return total;
    }

    /** The argument checks of {@code alltoallv}. */
    static void alltoallv(MemorySegment send, long[] sendCounts, long[] sendDispls, MemorySegment recv,
            long[] recvCounts, long[] recvDispls, DType dtype, int me, int n) {
        Arguments.dtype(dtype);
        Arguments.perRank("sendCounts", sendCounts, n);
        Arguments.perRank("sendDispls", sendDispls, n);
        Arguments.perRank("recvCounts", recvCounts, n);
        Arguments.perRank("recvDispls", recvDispls, n);
        long sendExtent = Arguments.extentBytes("sendCounts", sendCounts, "sendDispls", sendDispls, dtype);
        long recvExtent = Arguments.extentBytes("recvCounts", recvCounts, "recvDispls", recvDispls, dtype);
        Arguments.readable("send", send, sendExtent, me);
        Arguments.writable("recv", recv, recvExtent, me);
        Arguments.disjointBlocks("recvCounts", recvCounts, "recvDispls", recvDispls);
        if (sendCounts[me] != recvCounts[me]) {
            throw new IllegalArgumentException("sendCounts[" + me + "] = " + sendCounts[me] + " differs from recvCounts["
                    + me + "] = " + recvCounts[me] + " (this rank's block to itself)");
        }
        if (Aliasing.sameStart(send, recv)) {
            if (!java.util.Arrays.equals(sendCounts, recvCounts) || !java.util.Arrays.equals(sendDispls, recvDispls)) {
                throw new IllegalArgumentException("in place (send and recv are the same segment): sendCounts/sendDispls"
                        + " must equal recvCounts/recvDispls");
            }
        } else if (Aliasing.overlap(send, sendExtent, recv, recvExtent)) {
            throw new IllegalArgumentException("send and recv overlap without being the same buffer (pass the same segment for in place)");
        }
    }

    /** The argument checks of {@code scan} and {@code exscan}; returns the bytes per buffer. */
    static long scan(MemorySegment send, MemorySegment recv, long count, DType dtype, Op op, int me) {
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.op(op, dtype);
        long bytes = Arguments.bytes(count, dtype, 1);
        Arguments.readable("send", send, bytes, me);
        Arguments.writable("recv", recv, bytes, me);
        Arguments.inPlaceOrDisjoint("send", send, "recv", recv, bytes);
        return bytes;
    }

    /** The argument checks of {@code allgatherShared}; returns the bytes of the shared result. */
    static long allgatherShared(MemorySegment send, long sendCount, DType dtype, int me, int n) {
        Arguments.count("sendCount", sendCount);
        Arguments.dtype(dtype);
        long block = Arguments.bytes(sendCount, dtype, 1);
        long total = Arguments.bytes(sendCount, dtype, n);
        Arguments.readable("send", send, block, me);
        return total;
    }

    /** The argument checks of {@code allreduceShared}; returns the bytes per buffer. */
    static long allreduceShared(MemorySegment send, long count, DType dtype, Op op, int me) {
        Arguments.count("count", count);
        Arguments.dtype(dtype);
        Arguments.op(op, dtype);
        if (op == Op.AVG) {
            // the one shared result is read by every rank once the call returns: no rank may divide it then
            throw new IllegalArgumentException("op avg is not available on allreduceShared (sum, then divide a copy)");
        }
        long bytes = Arguments.bytes(count, dtype, 1);
        Arguments.readable("send", send, bytes, me);
        return bytes;
    }

    /** {@code inner} is exactly block {@code at} of {@code outer} (in place), or shares no byte with it. */
    static void blockOrDisjoint(String innerName, MemorySegment inner, long innerBytes, String outerName,
                                MemorySegment outer, long outerBytes, long at) {
        if (!Aliasing.overlap(inner, innerBytes, outer, outerBytes)) {
            return;
        }
        if (Aliasing.sameStart(inner, 0, outer, at)) {
            return;
        }
        throw new IllegalArgumentException(innerName + " overlaps " + outerName + " without being this rank's block of it");
    }

    /** This rank's own count from a plan's array: its only entry, or entry {@code me} of a per-rank array. */
    static long mine(String name, long[] a, int me, int n) {
        if (a == null || (a.length != 1 && a.length != n)) {
            throw new IllegalArgumentException(name + " must hold this rank's count (one entry, or one per rank)");
        }
        return a.length == 1 ? a[0] : a[me];
    }
}
