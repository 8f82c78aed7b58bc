package io.coll4j.kernel.algo;

/**
 * How {@link Steps.Items} cut a vector into work items, and how much a {@link Steps.Parts} schedule may stage.
 * Items are claimed by whichever worker gets them, so there must be more of them than workers for a waiting
 * rank to take over a late peer's share, and each must be worth its claim.
 */
public final class ItemSlicing {
    /** Largest per-rank contribution the engine's staging regions carry (one or two cache lines per rank). */
    public static final long STAGE_MAX_BYTES = 256;
    /** Smallest item: below this the claim traffic costs more than the parallel work saves. */
    public static final long MIN_ITEM_BYTES = 4096;

    private ItemSlicing() {
    }

    /**
     * Item size for {@code bytes} of work on {@code p} ranks: about four items per rank so that a waiting rank can
     * take over a late peer's share (work stealing needs more items than workers), at least
     * {@link #MIN_ITEM_BYTES}, at most the team's I_max [YHCCL §5.1], in whole cache lines.
     */
    public static long sliceBytes(long bytes, int p, long maxSliceBytes) {
        long s = Math.min(maxSliceBytes, Math.max(MIN_ITEM_BYTES, bytes / (4L * p)));
        return Math.max(64, s / 64 * 64);
    }

    /** Elements per item of a vector of {@code count} elements of {@code es} bytes, {@code total} bytes of work. */
    public static long sliceElements(long total, int p, long maxSliceBytes, int es) {
        return Math.max(1, sliceBytes(total, p, maxSliceBytes) / es);
    }

    /**
     * Whether a request whose ranks contribute {@code bytes} each runs as {@link Steps.Parts} (the contributions
     * travel in the staging regions: one hand-over of flag and data per round, and a rank's request completes with
     * its own part) rather than as items over the buffers in place (a post, then the items' own hand-over).
     */
    public static boolean staged(long bytes) {
        return bytes <= STAGE_MAX_BYTES;
    }

    /**
     * Predicted time of staged parts awaited at once: one hand-over of flag and data, {@code polled} staged lines
     * read (the copies and folds of at most 256 B per rank are below the model's resolution) [PAMI §3.4].
     */
    public static double stagedCost(io.coll4j.kernel.model.MachineModel m, int polled) {
        return polled == 0 ? m.callOverhead() : m.callOverhead() + CopyCost.flag(m) + CopyCost.poll(m, polled);
    }

    /** Items of {@code count} elements cut into slices of {@code sliceElements}. */
    public static long items(long count, long sliceElements) {
        return (count + sliceElements - 1) / sliceElements;
    }
}
