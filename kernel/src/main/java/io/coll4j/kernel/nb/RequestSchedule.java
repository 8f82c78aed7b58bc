package io.coll4j.kernel.nb;

import io.coll4j.kernel.algo.Steps;

/**
 * The steps an {@link Exchange} runs and the algorithm they belong to: a catalogue algorithm's (its
 * {@code collbench list} name) or the engine's own schedule ({@link RequestSchedules#ENGINE_STAGED},
 * {@link RequestSchedules#ENGINE_SLICED}); {@code vector} is a v-collective's steps, which also match the ranks'
 * counts (else null).
 */
record RequestSchedule(String algorithm, Steps steps, VectorBlocks vector) {
}
