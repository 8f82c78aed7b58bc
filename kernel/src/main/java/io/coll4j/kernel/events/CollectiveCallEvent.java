package io.coll4j.kernel.events;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One blocking collective call on one rank, from its entry to its return. Disabled by default: a JFR
 * setting ({@code io.coll4j.CollectiveCall#enabled=true}) or {@code collbench --jfr FILE} turns it on.
 * While it is off the call path asks one event made once whether it is on and allocates nothing (an event
 * made per call just to ask is scalar-replaced only once C2 has compiled the path: until then it cost one
 * allocation per call).
 *
 * <p>{@code lastRank} and {@code lateBy} say who held the call up: the rank whose entry came last, and how
 * long after the first rank's entry it came (entries are {@code System.nanoTime} stamps every rank takes
 * while the event is on; ranks of other processes are not compared). {@code -1} when the rank returned
 * before every peer had entered (a bcast root) or a peer's stamp was already replaced.
 */
@Name("io.coll4j.CollectiveCall")
@Label("Collective Call")
@Category({"coll4j", "Collectives"})
@Description("A blocking collective on one rank, with the rank that arrived last")
@Enabled(false)
@StackTrace(false)
public final class CollectiveCallEvent extends jdk.jfr.Event {
    @Label("Collective")
    public String collective;

    @Label("Algorithm")
    public String algorithm;

    @Label("Bytes")
    @DataAmount
    public long bytes;

    @Label("Data Type")
    public String dtype;

    @Label("Operation")
    public String op;

    @Label("Team Size")
    public int teamSize;

    @Label("Rank")
    public int rank;

    @Label("Call Number")
    @Description("The call's sequence number on the team (the # of the error messages)")
    public long seq;

    @Label("Waiting Time")
    @Description("Time this rank spent waiting for flags of its peers during the call")
    @Timespan
    public long waitTime;

    @Label("Last Rank")
    @Description("The rank that entered the call last (-1: not known when this rank returned)")
    public int lastRank;

    @Label("Late By")
    @Description("How long after the first rank the last one entered (-1: not known)")
    @Timespan
    public long lateBy;
}
