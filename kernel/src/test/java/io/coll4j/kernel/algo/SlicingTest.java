package io.coll4j.kernel.algo;

import io.coll4j.kernel.sync.Stamp;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The slice rule I = max(min(s/p, I_max), 64) in whole lines [YHCCL §5.1], and slices that tile the message. */
class SlicingTest {

    @Test
    void followsTheYhcclRule() {
        assertEquals(256 * 1024, Slicing.of(64L << 20, 2, 256 * 1024).slice(), "I_max caps large messages");
        assertEquals(128 * 1024, Slicing.of(256 * 1024, 2, 256 * 1024).slice(), "s/p below I_max");
        assertEquals(64, Slicing.of(100, 8, 4096).slice(), "at least one line");
        assertEquals(384, Slicing.of(1000, 3, 4096).slice(), "s/p = 333.3 rounded up to whole lines");
        assertEquals(64, Slicing.of(100_000, 2, 100).slice(), "I_max rounded down to whole lines");
        assertEquals(0, Slicing.of(0, 4, 4096).count());
    }

    @Test
    void slicesTileTheMessageExactly() {
        long[] sizes = {1, 4, 63, 64, 65, 1000, 4096, 4100, 1 << 20, (1 << 20) + 8, 3_000_004};
        for (long bytes : sizes) {
            for (int p : new int[]{1, 2, 3, 5, 8}) {
                for (long max : new long[]{64, 100, 192, 4096, 256 * 1024}) {
                    Slicing s = Slicing.of(bytes, p, max);
                    assertEquals(0, s.slice() % 64, s.toString());
                    long covered = 0;
                    for (long j = 0; j < s.count(); j++) {
                        assertEquals(covered, s.offset(j), s + " slice " + j);
                        assertTrue(s.length(j) > 0 && s.length(j) <= s.slice(), s + " slice " + j);
                        covered += s.length(j);
                    }
                    assertEquals(bytes, covered, s.toString());
                    assertTrue(s.ringBytes(2) <= 2 * s.slice() && s.ringBytes(2) >= Math.min(bytes, s.slice()), s.toString());
                }
            }
        }
    }

    @Test
    void sliceIndicesStayPublishableSteps() {
        long huge = 64L * (Stamp.MAX_STEP + 10L);          // one-line slices would need more steps than a stamp has
        Slicing s = Slicing.of(huge, 1, 64);
        assertTrue(s.count() - 1 <= Stamp.MAX_STEP, s.toString());
        assertTrue(s.slice() > 64 && s.slice() % 64 == 0, s.toString());
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> Slicing.of(-1, 2, 4096));
        assertThrows(IllegalArgumentException.class, () -> Slicing.of(100, 0, 4096));
    }
}
