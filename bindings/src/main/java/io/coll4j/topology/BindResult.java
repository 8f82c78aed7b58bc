package io.coll4j.topology;

/**
 * The outcome of binding the calling thread to a PU.
 *
 * @param bound        true when the thread is bound to the PU and was seen running on it afterwards
 * @param requestedOsPu the PU asked for (OS index)
 * @param observedOsPu  the PU the thread was seen on after the call ({@code hwloc_get_last_cpu_location}
 *                      or {@code sched_getcpu}); -1 when not observed
 * @param method       how: "hwloc_set_cpubind(THREAD)", "sched_setaffinity", or "none"
 * @param detail       one line: what was verified, or why it did not bind
 */
public record BindResult(boolean bound, int requestedOsPu, int observedOsPu, String method, String detail) {
}
