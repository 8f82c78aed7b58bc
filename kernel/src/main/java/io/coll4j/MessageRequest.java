package io.coll4j;

/**
 * A point-to-point operation in flight: returned by {@link PointToPoint#isend} and {@link PointToPoint#irecv}. It is
 * a {@link Request} with that interface's rules (progress, "a failed request stays failed", the future), with these
 * differences: it moves whenever its rank calls into point-to-point (any send, receive, probe, test or wait of that
 * rank progresses all its messages), never on the team's progress thread; and a receive's failure may be local — a
 * {@link MessageTruncatedException} fails that request only, without aborting the team.
 */
public interface MessageRequest extends Request {

    /**
     * The matched message's source, tag and size, once the request is complete (for a send: the destination, the
     * tag and the bytes sent).
     *
     * @throws IllegalStateException when the request is not complete yet
     * @throws RuntimeException      the request's failure, when it failed
     */
    MessageStatus status();
}
