/**
 * coll4j's element-wise reductions: {@code DType}, {@code Op} and the Vector API kernels with their
 * scalar reference. Needs {@code jdk.incubator.vector} (an incubator module: {@code --add-modules
 * jdk.incubator.vector} on the class path; resolved through this {@code requires} on the module path).
 */
module io.coll4j.reductions {
    requires jdk.incubator.vector;

    exports io.coll4j.reductions;
}
