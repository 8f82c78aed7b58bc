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
 * JVM) every copy still works through MemorySegment.copy, the status line says why, and the native
 * reduce kernels refuse with {@link IllegalStateException}.
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
        assertTrue(out.contains("unavailable (libcoll4j.so: disabled by -Dcoll4j.native.disable=true)"), out);
        assertTrue(out.contains("reduce unavailable"), out);
        assertTrue(out.contains("isa none"), out);
        assertTrue(out.contains("copied ok"), out);
    }

    /** Run in the child JVM: each copy path on a patterned source, checked byte for byte. */
    public static final class FallbackMain {
        public static void main(String[] args) {
            System.out.println(Copy.nativeStatus());
            System.out.println("isa " + Copy.ntIsa());
            try (var a = java.lang.foreign.Arena.ofConfined()) {
                var src = a.allocate(1 << 20);
                for (int i = 0; i < 1 << 20; i++) {
                    src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + (i >>> 8)));
                }
                boolean ok = true;
                long[][] cases = {{0, 0, 1 << 20}, {1, 7, 100_000}, {2, 3, 1000}};
                for (long[] c : cases) {
                    var dst = a.allocate(1 << 20);
                    if (c[2] == 1 << 20) {
                        Copy.nonTemporal(dst, c[0], src, c[1], c[2]);
                    } else if (c[2] == 100_000) {
                        new Copy(0).adaptive(dst, c[0], src, c[1], c[2], 1L << 40);
                    } else {
                        Copy.nativeTemporal(dst, c[0], src, c[1], c[2]);
                    }
                    ok &= java.lang.foreign.MemorySegment.mismatch(src, c[1], c[1] + c[2], dst, c[0], c[0] + c[2]) == -1;
                }
                System.out.println(ok ? "copied ok" : "copy wrong");
                try {
                    NativeReduce.reduce(NativeReduce.F64, NativeReduce.SUM, src, src, src, 8);
                    System.out.println("reduce ran");
                } catch (IllegalStateException e) {
                    System.out.println(NativeReduce.available() ? "reduce threw though available" : "reduce unavailable");
                }
            }
        }
    }
}
