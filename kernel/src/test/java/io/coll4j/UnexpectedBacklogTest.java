package io.coll4j;

import io.coll4j.kernel.p2p.Endpoint;
import io.coll4j.kernel.p2p.P2pEngine;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.*;

/** A deep backlog of unexpected messages is received whole and does not keep its buffers for the team's lifetime. */
class UnexpectedBacklogTest {

    @Test
    void aBurstBeyondThePoolIsReceivedAndItsBuffersAreNotKept() {
        int burst = 300;
        try (Team team = Team.builder().ranks(2).timeout(Duration.ofSeconds(60)).build()) {
            Endpoint receiver = P2pEngine.of(team.context()).endpoint(1);
            team.run(rank -> {
                PointToPoint pp = rank.p2p();
                MemorySegment buf = rank.allocate(1000);
                for (int round = 0; round < 2; round++) {
                    if (rank.id() == 0) {
                        MessageRequest[] sends = new MessageRequest[burst];
                        for (int t = 0; t < burst; t++) {
                            buf.fill((byte) (t + round));
                            buf.set(ValueLayout.JAVA_INT, 0, t);
                            sends[t] = pp.isend(MemorySegment.ofArray(buf.toArray(ValueLayout.JAVA_BYTE)), 1, t);
                        }
                        Request.awaitAll(sends);
                        rank.barrier();
                    } else {
                        // every message arrives before any receive is posted: probing progresses the rings
                        while (pp.iprobe(0, burst - 1) == null) {
                            Thread.onSpinWait();
                        }
                        rank.barrier();
                        for (int t = burst - 1; t >= 0; t--) {
                            pp.recv(buf, 0, t);
                            assertEquals(t, buf.get(ValueLayout.JAVA_INT, 0));
                            assertEquals((byte) (t + round), buf.get(ValueLayout.JAVA_BYTE, 999));
                        }
                        // 300 eager messages waited at once: the first 64 took team-arena buffers, the rest automatic ones
                        assertEquals(64, receiver.teamEnvelopeBuffers(), "team-arena buffers");
                        assertTrue(receiver.pooledEnvelopes() <= 4 * 64, "pooled " + receiver.pooledEnvelopes());
                    }
                }
            });
        }
    }
}
