package io.coll4j.kernel.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One non-blocking or persistent collective on one rank, from its post (or start) to the moment it was
 * seen complete. Disabled by default, as {@link CollectiveCallEvent}.
 */
@Name("io.coll4j.Request")
@Label("Collective Request")
@Category({"coll4j", "Collectives"})
@Description("A non-blocking or persistent collective from post to completion on one rank")
@Enabled(false)
@StackTrace(false)
public final class RequestEvent extends jdk.jfr.Event {
    @Label("Collective")
    public String collective;

    @Label("Kind")
    @Description("one-shot, persistent or chain")
    public String kind;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Team Size")
    public int teamSize;

    @Label("Rank")
    public int rank;

    @Label("Failed")
    @Description("The request ended with an exception (its class and message)")
    public String failure;

    /**
     * Never begun or committed: asks whether a recording has this event on, so that no event is made per request
     * while it is off (an instance made to ask allocates until C2 has compiled the caller: the call event's case,
     * docs/measurements.md, "The bcast lean"). {@code isEnabled} reads the event type's state, not the instance's.
     */
    private static final RequestEvent PROBE = new RequestEvent();

    /** A begun event for a request posted now, or null while no recording enables it (the usual case). */
    public static RequestEvent started() {
        if (!PROBE.isEnabled()) {
            return null;
        }
        RequestEvent e = new RequestEvent();
        e.begin();
        return e;
    }

    /** Ends {@code e} (from {@link #started}; null: nothing) with what the request was and how it ended. */
    public static void finish(RequestEvent e, String collective, String kind, long bytes, int teamSize, int rank,
                              Throwable failure) {
        if (e == null) {
            return;
        }
        e.end();
        if (e.shouldCommit()) {
            e.collective = collective;
            e.kind = kind;
            e.bytes = bytes;
            e.teamSize = teamSize;
            e.rank = rank;
            e.failure = failure == null ? null : failure.getClass().getSimpleName() + ": " + failure.getMessage();
            e.commit();
        }
    }
}
