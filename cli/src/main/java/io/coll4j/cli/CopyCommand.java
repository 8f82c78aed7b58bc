package io.coll4j.cli;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

@Command(name = "copy", description = "Copy bandwidth benchmark.")
final class CopyCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("copy: not yet available");
        return Errors.USAGE;
    }
}
