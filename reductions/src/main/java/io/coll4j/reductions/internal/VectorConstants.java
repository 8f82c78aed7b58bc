package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;

import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector size, chosen once for the whole process (as Lucene's {@code PanamaVectorConstants}): the
 * platform's preferred shape, or the size forced by {@value Reducers#BITS_PROPERTY} (for tests, and to
 * compare sizes on one machine). Only loaded after {@link Reducers} found {@code jdk.incubator.vector}.
 */
final class VectorConstants {

    /** The widest vector the hardware runs natively (512 on AVX-512, 256 on AVX2, 128 on NEON/SSE). */
    static final int PREFERRED_BITS = VectorShape.preferredShape().vectorBitSize();

    /** Smallest vector worth using: below it the Vector API is emulated and slower than scalar code. */
    static final int MIN_BITS = 128;

    private VectorConstants() {
    }

    /**
     * The vector size in bits: {@value Reducers#BITS_PROPERTY} when set, else {@link #PREFERRED_BITS}.
     *
     * @throws UnsupportedOperationException with the reason when the property is not one of 128, 256,
     *         512 or exceeds what the hardware runs natively, or when the preferred size is below 128
     */
    static int bits() {
        String forced = System.getProperty(Reducers.BITS_PROPERTY);
        if (forced == null || forced.isBlank()) {
            if (PREFERRED_BITS < MIN_BITS) {
                throw new UnsupportedOperationException("the preferred vector size is only " + PREFERRED_BITS + " bits");
            }
            return PREFERRED_BITS;
        }
        int bits;
        try {
            bits = Integer.parseInt(forced.trim());
        } catch (NumberFormatException e) {
            throw new UnsupportedOperationException(Reducers.BITS_PROPERTY + "=" + forced + " is not a number (128, 256 or 512)");
        }
        checkBits(bits);
        return bits;
    }

    /** {@link UnsupportedOperationException} unless {@code bits} is 128, 256 or 512 and natively supported. */
    static void checkBits(int bits) {
        if (bits != 128 && bits != 256 && bits != 512) {
            throw new UnsupportedOperationException(Reducers.BITS_PROPERTY + "=" + bits + " is not one of 128, 256, 512");
        }
        if (bits > PREFERRED_BITS) {
            throw new UnsupportedOperationException(bits + "-bit vectors are wider than this CPU's " + PREFERRED_BITS
                    + "-bit registers (the Vector API would emulate them, slower than scalar code)");
        }
    }

    /** The species of {@code dtype} at {@code bits} bits. */
    static VectorSpecies<?> species(DType dtype, int bits) {
        return VectorSpecies.of(dtype.javaType(), VectorShape.forBitSize(bits));
    }
}
