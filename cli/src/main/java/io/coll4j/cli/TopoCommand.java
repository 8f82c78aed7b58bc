package io.coll4j.cli;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "topo", description = "Print the machine topology, placement and binding support.")
final class TopoCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("topo: not yet available");
        return Errors.USAGE;
    }
}
