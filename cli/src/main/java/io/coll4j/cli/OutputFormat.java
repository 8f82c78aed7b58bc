package io.coll4j.cli;

/** {@code --format table|csv|json}. */
public enum OutputFormat {
    TABLE, CSV, JSON;

    /** The format named {@code text} (any case). @throws IllegalArgumentException naming {@code --format} */
    static OutputFormat parse(String text) {
        for (OutputFormat o : values()) {
            if (o.name().equalsIgnoreCase(text.strip())) {
                return o;
            }
        }
        throw new IllegalArgumentException("--format: unknown format '" + text + "' (expected table, csv or json)");
    }
}
