package io.coll4j.kernel.model;

import io.coll4j.internal.TeamInternals;
import io.coll4j.Team;
import io.coll4j.reductions.DType;
import io.coll4j.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Profiles: round trip, every kind of malformed profile names path and field, env and builder loading. */
class MachineModelProfileTest {
    static final Topology TOPO = Topology.load("synthetic:pack:1 l3:1 core:4 pu:1");

    static MachineModel sample() {
        Map<DType, Double> c = new EnumMap<>(DType.class);
        Map<DType, Double> s = new EnumMap<>(DType.class);
        int k = 1;
        for (DType t : DType.values()) {
            c.put(t, 10e9 * k);
            s.put(t, 5e9 * k++);
        }
        return new MachineModel(70e-9, 140e-9, 260e-9, 30e9, 11e9, 15e9, 60e9, 41e9, 21e9, 9e9, 36L << 20, 2L << 20,
                "test", c, s, 120e-9);
    }

    @Test
    void profileRoundTripsEveryField(@TempDir Path dir) throws IOException {
        MachineModel m = sample();
        Path f = dir.resolve("p.json");
        Files.writeString(f, m.toProfileJson(Map.of("machine", "a \"quoted\" cpu")));
        MachineModel back = MachineModel.load(f);
        assertEquals(m.profileFields().toString(), back.profileFields().toString());
        for (DType t : DType.values()) {
            assertEquals(m.reduceCachedByDtype().get(t), back.reduceCachedByDtype().get(t), 1e3);
            assertEquals(m.reduceStreamByDtype().get(t), back.reduceStreamByDtype().get(t), 1e3);
        }
        assertEquals("profile " + f, back.source());
        assertEquals(back.reduceCachedByDtype().get(DType.I32), back.forDtype(DType.I32).reduceBandwidthCached());
        assertEquals(back.reduceStreamByDtype().get(DType.F32), back.forDtype(DType.F32).reduceBandwidthStream());
        assertEquals(120e-9, back.callOverhead(), 1e-15);
    }

