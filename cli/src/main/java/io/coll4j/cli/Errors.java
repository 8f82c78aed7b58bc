package io.coll4j.cli;

import picocli.CommandLine;

/**
 * The CLI's error policy: usage errors (bad flags, and {@link IllegalArgumentException}s thrown while
 * interpreting them) print one line naming the problem plus the usage and exit 2; anything else
 * prints one line and exits 1. Stack traces only with {@code COLL4J_VERBOSE=1}.
 */
final class Errors {
    static final int VALIDATION_FAILED = 1;
    static final int USAGE = 2;

    private Errors() {
    }

    static int onParameterException(CommandLine.ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        cl.getErr().println(qualifiedName(cl) + ": " + ex.getMessage());
        cl.usage(cl.getErr());
        return USAGE;
    }

    static int onExecutionException(Exception ex, CommandLine cl, CommandLine.ParseResult parsed) {
        if (ex instanceof CommandLine.ParameterException pe) {
            return onParameterException(pe, parsed.originalArgs().toArray(String[]::new));
        }
        if (verbose()) {
            ex.printStackTrace(cl.getErr());
        }
        if (ex instanceof Resources.Refused) {
            cl.getErr().println(qualifiedName(cl) + ": " + ex.getMessage());
            return USAGE;
        }
        if (ex instanceof IllegalArgumentException) {
            cl.getErr().println(qualifiedName(cl) + ": " + ex.getMessage());
            cl.usage(cl.getErr());
            return USAGE;
        }
        cl.getErr().println(qualifiedName(cl) + ": error: " + describe(ex));
        return VALIDATION_FAILED;
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        String s = t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        return t.getCause() == null || t.getCause() == t ? s : s + " (cause: " + describe(t.getCause()) + ")";
    }

    private static String qualifiedName(CommandLine cl) {
        return cl.getCommandSpec().qualifiedName();
    }

    private static boolean verbose() {
        return "1".equals(System.getenv("COLL4J_VERBOSE")) || Boolean.getBoolean("coll4j.verbose");
    }
}
