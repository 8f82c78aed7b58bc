package io.coll4j.examples;

/** {@code --format table|csv|json}. */
public enum OutputFormat {
    TABLE, CSV, JSON
}
