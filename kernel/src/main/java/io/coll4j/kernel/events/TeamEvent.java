package io.coll4j.kernel.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A team's life: created, split off a parent, aborted (with the cause and the rank it came from), closed.
 * Disabled by default like the other coll4j events; it is rare, so a recording that enables it pays nothing
 * measurable.
 */
@Name("io.coll4j.Team")
@Label("Team")
@Category({"coll4j", "Teams"})
@Description("A team was created, split, aborted or closed")
@Enabled(false)
@StackTrace(false)
public final class TeamEvent extends jdk.jfr.Event {
    @Label("Action")
    @Description("created, split, aborted or closed")
    public String action;

    @Label("Team")
    public String team;

    @Label("Team Size")
    public int teamSize;

    @Label("Failing Rank")
    @Description("For an abort: the rank the failure came from (-1: the team itself or its caller)")
    public int rank;

    @Label("Cause")
    public String cause;

    /** Commits one event if a recording enabled it (the rare paths that call this need no begin/end). */
    public static void emit(String action, String team, int size, int rank, String cause) {
        TeamEvent e = new TeamEvent();
        if (e.isEnabled()) {
            e.action = action;
            e.team = team;
            e.teamSize = size;
            e.rank = rank;
            e.cause = cause;
            e.commit();
        }
    }
}
