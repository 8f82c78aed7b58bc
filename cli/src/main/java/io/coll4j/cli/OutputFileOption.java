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

    /** A writer on {@code --output}, or {@code stdout}; close it with {@link #close} (which leaves stdout open). */
    PrintWriter open(PrintWriter stdout) throws IOException {
        return file == null ? stdout : new PrintWriter(Files.newBufferedWriter(file), true);
    }

    /** Closes {@code out} if it is the {@code --output} file, else flushes it. */
    void close(PrintWriter out) {
        if (file != null) {
            out.close();
        } else {
            out.flush();
        }
    }
}
