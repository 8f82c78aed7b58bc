package io.coll4j.examples;

import org.ejml.data.DMatrixRMaj;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every workload at a small size: each implementation against the single-thread result. */
class WorkloadsTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void conjugateGradientMatchesSingleThread(int threads) throws Exception {
        int n = 13;   // not divisible by 2 or 3: uneven slabs
        ConjugateGradient cg = new ConjugateGradient(n, 1e-9, 1000, threads, 3);
        double[] b = ConjugateGradient.rhs(n, 3);
        ConjugateGradient.Result ref = cg.solve(Outcome.SINGLE, b);
        assertTrue(cg.trueResidual(ref, b) < 1e-8, "single converged");
        for (String impl : new String[]{Outcome.COLL4J, Outcome.COLL4J_HALO, Outcome.CYCLIC_BARRIER, Outcome.STREAMS}) {
            ConjugateGradient.Result r = cg.solve(impl, b);
            assertTrue(cg.check(r, ref, cg.trueResidual(r, b)), impl + ": " + r.iterations() + " vs " + ref.iterations() + " iterations");
            assertClose(ref.x(), r.x(), 1e-7, impl);
        }
        // the exchanged ghost is the neighbour's p, the computed one the same expression: the same solve, bitwise
        assertArrayEquals(cg.solve(Outcome.COLL4J, b).x(), cg.solve(Outcome.COLL4J_HALO, b).x());
    }

    @ParameterizedTest
    // planes of 17 x 17 and 18 x 18 doubles (2312 and 2592 bytes) exceed the 2 KiB eager limit: the halo goes by
    // rendezvous, whose sends complete only when the neighbour has copied the plane (the form's awaitSends)
    @CsvSource({"17, 2", "17, 3", "17, 5", "18, 8"})
    void haloByRendezvousIsTheSharedSolveBitwise(int n, int threads) throws Exception {
        ConjugateGradient cg = new ConjugateGradient(n, 1e-9, 1000, threads, 7);
        double[] b = ConjugateGradient.rhs(n, 7);
        ConjugateGradient.Result shared = cg.solve(Outcome.COLL4J, b);
        ConjugateGradient.Result halo = cg.solve(Outcome.COLL4J_HALO, b);
        assertEquals(shared.iterations(), halo.iterations());
        assertArrayEquals(shared.x(), halo.x());
    }

    @ParameterizedTest
    // slabs of 0, 1 and 1 planes; of 1, 2 and 2; of 2 and 2 (edge planes that are the slab's only plane, or
    // both of its planes, live in the edge buffers)
    @CsvSource({"2, 3", "5, 3", "4, 2"})
    void conjugateGradientOnSlabsOfFewPlanes(int n, int threads) throws Exception {
        ConjugateGradient cg = new ConjugateGradient(n, 1e-9, 100, threads, 5);
        double[] b = ConjugateGradient.rhs(n, 5);
        ConjugateGradient.Result ref = cg.solve(Outcome.SINGLE, b);
        for (String impl : new String[]{Outcome.COLL4J, Outcome.COLL4J_HALO, Outcome.CYCLIC_BARRIER}) {
            assertClose(ref.x(), cg.solve(impl, b).x(), 1e-9, impl);
        }
    }

    @ParameterizedTest
    @CsvSource({"2, f32", "3, f32", "2, bf16", "3, bf16"})
    void sgdMatchesSingleThread(int threads, String grad) throws Exception {
        // 5000 features: at p = 3 the weights are padded to 5001 (blocks of 1667)
        Sgd sgd = new Sgd(5000, 8, 8, 150, 2f, threads, 4, grad);
        sgd.generate();
        Sgd.Result ref = sgd.train(Outcome.SINGLE);
        double refAccuracy = sgd.accuracy(ref.w());
        assertTrue(refAccuracy > 0.6, "the model learns: accuracy " + refAccuracy);
        // f32 gradients differ from single's only in the order of the sums; bf16 rounds each rank's
        // gradient and the sum to 8 significant bits (relative 2^-9 each), and the steps carry that on
        float bound = grad.equals("f32") ? 1e-3f : 4e-3f;   // bf16 measured: 0.8e-3 to 1.0e-3
        for (String impl : new String[]{Outcome.COLL4J, Outcome.CYCLIC_BARRIER}) {
            Sgd.Result r = sgd.train(impl);
            assertEquals(refAccuracy, sgd.accuracy(r.w()), Sgd.ACCURACY_TOLERANCE, impl);
            float maxDiff = 0;
            for (int i = 0; i < ref.w().length; i++) {
                maxDiff = Math.max(maxDiff, Math.abs(ref.w()[i] - r.w()[i]));
            }
            System.out.printf("sgd p=%d %s %s: max weight difference %.2e%n", threads, grad, impl, maxDiff);
            assertTrue(maxDiff < bound, impl + " (" + grad + "): weights differ by " + maxDiff);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4})   // 1x2, 1x3 and 2x2 grids (4 ranks oversubscribe 2 cores)
    void summaMatchesSingleThread(int threads) throws Exception {
        Summa s = new Summa(67, 16, threads, 8);
        s.generate();
        DMatrixRMaj ref = s.multiply(Outcome.SINGLE).c();
        assertTrue(s.check(ref), "Freivalds accepts the reference");
        for (String impl : new String[]{Outcome.COLL4J, Outcome.EJML_MT}) {
            DMatrixRMaj c = s.multiply(impl).c();
            assertTrue(s.check(c), impl);
            assertClose(ref.data, c.data, 1e-12, impl);
        }
    }

    @Test
    void freivaldsRejectsAWrongProduct() throws Exception {
        Summa s = new Summa(40, 8, 2, 1);
        s.generate();
        DMatrixRMaj c = s.multiply(Outcome.COLL4J).c();
        c.set(17, 23, c.get(17, 23) + 1e-3);
        assertTrue(!s.check(c));
    }

    @Test
    void processGridIsAsSquareAsPAllows() {
        assertEquals(new ProcessGrid(1, 2), ProcessGrid.of(2));
        assertEquals(new ProcessGrid(2, 2), ProcessGrid.of(4));
        assertEquals(new ProcessGrid(2, 3), ProcessGrid.of(6));
        assertEquals(new ProcessGrid(1, 5), ProcessGrid.of(5));
        for (int n : new int[]{1, 7, 100}) {
            for (int parts = 1; parts <= Math.min(n, 7); parts++) {
                for (int k = 0; k < n; k++) {
                    int b = ProcessGrid.owner(n, parts, k);
                    assertTrue(ProcessGrid.start(n, parts, b) <= k && k < ProcessGrid.start(n, parts, b + 1));
                }
            }
        }
    }

    private static void assertClose(double[] want, double[] got, double tol, String what) {
        assertEquals(want.length, got.length, what);
        double scale = 0;
        for (double v : want) {
            scale = Math.max(scale, Math.abs(v));
        }
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], tol * Math.max(scale, 1), what + " [" + i + "]");
        }
    }
}
