package io.coll4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** One in-process {@code collbench} run, as the CLI tests make it: exit code, standard output, standard error. */
record CliRun(int code, String out, String err) {

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = CollBench.run(new PrintWriter(out), new PrintWriter(err), args);
        return new CliRun(code, out.toString(), err.toString());
    }
}
