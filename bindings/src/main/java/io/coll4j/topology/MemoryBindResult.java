package io.coll4j.topology;

/**
 * The outcome of binding a memory range to a NUMA node.
 *
 * @param bound  true when the policy was applied to the page-aligned part of the segment
 * @param node   the NUMA node asked for (OS index)
 * @param method how: "hwloc_set_area_membind(BIND)" or "mbind(MPOL_BIND)" (the policy; touched pages were already on
 *               the node), the same with MIGRATE / MPOL_MF_MOVE (touched pages elsewhere were moved), or "none"
 * @param detail one line: the range bound, or why nothing was
 */
public record MemoryBindResult(boolean bound, int node, String method, String detail) {
}
