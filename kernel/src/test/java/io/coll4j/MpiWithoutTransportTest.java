package io.coll4j;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Team.Builder.mpi() without coll4j-mpi on the path (the kernel alone): a clear error, and plain teams are one process. */
class MpiWithoutTransportTest {

    @Test
    void mpiWithoutTheModuleNamesIt() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Team.builder().ranks(2).mpi().build());
        assertTrue(e.getMessage().contains("io.coll4j:coll4j-mpi"), e.getMessage());
    }

    @Test
    void aPlainTeamIsOneProcessWithLocalIdsEqualToGlobalOnes() {
        try (Team team = Team.builder().ranks(3).build()) {
            assertEquals(1, team.processes());
            assertEquals(0, team.processIndex());
            assertEquals(3, team.globalSize());
            assertTrue(team.transport().startsWith("none"), team.transport());
            int[] seen = new int[3];
            team.run(rank -> {
                assertEquals(rank.id(), rank.localId());
                assertEquals(rank.size(), rank.localSize());
                assertEquals(0, rank.processIndex());
                seen[rank.id()] = 1 + rank.id();
            });
            assertEquals(6, seen[0] + seen[1] + seen[2]);
        }
    }
}
