package io.coll4j.examples;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import java.util.SplittableRandom;

/**
 * A generated binary classification set with sparse features, the kind click-through models train on:
 * every sample has {@code nnz} features of value 1; half of them drawn from the first {@link #INFORMATIVE}
 * features, which carry the label through a hidden weight vector, half uniformly from all {@code features}
 * (noise the model must learn to ignore). Label: 1 when the hidden score is positive.
 * Samples are stored flat: sample s has indices {@code idx[s·nnz .. (s+1)·nnz)}.
 */
public final class SparseLogistic {
    /** Features that carry the label. */
    public static final int INFORMATIVE = 4096;

    public final int features;
    public final int nnz;
    public final int samples;
    public final int[] idx;
    public final float[] label;

    private SparseLogistic(int features, int nnz, int samples, int[] idx, float[] label) {
        this.features = features;
        this.nnz = nnz;
        this.samples = samples;
        this.idx = idx;
        this.label = label;
    }

    /** {@code samples} samples; {@code seed} fixes the hidden weights, {@code stream} which samples (train, test). */
    public static SparseLogistic generate(int features, int nnz, int samples, long seed, long stream) {
        SplittableRandom hidden = new SplittableRandom(seed);
        int informative = Math.min(INFORMATIVE, features);
        double[] truth = new double[informative];
        for (int i = 0; i < informative; i++) {
            truth[i] = hidden.nextGaussian();
        }
        SplittableRandom rnd = new SplittableRandom(seed * 31 + stream);
        int[] idx = new int[samples * nnz];
        float[] label = new float[samples];
        for (int s = 0; s < samples; s++) {
            double score = 0;
            for (int j = 0; j < nnz; j++) {
                int f = (j & 1) == 0 ? rnd.nextInt(informative) : rnd.nextInt(features);
                idx[s * nnz + j] = f;
                if (f < informative) {
                    score += truth[f];
                }
            }
            label[s] = score > 0 ? 1f : 0f;
        }
        return new SparseLogistic(features, nnz, samples, idx, label);
    }

    /**
     * Adds the log-loss gradient of samples [from, to) at weights {@code w} into {@code grad} (sparse: only
     * the samples' features are touched) and returns their summed log loss.
     */
    public double gradient(float[] w, int from, int to, float[] grad) {
        double loss = 0;
        for (int s = from; s < to; s++) {
            int base = s * nnz;
            float z = 0;
            for (int j = 0; j < nnz; j++) {
                z += w[idx[base + j]];
            }
            float pr = (float) (1 / (1 + Math.exp(-z)));
            float y = label[s];
            float g = pr - y;
            for (int j = 0; j < nnz; j++) {
                grad[idx[base + j]] += g;
            }
            loss -= y > 0 ? Math.log(Math.max(pr, 1e-12)) : Math.log(Math.max(1 - pr, 1e-12));
        }
        return loss;
    }

    /** Clears what {@link #gradient} touched for samples [from, to): cheaper than clearing all of grad. */
    public void clearTouched(int from, int to, float[] grad) {
        for (int k = from * nnz; k < to * nnz; k++) {
            grad[idx[k]] = 0;
        }
    }

    /** Fraction of samples classified right by {@code w}. */
    public double accuracy(float[] w) {
        int right = 0;
        for (int s = 0; s < samples; s++) {
            float z = 0;
            for (int j = 0; j < nnz; j++) {
                z += w[idx[s * nnz + j]];
            }
            if ((z > 0) == (label[s] > 0)) {
                right++;
            }
        }
        return (double) right / samples;
    }

    /**
     * {@code w −= scale · g} over [from, to): the dense update every replica runs after the gradient sum.
     * Vector API loads and stores: C2's auto-vectorised form of this loop ran 4x slower (thread CPU time,
     * 512K f32), and every implementation shares this step, so the comparison is of the communication.
     */
    public static void step(float[] w, float[] g, float scale, int from, int to) {
        stepBlock(w, from, g, from, scale, to - from);
    }

    /** {@code w[at + i] −= scale · g[gAt + i]} for i in [0, len): one rank's block of the update. */
    public static void stepBlock(float[] w, int at, float[] g, int gAt, float scale, int len) {
        int lanes = FLOATS.length();
        int i = 0;
        for (; i <= len - lanes; i += lanes) {
            FloatVector.fromArray(FLOATS, w, at + i).sub(FloatVector.fromArray(FLOATS, g, gAt + i).mul(scale)).intoArray(w, at + i);
        }
        for (; i < len; i++) {
            w[at + i] -= scale * g[gAt + i];
        }
    }

    /**
     * Writes {@code grad[f]} rounded to bf16 (round to nearest even, as {@code DType.BF16}) into element f of
     * {@code grad16} for every feature samples [from, to) touched: the sparse conversion of a gradient that
     * is reduced in bf16. A feature touched twice is written twice with the same value.
     */
    public void touchedToBf16(int from, int to, float[] grad, MemorySegment grad16) {
        for (int k = from * nnz; k < to * nnz; k++) {
            int f = idx[k];
            int bits = Float.floatToRawIntBits(grad[f]);
            grad16.setAtIndex(ValueLayout.JAVA_SHORT, f, (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16));
        }
    }

    /** Clears what {@link #touchedToBf16} wrote for samples [from, to). */
    public void clearTouched(int from, int to, MemorySegment grad16) {
        for (int k = from * nnz; k < to * nnz; k++) {
            grad16.setAtIndex(ValueLayout.JAVA_SHORT, idx[k], (short) 0);
        }
    }

    private static final VectorSpecies<Float> FLOATS = FloatVector.SPECIES_PREFERRED;
    /** bf16 lanes as shorts, half the width of {@link #FLOATS}: one load widens to one float vector. */
    private static final VectorSpecies<Integer> WIDE = VectorSpecies.of(int.class, FLOATS.vectorShape());
    private static final VectorSpecies<Short> HALVES = VectorSpecies.of(short.class,
            VectorShape.forBitSize(Math.max(64, FLOATS.vectorBitSize() / 2)));

    /**
     * {@code w[at + i] −= scale · g[i]} for i in [0, len), {@code g} in bf16: one rank's block of the update.
     * A bf16 is the top half of an f32, so widening is a sign-extending load and a shift; the vector loop
     * does that for {@code FLOATS.length()} elements at once (the scalar segment loop ran 1.6x slower than
     * the f32 step, measured in thread CPU time for 512K elements). Per element it is the scalar
     * expression, so the bits are the same.
     */
    public static void stepBlockBf16(float[] w, int at, MemorySegment g, float scale, int len) {
        int lanes = FLOATS.length();
        int i = 0;
        if (HALVES.length() == lanes) {
            for (; i <= len - lanes; i += lanes) {
                FloatVector gi = ((IntVector) ShortVector.fromMemorySegment(HALVES, g, 2L * i, ByteOrder.nativeOrder())
                        .convertShape(VectorOperators.S2I, WIDE, 0))
                        .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
                FloatVector.fromArray(FLOATS, w, at + i).sub(gi.mul(scale)).intoArray(w, at + i);
            }
        }
        for (; i < len; i++) {
            w[at + i] -= scale * Float.intBitsToFloat(g.getAtIndex(ValueLayout.JAVA_SHORT, i) << 16);
        }
    }
}
