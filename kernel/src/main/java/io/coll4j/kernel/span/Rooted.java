package io.coll4j.kernel.span;

/**
 * Where a rooted collective's root sits in the process layout: global root = first({@code rootProcess}) +
 * {@code rootLocal}; {@code atRoot} when this process holds it.
 */
record Rooted(int rootProcess, int rootLocal, boolean atRoot) {

    static Rooted of(SpanGroup g, LocalOps local, int root) {
        int q = g.processOf(root);
        return new Rooted(q, root - g.first(q), g.process() == q);
    }

    /**
     * The counts of a local v-collective that moves {@code count} elements between local rank 0 and the root
     * only (every other count zero): how a whole buffer reaches the root, or leaves it, when it is not local rank 0.
     */
    long[] only(int localSize, long count) {
        long[] c = new long[localSize];
        c[rootLocal] = count;
        return c;
    }
}
