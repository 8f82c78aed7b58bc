package io.coll4j;

import io.coll4j.kernel.span.LocalOps;
import io.coll4j.kernel.span.ProcessSpan;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link Rank#split}: MPI_Comm_split semantics over the team's (global) ranks (docs/design.md, "Non-blocking
 * ...; sub-teams" and "Across processes"). Every rank knows every global rank's (color, key) from one
 * allgather of the parent, so every rank of every process takes the same decisions from the same table:
 * <ul>
 *   <li>a color whose members are all in one process is an ordinary sub-team of that process (no MPI);</li>
 *   <li>a color spread over several processes (a <em>spanning</em> color) is a sub-team over a
 *       sub-communicator of exactly those processes. Local rank 0 of every process makes them, one
 *       {@link ProcessSpan#split} of the parent's communicator per spanning color in ascending color order (so
 *       the collective calls on it meet in the same order everywhere), before its local ranks go on.</li>
 * </ul>
 * The span model numbers ranks process × T + local id with the same T in every process, so a spanning color
 * must give each of its processes the same number of members, consecutive in the (key, global id) order; and
 * below MPI_THREAD_MULTIPLE one thread of a process at a time may be inside MPI, so two spanning sub-teams with
 * members in the same process could block each other there. Both are refused, on every rank alike, before any
 * MPI call.
 */
final class TeamSplit {
    private final int perProcess;
    private final int process;
    /** Members of every color (global ids, in (key, global id) order), by ascending color. */
    private final TreeMap<Integer, int[]> colors = new TreeMap<>();

    /** {@code all}: color and key of every global rank, as the parent's allgather left them. */
    TeamSplit(long[] all, int perProcess, int process) {
        this.perProcess = perProcess;
        this.process = process;
        Map<Integer, List<long[]>> by = new HashMap<>();
        for (int g = 0; g < all.length / 2; g++) {
            int c = (int) all[2 * g];
            if (c != Team.UNDEFINED) {
                by.computeIfAbsent(c, x -> new ArrayList<>()).add(new long[]{all[2 * g + 1], g});
            }
        }
        by.forEach((c, list) -> {
            list.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
            colors.put(c, list.stream().mapToInt(m -> (int) m[1]).toArray());
        });
    }

    /** The calling rank's sub-team rank, or null for {@link Team#UNDEFINED}. */
    static Rank join(Rank rank, Team team, LocalOps local, long split, long[] all, int color) {
        TeamSplit s = new TeamSplit(all, rank.localSize(), team.processIndex());
        boolean anySpanning = s.colors.keySet().stream().anyMatch(s::spanning);
        if (anySpanning) {   // only on a team that spans processes
            ProcessSpan parent = team.spanGroup().span();
            s.refuseUnsupported(parent.threadLevel());
            if (rank.localId() == 0) {
                team.splitSpans(s.makeSpans(parent));
            }
            if (rank.localSize() > 1) {
                local.barrier();   // the other local ranks read local rank 0's spans after it
            }
        }
        if (color == Team.UNDEFINED) {
            return null;
        }
        int[] block = s.localIds(s.colors.get(color));
        ProcessSpan span = s.spanning(color) ? team.splitSpans().get(color) : null;
        return team.subTeam(split, color, block, span).attach(indexOf(block, rank.localId()));
    }

    /** True when {@code color}'s members are in more than one process. */
    private boolean spanning(int color) {
        return processesOf(colors.get(color)) > 1;
    }

    /**
     * Refuses a spanning color unless its members form one block per process, all blocks as long: one run of
     * consecutive members per process, and every run starting at a multiple of the block length.
     */
    private void refuseUneven(int color, int[] m) {
        int blocks = processesOf(m);
        int runs = 1;
        for (int i = 1; i < m.length; i++) {
            runs += m[i] / perProcess != m[i - 1] / perProcess ? 1 : 0;
        }
        boolean even = runs == blocks && m.length % blocks == 0;
        int each = m.length / blocks;
        for (int i = 0; even && i < m.length; i++) {
            even = m[i] / perProcess == m[i - i % each] / perProcess;
        }
        if (!even) {
            throw new UnsupportedOperationException("split: color " + color + " spans processes with an uneven layout; a sub-team "
                    + "across processes needs the same number of members in each of its processes, consecutive in (key, rank) "
                    + "order (global ids are process x ranks per process + local id); members in order: "
                    + java.util.Arrays.toString(m));
        }
    }

    /** Throws {@link UnsupportedOperationException} when a spanning color cannot be built (see the class comment). */
    void refuseUnsupported(ProcessSpan.ThreadLevel level) {
        Map<Integer, Integer> spanningPerProcess = new HashMap<>();
        for (Map.Entry<Integer, int[]> e : colors.entrySet()) {
            int[] m = e.getValue();
            if (!spanning(e.getKey())) {
                continue;
            }
            refuseUneven(e.getKey(), m);
            for (int i = 0; i < m.length; i += m.length / processesOf(m)) {
                int p = m[i] / perProcess;
                if (spanningPerProcess.merge(p, 1, Integer::sum) > 1 && level != ProcessSpan.ThreadLevel.MULTIPLE) {
                    throw new UnsupportedOperationException("split: process " + p + " would hold members of two sub-teams that "
                            + "span processes, which under " + level + " (one thread in MPI at a time) could block each other "
                            + "inside MPI; use MPI_THREAD_MULTIPLE (-Dcoll4j.mpi.thread=multiple) or colors that give each "
                            + "process at most one spanning sub-team");
                }
            }
        }
    }

    private int processesOf(int[] m) {
        return (int) java.util.Arrays.stream(m).map(g -> g / perProcess).distinct().count();
    }

    /**
     * Local rank 0's part: one split of the parent's communicator per spanning color, ascending, with every process
     * of the parent taking part (MPI_UNDEFINED where it holds no member); key = the process's block index, so
     * the sub-communicator's ranks are the blocks in (key, global id) order.
     */
    private Map<Integer, ProcessSpan> makeSpans(ProcessSpan parent) {
        Map<Integer, ProcessSpan> spans = new HashMap<>();
        for (Map.Entry<Integer, int[]> e : colors.entrySet()) {
            int color = e.getKey();
            if (!spanning(color)) {
                continue;
            }
            int[] m = e.getValue();
            int blocks = processesOf(m);
            int each = m.length / blocks;
            int mine = -1;
            for (int b = 0; b < blocks; b++) {
                if (m[b * each] / perProcess == process) {
                    mine = b;
                }
            }
            ProcessSpan sub = parent.split(mine < 0 ? Team.UNDEFINED : color, Math.max(mine, 0), each);
            if (sub != null) {
                spans.put(color, sub);
            }
        }
        return spans;
    }

    /** This process's members of {@code members}, as local ids, in order. */
    private int[] localIds(int[] members) {
        return java.util.Arrays.stream(members).filter(g -> g / perProcess == process).map(g -> g % perProcess).toArray();
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        throw new IllegalStateException("rank " + v + " is not among " + java.util.Arrays.toString(a));
    }
}
