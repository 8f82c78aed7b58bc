package io.coll4j.cli;

import io.coll4j.bindings.hwloc.Hwloc;
import io.coll4j.bindings.hwloc.HwlocTopology;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code collbench topo} in-process: this machine, synthetic and XML machines, JSON, and bad input. */
class TopoCommandTest {

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void thisMachine() {
        Topology host = Topology.host();
        CliRun r = run("topo");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("source:    " + host.source() + "\n"), r.out());
        assertTrue(r.out().contains(host.pus().size() + " PU"), r.out());
        assertEquals(host.pus().size(), count(r.out(), "PU L#\\d+ \\(P#\\d+\\)"), r.out());
        assertTrue(r.out().contains("\nMachine ("), r.out());
        assertTrue(r.out().contains("\ncaches:\n"), r.out());
        assertTrue(r.out().contains("\nNUMA nodes:\n"), r.out());
        assertTrue(r.out().contains("placement: compact, " + host.pus().size() + " ranks"), r.out());
        // binding is tried for real on this machine
        assertTrue(r.out().contains("  threads: yes — helper thread bound to each of " + host.pus().size() + " PUs"), r.out());
        assertTrue(r.out().matches("(?s).*  memory:  yes — \\S+ to NUMA node P#\\d+: bound .*"), r.out());
        assertTrue(r.out().contains("\nnt copy:   "), r.out());
        assertEquals("", r.err());
    }

    @Test
    void syntheticTwoPackagesPrintsThirtyTwoPus() {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        CliRun r = run("topo", "--topology", "synthetic:pack:2 numa:2 l3:1 core:4 pu:2");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("machine:   2 packages, 4 NUMA nodes, 4 L3s, 16 cores, 32 PUs"), r.out());
        assertEquals(2, count(r.out(), "\n  Package L#\\d\n"));
        assertEquals(4, count(r.out(), "NUMANode L#\\d \\(P#\\d 1024MB\\)"));
        assertEquals(32, count(r.out(), "PU L#\\d+ \\(P#\\d+\\)"));
        assertTrue(r.out().contains("  threads: no — not attempted"), r.out());
        assertTrue(r.out().contains("binding:   no-op binder: topology synthetic:"), r.out());
    }

    @Test
    void scatterOversubscribedPlacement() {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        CliRun r = run("topo", "--topology", "synthetic:pack:2 numa:1 l3:1 core:2 pu:1", "-t", "6", "--bind", "scatter");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("placement: scatter, 6 ranks on P#0,2,1,3,0,2 (2 packages, 2 NUMA nodes), "
                + "oversubscribed: up to 2 ranks per PU"), r.out());
    }

    @Test
    void jsonHasCountsSourceAndTree() {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        CliRun r = run("topo", "--format", "json", "--topology", "synthetic:pack:2 numa:2 l3:1 core:4 pu:2", "-t", "4");
        assertEquals(0, r.code(), r.err());
        String j = r.out();
        assertTrue(j.startsWith("{\n  \"source\": \"synthetic:pack:2 numa:2 l3:1 core:4 pu:2 (via hwloc "), j);
        assertTrue(j.contains("\n  \"packages\": 2,\n  \"numaNodes\": 4,\n  \"l3Caches\": 4,\n  \"cores\": 16,\n  \"pus\": 32,"), j);
        assertTrue(j.contains("\n  \"root\": {\n    \"type\": \"Machine\","), j);
        assertEquals(32, count(j, "\"type\": \"PU\""));
        assertEquals(4, count(j, "\"type\": \"NUMANode\""));
        assertTrue(j.contains("\"policy\": \"compact\""), j);
        assertTrue(j.contains("\"caches\": ["), j);
        assertTrue(j.contains("\"binding\": {"), j);
        assertTrue(j.trim().endsWith("}"));
    }

    @Test
    void jsonOfThisMachine() {
        Topology host = Topology.host();
        CliRun r = run("topo", "--format", "json");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("\n  \"pus\": " + host.pus().size() + ","), r.out());
        assertTrue(r.out().contains("\n  \"numaNodes\": " + host.numaNodes().size() + ","), r.out());
        assertTrue(r.out().contains("\"llcBytes\": " + host.llcBytes()), r.out());
    }

    @Test
    void xmlTopologyFile(@TempDir Path dir) throws Exception {
        assumeTrue(Hwloc.isAvailable(), "skipped: " + Hwloc.unavailableReason());
        Path xml = dir.resolve("box.xml");
        try (HwlocTopology t = HwlocTopology.loadSynthetic("pack:4 numa:1 l3:1 core:2 pu:1")) {
            t.exportXml(xml);
        }
        CliRun r = run("topo", "--topology", "xml:" + xml);
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().startsWith("source:    xml:" + xml.toAbsolutePath()), r.out());
        assertTrue(r.out().contains("4 packages, 4 NUMA nodes, 4 L3s, 8 cores, 8 PUs"), r.out());
    }

    @Test
    void badInputExitsTwoWithOneLineAndUsage(@TempDir Path dir) {
        String missing = dir.resolve("missing.xml").toString();
        String[][] cases = {
                {"unknown topology source 'numa'", "--topology", "numa"},
                {Hwloc.isAvailable() ? "bad synthetic topology 'pack:2 blah:3'" : "topology synthetic:", "--topology", "synthetic:pack:2 blah:3"},
                {Hwloc.isAvailable() ? "XML topology file not found: " + missing : "topology xml:", "--topology", "xml:" + missing},
                {"unknown placement 'spread'", "--bind", "spread"},
                {"--threads: must be >= 1, got 0", "-t", "0"},
                {"--format: unknown format 'yaml'", "--format", "yaml"},
                {"--format: topo prints a tree, not rows", "--format", "csv"},
        };
        for (String[] c : cases) {
            String[] args = new String[c.length];
            args[0] = "topo";
            System.arraycopy(c, 1, args, 1, c.length - 1);
            CliRun r = run(args);
            assertEquals(2, r.code(), String.join(" ", args) + "\n" + r.err());
            String first = r.err().lines().findFirst().orElse("");
            assertTrue(first.startsWith("collbench topo: " + c[0]), "for " + String.join(" ", args) + ": " + first);
            assertTrue(r.err().contains("Usage: collbench topo"), r.err());
            assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.err());
            assertEquals("", r.out());
        }
    }

    @Test
    void explicitPuListOnThisMachine() {
        Topology host = Topology.host();
        int last = host.pus().getLast().osIndex();
        CliRun r = run("topo", "--bind", Integer.toString(last), "-t", "2");
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("placement: " + last + ", 2 ranks on P#" + last + "," + last), r.out());
        CliRun one = run("topo", "--bind", Integer.toString(last));
        assertTrue(one.out().contains("placement: " + last + ", 1 rank on P#" + last + " "), one.out());
        CliRun bad = run("topo", "--bind", "4000");
        assertEquals(2, bad.code());
        assertTrue(bad.err().startsWith("collbench topo: placement: PU P#4000 is not in the topology"), bad.err());
    }
}
