package io.coll4j.cli;

import picocli.CommandLine.Option;

/** {@code --format}, declared and parsed here once for every subcommand that prints rows or a tree (a picocli mixin). */
final class FormatOption {
    @Option(names = "--format", paramLabel = "FMT", defaultValue = "table",
            description = "table|csv|json (default ${DEFAULT-VALUE}); json is JSON Lines for rows: a header object, then one "
                    + "object per row (topo: table|json)")
    String text;

    /** The parsed format. @throws IllegalArgumentException naming {@code --format} for an unknown one */
    OutputFormat format() {
        return OutputFormat.parse(text);
    }
}
