package io.coll4j.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** {@code -V}: coll4j version (from the build), JDK, OS and CPU architecture. */
public final class Version implements CommandLine.IVersionProvider {

    /** The coll4j version the build stamped into the jar ("unknown" when run from bare classes). */
    public static String coll4j() {
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    @Override
    public String[] getVersion() {
        return new String[]{
                "collbench (coll4j) " + coll4j(),
                "JDK " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")",
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
        };
    }
}
