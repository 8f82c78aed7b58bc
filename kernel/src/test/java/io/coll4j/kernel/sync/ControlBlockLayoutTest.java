package io.coll4j.kernel.sync;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The parity halves of a control line: collective s's stamp, signature and whole inline payload share
 * one 64-byte cache line (so its waiter's one transfer brings the data), and the two parities never
 * share a byte (so s + 1 can be written while a slow peer still reads s).
 */
class ControlBlockLayoutTest {
    private static final int CACHE_LINE = 64;

    @Test
    void eachParityKeepsHeaderAndPayloadInOneCacheLine() {
        try (Arena arena = Arena.ofConfined()) {
            ControlBlock ctrl = new ControlBlock(arena, 3, 2);
            assertEquals(0, ctrl.segment().address() % ControlBlock.LINE, "lines start on a line boundary");
            for (int rank = 0; rank < 3; rank++) {
                for (int line = 0; line < ctrl.lines(); line++) {
                    long off = ctrl.offset(rank, line);
                    for (long seq = 1; seq <= 4; seq++) {
                        long half = ControlBlock.halfOffset(off, seq);
                        long payload = ControlBlock.payloadOffset(off, seq);
                        long lastByte = payload + ControlBlock.INLINE_BYTES - 1;
                        assertEquals(half / CACHE_LINE, lastByte / CACHE_LINE, "seq " + seq + ": payload beside its stamp");
                        assertEquals(half / CACHE_LINE, (half + ControlBlock.SIG) / CACHE_LINE, "seq " + seq + ": signature beside its stamp");
                        assertTrue(payload >= half + ControlBlock.SIG + Long.BYTES, "payload after stamp and signature");
                        assertTrue(lastByte < off + ControlBlock.LINE, "inside its line");
                    }
                    long even = ControlBlock.payloadOffset(off, 2);
                    long odd = ControlBlock.payloadOffset(off, 3);
                    assertTrue(even + ControlBlock.INLINE_BYTES <= ControlBlock.halfOffset(off, 3) || odd + ControlBlock.INLINE_BYTES <= off,
                            "the parities' halves are disjoint");
                    assertEquals(off, ControlBlock.halfOffset(off, 2), "even collectives use the line's own stamp");
                }
            }
        }
    }
}
