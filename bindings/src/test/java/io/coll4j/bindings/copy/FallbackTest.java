package io.coll4j.bindings.copy;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With {@code -Dcoll4j.native.disable=true} (the library is loaded once per JVM, so this runs a child
 * JVM) every copy still works through MemorySegment.copy and the status line says why.
 */
class FallbackTest {
    @Test
    void copiesFallBackWhenTheLibraryIsDisabled() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "-Dcoll4j.native.disable=true", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), FallbackMain.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("unavailable (disabled by -Dcoll4j.native.disable=true)"), out);
        assertTrue(out.contains("isa none"), out);
        assertTrue(out.contains("copied ok"), out);
    }

    /** Run in the child JVM. */
    public static final class FallbackMain {
        public static void main(String[] args) {
            System.out.println(Copy.nativeStatus());
            System.out.println("isa " + Copy.ntIsa());
            try (var a = java.lang.foreign.Arena.ofConfined()) {
                var src = a.allocate(1 << 20);
                var dst = a.allocate(1 << 20);
                src.fill((byte) 3);
                Copy.nonTemporal(dst, 0, src, 0, 1 << 20);
                Copy.nonTemporalAlways(dst, 1, src, 0, 1000);
                Copy.nativeTemporal(dst, 2, src, 0, 1000);
                System.out.println(java.lang.foreign.MemorySegment.mismatch(src, 0, 1 << 20, dst, 0, 1 << 20) == 2 ? "x" : "copied ok");
            }
        }
    }
}
