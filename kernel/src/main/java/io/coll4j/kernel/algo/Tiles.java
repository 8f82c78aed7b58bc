package io.coll4j.kernel.algo;

/**
 * Partition of {@code count} elements into {@code parts} tiles at cache-line granularity
 * [HMPI §2.4: "padded … to the cache line boundary and partitioned at cache line granularity"], so two
 * ranks never write the same line. Tile i is {@code [start(i), end(i))}; trailing tiles may be empty.
 */
public record Tiles(long count, int parts, long perTile) {

    /** Tiles of whole 64-byte lines for elements of {@code elementSize} bytes. */
    public static Tiles of(long count, int parts, int elementSize) {
        long align = Math.max(1, 64 / elementSize);
        long per = (count + parts - 1) / parts;
        per = (per + align - 1) / align * align;
        return new Tiles(count, parts, Math.max(per, align));
    }

    public long start(int i) {
        return Math.min(i * perTile, count);
    }

    public long end(int i) {
        return Math.min(start(i) + perTile, count);
    }

    public long length(int i) {
        return end(i) - start(i);
    }
}
