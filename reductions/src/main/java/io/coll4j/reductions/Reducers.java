package io.coll4j.reductions;

/**
 * Kept only for {@code io.coll4j.Rank}, which still imports it while another change edits that class:
 * reducers come from {@link Reducer#of(DType, Op)}, and the implementation is internal
 * ({@code io.coll4j.reductions.internal.Reducers}). To be deleted once Rank imports the internal class.
 *
 * @deprecated use {@link Reducer#of(DType, Op)}
 */
@Deprecated(forRemoval = true)
public final class Reducers {

    private Reducers() {
    }

    /** {@link Reducer#of(DType, Op)}. */
    public static Reducer of(DType dtype, Op op) {
        return Reducer.of(dtype, op);
    }
}
