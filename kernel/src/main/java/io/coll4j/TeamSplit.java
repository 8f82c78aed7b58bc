package io.coll4j;

import io.coll4j.kernel.span.LocalOps;
import io.coll4j.kernel.span.ProcessSpan;
import io.coll4j.kernel.span.SpanGroup;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link Rank#split}: MPI_Comm_split semantics over the team's (global) ranks (docs/design.md, "Non-blocking
 * ...; sub-teams" and "Across processes", sub-teams). Every rank knows every global rank's (color, key) from one
 * allgather of the parent, so every rank of every process takes the same decisions from the same table:
 * <ul>
 *   <li>a color whose members are all in one process is an ordinary sub-team of that process (no MPI);</li>
 *   <li>a color spread over several processes (a <em>spanning</em> color) is a sub-team over a
 *       sub-communicator of exactly those processes. Local rank 0 of every process makes them, one
 *       {@link ProcessSpan#split} of the parent's communicator per spanning color in ascending color order (so
 *       the collective calls on it meet in the same order everywhere), before its local ranks go on.</li>
 * </ul>
 * A spanning color's members of one process form its <em>block</em>; blocks may differ in length (the sub-team's
 * span then carries every block's length: {@link SpanGroup}), and are ordered as their members are. Two layouts are
 * refused, on every rank alike, before any MPI call: a process whose members are not consecutive in (key, global
 * id) order (interleaved with another process's), since every span algorithm moves a process's ranks as one
 * contiguous block of the rank-ordered buffers; and below MPI_THREAD_MULTIPLE one process holding members of two
 * spanning sub-teams, whose blocking MPI calls could each hold the process's one MPI thread while waiting for the
 * other's peer.
 */
final class TeamSplit {
    /** The global id of each parent process's local rank 0 (one more: the total): the parent's layout. */
    private final int[] firsts;
    private final int process;
    /** Members of every color (parent global ids, in (key, global id) order), by ascending color. */
    private final TreeMap<Integer, int[]> colors = new TreeMap<>();

    /**
     * {@code all}: color and key of every global rank, as the parent's allgather left them; {@code counts}: the
     * parent's ranks in each of its processes; {@code process}: this one's index.
     */
    TeamSplit(long[] all, int[] counts, int process) {
        this.firsts = new int[counts.length + 1];
        for (int q = 0; q < counts.length; q++) {
            firsts[q + 1] = firsts[q] + counts[q];
        }
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
        SpanGroup g = team.spanGroup();
        int[] layout = new int[g == null ? 1 : g.processes()];
        for (int q = 0; q < layout.length; q++) {
            layout[q] = g == null ? rank.localSize() : g.count(q);
        }
        TeamSplit s = new TeamSplit(all, layout, g == null ? 0 : g.process());
        boolean anySpanning = s.colors.keySet().stream().anyMatch(s::spanning);
        if (anySpanning) {   // only on a team that spans processes
            ProcessSpan parent = team.spanGroup().span();
            s.refuseUnsupported(parent.threadLevel());
            if (rank.localId() == 0) {
                team.subTeams().splitSpans(s.makeSpans(parent));
            }
            if (rank.localSize() > 1) {
                local.barrier();   // the other local ranks read local rank 0's spans after it
            }
        }
        if (color == Team.UNDEFINED) {
            return null;
        }
        int[] members = s.colors.get(color);
        int[] block = s.localIds(members);
        boolean spanning = s.spanning(color);
        ProcessSpan span = spanning ? team.subTeams().splitSpans().get(color) : null;
        int[] counts = spanning ? s.counts(color) : null;
        return team.subTeams().subTeam(split, color, block, span, counts).attach(indexOf(block, rank.localId()));
    }

    private int processOf(int g) {
        int q = Arrays.binarySearch(firsts, g);
        return q >= 0 ? q : -q - 2;   // the last first(q) <= g
    }

    /** True when {@code color}'s members are in more than one process. */
    private boolean spanning(int color) {
        return blocks(colors.get(color)) > 1;
    }

    /** Runs of consecutive members in one process: the blocks, when no process has two. */
    private int blocks(int[] m) {
        int runs = m.length == 0 ? 0 : 1;
        for (int i = 1; i < m.length; i++) {
            runs += processOf(m[i]) != processOf(m[i - 1]) ? 1 : 0;
        }
        return runs;
    }

    /** The sub-team's ranks in each of its processes, in its process order: the lengths of {@code color}'s blocks. */
    int[] counts(int color) {
        return blockLengths(colors.get(color));
    }

    /** The length of every block of {@code m}, in block order. */
    private int[] blockLengths(int[] m) {
        int[] lengths = new int[blocks(m)];
        int b = 0;
        for (int i = 0; i < m.length; i++) {
            if (i > 0 && processOf(m[i]) != processOf(m[i - 1])) {
                b++;
            }
            lengths[b]++;
        }
        return lengths;
    }

    /** The process of every block of {@code m}, in block order. */
    private int[] blockProcesses(int[] m) {
        int[] p = new int[blocks(m)];
        int b = 0;
        p[0] = processOf(m[0]);
        for (int i = 1; i < m.length; i++) {
            if (processOf(m[i]) != processOf(m[i - 1])) {
                p[++b] = processOf(m[i]);
            }
        }
        return p;
    }

    /** Throws {@link UnsupportedOperationException} when a spanning color cannot be built (see the class comment). */
    void refuseUnsupported(ProcessSpan.ThreadLevel level) {
        Map<Integer, Integer> spanningPerProcess = new HashMap<>();
        for (Map.Entry<Integer, int[]> e : colors.entrySet()) {
            if (!spanning(e.getKey())) {
                continue;
            }
            int[] m = e.getValue();
            int[] processes = blockProcesses(m);
            if (Arrays.stream(processes).distinct().count() != processes.length) {
                throw new UnsupportedOperationException("split: color " + e.getKey() + " interleaves the members of its "
                        + "processes in (key, rank) order: members in order " + Arrays.toString(m) + " are in processes "
                        + Arrays.toString(Arrays.stream(m).map(this::processOf).toArray()) + "; a sub-team across processes "
                        + "needs each process's members consecutive in that order (its algorithms move a process's ranks as "
                        + "one block of every rank-ordered buffer); choose keys that keep each process's members together");
            }
            for (int p : processes) {
                if (spanningPerProcess.merge(p, 1, Integer::sum) > 1 && level != ProcessSpan.ThreadLevel.MULTIPLE) {
                    throw new UnsupportedOperationException("split: process " + p + " would hold members of two sub-teams that "
                            + "span processes, which under " + level + " (one thread in MPI at a time) could block each other "
                            + "inside MPI; use MPI_THREAD_MULTIPLE (-Dcoll4j.mpi.thread=multiple) or colors that give each "
                            + "process at most one spanning sub-team");
                }
            }
        }
    }

    /**
     * Local rank 0's part: one split of the parent's communicator per spanning color, ascending, with every process
     * of the parent taking part (MPI_UNDEFINED where it holds no member); key = the process's block index, so
     * the sub-communicator's ranks are the blocks in (key, global id) order. Per-local-rank communicators (the
     * multi-leader allreduce) only when every block is as long: local rank j is then in every process.
     */
    private Map<Integer, ProcessSpan> makeSpans(ProcessSpan parent) {
        Map<Integer, ProcessSpan> spans = new HashMap<>();
        for (Map.Entry<Integer, int[]> e : colors.entrySet()) {
            int color = e.getKey();
            if (!spanning(color)) {
                continue;
            }
            int[] m = e.getValue();
            int[] processes = blockProcesses(m);
            int[] lengths = blockLengths(m);
            boolean even = Arrays.stream(lengths).allMatch(l -> l == lengths[0]);
            int mine = -1;
            for (int b = 0; b < processes.length; b++) {
                if (processes[b] == process) {
                    mine = b;
                }
            }
            ProcessSpan sub = parent.split(mine < 0 ? Team.UNDEFINED : color, Math.max(mine, 0), even ? lengths[0] : 1);
            if (sub != null) {
                spans.put(color, sub);
            }
        }
        return spans;
    }

    /** This process's members of {@code members}, as local ids, in order. */
    private int[] localIds(int[] members) {
        int first = firsts[process];
        return Arrays.stream(members).filter(g -> processOf(g) == process).map(g -> g - first).toArray();
    }

    private static int indexOf(int[] a, int v) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        throw new IllegalStateException("rank " + v + " is not among " + Arrays.toString(a));
    }
}
