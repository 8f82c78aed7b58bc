package io.coll4j.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A size sweep: byte sizes with K/M/G (binary) suffixes, from MIN to MAX inclusive, each {@code factor} times the
 * one before (2: doubling, as OSU and nccl-tests do). {@code -m} reads as in OSU: {@code -m MIN:MAX}, or
 * {@code -m MAX} alone (MIN is then the command's default, or MAX itself when that is larger); nccl-tests'
 * {@code -b MIN -e MAX -f FACTOR} set the same three values.
 */
public record SizeRange(long min, long max, long factor) {

    public SizeRange {
        if (min < 0 || max < 0) {
            throw new IllegalArgumentException("sizes must be >= 0");
        }
        if (min > max) {
            throw new IllegalArgumentException("size range MIN > MAX: " + format(min) + " > " + format(max));
        }
        if (factor < 2) {
            throw new IllegalArgumentException("-f/--step-factor must be >= 2, got " + factor);
        }
    }

    public SizeRange(long min, long max) {
        this(min, max, 2);
    }

    /** Parses {@code MIN:MAX}, or a single size meaning MIN = MAX; {@link IllegalArgumentException} naming the bad text. */
    public static SizeRange parse(String text) {
        String t = text.trim();
        int colon = t.indexOf(':');
        if (colon < 0) {
            long v = parseSize(t);
            return new SizeRange(v, v);
        }
        return new SizeRange(parseSize(t.substring(0, colon)), parseSize(t.substring(colon + 1)));
    }

    /**
     * The sweep of {@code -m} ({@code MIN:MAX}, or {@code MAX} alone as in OSU), {@code -b}, {@code -e} and {@code -f}
     * as nccl-tests reads them: {@code -b}/{@code -e} override the bound they name, a single {@code -m MAX} keeps
     * {@code defaultMin} (or MAX, when smaller). Any of them null: not given. {@code defaultRange} is the command's
     * default {@code MIN:MAX}.
     */
    public static SizeRange of(String m, String b, String e, Long f, String defaultRange) {
        SizeRange d = parse(defaultRange);
        long min = d.min();
        long max = d.max();
        if (m != null) {
            String t = m.trim();
            if (t.indexOf(':') >= 0) {
                SizeRange r = parse(t);
                min = r.min();
                max = r.max();
            } else {
                max = parseSize(t);
                min = Math.min(min, max);
            }
        }
        if (e != null) {
            max = parseSize(e);
            if (b == null && m == null) {
                min = Math.min(min, max);
            }
        }
        if (b != null) {
            min = parseSize(b);
            if (e == null && m == null) {
                max = Math.max(max, min);
            }
        }
        return new SizeRange(min, max, f == null ? 2 : f);
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

    /** The sweep: MIN, f·MIN, f²·MIN, … while ≤ MAX, and MAX itself when the steps do not land on it. A MIN of 0 yields 0, then 1, f, f², … */
    public List<Long> sizes() {
        List<Long> out = new ArrayList<>();
        long s = min;
        while (s <= max) {
            out.add(s);
            if (s == max) {
                break;
            }
            long next = s == 0 ? 1 : s > Long.MAX_VALUE / factor ? -1 : s * factor;
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
