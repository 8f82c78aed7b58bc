package io.coll4j.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every size a user can type into examples/run is bounded up front: an absurd one is a usage error (exit 2)
 * with one line naming it, within seconds and before the input is generated — not an OutOfMemoryError from the
 * rank threads, a stack trace from the team or EJML (issue 30, defect 8).
 */
class BoundedInputTest {
    static final long SECONDS = 10;

    private record Case(String expected, String... args) {
    }

    private static List<String> withCommon(String workload, String... small) {
        List<String> a = new ArrayList<>(List.of(workload));
        a.addAll(List.of(small));
        return a;
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void absurdValuesAreOneLineUsageErrorsWithinSeconds() {
        // a small problem per workload, so only the absurd value can make a run long
        String[][] small = {
                {"summa", "-n", "16", "--panel", "8"},
                {"kmeans", "--points", "100", "--clusters", "4"},
                {"cg", "-n", "8"},
                {"sgd", "--features", "1000", "--nnz", "4", "--batch", "4", "--steps", "10"},
        };
        List<Case> cases = new ArrayList<>();
        for (String[] w : small) {
            List<String> base = withCommon(w[0], java.util.Arrays.copyOfRange(w, 1, w.length));
            cases.add(of("--threads 100000000 is more than", base, "-t", "100000000"));
            cases.add(of("--repeat must be at most", base, "-r", "2000000000"));
            cases.add(of("PU P#5000 is not in the topology", base, "--placement", "5000,5001"));
            cases.add(of("names at least 2000000001 PUs", base, "--placement", "0-2000000000"));
        }
        cases.add(new Case("needs about", "summa", "-n", "46340"));
        cases.add(new Case("is smaller than the 1x2 grid", "summa", "-n", "1", "-t", "2"));
        cases.add(new Case("is smaller than the 1x3 grid", "summa", "-n", "2", "-t", "3"));
        cases.add(new Case("is smaller than the 2x4 grid", "summa", "-n", "3", "-t", "8"));
        cases.add(new Case("needs about", "kmeans", "--points", "200000000", "--dims", "10"));
        cases.add(new Case("--iterations must be at most", "kmeans", "--points", "100", "--clusters", "4", "--iterations", "2000000000"));
        cases.add(new Case("needs about", "cg", "-n", "1290"));
        cases.add(new Case("--max-iter must be at most", "cg", "-n", "8", "--max-iter", "2000000000"));
        cases.add(new Case("needs about", "sgd", "--features", "2000000000"));
        cases.add(new Case("needs about", "sgd", "--features", "1000", "--nnz", "1000", "--batch", "1000", "--steps", "1000"));
        List<String> failures = new ArrayList<>();
        for (Case c : cases) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cl = new CommandLine(new Examples());
            cl.setOut(new PrintWriter(out, true));
            cl.setErr(new PrintWriter(err, true));
            long start = System.nanoTime();
            int code = cl.execute(c.args());
            long ms = (System.nanoTime() - start) / 1_000_000;
            String first = err.toString().lines().findFirst().orElse("");
            if (code != 2 || !first.contains(c.expected()) || err.toString().contains("\tat ") || !out.toString().isEmpty()
                    || ms > SECONDS * 1000) {
                failures.add(String.join(" ", c.args()) + " -> exit " + code + " in " + ms + " ms: " + err);
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + cases.size() + " cases:\n" + String.join("\n", failures));
    }

    private static Case of(String expected, List<String> base, String... extra) {
        List<String> a = new ArrayList<>(base);
        a.addAll(List.of(extra));
        return new Case(expected, a.toArray(String[]::new));
    }

    @Test
    void summaRunsOnTheSmallestMatrixItsGridAllows() {
        CommandLine cl = new CommandLine(new Examples());
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute("summa", "-n", "4", "-t", "8", "-r", "1", "--no-warmup", "--placement", "none");
        assertTrue(code == 0, err.toString());
    }
}
