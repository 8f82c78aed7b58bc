package io.coll4j.kernel.nb;

/**
 * One rank's counts and displacements (in elements) of a non-blocking or persistent v-collective, as its
 * {@code io.coll4j.Rank} method received them, already validated there. Unused arrays are null:
 * <pre>
 * gatherv            own = sendCount;  root: recvCounts, recvDispls
 * scatterv           own = recvCount;  root: sendCounts, sendDispls
 * allgatherv         own = sendCount;  recvCounts (the same on every rank), recvDispls (this rank's layout)
 * reduce-scatter-v   recvCounts (the same on every rank)
 * alltoallv          sendCounts, sendDispls, recvCounts, recvDispls
 * </pre>
 * The arrays are the caller's copies: a request must not see later changes to the user's arrays (a
 * persistent request keeps them for every round).
 */
public record VectorCall(long own, long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {

    /** A call whose arrays are private copies of the given ones (null stays null). */
    public static VectorCall copyOf(long own, long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls) {
        return new VectorCall(own, clone(sendCounts), clone(sendDispls), clone(recvCounts), clone(recvDispls));
    }

    private static long[] clone(long[] a) {
        return a == null ? null : a.clone();
    }

    /** The largest block this rank knows of (elements): the hint a creator sizes the exchange's items by. */
    long largestBlock() {
        long m = own;
        for (long[] a : new long[][]{sendCounts, recvCounts}) {
            if (a != null) {
                for (long c : a) {
                    m = Math.max(m, c);
                }
            }
        }
        return m;
    }
}
