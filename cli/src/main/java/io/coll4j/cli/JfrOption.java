package io.coll4j.cli;

import jdk.jfr.Recording;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code --jfr FILE}: records coll4j's JFR events (one per collective call with the rank that arrived last,
 * per request, per team) for the whole run into FILE, for {@code jfr print --events io.coll4j.CollectiveCall
 * FILE} or JDK Mission Control (a picocli mixin). The events cost nothing while no recording enables them.
 */
final class JfrOption {
    @Option(names = "--jfr", paramLabel = "FILE", description = "record coll4j's JFR events (every call with its late rank, requests, "
            + "teams) into FILE.jfr; read it with 'jfr print --events io.coll4j.CollectiveCall FILE'")
    Path file;

    /** A started recording, or a no-op when {@code --jfr} was not given; closing it writes FILE. */
    AutoCloseable start() throws IOException {
        if (file == null) {
            return () -> { };
        }
        Resources.writableFile("--jfr", file);
        Recording rec = new Recording();
        rec.setName("collbench");
        rec.enable("io.coll4j.CollectiveCall");
        rec.enable("io.coll4j.Request");
        rec.enable("io.coll4j.Team");
        // the JVM's own view of the same minutes: a slow call next to a GC pause or a safepoint explains itself
        rec.enable("jdk.GarbageCollection");
        rec.enable("jdk.SafepointBegin").withThreshold(Duration.ofMillis(1));
        rec.setDestination(file);
        rec.start();
        return () -> {
            rec.stop();     // writes FILE (the destination)
            rec.close();
        };
    }
}
