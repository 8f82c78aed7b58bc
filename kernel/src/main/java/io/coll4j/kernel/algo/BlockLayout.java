package io.coll4j.kernel.algo;

/**
 * Where the blocks of a rooted, v- or all-to-all collective lie in one rank's buffers, in elements: the
 * count and displacement of the block this rank sends to (or receives from) each rank. Uniform
 * collectives (gather, scatter, alltoall) have no arrays: block j is {@code count} elements at
 * {@code j × count}. The v-variants hold the caller's arrays (not copies: the runtime allocates nothing
 * per call; the caller must not change them during the call).
 *
 * <p>Two instances per rank (one per sequence-number parity) live in the {@link TeamContext}; a rank
 * fills its own before it publishes its ANNOUNCE (release), and a peer reads them only after acquiring
 * a stamp of that collective from it — the same rule as the published buffer references. The parity
 * instance is rewritten two collectives later, after the runtime's lag check.
 *
 * <p>Meaning of {@link #count()} per collective: gather, scatter, alltoall: the uniform block; gatherv,
 * allgatherv: the rank's send count; scatterv, reduce-scatter-v: its receive count; scan, exscan: the
 * vector length.
 */
public final class BlockLayout {
    long count;
    long[] sendCounts;
    long[] sendDispls;
    long[] recvCounts;
    long[] recvDispls;
    boolean inPlace;

    void set(long count, long[] sendCounts, long[] sendDispls, long[] recvCounts, long[] recvDispls, boolean inPlace) {
        // a loop of one call writes the same values every time: skip the stores (as TeamContext.setSlot does).
        // The four instances are small and allocated together, so ranks' instances share cache lines; a store
        // would take the line from a peer's core on every call, where loads that find it unchanged leave it
        // shared by both (the 8-byte bcast at p = 2, docs/measurements.md, "The bcast lean")
        if (this.count == count && this.sendCounts == sendCounts && this.sendDispls == sendDispls
                && this.recvCounts == recvCounts && this.recvDispls == recvDispls && this.inPlace == inPlace) {
            return;
        }
        this.count = count;
        this.sendCounts = sendCounts;
        this.sendDispls = sendDispls;
        this.recvCounts = recvCounts;
        this.recvDispls = recvDispls;
        this.inPlace = inPlace;
    }

    /** This rank's own count (see the class comment). */
    public long count() {
        return count;
    }

    /** Elements this rank sends to rank j (root of scatter(v), alltoall(v)). */
    public long sendCount(int j) {
        return sendCounts == null ? count : sendCounts[j];
    }

    /** Element offset in this rank's send buffer of the block for rank j. */
    public long sendDispl(int j) {
        return sendDispls == null ? j * count : sendDispls[j];
    }

    /** Elements this rank receives from rank j (root of gather(v), allgather(v), alltoall(v), reduce-scatter-v). */
    public long recvCount(int j) {
        return recvCounts == null ? count : recvCounts[j];
    }

    /** Element offset in this rank's receive buffer of rank j's block. */
    public long recvDispl(int j) {
        return recvDispls == null ? j * count : recvDispls[j];
    }

    /** True when this rank called in place (its send data already lies in its receive buffer). */
    public boolean inPlace() {
        return inPlace;
    }

    /** Elements from the start of the receive buffer to the end of its last block (0 when there are none). */
    public long recvExtent(int p) {
        long e = 0;
        for (int j = 0; j < p; j++) {
            long c = recvCount(j);
            if (c > 0) {
                e = Math.max(e, recvDispl(j) + c);
            }
        }
        return e;
    }

    /** Elements from the start of the send buffer to the end of its last block. */
    public long sendExtent(int p) {
        long e = 0;
        for (int j = 0; j < p; j++) {
            long c = sendCount(j);
            if (c > 0) {
                e = Math.max(e, sendDispl(j) + c);
            }
        }
        return e;
    }

    /** Sum of the receive counts. */
    public long recvTotal(int p) {
        long t = 0;
        for (int j = 0; j < p; j++) {
            t += recvCount(j);
        }
        return t;
    }

    /** Sum of the send counts. */
    public long sendTotal(int p) {
        long t = 0;
        for (int j = 0; j < p; j++) {
            t += sendCount(j);
        }
        return t;
    }
}
