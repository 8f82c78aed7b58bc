/**
 * coll4j's element-wise reductions: {@code DType}, {@code Op}, {@code UserOp}, {@code Reducer} and
 * {@code Averages}. Needs {@code jdk.incubator.vector} (an incubator module: {@code --add-modules
 * jdk.incubator.vector} on the class path; resolved through this {@code requires} on the module path).
 *
 * <p>Exported: {@code io.coll4j.reductions} (the API). The kernels ({@code Reducers}, the Vector API and
 * scalar reducers, {@code HeapArrayFold}, {@code ScalarReference}) live in {@code io.coll4j.reductions.internal},
 * exported only to the kernel and to coll4j's CLI and JMH suites (the latter two run from the class path,
 * where the qualified export is not needed; it documents who may use them).
 */
module io.coll4j.reductions {
    requires jdk.incubator.vector;

    exports io.coll4j.reductions;

    exports io.coll4j.reductions.internal to io.coll4j, io.coll4j.cli, io.coll4j.jmh;
}
