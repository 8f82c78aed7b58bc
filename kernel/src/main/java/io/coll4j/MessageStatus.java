package io.coll4j;

import io.coll4j.reductions.DType;

/**
 * What a receive or a probe found (MPI's {@code MPI_Status}): the message's source rank, its tag and its size.
 * A blocking receive fills one the caller owns ({@link PointToPoint#recv(java.lang.foreign.MemorySegment, int, int,
 * MessageStatus)}), so a loop of receives allocates nothing; a probe and a completed {@link MessageRequest} return a
 * new one. Ranks are numbers of the team the message travelled on (a sub-team's own numbers on a sub-team).
 */
public final class MessageStatus {
    private int source = -1;
    private int tag = -1;
    private long bytes;

    /** An empty status (source and tag -1, 0 bytes) for a receive to fill. */
    public MessageStatus() {
    }

    /** A status with these values (what a probe or a completed request returns). */
    public MessageStatus(int source, int tag, long bytes) {
        set(source, tag, bytes);
    }

    void set(int source, int tag, long bytes) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
    }

    /** The rank that sent the message (what {@link PointToPoint#ANY_SOURCE} matched). */
    public int source() {
        return source;
    }

    /** The message's tag (what {@link PointToPoint#ANY_TAG} matched). */
    public int tag() {
        return tag;
    }

    /** The message's size in bytes, as sent (a receive into a shorter buffer fails with {@link MessageTruncatedException}). */
    public long bytes() {
        return bytes;
    }

    /**
     * The message's size in elements of {@code dtype} ({@code MPI_Get_count}).
     *
     * @throws IllegalArgumentException when the size is not a whole number of elements (MPI answers
     *                                  {@code MPI_UNDEFINED})
     */
    public long count(DType dtype) {
        if (dtype == null) {
            throw new IllegalArgumentException("dtype must not be null");
        }
        if (bytes % dtype.size() != 0) {
            throw new IllegalArgumentException("the message of " + bytes + " bytes is not a whole number of "
                    + dtype.cliName() + " elements (" + dtype.size() + " bytes each)");
        }
        return bytes / dtype.size();
    }

    @Override
    public String toString() {
        return "MessageStatus[source " + source + ", tag " + tag + ", " + bytes + " bytes]";
    }
}
