package io.coll4j.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A {@code -m MIN:MAX} size sweep: byte sizes with K/M/G (binary) suffixes, doubling from MIN to MAX
 * inclusive, as OSU and nccl-tests do. A single size ({@code -m 4M}) means MIN = MAX.
 */
public record SizeRange(long min, long max) {

    public SizeRange {
        if (min < 0 || max < 0) {
            throw new IllegalArgumentException("sizes must be >= 0");
        }
        if (min > max) {
            throw new IllegalArgumentException("size range MIN > MAX: " + format(min) + " > " + format(max));
        }
    }

    /** Parses {@code MIN:MAX} or a single size; {@link IllegalArgumentException} naming the bad text. */
    public static SizeRange parse(String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        if (colon < 0) {
            long v = parseSize(t);
            return new SizeRange(v, v);
        }
        return new SizeRange(parseSize(t.substring(0, colon)), parseSize(t.substring(colon + 1)));
    }

    /** Parses one size: digits with an optional K, M or G suffix (powers of 1024), optionally followed by B. */
    public static long parseSize(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        if (t.endsWith("B") && t.length() > 1) {   // 64MB, 8B
            t = t.substring(0, t.length() - 1);
        }
        long mult = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> mult = 1L << 10;
                case 'M' -> mult = 1L << 20;
                case 'G' -> mult = 1L << 30;
                default -> { }
            }
        }
        String digits = mult == 1 ? t : t.substring(0, t.length() - 1);
        if (digits.isEmpty() || !digits.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("malformed size '" + text + "' (expected e.g. 8, 4K, 64M, 1G)");
        }
        try {
            return Math.multiplyExact(Long.parseLong(digits), mult);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
    }

    /** The sweep: MIN, 2·MIN, 4·MIN, … while ≤ MAX, and MAX itself when the doubling does not land on it. A MIN of 0 yields 0, then 1, 2, 4, … */
    public List<Long> sizes() {
        List<Long> out = new ArrayList<>();
        long s = min;
        while (s <= max) {
            out.add(s);
            if (s == max) {
                break;
            }
            long next = s == 0 ? 1 : s * 2;
            if (next > max || next < 0) {
                out.add(max);
                break;
            }
            s = next;
        }
        return out;
    }

    /** Human size: 8, 4K, 64M, 1G when exact; bytes otherwise. */
    public static String format(long bytes) {
        if (bytes >= (1L << 30) && bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "G";
        }
        if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "M";
        }
        if (bytes >= (1L << 10) && bytes % (1L << 10) == 0) {
            return (bytes >> 10) + "K";
        }
        return Long.toString(bytes);
    }
}
