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

    /**
     * {@code explain --mpi}: the hierarchical algorithms' predicted times for collective {@code c} at each
     * size (docs/design.md, "Across processes"), the pick marked; printed by process 0.
     */
    static void explain(java.io.PrintWriter out, Team team, Collective c, List<Long> sizes, io.coll4j.reductions.DType dtype) {
        SpanGroup g = TeamInternals.spanGroup(team);
        io.coll4j.kernel.span.HierarchicalCost m = g.cost();
        int procs = g.processes();
        int t = g.localSize();
        out.printf(java.util.Locale.ROOT, "# across %d processes x %d ranks (%s); alpha %.3f us, beta %.4f ns/B between processes%n",
                procs, t, team.transport(), m.alpha() * 1e6, m.beta() * 1e9);
        for (long s : sizes) {
            long bytes = CollectiveBenchmark.Shape.of(c, s, dtype, g.globalSize()).bytes();
            String pick = name(team, c, bytes);
            for (String a : c == Collective.ALLREDUCE ? List.of("leader", "multi-leader") : List.of("leader")) {
                double sec = switch (c) {
                    case ALLREDUCE -> a.equals("leader") ? io.coll4j.kernel.span.LeaderAllreduce.cost(m, procs, t, bytes)
                            : io.coll4j.kernel.span.MultiLeaderAllreduce.cost(m, procs, t, bytes);
                    case BCAST -> io.coll4j.kernel.span.LeaderBcast.cost(m, procs, t, bytes);
                    case REDUCE -> io.coll4j.kernel.span.LeaderReduce.cost(m, procs, t, bytes);
                    case REDUCE_SCATTER -> io.coll4j.kernel.span.LeaderReduceScatter.cost(m, procs, t, bytes);
                    case ALLGATHER -> io.coll4j.kernel.span.LeaderAllgather.cost(m, procs, t, bytes);
                    case BARRIER -> io.coll4j.kernel.span.LeaderBarrier.cost(m, procs, t);
                    default -> throw new IllegalArgumentException(c.cliName() + " has no hierarchical form");
                };
                out.printf(java.util.Locale.ROOT, "%12d  %-16s %14.3f%n", bytes, a + (a.equals(pick) ? "*" : ""), sec * 1e6);
            }
        }
        out.flush();
    }
}
