package io.coll4j.kernel.algo;

import io.coll4j.kernel.memory.Aliasing;
import io.coll4j.kernel.sync.ControlBlock;

import java.lang.foreign.MemorySegment;

/**
 * Where a small or staged message lives, and the copies algorithms make between such places.
 * Messages of at most {@link ControlBlock#INLINE_BYTES} travel inside a flag line's payload (one cache
 * line transfer carries flag and data); larger ones in scratch buffers.
 */
public final class Transfers {
    private Transfers() {
    }

    /** True when {@code bytes} fit a flag line's inline payload. */
    public static boolean inline(long bytes) {
        return bytes <= ControlBlock.INLINE_BYTES;
    }

    /**
     * Copies {@code bytes} from {@code src@srcOff} to {@code dst@dstOff} with the team's copy engine;
     * {@code nonTemporal} as decided once for the collective by the algorithm (YHCCL §4.2 rule). Copying
     * a range onto itself is a no-op (in-place calls).
     */
    public static void copy(CollectiveCall call, MemorySegment src, long srcOff, MemorySegment dst, long dstOff,
                            long bytes, boolean nonTemporal) {
        if (bytes == 0 || Aliasing.sameStart(src, srcOff, dst, dstOff)) {
            return;
        }
        if (nonTemporal) {
            call.copy().copy(dst, dstOff, src, srcOff, bytes, true);
        } else {
            // the runtime validated the caller's buffers already; MemorySegment.copy still bounds-checks,
            // and skipping Copy's public argument checks matters for the 8-byte collectives
            MemorySegment.copy(src, srcOff, dst, dstOff, bytes);
        }
    }

    /**
     * A team of one: the collective is a copy of the send buffer into the receive buffer (nothing when
     * they are the same memory). Returns true when it handled the call, so an algorithm starts with
     * {@code if (Transfers.alone(call)) return;}.
     */
    public static boolean alone(CollectiveCall call) {
        if (call.size() != 1) {
            return false;
        }
        copy(call, call.send(), 0, call.recv(), 0, call.bytes(), false);
        return true;
    }
}
