package io.coll4j.bindings.hwloc.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.UnionLayout;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Checks the hand-written layouts and constants against the C compiler: generates a C program that
 * prints {@code sizeof} of every struct/union, {@code offsetof} and {@code sizeof} of every named
 * member (nested members through designators like {@code cache.size}) and the value of every
 * {@code HWLOC_*} constant of {@link hwloc_h}, compiles it with gcc against the installed
 * {@code /usr/include/hwloc.h} and compares. Skips only when gcc or the header is absent.
 */
class HwlocLayoutTest {
    private static final Path HEADER = Path.of("/usr/include/hwloc.h");

    private static final List<GroupLayout> LAYOUTS = List.of(
            hwloc_obj.layout(),
            hwloc_obj_attr_u.layout(),
            hwloc_numanode_attr_s.layout(),
            hwloc_memory_page_type_s.layout(),
            hwloc_cache_attr_s.layout(),
            hwloc_group_attr_s.layout(),
            hwloc_pcidev_attr_s.layout(),
            hwloc_bridge_attr_s.layout(),
            hwloc_osdev_attr_s.layout(),
            hwloc_info_s.layout(),
            hwloc_topology_support.layout(),
            hwloc_topology_discovery_support.layout(),
            hwloc_topology_cpubind_support.layout(),
            hwloc_topology_membind_support.layout(),
            hwloc_topology_misc_support.layout());

    @Test
    void layoutsAndConstantsMatchTheCCompiler(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isReadable(HEADER), "skipped: " + HEADER + " is absent (install libhwloc-dev)");
        assumeTrue(gccAvailable(), "skipped: gcc is not installed");

        Map<String, Long> expected = new LinkedHashMap<>();   // key -> Java's value
        StringBuilder c = new StringBuilder("""
                #include <stddef.h>
                #include <stdio.h>
                #include <hwloc.h>
                #include <hwloc/export.h>
                #define P(key, value) printf("%s %lld\\n", key, (long long) (value))
                int main(void) {
                """);
        for (GroupLayout g : LAYOUTS) {
            String ctype = (g instanceof UnionLayout ? "union " : "struct ") + g.name().orElseThrow();
            String key = g.name().orElseThrow();
            c.append("  P(\"").append(key).append(" sizeof\", sizeof(").append(ctype).append("));\n");
            expected.put(key + " sizeof", g.byteSize());
            members(g, ctype, key, "", 0L, c, expected);
        }
        for (Field f : hwloc_h.class.getFields()) {
            if (f.getName().startsWith("HWLOC_") && Modifier.isStatic(f.getModifiers())) {
                c.append("  P(\"").append(f.getName()).append("\", ").append(f.getName()).append(");\n");
                expected.put(f.getName(), ((Number) f.get(null)).longValue());
            }
        }
        c.append("  return 0;\n}\n");

        Path src = dir.resolve("layout.c");
        Path exe = dir.resolve("layout");
        Files.writeString(src, c);
        String compile = run(List.of("gcc", "-std=gnu11", "-Wall", "-o", exe.toString(), src.toString()));
        assertTrue(Files.isExecutable(exe), "gcc failed:\n" + compile);
        Map<String, Long> actual = new LinkedHashMap<>();
        for (String line : run(List.of(exe.toString())).split("\n")) {
            if (!line.isBlank()) {
                int sp = line.lastIndexOf(' ');
                actual.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
            }
        }

        List<String> mismatches = new ArrayList<>();
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            Long cValue = actual.get(e.getKey());
            long javaValue = e.getValue();
            // int constants such as HWLOC_UNKNOWN_INDEX ((unsigned)-1) compare as 32-bit values
            boolean intConstant = !e.getKey().contains(" ") && isIntField(e.getKey());
            if (cValue == null) {
                mismatches.add(e.getKey() + ": not printed by the C program");
            } else if (intConstant ? (int) (long) cValue != (int) javaValue : cValue != javaValue) {
                mismatches.add(e.getKey() + ": Java " + javaValue + ", C " + cValue);
            }
        }
        assertTrue(expected.size() > 150, "expected to check many values, checked " + expected.size());
        assertEquals(List.of(), mismatches, "layout/constant mismatches against " + HEADER);
    }

    /** Every named member (recursively into nested structs/unions): offsetof and sizeof. */
    private static void members(GroupLayout g, String ctype, String key, String prefix, long base,
                                StringBuilder c, Map<String, Long> expected) {
        for (MemoryLayout m : g.memberLayouts()) {
            if (m instanceof PaddingLayout || m.name().isEmpty()) {
                continue;
            }
            String designator = prefix + m.name().get();
            long offset = base + g.byteOffset(MemoryLayout.PathElement.groupElement(m.name().get()));
            c.append("  P(\"").append(key).append('.').append(designator).append(" offsetof\", offsetof(")
                    .append(ctype).append(", ").append(designator).append("));\n");
            c.append("  P(\"").append(key).append('.').append(designator).append(" sizeof\", sizeof(((")
                    .append(ctype).append(" *) 0)->").append(designator).append("));\n");
            expected.put(key + "." + designator + " offsetof", offset);
            expected.put(key + "." + designator + " sizeof", m.byteSize());
            if (m instanceof GroupLayout nested) {
                members(nested, ctype, key, designator + ".", offset, c, expected);
            }
        }
    }

    private static boolean isIntField(String name) {
        try {
            return hwloc_h.class.getField(name).getType() == int.class;
        } catch (NoSuchFieldException e) {
            return false;
        }
    }

    /** Every function holder links: the symbol exists in the loaded library with that name. */
    @Test
    void everyFunctionLinks() throws Exception {
        assumeTrue(HwlocLibrary.isAvailable(), "skipped: " + HwlocLibrary.unavailableReason());
        int linked = 0;
        for (Class<?> header : new Class<?>[]{hwloc_h.class, hwloc_bitmap_h.class, hwloc_binding_h.class}) {
            for (Method m : header.getMethods()) {
                if (m.getName().endsWith("$handle") && m.getParameterCount() == 0) {
                    assertNotNull((MethodHandle) m.invoke(null), header.getSimpleName() + "." + m.getName());
                    linked++;
                }
            }
        }
        assertTrue(linked >= 40, "linked " + linked + " functions");
    }

    private static boolean gccAvailable() {
        try {
            Process p = new ProcessBuilder("gcc", "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + out);
        return out;
    }
}
