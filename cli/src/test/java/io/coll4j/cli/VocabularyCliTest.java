package io.coll4j.cli;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every new collective's subcommand runs every algorithm validated against the scalar reference (-c) at
 * p = 3 (an uneven v-split, a root that is not rank 0), and its help says what {@code bytes} means.
 */
class VocabularyCliTest {
    @ParameterizedTest
    @ValueSource(strings = {"gather", "scatter", "gatherv", "scatterv", "allgatherv", "reduce-scatter-v", "alltoall",
            "alltoallv", "scan", "exscan"})
    void everyAlgorithmValidates(String collective) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = CollBench.run(new PrintWriter(out), new PrintWriter(err), collective, "-t", "3", "-m", "8:4K", "-a", "all",
                "-c", "-i", "20", "-x", "5", "-r", "1", "--format", "csv");
        assertEquals(0, code, err + "\n" + out);
        long rows = out.toString().lines().filter(l -> l.startsWith(collective + ",")).count();
        assertTrue(rows >= 3, out.toString());
        assertTrue(out.toString().lines().filter(l -> l.startsWith(collective + ",")).allMatch(l -> CliRun.checkedCsv(l)),
                out.toString());

        StringWriter help = new StringWriter();
        CollBench.run(new PrintWriter(help), new PrintWriter(new StringWriter()), collective, "-h");
        assertTrue(help.toString().contains("Bytes:"), help.toString());
    }
}
