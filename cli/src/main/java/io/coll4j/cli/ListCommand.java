package io.coll4j.cli;

import io.coll4j.Collective;
import io.coll4j.kernel.algo.AlgorithmCatalog;
import io.coll4j.kernel.algo.CollectiveAlgorithm;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code collbench list [COLLECTIVE]}: every algorithm per collective, in catalogue order (the order the
 * selector breaks ties in), with its one-line summary and seed; baselines are marked and never picked, and the
 * algorithms with resumable steps (what requests run) are marked "(requests too)".
 */
@Command(name = "list", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "List the algorithms of every collective (or of one) with a summary and the seed they come from.")
final class ListCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "COLLECTIVE", completionCandidates = CollectiveNames.class,
            description = "one of ${COMPLETION-CANDIDATES} (default: all)")
    String collective;

    @Override
    public Integer call() {
        List<Collective> which = collective == null ? List.of(Collective.values()) : List.of(Collective.parse(collective));
        PrintWriter out = spec.commandLine().getOut();
        for (Collective c : which) {
            out.println(c.cliName());
            for (CollectiveAlgorithm a : AlgorithmCatalog.of(c)) {
                String summary = AlgorithmCatalog.isBaseline(a) ? "(baseline, never auto) " + a.summary()
                        // a v-collective's requests run the engine's VectorBlocks (its creator may not know the others' counts)
                        : a instanceof io.coll4j.kernel.algo.Resumable && !c.vector() ? "(requests too) " + a.summary() : a.summary();
                out.printf("  %-14s %s  %s%n", a.name(), summary, a.seed());
            }
        }
        out.flush();
        return 0;
    }
}
