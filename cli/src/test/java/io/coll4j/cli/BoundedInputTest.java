package io.coll4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every size a user can type into collbench is bounded up front: an absurd one is a usage error (exit 2) with
 * one line naming it, in seconds — not an OutOfMemoryError, minutes inside hwloc, or a created directory
 * (issue 30, defect 8).
 */
class BoundedInputTest {
    /** What one refused command may take, start to end: it must not reach hwloc, a range expansion or a run. */
    static final long SECONDS = 10;

    @TempDir
    Path dir;

    private record Case(String expected, String... args) {
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void absurdValuesAreOneLineUsageErrorsWithinSeconds() {
        String hugeSynthetic = "synthetic:package:100000 pu:100000";
        String bigSynthetic = "synthetic:package:1000 pu:1000";
        String hugeRange = "0-2000000000";
        String absentPu = "5000";
        String hugeLong = "99999999999";
        List<Case> cases = new ArrayList<>();
        for (String c : new String[]{"allreduce", "bcast", "barrier"}) {
            cases.add(new Case("--threads 100000000 is more than", c, "-t", "100000000"));
            cases.add(new Case("--iterations " + hugeLong + " is more than", c, "-t", "2", "-i", hugeLong));
            cases.add(new Case("--warmup " + hugeLong + " is more than", c, "-t", "2", "-x", hugeLong));
            cases.add(new Case("--timeout " + hugeLong + " is more than", c, "-t", "2", "--timeout", hugeLong));
            cases.add(new Case("names at least 2000000001 PUs", c, "-t", "2", "--bind", hugeRange));
            cases.add(new Case("P#" + absentPu + " is not in the topology", c, "-t", "2", "--bind", absentPu, "-i", "1"));
            cases.add(new Case("has 10000000000 PUs", c, "--topology", hugeSynthetic));
            cases.add(new Case("has 1000000 PUs", c, "--topology", bigSynthetic));
        }
        cases.add(new Case("needs", "allreduce", "-t", "2", "-m", "1024G"));
        cases.add(new Case("--threads 100000000 is more than", "explain", "allreduce", "-t", "100000000"));
        cases.add(new Case("--iterations " + hugeLong + " is more than", "explain", "allreduce", "-t", "2", "-i", hugeLong));
        cases.add(new Case("names at least 2000000001 PUs", "explain", "allreduce", "-t", "2", "--bind", hugeRange));
        cases.add(new Case("has 1000000 PUs", "explain", "allreduce", "--topology", bigSynthetic));
        cases.add(new Case("needs", "explain", "allreduce", "-t", "2", "-m", "1024G", "--measure", "--no-calibrate"));
        cases.add(new Case("does not exist", "explain", "allreduce", "-t", "2", "--measure", "--save-profile",
                dir.resolve("missing/f.json").toString()));
        cases.add(new Case("--threads 100000000 is more than", "copy", "-t", "100000000"));
        cases.add(new Case("--iterations must be in", "copy", "-i", hugeLong));
        cases.add(new Case("needs", "copy", "--impl", "nontemporal", "-m", "1024G"));
        cases.add(new Case("names at least 2000000001 PUs", "copy", "--bind", hugeRange));
        cases.add(new Case("has 1000000 PUs", "copy", "--topology", bigSynthetic));
        cases.add(new Case("--threads 100000000 is more than", "topo", "-t", "100000000"));
        cases.add(new Case("names at least 2000000001 PUs", "topo", "--bind", hugeRange));
        cases.add(new Case("P#" + absentPu + " is not in the topology", "topo", "--bind", absentPu));
        cases.add(new Case("has 10000000000 PUs", "topo", "--topology", hugeSynthetic));
        cases.add(new Case("has 1000000 PUs", "topo", "--topology", bigSynthetic));
        cases.add(new Case("does not exist", "tune", "--output", dir.resolve("missing/p.json").toString()));
        cases.add(new Case("--repeat 2000000000 is more than", "tune", "--repeat", "2000000000", "--output", dir.resolve("p.json").toString()));
        cases.add(new Case("has 1000000 PUs", "tune", "--topology", bigSynthetic, "--output", dir.resolve("p.json").toString()));
        cases.add(new Case("--threads 100000000 is more than", "chain", "-t", "100000000"));
        cases.add(new Case("needs", "chain", "-t", "2", "-m", "1024G"));
        cases.add(new Case("--repetitions 2000000000 is more than", "chain", "-t", "2", "-m", "1K", "-n", "2000000000"));
        cases.add(new Case("--chunks 2000000000 is more than", "chain", "-t", "2", "-m", "1K", "--chunks", "2000000000"));
        cases.add(new Case("--threads 100000000 is more than", "split", "-t", "100000000"));
        cases.add(new Case("--iterations 2000000000 is more than", "split", "-t", "2", "-i", "2000000000"));
        cases.add(new Case("--repetitions 2000000000 is more than", "split", "-t", "2", "-n", "2000000000"));
        List<String> failures = new ArrayList<>();
        for (Case c : cases) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            long start = System.nanoTime();
            int code = CollBench.run(new PrintWriter(out), new PrintWriter(err), c.args());
            long ms = (System.nanoTime() - start) / 1_000_000;
            String what = String.join(" ", c.args()) + " -> exit " + code + " in " + ms + " ms: " + err;
            String first = err.toString().lines().findFirst().orElse("");
            if (code != Errors.USAGE || !first.startsWith("collbench") || !first.contains(c.expected())
                    || err.toString().contains("\tat ") || ms > SECONDS * 1000) {
                failures.add(what);
            }
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + cases.size() + " cases:\n" + String.join("\n", failures));
        assertFalse(Files.exists(dir.resolve("missing")), "tune -o or explain --save-profile created the missing directory");
    }

    @Test
    void theLimitsThemselvesAreAccepted() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = CollBench.run(new PrintWriter(out), new PrintWriter(err), "topo", "--topology",
                "synthetic:pack:2 core:16 pu:2", "--bind", "0-3");
        assertEquals(0, code, err.toString());
    }
}
