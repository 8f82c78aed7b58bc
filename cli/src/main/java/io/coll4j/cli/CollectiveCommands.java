package io.coll4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/** The collective subcommands; they run once the kernel lands (issue: team runtime). */
final class CollectiveCommands {
    private CollectiveCommands() {
    }

    abstract static class Base implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @CommandLine.Unmatched
        java.util.List<String> ignored;

        @Override
        public Integer call() {
            spec.commandLine().getErr().println(spec.name() + ": not yet available");
            return Errors.USAGE;
        }
    }

    @Command(name = "allreduce", description = "allreduce benchmark") static final class Allreduce extends Base { }
    @Command(name = "reduce-scatter", description = "reduce-scatter benchmark") static final class ReduceScatter extends Base { }
    @Command(name = "reduce", description = "reduce benchmark") static final class Reduce extends Base { }
    @Command(name = "bcast", description = "bcast benchmark") static final class Bcast extends Base { }
    @Command(name = "allgather", description = "allgather benchmark") static final class Allgather extends Base { }
    @Command(name = "barrier", description = "barrier benchmark") static final class Barrier extends Base { }
}
