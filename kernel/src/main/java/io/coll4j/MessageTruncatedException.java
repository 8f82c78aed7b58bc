package io.coll4j;

/**
 * A message was longer than the buffer of the receive that matched it (MPI's {@code MPI_ERR_TRUNCATE}). Thrown on
 * the receiving rank only, by the receive (or its request, which stays failed); the buffer holds the message's first
 * {@link #bufferBytes()} bytes. The message is consumed — the next receive gets the next message — and nothing else
 * is lost: the sender's request completes normally and the team is not aborted.
 */
public final class MessageTruncatedException extends RuntimeException {
    private final int source;
    private final int tag;
    private final long messageBytes;
    private final long bufferBytes;

    public MessageTruncatedException(int receiver, int source, int tag, long messageBytes, long bufferBytes) {
        super("rank " + receiver + ": message truncated: " + messageBytes + " bytes from rank " + source + " (tag " + tag
                + ") into a receive buffer of " + bufferBytes + " bytes (MPI_ERR_TRUNCATE); the first " + bufferBytes
                + " bytes were received");
        this.source = source;
        this.tag = tag;
        this.messageBytes = messageBytes;
        this.bufferBytes = bufferBytes;
    }

    /** The rank that sent the message. */
    public int source() {
        return source;
    }

    /** The message's tag. */
    public int tag() {
        return tag;
    }

    /** The message's size in bytes. */
    public long messageBytes() {
        return messageBytes;
    }

    /** The receive buffer's size in bytes (what was received). */
    public long bufferBytes() {
        return bufferBytes;
    }
}
