package io.coll4j.kernel.span.shm;

import io.coll4j.CollectiveMismatchException;
import io.coll4j.bindings.copy.Copy;
import io.coll4j.reductions.Reducer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The operations of a {@link SharedMemorySpan}, each a {@link Mapping.Step}: moved as far as it goes without
 * waiting by every poll (a blocking call polls until done; a Pending's test polls once).
 *
 * <p>Every collective is the same round protocol ({@link Channel}): each process has a byte stream (its contribution,
 * possibly empty), cut into slices of a slot; in each round every process copies its next slice into its slot, and
 * reads from its peers' slots what it needs. The rounds end when every stream is exhausted, which every process
 * sees from the same slot headers. A reduction folds the slices of every process in ascending process order with
 * the project's reducers, so every process computes bitwise the same result (reproducible mode holds).
 */
final class Ops {
    private Ops() {
    }

    /** A push folds and copies in chunks of this many bytes: the fold's result is still in L1/L2 when it is copied. */
    static final long PUSH_CHUNK = 32 * 1024;
    /**
     * A streaming push ({@link StreamingPush}) folds this many bytes per native call: the kernel stages 1 KiB in L1
     * itself, so the chunk only bounds the time between two liveness checks, and 32 KiB calls would cost a
     * downcall per 32 KiB.
     */
    static final long PUSH_NT_CHUNK = 1024 * 1024;
    /**
     * From this vector size on, the push writes every receive buffer, its own included, with streaming stores
     * ({@link StreamingPush}; a copy to the peers with streaming stores when the kernel has no fold for the dtype and
     * op): the working set (P send buffers, P receive buffers) is then past the last-level cache [YHCCL §4.2].
     */
    static final long PUSH_NT_BYTES = Long.getLong("coll4j.shm.pushNtBytes", 4L << 20);

    /** What a collective kind is called in a mismatch message; the index is the kind in a descriptor's top byte. */
    static final String[] KINDS = {"?", "allreduce", "reduce", "reduce_scatter_block", "bcast", "allgather", "barrier",
            "gatherv", "scatterv", "allgatherv", "alltoallv", "split"};
    static final int ALLREDUCE = 1, REDUCE = 2, REDUCE_SCATTER = 3, BCAST = 4, ALLGATHER = 5, BARRIER = 6, GATHERV = 7,
            SCATTERV = 8, ALLGATHERV = 9, ALLTOALLV = 10, SPLIT = 11;

    /** A descriptor: kind, dtype, op, root and count, so two processes in different collectives notice on the first round. */
    static long desc(int kind, int dtype, int op, int root, long count) {
        return ((long) kind << 56) | ((long) (dtype & 0xff) << 48) | ((long) (op & 0xff) << 40) | ((long) (root & 0xff) << 32)
                | (count & 0xffffffffL);
    }

    /** Process {@code process} called {@code mine} in a round where process {@code other} called {@code theirs}. */
    static CollectiveMismatchException mismatch(int process, long mine, int other, long theirs) {
        return new CollectiveMismatchException("shared mapping: process " + process + " called " + Coll.describe(mine)
                + " while process " + other + " called " + Coll.describe(theirs) + " (collectives must be called in the "
                + "same order with matching arguments in every process)");
    }

    /** A stream made of pieces of segments (a header of counts, then blocks). */
    static final class Pieces {
        private final MemorySegment[] segs;
        private final long[] offs;
        private final long[] lens;
        private int k;
        long total;

        Pieces(int capacity) {
            segs = new MemorySegment[capacity];
            offs = new long[capacity];
            lens = new long[capacity];
        }

        static Pieces of(MemorySegment seg, long off, long len) {
            return new Pieces(1).add(seg, off, len);
        }

        static Pieces empty() {
            return new Pieces(0);
        }

        Pieces add(MemorySegment seg, long off, long len) {
            if (len > 0) {
                segs[k] = seg;
                offs[k] = off;
                lens[k] = len;
                k++;
                total += len;
            }
            return this;
        }

        /** Copies bytes [from, from + n) of the stream to dst. */
        void fill(long from, MemorySegment dst, long dstOff, long n) {
            long at = 0;
            for (int i = 0; i < k && n > 0; i++) {
                long end = at + lens[i];
                if (from < end) {
                    long skip = from - at;
                    long c = Math.min(n, lens[i] - skip);
                    MemorySegment.copy(segs[i], offs[i] + skip, dst, dstOff, c);
                    from += c;
                    dstOff += c;
                    n -= c;
                }
                at = end;
            }
        }
    }

    /** The counts as a stream header: n longs in native order (read back with {@link #header}). */
    static MemorySegment header(long[] counts) {
        return MemorySegment.ofArray(counts.clone());
    }

    static long[] header(MemorySegment seg, long at, int n) {
        long[] c = new long[n];
        MemorySegment.copy(seg, ValueLayout.JAVA_LONG, at, c, 0, n);
        return c;
    }

    /**
     * A collective: the round protocol over the span's channel. A round's header, in the arrive line after the
     * counter and the descriptor: stream length, slice offset, slice length, where the stream lies in the mapping when
     * its owner lets its peers read it in place (-1: the slice is in the slot), and a fold's push offer (the receive
     * and send offsets, or -1) — six longs, the line's 48 payload bytes. The slot's first 64 bytes, once the header's,
     * stay unused so slices keep their 64-byte-aligned place.
     */
    abstract static class Coll extends Mapping.Step {
        final Channel ch;
        final int me;
        final long desc;
        final Pieces mine;
        /** The bytes of a stream one round's slice carries (a multiple of 64; {@link MaSlicedFold} keeps room for results). */
        long cap;
        private boolean writing = true;
        private boolean first = true;
        /** One round, every payload in its process's arrive line ({@link #inlineUpTo}). */
        private boolean inline;
        /** The last round is read; this process waits until its peers are done with its buffers ({@link #readInPlace}). */
        private boolean draining;
        private long myOff;
        /** Where this process's stream lies in the mapping when its peers read it there, else -1 (it is staged). */
        long streamAt = -1;
        /** A fold's push offer: this process's receive and send buffers in the mapping (-1: no offer). */
        long offerDst = -1;
        long offerSrc = -1;
        final long[] off;
        final long[] n;
        final long[] total;
        /** Where each process's slice of the current round starts in the mapping. */
        final long[] data;
        /** The first round's push offers of every process. */
        final long[] pushDsts;
        final long[] pushSrcs;

        Coll(Channel ch, int[] members, int me, long desc, Pieces mine, String what) {
            this.ch = ch;
            this.members = members;
            this.me = me;
            this.desc = desc;
            this.mine = mine;
            this.what = what;
            // a slice is a multiple of 64 bytes: every dtype's elements stay whole in every slice
            this.cap = (ch.m.slotBytes - Mapping.SLOT_HEADER) & ~63L;
            int p = members.length;
            off = new long[p];
            n = new long[p];
            total = new long[p];
            data = new long[p];
            pushDsts = new long[p];
            pushSrcs = new long[p];
        }

        /**
         * Makes this a one-round collective whose payloads travel in the arrive lines when {@code largest}, the
         * longest stream any process has (every process derives it from the same descriptor), fits one
         * ({@link Channel#INLINE}): one line hand-over carries flag and data, as the thread ranks' inline payloads do.
         */
        Coll inlineUpTo(long largest) {
            this.inline = largest <= Channel.INLINE;
            return this;
        }

        /** Process p's stream length in an inline round: every process's is this one's unless a subclass knows better. */
        long inlineTotal(int p) {
            return mine.total;
        }

        /** Lets the peers read this process's stream in place at {@code at} in the mapping (-1: stage it). */
        Coll readInPlace(long at) {
            this.streamAt = mine.total > 0 ? at : -1;
            return this;
        }

        @Override
        final boolean step() {
            MemorySegment seg = ch.seg();
            int self = members[me];
            for (; ; ) {
                long r = ch.round;
                if (draining) {
                    // acquire: pairs with the peers' done of the last round, after which they never touch this
                    // process's buffers again
                    if (!ch.allDone(members, r, this)) {
                        return false;
                    }
                    finish();
                    return true;
                }
                if (inline) {
                    return inlineRound(seg, self, r);
                }
                if (writing) {
                    // the slot and line of r's parity are free already (no wait): see Channel
                    // the round's header rides in the arrive line beside the counter and the descriptor: a peer
                    // reads counter, descriptor and header in one line hand-over, then only the data in the slot
                    long line = ch.line(self, r);
                    long slot = ch.slot(self, r);
                    // an offer's round carries no data: if every process offers, the fold pushes, otherwise every
                    // process starts its stream again in the next round
                    boolean offer = first && offerSrc >= 0;
                    long c = offer ? 0 : Math.min(cap, mine.total - myOff);
                    seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DESC, desc);
                    seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA, mine.total);
                    seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 8, myOff);
                    seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 16, c);
                    seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 24, streamAt);
                    seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 32, offer ? offerDst : -1);
                    seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 40, offer ? offerSrc : -1);
                    if (c > 0 && streamAt < 0) {
                        mine.fill(myOff, seg, slot + Mapping.SLOT_HEADER, c);
                    }
                    myOff += c;
                    ch.arrive(self, r + 1);
                    writing = false;
                }
                if (!ch.allArrived(members, r + 1, this)) {
                    return false;
                }
                boolean last = true;
                int offers = 0;
                for (int p = 0; p < members.length; p++) {
                    // the descriptor before the header: a process in an inline round wrote payload, not a header, there
                    long line = ch.line(members[p], r);
                    long d = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DESC);
                    if (d != desc) {
                        throw mismatch(p, d);
                    }
                    total[p] = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA);
                    off[p] = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 8);
                    n[p] = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 16);
                    long at = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 24);
                    data[p] = at >= 0 ? at + off[p] : ch.slot(members[p], r) + Mapping.SLOT_HEADER;
                    if (first) {
                        pushDsts[p] = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 32);
                        pushSrcs[p] = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DATA + 40);
                        offers += pushDsts[p] >= 0 ? 1 : 0;
                    }
                    last &= off[p] + n[p] >= total[p];
                }
                boolean offerRound = first && offers > 0;
                first = false;
                if (offerRound && offers == members.length) {
                    push(seg);
                } else if (!offerRound) {
                    consume(seg);
                }
                ch.done(self, r + 1);
                ch.round = r + 1;
                writing = true;
                if (offerRound && offers < members.length) {
                    myOff = 0;   // not every process offered: the round carried no data, every stream starts again
                    continue;
                }
                if (offerRound || last) {
                    // a peer may still read this process's buffers (or write them: a push) until it is done; or this
                    // process still has to read what its peers did in the last round (holdsResults)
                    if (offerRound || streamAt >= 0 || holdsResults()) {
                        draining = true;
                        continue;
                    }
                    finish();
                    return true;
                }
            }
        }

        /** The whole collective as one round whose payloads sit in the arrive lines ({@link #inlineUpTo}). */
        private boolean inlineRound(MemorySegment seg, int self, long r) {
            if (writing) {
                // the line of r's parity is free already (no wait): see Channel
                long line = ch.line(self, r);
                seg.set(ValueLayout.JAVA_LONG, line + Channel.LINE_DESC, desc);
                if (mine.total > 0) {
                    mine.fill(0, seg, line + Channel.LINE_DATA, mine.total);
                }
                ch.arrive(self, r + 1);
                writing = false;
            }
            if (!ch.allArrived(members, r + 1, this)) {
                return false;
            }
            for (int p = 0; p < members.length; p++) {
                long line = ch.line(members[p], r);
                long d = seg.get(ValueLayout.JAVA_LONG, line + Channel.LINE_DESC);
                if (d != desc) {
                    throw mismatch(p, d);
                }
                total[p] = inlineTotal(p);
                n[p] = total[p];
                off[p] = 0;
                data[p] = line + Channel.LINE_DATA;
            }
            consume(seg);
            // no done store: an inline round reads no peer's slot or buffer, and the done lines are read only by a
            // drain, which waits for done >= its own last round + 1, stored at the end of that round (done only
            // grows); the store was one more line per call whose write the next call's arrive queued behind
            ch.round = r + 1;
            writing = true;
            finish();
            return true;
        }

        /** The fold of every process's buffers in the mapping, when every process offered them (the first round). */
        void push(MemorySegment seg) {
            throw new IllegalStateException("shared mapping: " + what + " cannot push");
        }

        private CollectiveMismatchException mismatch(int p, long d) {
            return Ops.mismatch(ch.m.index, desc, members[p], d);
        }

        static String describe(long d) {
            int kind = (int) (d >>> 56);
            String name = kind > 0 && kind < KINDS.length ? KINDS[kind] : "an unknown call (" + Long.toHexString(d) + ")";
            if (kind == ALLREDUCE) {
                // an allreduce's root byte names its staged fold: processes that chose differently must not meet
                return name + " (" + StagedAllreduce.name((int) ((d >>> 32) & 0xff)) + ", dtype " + ((d >>> 48) & 0xff)
                        + ", op " + ((d >>> 40) & 0xff) + ", count " + (d & 0xffffffffL) + ")";
            }
            return name + " (dtype " + ((d >>> 48) & 0xff) + ", op " + ((d >>> 40) & 0xff) + ", root " + ((d >>> 32) & 0xff)
                    + ", count " + (d & 0xffffffffL) + ")";
        }

        /** Reads this round's slices (off, n, total, data of every process are set). */
        abstract void consume(MemorySegment seg);

        /**
         * Whether the last round leaves work that needs every peer done with it ({@link MaSlicedFold}: the copy-out of
         * the last slice's folded blocks): the call then waits for the peers' done, and {@link #finish} does it.
         */
        boolean holdsResults() {
            return false;
        }

        void finish() {
        }
    }

    /**
     * The reductions: every process streams its whole contribution (equal lengths), and folds, slice by slice, the
     * range [lo, hi) of the stream it owns into {@code dst} at {@code dst + (position - lo)}, in ascending process order.
     */
    static class Fold extends Coll {
        final MemorySegment dst;
        final long dstOff;
        final long lo;
        final long hi;
        final Reducer reducer;
        final int esize;
        final MemorySegment[] srcs;
        final long[] srcOffs;
        private RuntimeException userError;

        Fold(Channel ch, int[] members, int me, long desc, Pieces mine, String what, MemorySegment dst, long dstOff,
             long lo, long hi, Reducer reducer, int esize) {
            super(ch, members, me, desc, mine, what);
            this.dst = dst;
            this.dstOff = dstOff;
            this.lo = lo;
            this.hi = hi;
            this.reducer = reducer;
            this.esize = esize;
            int k = Math.min(members.length, Reducer.MAX_SOURCES);
            srcs = new MemorySegment[k];
            this.srcOffs = new long[k];
        }

        @Override
        void consume(MemorySegment seg) {
            long from = off[0];
            long a = Math.max(from, lo);
            long b = Math.min(from + n[0], hi);
            if (a >= b || userError != null) {
                return;
            }
            for (int p = 1; p < members.length; p++) {
                if (off[p] != from || n[p] != n[0]) {
                    throw new IllegalStateException("shared mapping: " + what + ": process " + members[p]
                            + " contributed a different length");
                }
            }
            long count = (b - a) / esize;
            MemorySegment out = dst;
            long d = dstOff + (a - lo);
            if (!dst.isNative()) {
                out = ch.m.foldScratch(b - a);
                d = 0;
            }
            try {
                // ascending process order, one pass over the first 16 sources, then dst with the next 15 [YHCCL §3.3]
                int p = 0;
                int k = 0;
                for (; p < members.length && k < srcs.length; p++, k++) {
                    srcs[k] = seg;
                    srcOffs[k] = data[p] + (a - from);
                }
                reducer.reduceMany(out, d, srcs, srcOffs, k, count);
                while (p < members.length) {
                    srcs[0] = out;
                    srcOffs[0] = d;
                    k = 1;
                    for (; p < members.length && k < srcs.length; p++, k++) {
                        srcs[k] = seg;
                        srcOffs[k] = data[p] + (a - from);
                    }
                    reducer.reduceMany(out, d, srcs, srcOffs, k, count);
                }
                if (out != dst) {
                    MemorySegment.copy(out, d, dst, dstOff + (a - lo), b - a);
                }
            } catch (RuntimeException e) {
                // a user op's exception: the collective completes for the peers, and this call fails afterwards
                userError = e;
            }
        }

        /**
         * Offers the push: this process's receive buffer at {@code dst} and send buffer at {@code src} in the mapping
         * (the same offset for in place). Built-in ops only: a user op that throws in one process would leave its
         * share of every process's result unwritten.
         */
        Fold offer(long dst, long src) {
            if (mine.total > 0 && dst >= 0 && src >= 0) {
                offerDst = dst;
                offerSrc = src;
            }
            return this;
        }

        /**
         * The push of [YHCCL §4.1] on buffers every process reaches in the mapping: this process folds its share
         * (1/P of the vector, in 64-byte units) of every process's send buffer, in ascending process order, into its
         * own receive buffer, and copies it into every peer's; chunk by chunk, so the copies read the fold's result
         * from cache, and in place (send = receive) each chunk of a peer's buffer is read before it is written.
         * Streaming stores for the peers' copies once the vector outgrows the cache.
         */
        @Override
        void push(MemorySegment seg) {
            long bytes = total[0];
            int k = members.length;
            long units = (bytes + 63) / 64;
            long a = Math.min(bytes, units * me / k * 64);
            long b = Math.min(bytes, units * (me + 1) / k * 64);
            boolean stream = bytes >= PUSH_NT_BYTES;
            StreamingPush nt = stream ? StreamingPush.of(reducer, k) : null;
            long chunk = nt != null ? PUSH_NT_CHUNK : PUSH_CHUNK;
            long own = pushDsts[me];
            for (long c = a; c < b; c += chunk) {
                // a 64 MiB push is one step of tens of ms (seconds on a loaded host): between chunks, at most every
                // CHECK_NANOS (a clock read otherwise), see whether a peer died, so a survivor does not fold on
                ch.m.checkDuringStep(members, what);
                long len = Math.min(chunk, b - c);
                long count = len / esize;
                if (nt != null && nt.run(seg, pushDsts, pushSrcs, c, count)) {
                    continue;
                }
                int p = 0;
                int j = 0;
                for (; p < k && j < srcs.length; p++, j++) {
                    srcs[j] = seg;
                    srcOffs[j] = pushSrcs[p] + c;
                }
                reducer.reduceMany(seg, own + c, srcs, srcOffs, j, count);
                while (p < k) {
                    srcs[0] = seg;
                    srcOffs[0] = own + c;
                    j = 1;
                    for (; p < k && j < srcs.length; p++, j++) {
                        srcs[j] = seg;
                        srcOffs[j] = pushSrcs[p] + c;
                    }
                    reducer.reduceMany(seg, own + c, srcs, srcOffs, j, count);
                }
                for (int q = 0; q < k; q++) {
                    if (q != me) {
                        if (stream) {
                            Copy.nonTemporal(seg, pushDsts[q] + c, seg, own + c, len);
                        } else {
                            MemorySegment.copy(seg, own + c, seg, pushDsts[q] + c, len);
                        }
                    }
                }
            }
        }

        @Override
        void finish() {
            if (userError != null) {
                error = new IllegalStateException(what + ": the user op threw " + userError, userError);
            }
        }
    }

    /** bcast: the root streams, the others copy. */
    static final class Bcast extends Coll {
        private final MemorySegment buf;
        private final long bytes;
        private final int root;

        Bcast(Channel ch, int[] members, int me, long desc, MemorySegment buf, long bytes, int root) {
            super(ch, members, me, desc, me == root ? Pieces.of(buf, 0, bytes) : Pieces.empty(), "bcast");
            this.buf = buf;
            this.bytes = bytes;
            this.root = root;
        }

        @Override
        long inlineTotal(int p) {
            return p == root ? bytes : 0;
        }

        @Override
        void consume(MemorySegment seg) {
            if (me != root && n[root] > 0) {
                MemorySegment.copy(seg, data[root], buf, off[root], n[root]);
            }
        }
    }

    /** gatherv, allgatherv, allgather: every process streams its block; the root (or everyone) copies each to its place. */
    static final class Gather extends Coll {
        private final MemorySegment recv;
        private final long[] displs;
        private final long[] counts;
        private final int root;
        private final boolean inPlace;

        /** {@code root < 0}: every process receives (allgatherv). */
        Gather(Channel ch, int[] members, int me, long desc, Pieces mine, String what, MemorySegment recv, long[] counts,
               long[] displs, int root, boolean inPlace) {
            super(ch, members, me, desc, mine, what);
            this.recv = recv;
            this.counts = counts;
            this.displs = displs;
            this.root = root;
            this.inPlace = inPlace;
        }

        @Override
        void consume(MemorySegment seg) {
            if (root >= 0 && me != root) {
                return;
            }
            for (int p = 0; p < members.length; p++) {
                if (n[p] == 0 || (p == me && inPlace)) {
                    continue;
                }
                if (total[p] > counts[p]) {
                    throw new IllegalStateException("shared mapping: " + what + ": process " + members[p] + " sent "
                            + total[p] + " bytes where " + counts[p] + " were expected");
                }
                MemorySegment.copy(seg, data[p], recv, displs[p] + off[p], n[p]);
            }
        }
    }

    /**
     * scatterv and alltoallv: process p streams a header of its n send counts, then its blocks for processes 0..n-1;
     * process q finds its block at 8n + (the counts before q) in the stream of each sender and copies it.
     */
    static final class Scatter extends Coll {
        private final MemorySegment recv;
        private final long[] recvDispls;
        /** The only sender (scatterv), or -1 (alltoallv: every process sends). */
        private final int root;
        private final long[] start;
        private final long[] len;
        private final Runnable atFinish;

        Scatter(Channel ch, int[] members, int me, long desc, Pieces mine, String what, MemorySegment recv, long[] recvDispls,
                int root, Runnable atFinish) {
            super(ch, members, me, desc, mine, what);
            this.recv = recv;
            this.recvDispls = recvDispls;
            this.root = root;
            this.atFinish = atFinish;
            start = new long[members.length];
            len = new long[members.length];
        }

        @Override
        void consume(MemorySegment seg) {
            int k = members.length;
            for (int p = 0; p < k; p++) {
                if ((root >= 0 && (p != root || me == root)) || n[p] == 0) {
                    continue;
                }
                if (off[p] == 0) {
                    long[] c = header(seg, data[p], k);
                    long s = 8L * k;
                    for (int q = 0; q < me; q++) {
                        s += c[q];
                    }
                    start[p] = s;
                    len[p] = c[me];
                }
                long a = Math.max(off[p], start[p]);
                long b = Math.min(off[p] + n[p], start[p] + len[p]);
                if (a < b) {
                    MemorySegment.copy(seg, data[p] + (a - off[p]), recv, recvDispls[root >= 0 ? 0 : p] + (a - start[p]), b - a);
                }
            }
        }

        /** The bytes process p's stream held for this one. */
        long received(int p) {
            return len[p];
        }

        @Override
        void finish() {
            if (atFinish != null) {
                atFinish.run();
            }
        }
    }

    /** A point-to-point message from this process to {@code dest} through their mailbox, in slices. */
    static final class Send extends Mapping.Step {
        private final Channel ch;
        private final int self;
        private final int dest;
        private final MemorySegment buf;
        private final long bytes;
        private long sentBytes;
        private boolean any;

        Send(Channel ch, int self, int dest, MemorySegment buf, long bytes) {
            this.ch = ch;
            this.self = self;
            this.dest = dest;
            this.buf = buf;
            this.bytes = bytes;
            this.members = new int[]{self, dest};
            this.what = "send to process " + dest;
        }

        @Override
        boolean step() {
            MemorySegment seg = ch.seg();
            long cap = (ch.m.mailBytes - Mapping.SLOT_HEADER) & ~63L;
            while (!any || sentBytes < bytes) {
                long k = ch.sent[dest];
                if (ch.acked(self, dest) < k) {
                    return false;   // the receiver has not taken the previous slice yet
                }
                long at = ch.mailbox(self, dest);
                long c = Math.min(cap, bytes - sentBytes);
                seg.set(ValueLayout.JAVA_LONG, at, bytes);
                seg.set(ValueLayout.JAVA_LONG, at + 8, sentBytes);
                seg.set(ValueLayout.JAVA_LONG, at + 16, c);
                if (c > 0) {
                    MemorySegment.copy(buf, sentBytes, seg, at + Mapping.SLOT_HEADER, c);
                }
                sentBytes += c;
                any = true;
                ch.sent[dest] = k + 1;
                ch.publish(self, dest, k + 1);
            }
            return true;
        }
    }

    /** A point-to-point message from {@code source} into {@code buf}. */
    static final class Recv extends Mapping.Step {
        private final Channel ch;
        private final int self;
        private final int source;
        private final MemorySegment buf;
        private final long bytes;
        private long got;
        private boolean any;

        Recv(Channel ch, int self, int source, MemorySegment buf, long bytes) {
            this.ch = ch;
            this.self = self;
            this.source = source;
            this.buf = buf;
            this.bytes = bytes;
            this.members = new int[]{self, source};
            this.what = "recv from process " + source;
        }

        @Override
        boolean step() {
            MemorySegment seg = ch.seg();
            while (!any || got < bytes) {
                long k = ch.received[source];
                if (ch.full(source, self) <= k) {
                    return false;
                }
                long at = ch.mailbox(source, self);
                long total = seg.get(ValueLayout.JAVA_LONG, at);
                long c = seg.get(ValueLayout.JAVA_LONG, at + 16);
                if (total != bytes) {
                    throw new IllegalStateException("shared mapping: recv of " + bytes + " bytes from process " + source
                            + ", which sent " + total);
                }
                if (c > 0) {
                    MemorySegment.copy(seg, at + Mapping.SLOT_HEADER, buf, seg.get(ValueLayout.JAVA_LONG, at + 8), c);
                }
                got += c;
                any = true;
                ch.received[source] = k + 1;
                ch.ack(source, self, k + 1);
            }
            return true;
        }
    }
}
