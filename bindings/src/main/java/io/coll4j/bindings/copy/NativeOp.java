package io.coll4j.bindings.copy;

/**
 * Reduction operators of the native kernels (reduce.c), with the code the C side switches on. Declared
 * in the order of {@code io.coll4j.reductions.Op}; the kernel maps one to the other by name.
 */
public enum NativeOp {
    SUM(NativeReduce.SUM), PROD(NativeReduce.PROD), MIN(NativeReduce.MIN), MAX(NativeReduce.MAX),
    BAND(NativeReduce.BAND), BOR(NativeReduce.BOR), BXOR(NativeReduce.BXOR);

    private final int code;

    NativeOp(int code) {
        this.code = code;
    }

    /** The op code of reduce.c. */
    public int code() {
        return code;
    }

    /** True for the bitwise operators (integer types only). */
    public boolean bitwise() {
        return this == BAND || this == BOR || this == BXOR;
    }
}
