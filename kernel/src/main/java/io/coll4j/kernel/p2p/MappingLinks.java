package io.coll4j.kernel.p2p;

import io.coll4j.kernel.algo.TeamContext;
import io.coll4j.kernel.model.MachineModel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The rings of a team that spans the processes of one shared mapping ({@code Team.builder().processes(n, i)}), for
 * this process's ranks (docs/design.md, "Point-to-point across processes"). A ring between two ranks of this process
 * is a {@link Channel} in the local team's arena, as in {@link P2pEngine}; a ring from or to a rank of another
 * process lies in the mapping: the sender allocates it in its own process's region at its first message to that
 * receiver (a team of p ranks pays for the pairs that talk, not p·(p−1)) and publishes its offset in the receiver's
 * process's directory; the receiver's progress finds it there. Every process reaches the ring at the same offset, the
 * ring's protocol is the one-JVM ring's (stamps, head, inline and eager payloads), and only the rendezvous differs
 * ({@link MappedRendezvousProtocol}). Ranks are the team's global numbers: process × width + local id.
 */
final class MappingLinks extends Links {
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private final P2pMemory memory;
    private final MemorySegment seg;
    private final int process;
    private final long footprint;

    private MappingLinks(TeamContext context, P2pMemory memory, int processes) {
        super(context, processes, memory.process(), Long.getLong("coll4j.p2p.eagerMax", MachineModel.P2P_EAGER_MAX_BYTES));
        this.memory = memory;
        this.seg = memory.memory();
        this.process = memory.process();
        this.footprint = Channel.footprint(eagerMax);
    }

    /** The links of the local team {@code context} of a mapping team of {@code processes} processes, made at first use. */
    static MappingLinks of(TeamContext context, P2pMemory memory, int processes) {
        return context.attachment(MappingLinks.class, () -> new MappingLinks(context, memory, processes));
    }

    @Override
    Channel open(int source, int dest) {
        if (localOf(dest) >= 0) {
            return openLocal(source, dest);
        }
        long at = memory.take(footprint, true);
        if (at < 0) {
            throw new IllegalStateException("point-to-point: no room in this process's region of the shared mapping for"
                    + " the ring from rank " + source + " to rank " + dest + " (" + footprint + " bytes); "
                    + "Team.builder().sharedMemory(bytes) sizes the region");
        }
        Channel ch = new Channel(seg.asSlice(at, footprint), source, dest, eagerMax);
        ch.seg.set(ValueLayout.JAVA_LONG, Channel.EAGER_MAX_AT, eagerMax);
        // release: pairs with incoming()'s getAcquire in the receiver's process; the zeroed ring is visible before its
        // offset is
        LONG.setRelease(seg, entry(dest / width, dest % width, source), at);
        return ch;
    }

    @Override
    Channel incoming(int source, int dest) {
        if (localOf(source) >= 0) {
            return incomingLocal(source, dest);
        }
        // acquire: pairs with open()'s setRelease of the ring's offset by the sender's process
        long at = (long) LONG.getAcquire(seg, entry(process, dest - first, source));
        if (at == 0) {
            return null;
        }
        long theirs = seg.get(ValueLayout.JAVA_LONG, at + Channel.EAGER_MAX_AT);
        if (theirs != eagerMax) {
            throw new IllegalStateException("point-to-point: rank " + source + "'s process sends with a crossover of "
                    + theirs + " bytes, rank " + dest + "'s expects " + eagerMax + ": every process of the job needs the"
                    + " same -Dcoll4j.p2p.eagerMax (the rings' geometry)");
        }
        return new Channel(seg.asSlice(at, footprint), source, dest, eagerMax);
    }

    /** The directory entry of the ring from {@code source} to local rank {@code dest} of process {@code q}. */
    private long entry(int q, int dest, int source) {
        return memory.directory(q) + 8L * ((long) dest * size + source);
    }

    /** Bytes of each process's ring directory for a team of {@code width} ranks per process and {@code size} in all. */
    static long directoryBytes(int width, int size) {
        return 8L * width * size;
    }

    @Override
    P2pMemory memory() {
        return memory;
    }
}