    @Test
    void theFittedPricesRoundTripAndAnOldProfileLeavesThemUncalibrated(@TempDir Path dir) throws IOException {
        MachineModel fitted = sample().withLinePulls(1.3e-9, 2.9e-9).withLlcRateShare(0.8);
        Path f = dir.resolve("fitted.json");
        Files.writeString(f, fitted.toProfileJson(Map.of()));
        MachineModel back = MachineModel.load(f);
        assertEquals(1.3e-9, back.peerLinePrice(), 1e-18);
        assertEquals(2.9e-9, back.consumedLinePrice(), 1e-18);
        assertEquals(0.8, back.llcRateShare(), 1e-12);
        // a profile without them (sample() never calibrated them): a_alpha / OVERLAPPED_PULLS, one rate at every size
        Path old = dir.resolve("old.json");
        Files.writeString(old, sample().toProfileJson(Map.of()));
        MachineModel o = MachineModel.load(old);
        assertTrue(Double.isNaN(o.peerLinePull()) && Double.isNaN(o.llcRateShare()));
        assertEquals(o.lineLatencySameL3() / MachineModel.OVERLAPPED_PULLS, o.peerLinePrice(), 1e-18);
        assertEquals(o.lineLatencySameL3() / MachineModel.OVERLAPPED_PULLS, o.consumedLinePrice(), 1e-18);
        assertEquals(o, o.forMessage(1L << 30));
        // a negative price is refused, naming the field
        Files.writeString(old, fitted.toProfileJson(Map.of()).replaceFirst("\"peerLinePull\":\\s*[^,}\\s]+", "\"peerLinePull\": -1"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MachineModel.load(old));
        assertTrue(e.getMessage().contains("'peerLinePull'"), e.getMessage());
    }

    @Test
    void theLlcShareScalesInCacheRatesOnlyBeyondAQuarterOfTheL2AndOnce() {
        MachineModel m = sample().withLlcRateShare(0.5);   // L2 = 2 MiB
        assertEquals(m, m.forMessage(512 << 10));
        MachineModel big = m.forMessage((512 << 10) + 1);
        assertEquals(15e9, big.copyBandwidthCached(), 1);
        assertEquals(m.reduceCachedByDtype().get(DType.I32) / 2, big.reduceCachedByDtype().get(DType.I32), 1);
        assertEquals(m.copyBandwidthStream(), big.copyBandwidthStream());      // beyond the cache: DRAM's, unchanged
        assertEquals(big, big.forMessage(1L << 30));                          // spent: never twice
    }

    @Test
    void aHandOverShareKeepsTheReferenceCallPricedTheSame() {
        MachineModel m = sample();
        MachineModel h = m.withHandOverShare(0.7);
        assertEquals(0.7 * m.lineLatencySameL3(), h.lineLatencySameL3(), 1e-18);
        assertEquals(0.7 * m.lineLatencyCrossPackage(), h.lineLatencyCrossPackage(), 1e-18);
        // o is calibrated as an 8-byte dissemination allreduce less one hand-over: o + a_alpha unchanged
        assertEquals(m.callOverhead() + m.lineLatencySameL3(), h.callOverhead() + h.lineLatencySameL3(), 1e-18);
        MachineModel s = m.withStreamingRates(0.5);
        assertEquals(m.memoryBandwidth() / 2, s.memoryBandwidth(), 1);
        assertEquals(m.ntCopyBandwidth() / 2, s.ntCopyBandwidth(), 1);
        assertEquals(m.reduceStreamByDtype().get(DType.F32) / 2, s.reduceStreamByDtype().get(DType.F32), 1);
        assertEquals(m.copyBandwidthCached(), s.copyBandwidthCached());
    }

    @Test
    void theInterProcessPairIsAddedToAProfileAndReadByTheHierarchicalCost(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("p.json");
        Files.writeString(f, sample().toProfileJson(Map.of("machine", "cpu")));
        // without the pair: the defaults; NaN from profileNumber says "absent"
        assertTrue(Double.isNaN(MachineModel.profileNumber(f, MachineModel.MPI_ALPHA_FIELD)));
        assertEquals(io.coll4j.kernel.span.HierarchicalCost.DEFAULT.alpha(),
                io.coll4j.kernel.span.HierarchicalCost.from(f, Map.of()).alpha(), 1e-15);
        MachineModel.putProfileFields(f, Map.of(MachineModel.MPI_ALPHA_FIELD, 0.4, MachineModel.MPI_BETA_FIELD, 0.1));
        MachineModel.putProfileFields(f, Map.of(MachineModel.MPI_ALPHA_FIELD, 0.5));   // replaces, keeps beta
        // the machine fields survive, and the model still loads, naming the file
        assertEquals(sample().profileFields().toString(), MachineModel.load(f).profileFields().toString());
        assertEquals(f, MachineModel.load(f).profilePath());
        assertTrue(Files.readString(f).contains("\"machine\": \"cpu\""));
        io.coll4j.kernel.span.HierarchicalCost c = io.coll4j.kernel.span.HierarchicalCost.from(f, Map.of());
        assertEquals(0.5e-6, c.alpha(), 1e-12);
        assertEquals(0.1e-9, c.beta(), 1e-15);
        // the environment wins over the profile
        assertEquals(2e-6, io.coll4j.kernel.span.HierarchicalCost.from(f, Map.of("COLL4J_MPI_ALPHA_US", "2")).alpha(), 1e-12);
        Files.writeString(f, Files.readString(f).replace("0.5", "-1"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> io.coll4j.kernel.span.HierarchicalCost.from(f, Map.of()));
        assertTrue(e.getMessage().contains(MachineModel.MPI_ALPHA_FIELD) && e.getMessage().contains(f.toString()), e.getMessage());
    }

    @Test
    void thirteenArgumentModelReducesEveryDtypeAtTheF64Rate() {
        MachineModel m = MachineModel.defaults(TOPO);
        for (DType t : DType.values()) {
            assertEquals(m.reduceBandwidthCached(), m.forDtype(t).reduceBandwidthCached());
        }
    }

    private static String bad(Path dir, String json) throws IOException {
        Path f = dir.resolve("bad.json");
        Files.writeString(f, json);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MachineModel.load(f));
        assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
        return e.getMessage();
    }

    @Test
    void malformedProfilesNameThePathAndTheField(@TempDir Path dir) throws IOException {
        String good = sample().toProfileJson(Map.of());
        assertTrue(bad(dir, good.replace("\"copyBandwidthStream\"", "\"other\"")).contains("'copyBandwidthStream' is missing"));
        assertTrue(bad(dir, good.replaceFirst("\"ntCopyBandwidth\": [0-9.e+]+", "\"ntCopyBandwidth\": -3"))
                .contains("'ntCopyBandwidth' must be > 0"));
        assertTrue(bad(dir, good.replaceFirst("\"l2Bytes\": [0-9]+", "\"l2Bytes\": \"big\"")).contains("'l2Bytes' is not a number"));
        assertTrue(bad(dir, good.replaceFirst("\"i64\": \\{\"cached\": [0-9.e+]+", "\"i64\": {\"cached\": 0"))
                .contains("'reduceBandwidthByDtype.i64.cached' must be > 0"));
        assertTrue(bad(dir, good.substring(0, good.length() / 2)).contains("bad JSON at offset"));
        assertTrue(bad(dir, "[1, 2]").contains("not a JSON object"));
        Path missing = dir.resolve("nope.json");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MachineModel.load(missing));
        assertTrue(e.getMessage().contains(missing + ": cannot read"), e.getMessage());
    }

    @Test
    void environmentVariableLoadsTheProfileAndABadOneIsAnError(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("env.json");
        Files.writeString(f, sample().toProfileJson(Map.of()));
        assertEquals("profile " + f, MachineModel.fromEnvironment(TOPO, Map.of(MachineModel.PROFILE_ENV, f.toString())).source());
        assertTrue(MachineModel.fromEnvironment(TOPO, Map.of()).source().startsWith("defaults for"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MachineModel.fromEnvironment(TOPO, Map.of(MachineModel.PROFILE_ENV, dir.resolve("x.json").toString())));
        assertTrue(e.getMessage().startsWith("COLL4J_PROFILE: profile "), e.getMessage());
    }

    @Test
    void builderProfileSetsTheTeamModel(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("team.json");
        Files.writeString(f, sample().toProfileJson(Map.of()));
        try (Team t = Team.builder().ranks(2).topology(TOPO).profile(f).build()) {
            assertEquals("profile " + f, TeamInternals.model(t).source());
            assertEquals(30e9, TeamInternals.model(t).copyBandwidthCached(), 1);
        }
        assertThrows(IllegalArgumentException.class, () -> Team.builder().profile(dir.resolve("missing.json")));
    }
}
