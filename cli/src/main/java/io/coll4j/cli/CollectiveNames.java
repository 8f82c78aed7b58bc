package io.coll4j.cli;

import io.coll4j.Collective;

import java.util.Arrays;
import java.util.Iterator;

/**
 * The collectives' CLI names in catalogue order, for picocli's {@code ${COMPLETION-CANDIDATES}} in the help of
 * {@code list} and {@code explain}: the help names what {@link Collective} holds, not a list typed once.
 */
final class CollectiveNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
        return Arrays.stream(Collective.values()).map(Collective::cliName).iterator();
    }
}
