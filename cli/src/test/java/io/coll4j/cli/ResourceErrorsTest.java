package io.coll4j.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Inputs that used to end in a stack trace, an OutOfMemoryError or a wrong exit: each is now exit 1 or 2
 * with a one-line error (the usage text may follow a usage error), before any output file is created.
 */
class ResourceErrorsTest {
    @TempDir
    Path dir;

    record Outcome(int code, String out, String err) {
    }

    static Outcome run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = CollBench.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Outcome(code, out.toString(), err.toString());
    }

    static void assertOneLineError(Outcome o, String... args) {
        String what = String.join(" ", args) + " -> exit " + o.code() + "\n" + o.err();
        assertTrue(o.code() == 1 || o.code() == 2, what);
        String first = o.err().lines().findFirst().orElse("");
        assertTrue(first.startsWith("collbench"), what);
        assertFalse(o.err().contains("\tat ") || o.err().contains("Exception in thread"), "stack trace: " + what);
        assertFalse(o.err().contains("OutOfMemoryError") || o.err().contains("StackOverflowError"), what);
    }

    @Test
    void requestsTheMachineCannotMeetAreOneLineAndLeaveNoFile() throws Exception {
        Path out = dir.resolve("rows.csv");
        List<String[]> cases = new ArrayList<>();
        cases.add(new String[]{"allreduce", "-m", "64G", "-t", "2", "-i", "1", "--output", out.toString()});
        cases.add(new String[]{"allreduce", "-m", "8", "-t", "100000", "-i", "1", "--output", out.toString()});
        cases.add(new String[]{"allreduce", "-m", "8", "-t", "2", "-i", "2147483647", "--percentiles", "50", "--output", out.toString()});
        cases.add(new String[]{"allreduce", "-m", "8", "-t", "2", "-i", "3000000000", "--percentiles", "50", "--output", out.toString()});
        cases.add(new String[]{"allreduce", "-m", "8", "-t", "2", "-i", "1", "--plot", dir.resolve("missing/dir/p.png").toString()});
        cases.add(new String[]{"allreduce", "-m", "8", "-t", "2", "-i", "1", "--output", dir.resolve("missing/rows.csv").toString()});
        Path notADir = Files.writeString(dir.resolve("file"), "x");
        cases.add(new String[]{"tune", "--output", notADir.resolve("profile.json").toString()});
        StringBuilder deep = new StringBuilder();
        deep.append("[".repeat(100_000)).append("]".repeat(100_000));
        Path profile = Files.writeString(dir.resolve("deep.json"), deep.toString());
        cases.add(new String[]{"allreduce", "-m", "8", "-t", "2", "-i", "1", "--profile", profile.toString(), "--output", out.toString()});
        for (String[] args : cases) {
            Outcome o = run(args);
            assertOneLineError(o, args);
            assertFalse(Files.exists(out), "left " + out + " behind: " + String.join(" ", args));
        }
    }

    @Test
    void anUnwritableOutputIsAnErrorNotASilentSuccess() {
        Path full = Path.of("/dev/full");
        if (!Files.exists(full)) {
            return;
        }
        Outcome o = run("barrier", "-t", "2", "-i", "10", "-x", "0", "--output", full.toString());
        assertOneLineError(o, "--output", "/dev/full");
        assertTrue(Files.exists(full), "/dev/full is not removed");
    }
}
