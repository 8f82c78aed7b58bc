package io.coll4j.bindings.hwloc;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static io.coll4j.bindings.hwloc.internal.hwloc_bitmap_h.*;

/**
 * An owned {@code hwloc_bitmap_t} (a cpuset or nodeset): allocated by {@code hwloc_bitmap_alloc},
 * freed by {@link #close()}. Not thread-safe; use it from one thread, inside try-with-resources.
 */
public final class HwlocBitmap implements AutoCloseable {
    private MemorySegment bitmap;

    private HwlocBitmap(MemorySegment bitmap) {
        this.bitmap = bitmap;
    }

    /** A new empty bitmap. */
    public static HwlocBitmap allocate() {
        Hwloc.requireAvailable();
        MemorySegment b = hwloc_bitmap_alloc();
        if (b.address() == 0) {
            throw new OutOfMemoryError("hwloc_bitmap_alloc returned NULL");
        }
        return new HwlocBitmap(b);
    }

    /** A new bitmap holding exactly {@code index}. */
    public static HwlocBitmap only(int index) {
        HwlocBitmap b = allocate();
        b.setOnly(index);
        return b;
    }

    /** The native {@code hwloc_bitmap_t}; valid until {@link #close()}. */
    public MemorySegment segment() {
        if (bitmap == null) {
            throw new IllegalStateException("bitmap already freed");
        }
        return bitmap;
    }

    /** {@code hwloc_bitmap_only}: clear everything, then set {@code index}. */
    public void setOnly(int index) {
        checkIndex(index);
        if (hwloc_bitmap_only(segment(), index) != 0) {
            throw new OutOfMemoryError("hwloc_bitmap_only(" + index + ") failed");
        }
    }

    /** {@code hwloc_bitmap_set}. */
    public void set(int index) {
        checkIndex(index);
        if (hwloc_bitmap_set(segment(), index) != 0) {
            throw new OutOfMemoryError("hwloc_bitmap_set(" + index + ") failed");
        }
    }

    /** {@code hwloc_bitmap_isset}. */
    public boolean isSet(int index) {
        checkIndex(index);
        return hwloc_bitmap_isset(segment(), index) != 0;
    }

    /** {@code hwloc_bitmap_weight}: the number of set indices, -1 when infinite. */
    public int weight() {
        return hwloc_bitmap_weight(segment());
    }

    /** {@code hwloc_bitmap_first}: the lowest set index, -1 when empty. */
    public int first() {
        return hwloc_bitmap_first(segment());
    }

    /** The set indices, ascending ({@code hwloc_bitmap_first}/{@code hwloc_bitmap_next}). */
    public List<Integer> toList() {
        return toList(segment());
    }

    /** The set indices of a bitmap owned by hwloc (e.g. {@code obj->cpuset}), ascending; empty for {@code NULL}. */
    public static List<Integer> toList(MemorySegment bitmap) {
        List<Integer> out = new ArrayList<>();
        if (bitmap.address() == 0) {
            return out;
        }
        if (hwloc_bitmap_weight(bitmap) < 0) {
            throw new IllegalArgumentException("bitmap is infinite");
        }
        for (int i = hwloc_bitmap_first(bitmap); i >= 0; i = hwloc_bitmap_next(bitmap, i)) {
            out.add(i);
        }
        return out;
    }

    /** hwloc's list syntax ({@code "0-3,8"}), via {@code hwloc_bitmap_list_snprintf}. */
    @Override
    public String toString() {
        MemorySegment b = segment();
        int len = hwloc_bitmap_list_snprintf(MemorySegment.NULL, 0, b);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(len + 1L);
            hwloc_bitmap_list_snprintf(buf, len + 1L, b);
            return buf.getString(0);
        }
    }

    /** {@code hwloc_bitmap_free}; idempotent. */
    @Override
    public void close() {
        if (bitmap != null) {
            hwloc_bitmap_free(bitmap);
            bitmap = null;
        }
    }

    private static void checkIndex(int index) {
        if (index < 0) {
            throw new IllegalArgumentException("index: negative bitmap index " + index);
        }
    }
}
