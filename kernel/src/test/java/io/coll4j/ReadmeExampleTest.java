package io.coll4j;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The README's quickstart, taken from README.md itself: the first {@code java} code block that declares
 * {@code class Main} is written to a file, compiled with this JDK's {@code javac} against the library's
 * classes and run in a new JVM with the flags the README gives. Its output must be what the README's
 * {@code text} block right after it says it prints: the first line exactly, the second up to the algorithm's
 * name (which algorithm the model picks, and its predicted times, depend on the machine).
 */
class ReadmeExampleTest {

    /** The JVM flags the README's quickstart section tells users to run with. */
    static final List<String> README_JVM_FLAGS =
            List.of("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED");

    @Test
    void readmeQuickstartCompilesAndPrintsWhatTheReadmeSays() throws Exception {
        String readme = Files.readString(findReadme(), StandardCharsets.UTF_8);
        List<String> java = blocks(readme, "java");
        String main = java.stream().filter(b -> b.contains("public class Main")).findFirst()
                .orElseThrow(() -> new AssertionError("README.md has no ```java block with 'public class Main'"));
        String expected = blockAfter(readme, main, "text");
        for (String flag : README_JVM_FLAGS) {
            assertTrue(readme.contains(flag), "README.md no longer names the JVM flag " + flag);
        }

        Path dir = Files.createTempDirectory("coll4j-readme");
        Path src = dir.resolve("Main.java");
        Files.writeString(src, main, StandardCharsets.UTF_8);
        Path classes = dir.resolve("classes");
        String cp = libraryClassPath();
        String bin = System.getProperty("java.home") + File.separator + "bin" + File.separator;

        List<String> javac = new ArrayList<>(List.of(bin + "javac", "--add-modules", "jdk.incubator.vector",
                "-cp", cp, "-d", classes.toString(), src.toString()));
        Result compiled = run(javac, 120);
        assertEquals(0, compiled.rc, "the README quickstart does not compile:\n" + compiled.out);

        List<String> cmd = new ArrayList<>();
        cmd.add(bin + "java");
        cmd.addAll(README_JVM_FLAGS);
        cmd.addAll(List.of("-cp", classes + File.pathSeparator + cp, "com.example.Main"));
        Result ran = run(cmd, 300);
        assertEquals(0, ran.rc, "the README quickstart failed:\n" + ran.out);

        System.out.print(ran.out);                                  // in target/surefire-reports/*-output.txt
        List<String> want = expected.lines().toList();
        List<String> got = ran.out.lines().filter(l -> !l.startsWith("WARNING")).toList();
        assertTrue(want.size() >= 2 && got.size() >= 2, "output:\n" + ran.out + "\nREADME says:\n" + expected);
        assertEquals(want.get(0), got.get(0), "first line the README promises");
        String prefix = want.get(1).substring(0, want.get(1).indexOf(": ") + 2);
        assertTrue(got.get(1).startsWith(prefix), "second line should start with '" + prefix + "': " + got.get(1));
        for (String line : got.subList(2, got.size() - 1)) {
            assertTrue(line.matches("  [* ] \\S+\\s+[0-9.]+ us"), "a prediction line: '" + line + "'\n" + ran.out);
        }
        // the last line: what a request of the same call runs, as the README shows it
        assertEquals(want.get(want.size() - 1), got.get(got.size() - 1), "the request line the README promises");
    }

    static Path findReadme() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path r = d.resolve("README.md");
            if (Files.isRegularFile(r) && Files.isDirectory(d.resolve("kernel"))) {
                return r;
            }
        }
        throw new AssertionError("README.md not found above " + Path.of("").toAbsolutePath());
    }

    /** The bodies of every fenced block of the given info string, in order. */
    static List<String> blocks(String md, String lang) {
        List<String> out = new ArrayList<>();
        String open = "```" + lang + "\n";
        for (int i = md.indexOf(open); i >= 0; i = md.indexOf(open, i + 1)) {
            int start = i + open.length();
            int end = md.indexOf("\n```", start - 1);
            out.add(md.substring(start, end + 1));
        }
        return out;
    }

    /** The first block of the given info string after the text {@code after}. */
    static String blockAfter(String md, String after, String lang) {
        int from = md.indexOf(after) + after.length();
        String open = "```" + lang + "\n";
        int i = md.indexOf(open, from);
        if (i < 0) {
            fail("README.md has no ```" + lang + " block after the quickstart");
        }
        int start = i + open.length();
        return md.substring(start, md.indexOf("\n```", start - 1) + 1);
    }

    /** The module path and class path this test runs with: the library modules and their dependencies. */
    static String libraryClassPath() {
        Set<String> parts = new LinkedHashSet<>();
        for (String key : List.of("jdk.module.path", "java.class.path")) {
            String v = System.getProperty(key);
            if (v != null) {
                for (String p : v.split(File.pathSeparator)) {
                    if (!p.isBlank()) {
                        parts.add(p);
                    }
                }
            }
        }
        return String.join(File.pathSeparator, parts);
    }

    record Result(int rc, String out) { }

    static Result run(List<String> cmd, int timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out: " + cmd);
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
