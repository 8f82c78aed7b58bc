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

    /** The CSV contract's {@code valid} column (index 13 without --percentiles) and the last, {@code ip_valid}. */
    private static String[] validity(String csvLine) {
        String[] f = csvLine.split(",", -1);
        return new String[]{f[13], f[f.length - 1]};
    }

    /** A CSV row whose result was checked and right, out of place and (where measured) in place. */
    static boolean checkedCsv(String csvLine) {
        String[] v = validity(csvLine);
        return v[0].equals("true") && (v[1].isEmpty() || v[1].equals("true"));
    }

    /** A CSV row with a wrong result, out of place or in place. */
    static boolean wrongCsv(String csvLine) {
        String[] v = validity(csvLine);
        return v[0].equals("false") || v[1].equals("false");
    }
}
