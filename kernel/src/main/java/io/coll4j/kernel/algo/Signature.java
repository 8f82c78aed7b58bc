package io.coll4j.kernel.algo;

import io.coll4j.Collective;
import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;

/**
 * What a rank called, in two forms.
 *
 * <p>The <b>descriptor</b> ({@link #descriptor}) is exact: collective, dtype, op and root packed into a
 * {@code long}, plus the count in a second {@code long}. A rank writes both into the inline payload of
 * its ANNOUNCE line when it enters a collective; they are read only to describe a mismatch.
 *
 * <p>The <b>check word</b> ({@link #check}) travels with every flag a rank publishes, in the same cache
 * line as the stamp, so a waiter compares it at no extra line transfer:
 * <pre>
 * bits 63..16  48-bit hash of (descriptor, count, algorithm, check word of the rank's previous call)
 * bits 15..0   low 16 bits of the collective's sequence number
 * </pre>
 * The algorithm is in the hash because ranks running different algorithms wait on lines the others
 * never write, or read buffers they never published. The previous check word chains every earlier call
 * into the hash: a mismatch in a collective whose ranks never compared words with each other (a bcast
 * whose root leaves without waiting, two roots) is still caught at the next collective in which they
 * do, at the latest the next one that synchronises all ranks.
 * The sequence bits matter because a peer that has already moved on to the next collective may have
 * rewritten the check word before its new stamp: a waiter only compares words whose sequence bits are
 * its own. Two different calls collide with probability 2^-48.
 */
public final class Signature {
    private Signature() {
    }

    /**
     * Set in the count word of {@code Rank.split}'s allgather of (color, key): a split's check word differs
     * from any allgather's, so a rank that splits while another calls allgather is a mismatch at once.
     */
    public static final long SPLIT = 1L << 62;

    /** Packs collective, dtype, op and root (null / negative: not applicable). */
    public static long descriptor(Collective collective, DType dtype, Op op, int root) {
        return ((long) (collective.ordinal() + 1) << 48)
                | ((long) (dtype == null ? 0 : dtype.ordinal() + 1) << 40)
                | ((long) (op == null ? 0 : op.ordinal() + 1) << 32)
                | (root < 0 ? 0L : (root + 1L) & 0xFFFF_FFFFL);
    }

    /** The check word of a call at sequence number {@code seq} with no algorithm or history (tests). */
    public static long check(long descriptor, long count, long seq) {
        return check(descriptor, count, 0, 0, seq);
    }

    /**
     * The check word of a call at sequence number {@code seq}, run with algorithm {@code algorithm}
     * ({@link AlgorithmCatalog#id}), after a call whose check word was {@code previous} (0 for the first).
     */
    public static long check(long descriptor, long count, int algorithm, long previous, long seq) {
        long h = mix(descriptor * 0x9E3779B97F4A7C15L ^ count);
        h = mix(h ^ (algorithm * 0xC2B2AE3D27D4EB4FL) ^ Long.rotateLeft(previous, 29));
        return (h & ~0xFFFFL) | (seq & 0xFFFFL);
    }

    /** True when check word {@code c} was written for the same sequence number as {@code mine}. */
    public static boolean sameSeq(long c, long mine) {
        return ((c ^ mine) & 0xFFFFL) == 0;
    }

    /**
     * The count word of a v-variant whose counts array must be the same on every rank (allgatherv's and
     * reduce-scatter-v's {@code recvCounts}): a 64-bit hash of the whole array, so ranks that pass
     * different arrays get different check words and a {@code CollectiveMismatchException}, exactly as
     * for differing counts. Never 0 (0 is the word of the v-variants whose counts differ per rank).
     */
    public static long countsWord(long[] counts) {
        long h = 0x6A09E667F3BCC909L ^ counts.length;
        for (long c : counts) {
            h = mix(h * 0x9E3779B97F4A7C15L ^ c);
        }
        return h == 0 ? 1 : h;
    }

    /** Murmur3's 64-bit finaliser: every input bit affects every output bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /** Human description, e.g. {@code allreduce(count=10, dtype=f64, op=sum)}. */
    public static String describe(long descriptor, long count) {
        int coll = (int) (descriptor >>> 48) - 1;
        int dt = (int) ((descriptor >>> 40) & 0xFF) - 1;
        int op = (int) ((descriptor >>> 32) & 0xFF) - 1;
        long root = (descriptor & 0xFFFF_FFFFL) - 1;
        if (coll < 0 || coll >= Collective.values().length) {
            return "(nothing)";
        }
        Collective c = Collective.values()[coll];
        if (c == Collective.BARRIER) {
            return "barrier()";
        }
        if (c == Collective.ALLGATHER && (count & SPLIT) != 0) {
            return "split(color, key)";
        }
        StringBuilder sb = new StringBuilder(c.cliName()).append('(');
        if (!c.vector()) {
            sb.append("count=").append(count);
        } else if (count != 0) {
            sb.append("recvCounts#").append(Long.toHexString(count).toUpperCase(java.util.Locale.ROOT));
        } else {
            sb.append("own counts");
        }
        if (dt >= 0 && dt < DType.values().length) {
            sb.append(", dtype=").append(DType.values()[dt].cliName());
        }
        if (op >= 0 && op < Op.values().length) {
            sb.append(", op=").append(Op.values()[op].cliName());
        }
        if (root >= 0) {
            sb.append(", root=").append(root);
        }
        return sb.append(')').toString();
    }
}
