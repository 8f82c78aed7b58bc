package io.coll4j.reductions.internal;

import io.coll4j.reductions.DType;
import io.coll4j.reductions.Op;
import io.coll4j.reductions.Reducer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * The scalar fallback, run by the extra surefire executions of this module's pom, each in its own JVM:
 * without {@code --add-modules jdk.incubator.vector}, with {@value Reducers#DISABLE_PROPERTY}{@code =true},
 * and with an unusable {@value Reducers#BITS_PROPERTY}. Each sets {@code coll4j.test.fallbackReason} to a
 * fragment of the reason {@link Reducers} must give; in the default execution the test is skipped.
 *
 * <p>This class must not touch any class that links against {@code jdk.incubator.vector}: without the
 * module, that is the point. The warning goes through {@link System.Logger}; its default backend
 * (java.util.logging's console handler) writes it to {@code System.err}, where the test captures it.
 */
class ReducersFallbackTest {

    private static final String REASON_PROPERTY = "coll4j.test.fallbackReason";

    @Test
    void ofFallsBackToScalarWithOneWarningNamingTheReason() {
        String reason = System.getProperty(REASON_PROPERTY);
        assumeTrue(reason != null, "runs only in the fallback executions");
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        Reducer f64;
        try {
            f64 = Reducers.of(DType.F64, Op.SUM);
            Reducers.of(DType.I32, Op.BXOR);
            Reducers.of(DType.F64, Op.SUM);
        } finally {
            System.setErr(err);
        }
        String warning = captured.toString(StandardCharsets.UTF_8);
        // logged once through System.Logger (the JDK's default backend writes to System.err, a header line and the message)
        assertEquals(1, warning.lines().filter(l -> l.contains("coll4j: reductions use the scalar implementation")).count(),
                () -> "expected the warning once, got: " + warning);
        assertTrue(warning.contains(reason), () -> "warning should name the reason '" + reason + "': " + warning);

        assertSame(Reducers.scalar(DType.F64, Op.SUM), f64);
        assertTrue(Reducers.implementation().startsWith("scalar (") && Reducers.implementation().contains(reason),
                Reducers::implementation);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Reducers.vector(DType.F64, Op.SUM));
        assertTrue(e.getMessage().contains(reason), e.getMessage());

        MemorySegment d = MemorySegment.ofArray(new double[3]);
        f64.reduce(d, 0, MemorySegment.ofArray(new double[] {1, 2, 3}), 0, MemorySegment.ofArray(new double[] {4, 5, 6}), 0, 3);
        assertEquals(9.0, d.getAtIndex(ValueLayout.JAVA_DOUBLE, 2));
    }
}
