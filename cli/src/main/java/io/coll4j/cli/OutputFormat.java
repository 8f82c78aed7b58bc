package io.coll4j.cli;

/** {@code --format table|csv|json}. */
public enum OutputFormat {
    TABLE, CSV, JSON
}
