package io.coll4j;

import io.coll4j.reductions.DType;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The extra memory each bcast and allgather algorithm holds is what its class comment states, and
 * nothing proportional to p × message size beyond it (issue 7): one collective on a 4-rank team with
 * I_max = 64 KiB, then the team's scratch bytes (the arena's only per-algorithm memory).
 */
class CopyCollectiveArenaTest {
    static final String ONE_PACKAGE = "synthetic:pack:1 numa:1 l3:1 core:4 pu:1";
    static final int P = 4;
    static final long SLICE = 64 * 1024;

    static long scratchAfterBcast(String algorithm, long bytes) {
        try (Team team = Team.builder().topology(Topology.load(ONE_PACKAGE)).ranks(P).maxSliceBytes(SLICE)
                .algorithm(Collective.BCAST, algorithm).build()) {
            team.run(rank -> {
                MemorySegment buf = rank.allocate(bytes);
                rank.bcast(buf, bytes / 8, DType.F64, 1);
            });
            return team.scratchBytes();
        }
    }

    static long scratchAfterAllgather(String algorithm, long block) {
        try (Team team = Team.builder().topology(Topology.load(ONE_PACKAGE)).ranks(P).maxSliceBytes(SLICE)
                .algorithm(Collective.ALLGATHER, algorithm).build()) {
            team.run(rank -> {
                MemorySegment send = rank.allocate(block);
                MemorySegment recv = rank.allocate(block * P);
                rank.allgather(send, recv, block / 8, DType.F64);
            });
            return team.scratchBytes();
        }
    }

    @Test
    void bcastScratchIsWhatTheClassCommentSays() {
        long s = 1L << 20;
        assertEquals(0, scratchAfterBcast("direct", s), "direct reads the root's buffer: no scratch");
        assertEquals(2 * SLICE, scratchAfterBcast("pipelined", s), "pipelined: the root's double buffer, 2·I");
        assertEquals(s, scratchAfterBcast("flat", s), "flat: one staging copy on the root");
    }

    @Test
    void allgatherScratchIsWhatTheClassCommentSays() {
        long b = 256 * 1024;
        assertEquals(0, scratchAfterAllgather("direct", b), "direct reads the owners' send buffers: no scratch");
        assertEquals(P * 2 * SLICE, scratchAfterAllgather("pipelined", b), "pipelined: a double buffer of 2·I per rank");
        assertEquals(P * b, scratchAfterAllgather("shared-copy", b), "shared-copy: one p·b copy on the package leader");
    }
}
