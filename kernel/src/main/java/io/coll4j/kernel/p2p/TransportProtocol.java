package io.coll4j.kernel.p2p;

/**
 * Messages between ranks of processes that share no mapping, through the span's {@link
 * io.coll4j.kernel.span.MessageTransport} (MPI's: {@code MpiMessages} in coll4j-mpi). A message up to the crossover
 * arrives whole, its payload with its envelope, and is copied into the matched receive or stashed in an unexpected
 * envelope's pooled buffer as an eager one is ({@link EagerProtocol#KIND}). A larger one arrives as its envelope and a
 * handle, the payload left with the transport until a receive matches it, then received straight into that receive's
 * buffer (kind {@link #KIND}; the envelope keeps the handle in {@code at}): the unexpected queue holds no copy of a
 * large message, as the rendezvous ones [AMPI §5.3]. A send of either kind completes when the transport says its
 * buffer may be reused (MPI_Test of its MPI_Isend).
 */
final class TransportProtocol {
    static final int KIND = 4;

    private TransportProtocol() {
    }
}
