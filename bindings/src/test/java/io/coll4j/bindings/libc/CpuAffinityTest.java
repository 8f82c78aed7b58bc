package io.coll4j.bindings.libc;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** glibc affinity and the raw mbind/move_pages syscalls on this machine; binds only threads it starts. */
class CpuAffinityTest {

    @BeforeAll
    static void linuxOnly() {
        assumeTrue(CpuAffinity.isAvailable(), "skipped: sched_setaffinity not available on " + System.getProperty("os.name"));
    }

    private static Object onFreshThread(java.util.concurrent.Callable<Object> body) throws InterruptedException {
        AtomicReference<Object> out = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                out.set(body.call());
            } catch (Throwable e) {
                out.set(e);
            }
        });
        t.join();
        return out.get();
    }

    @Test
    void bindEachAllowedCpuAndObserveIt() throws Exception {
        List<Integer> allowed = CpuAffinity.currentThread();
        assertFalse(allowed.isEmpty());
        for (int cpu : allowed) {
            Object r = onFreshThread(() -> {
                CpuAffinity.setCurrentThread(cpu);
                return List.of(CpuAffinity.currentThread(), CpuAffinity.currentCpu());
            });
            assertEquals(List.of(List.of(cpu), cpu), r, "CPU " + cpu);
        }
        // the runner thread is untouched
        assertEquals(allowed, CpuAffinity.currentThread());
    }

    @Test
    void failuresCarryErrno() throws Exception {
        Object r = onFreshThread(() -> {
            CpuAffinity.setCurrentThread(4000);   // a CPU this machine does not have
            return "bound";
        });
        LibcException e = assertInstanceOf(LibcException.class, r);
        assertEquals("sched_setaffinity", e.function());
        assertEquals(22, e.errno());
        assertTrue(e.getMessage().contains("EINVAL"), e.getMessage());
        assertThrows(IllegalArgumentException.class, CpuAffinity::setCurrentThread);
        assertTrue(CpuAffinity.currentTid() > 0);
    }

    @Test
    void mbindThenMovePagesReadsTheNodeBack() {
        assumeTrue(MemoryPolicy.isAvailable(), "skipped: mbind syscall number unknown here");
        long page = MemoryPolicy.pageSize();
        assertTrue(page >= 4096 && Long.bitCount(page) == 1, "page " + page);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(8 * page, page);
            MemoryPolicy.bind(seg, 0);
            seg.fill((byte) 7);
            int[] nodes = MemoryPolicy.pageNodes(seg);
            assertEquals(8, nodes.length);
            for (int n : nodes) {
                assertEquals(0, n);
            }
            assertThrows(IllegalArgumentException.class, () -> MemoryPolicy.bind(seg.asSlice(1, page), 0));
            LibcException e = assertThrows(LibcException.class, () -> MemoryPolicy.bind(seg, 1000));
            assertEquals("mbind", e.function());
        }
    }
}
