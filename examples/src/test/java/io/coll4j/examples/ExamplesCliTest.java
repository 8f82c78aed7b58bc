package io.coll4j.examples;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launcher's output formats and errors. */
class ExamplesCliTest {
    private record Run(int code, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new Examples());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void csvHasTheFixedHeaderAndOneRowPerImplementation() {
        Run r = run("cg", "-n", "8", "-r", "1", "--format", "csv");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals("workload,impl,threads,problem,time_s,comm_s,check", lines[0]);
        assertEquals(6, lines.length, r.out());
        assertTrue(lines[1].startsWith("cg,coll4j,2,"), lines[1]);
        assertTrue(lines[2].startsWith("cg,coll4j-halo,2,"), lines[2]);
        assertTrue(lines[5].startsWith("cg,single,1,"), lines[5]);
        for (int i = 1; i < lines.length; i++) {
            assertTrue(lines[i].endsWith(",ok"), lines[i]);
        }
    }

    @Test
    void jsonIsOneObjectPerImplementation() {
        Run r = run("sgd", "--features", "1000", "--nnz", "4", "--batch", "4", "--steps", "20", "-r", "1", "--format", "json",
                "-i", "coll4j,single");
        assertEquals(0, r.code(), r.err());
        String[] lines = r.out().strip().split("\n");
        assertEquals(2, lines.length, r.out());
        assertTrue(lines[0].startsWith("{\"workload\":\"sgd\",\"impl\":\"coll4j\",\"threads\":2,"), lines[0]);
        assertTrue(lines[1].contains("\"comm_s\":null") && lines[1].contains("\"check\":\"ok\""), lines[1]);
    }

    @Test
    void tableNamesEveryImplementation() {
        Run r = run("summa", "-n", "32", "--panel", "8");
        assertEquals(0, r.code(), r.err());
        for (String impl : new String[]{"coll4j", "ejml-mt", "single"}) {
            assertTrue(r.out().contains("\n" + impl + " "), r.out());
        }
    }

    @Test
    void badOptionsAreUsageErrorsNamingTheOption() {
        Run r = run("kmeans", "--clusters", "0", "--points", "10");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("--clusters"), r.err());
        Run bad = run("cg", "-i", "smile");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("--impl"), bad.err());
        Run fmt = run("cg", "--format", "xml");
        assertEquals(2, fmt.code());
        assertTrue(fmt.err().contains("--format"), fmt.err());
    }
}
