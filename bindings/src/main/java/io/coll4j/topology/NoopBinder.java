package io.coll4j.topology;

import java.lang.foreign.MemorySegment;
import java.util.OptionalInt;

/** Binds nothing and says why in every result: synthetic/XML topologies, or no mechanism on this system. */
final class NoopBinder implements Binder {
    private final String reason;

    NoopBinder(String reason) {
        this.reason = reason;
    }

    @Override
    public BindResult bindCurrentThread(Pu pu) {
        return new BindResult(false, pu.osIndex(), -1, "none", reason);
    }

    @Override
    public MemoryBindResult bindMemory(MemorySegment seg, NumaNode node) {
        return new MemoryBindResult(false, node.osIndex(), "none", reason);
    }

    @Override
    public OptionalInt memoryNode(MemorySegment seg) {
        return OptionalInt.empty();
    }

    @Override
    public boolean canBindThreads() {
        return false;
    }

    @Override
    public boolean canBindMemory() {
        return false;
    }

    @Override
    public String describe() {
        return "no-op binder: " + reason;
    }
}
