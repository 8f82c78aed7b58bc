package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

/**
 * What {@link Reducers} needs from an implementation family. The vector family
 * ({@link VectorReducers}) is reached only through this interface and loaded by name, so nothing
 * outside it links against {@code jdk.incubator.vector}.
 */
interface ReducerFactory {

    /** A new reducer for a supported (dtype, op) pair; callers cache it. */
    Reducer create(DType dtype, Op op);

    /**
     * A new array pass for (dtype, op) ({@link HeapArrayFold}), or null when the dtype's elements are not
     * lanes of one species (the half and pair types); callers cache it.
     */
    ArrayPass arrayPass(DType dtype, Op op);

    /** One line for {@link Reducers#implementation()}, e.g. {@code vector (Vector API, 512-bit species)}. */
    String describe();
}
