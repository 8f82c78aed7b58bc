package io.coll4j.kernel.span;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The staging buffers of one-shot requests across processes: taken zeroed, given back on completion, reused, bounded. */
class RequestBuffersTest {

    @Test
    void aOneShotSchedulesLargeBuffersAreCollectedGivenBackAndReusedZeroed() {
        long bytes = 3 * RequestBuffers.POOLED_BYTES + 8;   // its class: the next power of two
        RequestBuffers.Collected<MemorySegment[]> first = RequestBuffers.collect(() -> new MemorySegment[]{
                RequestBuffers.take(bytes), RequestBuffers.take(100)});
        MemorySegment big = first.value()[0];
        assertEquals(bytes, big.byteSize());
        assertEquals(100, first.value()[1].byteSize());
        assertEquals(1, first.buffers().size(), "small buffers are not pooled");
        MemorySegment whole = first.buffers().getFirst();
        assertEquals(Long.highestOneBit(bytes) * 2, whole.byteSize());
        assertEquals(whole.address(), big.address());
        big.fill((byte) 0x5A);
        int before = RequestBuffers.kept(bytes);
        RequestBuffers.release(first.buffers());
        assertEquals(before + 1, RequestBuffers.kept(bytes));
        // the next request of that class gets the same memory, zeroed as a fresh buffer is
        MemorySegment again = RequestBuffers.take(bytes - 1000);
        assertEquals(whole.address(), again.address());
        assertEquals(before, RequestBuffers.kept(bytes));
        MemorySegment reused = MemorySegment.ofAddress(again.address()).reinterpret(whole.byteSize());
        for (long i = 0; i < reused.byteSize(); i++) {
            assertEquals(0, reused.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of a reused buffer");
        }
        // a taken buffer is not handed out twice
        assertNotEquals(again.address(), RequestBuffers.take(bytes).address());
    }

    @Test
    void eachClassKeepsABoundedNumberAndNestedCollectsStaySeparate() {
        long bytes = 1L << 21;
        List<MemorySegment> many = new ArrayList<>();
        for (int i = 0; i < RequestBuffers.KEPT_PER_CLASS + 3; i++) {
            many.add(RequestBuffers.collect(() -> RequestBuffers.take(bytes)).buffers().getFirst());
        }
        RequestBuffers.release(many);
        assertEquals(RequestBuffers.KEPT_PER_CLASS, RequestBuffers.kept(bytes));
        RequestBuffers.Collected<Integer> outer = RequestBuffers.collect(() -> {
            RequestBuffers.take(bytes);
            RequestBuffers.Collected<MemorySegment> inner = RequestBuffers.collect(() -> RequestBuffers.take(bytes));
            RequestBuffers.take(bytes);
            return inner.buffers().size();
        });
        assertEquals(1, outer.value(), "the inner schedule's buffer is its own");
        assertEquals(2, outer.buffers().size(), "the outer schedule's two, not the inner one's");
        assertEquals(RequestBuffers.KEPT_PER_CLASS - 3, RequestBuffers.kept(bytes));
        // and all classes together keep a bounded number of bytes: two 64 MiB buffers, one kept
        long huge = RequestBuffers.KEPT_BYTES;
        List<MemorySegment> two = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            two.add(RequestBuffers.collect(() -> RequestBuffers.take(huge)).buffers().getFirst());
        }
        RequestBuffers.release(outer.buffers());
        RequestBuffers.release(two);
        assertEquals(0, RequestBuffers.kept(huge), "over the byte bound with the 2 MiB buffers kept");
        assertEquals(RequestBuffers.sizeClass(bytes), RequestBuffers.sizeClass(bytes - 1));
        assertEquals(RequestBuffers.sizeClass(bytes) + 1, RequestBuffers.sizeClass(bytes + 1));
    }
}
