package io.coll4j.jmh;

import io.coll4j.Collective;

/**
 * The v-variants' layouts of {@code collbench} (its {@code VectorLayouts}): N elements split unevenly, block j
 * holding {@code ⌊N(j+1)²/p²⌋ − ⌊Nj²/p²⌋}, packed in rank order; alltoallv rank r sends block (j + r) mod p
 * of that split to rank j.
 */
final class VectorShapes {
    private VectorShapes() {
    }

    static long[] split(long n, int p) {
        long[] c = new long[p];
        long p2 = (long) p * p;
        for (int j = 0; j < p; j++) {
            c[j] = n * (j + 1) * (j + 1) / p2 - n * j * j / p2;
        }
        return c;
    }

    static long[] packed(long[] counts) {
        long[] d = new long[counts.length];
        for (int j = 1; j < counts.length; j++) {
            d[j] = d[j - 1] + counts[j - 1];
        }
        return d;
    }

    /** {sendCounts, sendDispls, recvCounts, recvDispls} of rank r, as {@code CollectivePlan.execute} takes them; all null for uniform collectives. */
    static long[][] layout(Collective c, long total, int p, int r) {
        long[] split = split(total, p);
        long[] packed = packed(split);
        return switch (c) {
            case GATHERV, ALLGATHERV -> new long[][]{{split[r]}, null, split, packed};
            case SCATTERV -> new long[][]{split, packed, {split[r]}, null};
            case REDUCE_SCATTER_V -> new long[][]{null, null, split, packed};
            case ALLTOALLV -> {
                long[] sc = new long[p];
                long[] rc = new long[p];
                for (int j = 0; j < p; j++) {
                    sc[j] = split[(j + r) % p];
                    rc[j] = split[(r + j) % p];
                }
                yield new long[][]{sc, packed(sc), rc, packed(rc)};
            }
            default -> new long[][]{null, null, null, null};
        };
    }
}
