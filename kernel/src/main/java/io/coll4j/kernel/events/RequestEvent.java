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
}
