package io.coll4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code collbench plot A.csv [B.csv ...] --output FILE.png}: the latency and bandwidth charts of {@link Plot} over
 * one or several CSV files (collbench's {@code --format csv}, or scripts/ompi's reference run, which prints the same
 * header), one series per algorithm label and file.
 */
@Command(name = "plot", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        description = "Draw latency (log-log) and busbw against size from collbench CSV files (--format csv), overlaid: "
                + "e.g. coll4j against the Open MPI reference of scripts/ompi/run.")
final class PlotCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE.csv", description = "CSV files with collbench's header")
    List<Path> files;

    @Option(names = "--output", paramLabel = "FILE.png", defaultValue = "collbench.png",
            description = "the PNG to write (default ${DEFAULT-VALUE})")
    Path output;

    @Option(names = "--title", paramLabel = "TEXT", description = "chart title (default: the files' names)")
    String title;

    @Override
    public Integer call() throws IOException {
        if (!output.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
            throw new IllegalArgumentException("--output " + output + ": the file name must end in .png");
        }
        for (Path f : files) {
            if (!java.nio.file.Files.isReadable(f)) {
                throw new IllegalArgumentException("cannot read " + f);
            }
        }
        Resources.writableFile("--output", output);
        Plot.draw(output, Plot.readCsv(files), title != null ? title
                : "collbench plot " + String.join(" ", files.stream().map(p -> p.getFileName().toString()).toList()));
        spec.commandLine().getErr().println("plot: wrote " + output);
        return 0;
    }
}
