package io.coll4j.examples;

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

    /** {@code w −= scale · g}, all features: the dense update every replica runs after the gradient allreduce. */
    public static void step(float[] w, float[] g, float scale, int from, int to) {
        for (int i = from; i < to; i++) {
            w[i] -= scale * g[i];
        }
    }
}
