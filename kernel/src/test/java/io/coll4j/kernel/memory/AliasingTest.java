package io.coll4j.kernel.memory;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Aliasing} over every storage (heap arrays of each primitive type, a heap ByteBuffer, native, a mapped
 * file) seen through every view on either side: the answer depends on the memory only.
 */
class AliasingTest {
    static final int BYTES = 64;

    /** Views of one storage: writable, read-only, read-only of the whole via a slice of itself. */
    static final List<UnaryOperator<MemorySegment>> VIEWS = List.of(
            s -> s, MemorySegment::asReadOnly, s -> s.asSlice(0).asReadOnly(), s -> s.asReadOnly().asSlice(0));

    static List<Supplier<MemorySegment>> heapStorages() {
        return List.of(
                () -> MemorySegment.ofArray(new byte[BYTES]),
                () -> MemorySegment.ofArray(new short[BYTES / 2]),
                () -> MemorySegment.ofArray(new char[BYTES / 2]),
                () -> MemorySegment.ofArray(new int[BYTES / 4]),
                () -> MemorySegment.ofArray(new float[BYTES / 4]),
                () -> MemorySegment.ofArray(new long[BYTES / 8]),
                () -> MemorySegment.ofArray(new double[BYTES / 8]),
                () -> MemorySegment.ofBuffer(ByteBuffer.allocate(BYTES)));
    }

    @Test
    void everyStorageAndViewAgrees() throws IOException {
        Path file = Files.createTempFile("coll4j-aliasing", ".bin");
        try (Arena arena = Arena.ofConfined();
             FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            List<Supplier<MemorySegment>> storages = new ArrayList<>(heapStorages());
            storages.add(() -> arena.allocate(BYTES, 8));
            storages.add(() -> MemorySegment.ofBuffer(ByteBuffer.allocateDirect(BYTES)));
            MemorySegment mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4L * BYTES, arena);
            int[] nextMapped = {0};
            storages.add(() -> mapped.asSlice((long) BYTES * nextMapped[0]++ % (4L * BYTES), BYTES));
            for (Supplier<MemorySegment> storage : storages) {
                MemorySegment s = storage.get();
                MemorySegment other = storage.get();               // same kind, other memory
                for (UnaryOperator<MemorySegment> va : VIEWS) {
                    for (UnaryOperator<MemorySegment> vb : VIEWS) {
                        MemorySegment a = va.apply(s);
                        String what = s + " via " + a + " / " + vb.apply(s);
                        assertEquals(0, Aliasing.offset(a, vb.apply(s)), what);
                        assertTrue(Aliasing.sameStart(a, vb.apply(s)), what);
                        assertEquals(8, Aliasing.offset(a, vb.apply(s.asSlice(8))), what);
                        assertTrue(Aliasing.sameStart(a, 8, vb.apply(s.asSlice(8)), 0), what);
                        assertFalse(Aliasing.sameStart(a, vb.apply(s.asSlice(8))), what);
                        // [0, 16) and [8, 24): one overlap; [0, 8) and [8, 16): none
                        assertTrue(Aliasing.overlap(a, 16, vb.apply(s.asSlice(8)), 16), what);
                        assertTrue(Aliasing.overlap(vb.apply(s.asSlice(8)), 16, a, 16), what);
                        assertFalse(Aliasing.overlap(a, 8, vb.apply(s.asSlice(8)), 8), what);
                        assertTrue(Aliasing.overlap(a, 8, 8, vb.apply(s), 15, 8), what);
                        assertFalse(Aliasing.overlap(a, 0, vb.apply(s), 0), what);
                        assertFalse(Aliasing.sameStart(a, vb.apply(other)), what);
                        assertFalse(Aliasing.overlap(a, BYTES, vb.apply(other), BYTES), what);
                    }
                }
            }
            // heap never aliases native; two arrays of different types never alias
            MemorySegment heap = MemorySegment.ofArray(new long[8]);
            MemorySegment nat = arena.allocate(64, 8);
            for (UnaryOperator<MemorySegment> v : VIEWS) {
                assertEquals(Aliasing.UNRELATED, Aliasing.offset(v.apply(heap), nat));
                assertEquals(Aliasing.UNRELATED, Aliasing.offset(nat, v.apply(heap)));
                assertEquals(Aliasing.UNRELATED, Aliasing.offset(v.apply(heap), MemorySegment.ofArray(new double[8]).asReadOnly()));
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
