package io.coll4j.cli;

import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code --output FILE}: where rows go instead of standard output (a picocli mixin). */
final class OutputFileOption {
    @Option(names = "--output", paramLabel = "FILE", description = "write the rows to FILE instead of standard output")
    Path file;

    /** True when {@link #open} created the file (so a failed run removes it again). */
    private boolean created;

    /** Refuses an {@code --output} that cannot be written, before anything is measured. */
    void checkWritable() {
        if (file != null) {
            Resources.writableFile("--output", file);
        }
    }

    /** A writer on {@code --output}, or {@code stdout}; close it with {@link #close} (which leaves stdout open). */
    PrintWriter open(PrintWriter stdout) throws IOException {
        if (file == null) {
            return stdout;
        }
        created = !Files.exists(file);
        return new PrintWriter(Files.newBufferedWriter(file), true);
    }

    /** Closes {@code out} if it is the {@code --output} file, else flushes it. */
    void close(PrintWriter out) {
        if (file != null) {
            out.close();
        } else {
            out.flush();
        }
    }

    /**
     * Closes {@code out} like {@link #close(PrintWriter)}; if the run did not {@code complete} or the file
     * could not be written (PrintWriter swallows write errors: a full disk, /dev/full), a file this run
     * created is removed (no partial file is left behind) and a write error is reported.
     */
    void close(PrintWriter out, boolean complete) throws IOException {
        close(out);
        if (file == null) {
            return;
        }
        boolean failed = out.checkError();
        if ((failed || !complete) && created) {
            Files.deleteIfExists(file);
        }
        if (failed && complete) {
            throw new IOException("could not write " + file);
        }
    }
}
