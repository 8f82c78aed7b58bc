package io.coll4j.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code --processes N}: process 0 (the one the user started) starts processes 1 .. N-1 itself — the same java, JVM
 * flags and jar, the same arguments plus {@code --process-child INDEX:JOB} — and each builds its team with
 * {@code processes(N, index).name(JOB)}. Only process 0 prints (the others' standard output is discarded, their errors
 * shown); options that write files (--output, --plot, --jfr) stay with process 0.
 */
final class ProcessChildren {
    /** Options with a value that only process 0 acts on. */
    private static final List<String> PARENT_ONLY = List.of("--output", "--plot", "--jfr", "--process-child");
    /** How long process 0 waits for the others once its own run is over (they end with its last collective). */
    private static final long FINISH_SECONDS = 30;

    private final List<Process> children = new ArrayList<>();
    private final List<Integer> failed = new ArrayList<>();

    private ProcessChildren() {
    }

    /**
     * Runs a command's body; as process 0 of a --processes run, with the other processes started before it and waited
     * for after it (also when it throws), a failed one turning a clean exit code into 1.
     */
    static int run(RunOptions.Spanning spanning, CommandLine.Model.CommandSpec spec, Callable<Integer> body) throws Exception {
        ProcessChildren children = start(spanning, spec);
        int rc;
        try {
            rc = body.call();
        } finally {
            if (children != null) {
                children.finish(spec.commandLine().getErr());
            }
        }
        return rc == 0 && children != null && !children.failed.isEmpty() ? 1 : rc;
    }

    /** Starts the other processes when this is process 0 of a --processes run; null otherwise. */
    private static ProcessChildren start(RunOptions.Spanning spanning, CommandLine.Model.CommandSpec spec) throws java.io.IOException {
        if (spanning == null || spanning.index() != 0) {
            return null;
        }
        List<String> base = new ArrayList<>();
        base.add(ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        base.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        String cp = System.getProperty("java.class.path");
        if (isCollbenchJar(cp)) {
            base.addAll(List.of("-jar", cp));   // as the script starts it (the manifest enables native access)
        } else {
            base.addAll(List.of("-cp", cp, CollBench.class.getName()));
        }
        base.addAll(childArgs(spec.commandLine().getParseResult().originalArgs()));
        ProcessChildren c = new ProcessChildren();
        for (int i = 1; i < spanning.n(); i++) {
            List<String> cmd = new ArrayList<>(base);
            cmd.addAll(List.of("--process-child", i + ":" + spanning.job()));
            c.children.add(new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start());
        }
        return c;
    }

    /** Whether the class path is collbench's own jar (Main-Class CollBench), not e.g. a test runner's manifest-only jar. */
    private static boolean isCollbenchJar(String cp) {
        if (!cp.endsWith(".jar") || cp.contains(java.io.File.pathSeparator)) {
            return false;
        }
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(cp)) {
            java.util.jar.Manifest m = jar.getManifest();
            return m != null && CollBench.class.getName().equals(m.getMainAttributes().getValue("Main-Class"));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** The arguments without the file-writing options (and their values). */
    static List<String> childArgs(List<String> args) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
            if (PARENT_ONLY.contains(name)) {
                if (!a.contains("=")) {
                    i++;   // its value
                }
                continue;
            }
            out.add(a);
        }
        return out;
    }

    /** Waits for the other processes (bounded; a straggler is killed) and reports the ones that failed. */
    private void finish(PrintWriter err) throws InterruptedException {
        for (int i = 0; i < children.size(); i++) {
            Process p = children.get(i);
            if (!p.waitFor(FINISH_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                err.println("collbench: process " + (i + 1) + " still ran " + FINISH_SECONDS + " s after process 0 ended: killed");
                failed.add(i + 1);
            } else if (p.exitValue() != 0) {
                err.println("collbench: process " + (i + 1) + " exited with " + p.exitValue());
                failed.add(i + 1);
            }
        }
        err.flush();
    }
}
