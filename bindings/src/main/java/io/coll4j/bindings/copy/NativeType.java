package io.coll4j.bindings.copy;

/**
 * Element types of the native kernels (reduce.c): the code the C side switches on and the element
 * size. Declared in the order of {@code io.coll4j.reductions.DType} (this module does not depend on it;
 * the kernel maps one to the other by name).
 */
public enum NativeType {
    F32(NativeReduce.F32, 4), F64(NativeReduce.F64, 8), I32(NativeReduce.I32, 4), I64(NativeReduce.I64, 8);

    private final int code;
    private final int size;

    NativeType(int code, int size) {
        this.code = code;
        this.size = size;
    }

    /** The dtype code of reduce.c. */
    public int code() {
        return code;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    /** True for the floating-point types (no bitwise ops). */
    public boolean floating() {
        return this == F32 || this == F64;
    }
}
