package io.coll4j.topology;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A fallback is logged once per process however often it is noted, and listed for collbench topo. */
class FallbacksTest {

    @Test
    void notedTwiceIsLoggedOnceAndListedOnce() {
        List<String> logged = new ArrayList<>();
        // System.Logger's default backend is java.util.logging: listen on the logger Fallbacks writes to
        Logger jul = Logger.getLogger(Fallbacks.LOGGER);
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(h);
        try {
            Fallbacks.note("test fallback", "first reason");
            Fallbacks.note("test fallback", "second reason");
        } finally {
            jul.removeHandler(h);
        }
        assertEquals(List.of("coll4j: first reason"), logged.stream().filter(m -> m.endsWith(" reason")).toList());
        List<String> listed = Fallbacks.noted().stream().filter(l -> l.startsWith("test fallback:")).toList();
        assertEquals(List.of("test fallback: first reason"), listed);
        assertTrue(Fallbacks.noted().stream().allMatch(l -> l.contains(": ")), Fallbacks.noted()::toString);
    }
}
