package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.Team;
import io.coll4j.internal.TeamInternals;
import io.coll4j.kernel.span.SpanGroup;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What collbench says about a team over several processes ({@code --mpi}): the algorithm a row ran, the layout. */
final class Hierarchical {
    private Hierarchical() {
    }

    /** The hierarchical algorithm a collective of {@code bytes} runs: multi-leader or leader (docs/design.md, "Across processes"). */
    static String name(Team team, Collective c, long bytes) {
        SpanGroup g = TeamInternals.spanGroup(team);
        return c == Collective.ALLREDUCE && g != null && g.multiLeader(bytes) ? "multi-leader" : "leader";
    }

    /** "host: processes 0-1 × 2 ranks; ..." — which processes run on which host, and the ranks of each. */
    static String layout(Team team) {
        Map<String, List<Integer>> byHost = new LinkedHashMap<>();
        for (int p = 0; p < team.processes(); p++) {
            byHost.computeIfAbsent(team.host(p), h -> new ArrayList<>()).add(p);
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<Integer>> e : byHost.entrySet()) {
            if (!sb.isEmpty()) {
                sb.append("; ");
            }
            sb.append(e.getKey()).append(": process").append(e.getValue().size() > 1 ? "es " : " ").append(e.getValue());
        }
        return sb.append(" x ").append(team.size()).append(" ranks each").toString();
    }
}
