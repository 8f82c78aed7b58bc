package io.coll4j.kernel.algo;

import io.coll4j.Collective;

import java.util.ArrayList;
import java.util.List;

/**
 * A record of who moved data from whom, for tests and diagnostics: algorithms report every copy or
 * fold that reads another rank's memory ({@link CollectiveCall#record}). Checking a schedule — "with two
 * packages, exactly one rank per package reads across" — tests the topology-aware algorithms without
 * timing. Recording is off unless a schedule is given to the team builder; then it costs one
 * synchronized append per event.
 */
public final class Schedule {
    /** One event: in collective #seq, {@code rank} did {@code action} reading {@code peer}'s memory. */
    public record Event(long seq, Collective collective, String algorithm, int rank, String action, int peer) {
    }

    private final List<Event> events = new ArrayList<>();

    synchronized void add(Event e) {
        events.add(e);
    }

    /** Every event so far, in the order they were recorded. */
    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Events of one action. */
    public synchronized List<Event> events(String action) {
        return events.stream().filter(e -> e.action().equals(action)).toList();
    }

    public synchronized void clear() {
        events.clear();
    }
}
