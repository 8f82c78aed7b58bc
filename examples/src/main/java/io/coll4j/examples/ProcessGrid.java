package io.coll4j.examples;

/**
 * A {@code rows × cols} grid of p ranks for SUMMA: rank r sits at row {@code r / cols}, column
 * {@code r % cols}. The grid is as square as p allows: rows is the largest divisor of p not above √p
 * (p = 4: 2 × 2; p = 2 or a prime: 1 × p).
 */
public record ProcessGrid(int rows, int cols) {
    public static ProcessGrid of(int p) {
        if (p < 1) {
            throw new IllegalArgumentException("p must be >= 1, got " + p);
        }
        int r = (int) Math.sqrt(p);
        while (p % r != 0) {
            r--;
        }
        return new ProcessGrid(r, p / r);
    }

    public int row(int rank) {
        return rank / cols;
    }

    public int col(int rank) {
        return rank % cols;
    }

    public int rank(int row, int col) {
        return row * cols + col;
    }

    /** Start of block {@code i} of {@code n} split into {@code parts} near-equal blocks (block i is [start(i), start(i+1))). */
    public static int start(int n, int parts, int i) {
        return (int) ((long) n * i / parts);
    }

    /** Which of {@code parts} blocks of {@code n} holds index {@code k}. */
    public static int owner(int n, int parts, int k) {
        int b = (int) (((long) k * parts) / n);
        while (start(n, parts, b + 1) <= k) {
            b++;
        }
        while (start(n, parts, b) > k) {
            b--;
        }
        return b;
    }

    @Override
    public String toString() {
        return rows + "x" + cols;
    }
}
