package io.coll4j.kernel.span.shm;

import io.coll4j.CollectiveTimeoutException;
import io.coll4j.TeamAbortedException;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One file of /dev/shm mapped into every process of a job ({@link SharedMemorySpan}): its layout, how it is
 * created and joined, the liveness of the processes, and the progress of every operation queued on it.
 *
 * <p>Layout (offsets in bytes; every counter another process reads sits in a cache line of its own):
 * <pre>
 *   0       magic+version (long, written last by the creator, with release)
 *   8       processes, 12 channels, 16 slot bytes, 20 mailbox bytes (ints), 24 region bytes per process (long)
 *   64      mapped: how many processes have mapped the file (int, getAndAdd)
 *   128     aborted: 0, or 1 + the index of the process that aborted (int, CAS)
 *   192     next free channel (int, getAndAdd by split)
 *   256     the abort message: length (int) then UTF-8 bytes, up to 1 KiB
 *   2048    per process p, a line at 2048 + 64 p: pid (long), state (int: 1 open, 2 closed)
 *   4096    channel c at 4096 + c × channelBytes: per process three lines (arrive of even rounds, arrive of odd
 *           rounds, each with the round's descriptor and up to 48 bytes of inline payload; done), per ordered pair of
 *           processes a line pair (full, ack), then per process two slots (round parity), then per ordered
 *           pair a mailbox
 *   then    at {@link #regionsAt} (2 MiB aligned), per process p its allocation region ({@link Region}: the
 *           {@code rank.allocate} memory of its ranks, which the collectives read and write in place by offset)
 * </pre>
 *
 * <p>The file is sparse (tmpfs allocates a page when it is first touched), so a large region costs nothing until the
 * ranks use it.
 */
final class Mapping {
    static final long MAGIC = 0x636f6c6c34_6a0004L;   // "coll4j" + layout version 4 (round headers in the arrive lines)
    private static final int MAX_PROCESSES = 32;
    static final long PROC_LINES = 2048;
    static final long CHANNELS_AT = 4096;
    private static final long MSG_AT = 256;
    private static final int MSG_MAX = 1024;
    static final int SLOT_HEADER = 64;
    /** How often a waiting process looks at its peers' pids and the abort word (the brief's 50-100 ms). */
    static final long CHECK_NANOS = 50_000_000L;

    /** Plain accesses to the mapping's counters through these: acquire/release per use (see the call sites). */
    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    final Path path;
    final int processes;
    final int index;
    final int localRanks;
    final int channels;
    final long slotBytes;
    final long mailBytes;
    final long channelBytes;
    final long timeoutNanos;
    /** Where the allocation regions start, and this process's. */
    final long regionsAt;
    final Region region;
    private final Arena arena;
    final MemorySegment seg;
    /** Guards every queue and every channel's local counters; held while operations move, never while waiting. */
    final ReentrantLock lock = new ReentrantLock();
    private final HashMap<Object, Queue> queues = new HashMap<>();
    private final ArrayList<Queue> active = new ArrayList<>();
    private long nextCheck;
    /** Where a fold into a heap segment goes first (under the lock: one at a time), allocated on first use. */
    private MemorySegment foldScratch;
    private int open = 1;
    private boolean closed;
    /** The file's identity (device, inode) as this process mapped it: only that file is unlinked on an abort. */
    private Object fileKey;
    /** The liveness of the peer processes, checked on the slow path of every wait ({@link #check}). */
    private final Liveness liveness;

    private Mapping(Path path, int processes, int index, int localRanks, int channels, long slotBytes, long mailBytes,
                    long regionBytes, Arena arena, MemorySegment seg, long timeoutNanos) {
        this.path = path;
        this.processes = processes;
        this.index = index;
        this.localRanks = localRanks;
        this.channels = channels;
        this.slotBytes = slotBytes;
        this.mailBytes = mailBytes;
        this.channelBytes = channelBytes(processes, slotBytes, mailBytes);
        this.arena = arena;
        // the mapping as a plain native segment of the same arena: the reducers' and copies' call sites then see one
        // segment class (a MappedMemorySegmentImpl beside the native ones made their profiles polymorphic)
        this.seg = MemorySegment.ofAddress(seg.address()).reinterpret(seg.byteSize(), arena, null);
        this.timeoutNanos = timeoutNanos;
        this.regionsAt = regionsAt(channels, channelBytes);
        this.region = new Region(regionsAt + index * regionBytes, regionBytes);
        this.liveness = new Liveness(processes);
    }

    private static long regionsAt(int channels, long channelBytes) {
        return align(CHANNELS_AT + channels * channelBytes, 2L << 20);
    }

    private static long size(int n, int channels, long slot, long mail, long regionBytes) {
        return regionsAt(channels, channelBytes(n, slot, mail)) + n * regionBytes;
    }

    /**
     * The default allocation region of each of {@code n} processes: a quarter of the free space of /dev/shm shared
     * among them, in 2 MiB units; the sparse file takes a page only when a rank touches it, and what stays free
     * is left to the other users of /dev/shm (a touch of a page tmpfs has no room for kills the process: SIGBUS).
     */
    static long defaultRegionBytes(Path dir, int n) {
        long usable;
        try {
            usable = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            usable = 0;
        }
        return usable / 4 / n / (2L << 20) * (2L << 20);
    }

    /**
     * The offset in the mapping of {@code bytes} of {@code s} from {@code off}, or -1 when they are not all inside it
     * (heap arrays, the user's own native memory): the collectives read and write such buffers of every process in
     * place, found by offset, never by reference.
     */
    long offsetOf(MemorySegment s, long off, long bytes) {
        if (!s.isNative()) {
            return -1;
        }
        long a = s.address() + off - seg.address();
        return a >= 0 && a + bytes <= seg.byteSize() && a >= regionsAt ? a : -1;
    }

    static long channelBytes(int n, long slot, long mail) {
        return ctrlBytes(n) + 2L * n * slot + (long) n * n * mail;
    }

    /** A channel's counters: per process two arrive lines (round parity) and a done line, per ordered pair two lines. */
    static long ctrlBytes(int n) {
        return align((long) n * Channel.PROCESS_LINES + (long) n * n * 128, 4096);
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    /** /dev/shm/coll4j-JOB-UID: the job name every process shares, and the user's id (two users never meet). */
    static Path pathOf(String job) {
        if (job == null || !job.matches("[A-Za-z0-9._-]{1,100}")) {
            throw new IllegalArgumentException("name: a job name of 1 to 100 letters, digits, '.', '_' or '-', got '" + job + "'");
        }
        Object uid;
        try {
            uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            uid = System.getProperty("user.name");
        }
        return Path.of(System.getProperty("coll4j.shm.dir", "/dev/shm"), "coll4j-" + job + "-" + uid);
    }

    /**
     * Creates (index 0) or joins (the others) the job's mapping, bounded by {@code timeout}; index 0 unlinks the file
     * as soon as every process has mapped it, so a process killed afterwards leaves nothing behind.
     */
    static Mapping open(String job, int processes, int index, int localRanks, Duration timeout, long regionBytes) {
        if (processes < 2 || processes > MAX_PROCESSES) {
            throw new IllegalArgumentException("processes: 2 to " + MAX_PROCESSES + " for a shared mapping, got " + processes);
        }
        if (index < 0 || index >= processes) {
            throw new IllegalArgumentException("processes: index " + index + " outside 0.." + (processes - 1));
        }
        Path path = pathOf(job);
        long timeoutNanos = timeout.isZero() ? Long.MAX_VALUE : timeout.toNanos();
        // the join has a bound of its own: a process killed before it mapped the file cannot be seen dying (its pid is
        // not in the file yet), and the team timeout may be minutes
        long joinNanos = Math.min(timeoutNanos, Duration.ofSeconds(Long.getLong("coll4j.shm.joinSeconds", 60)).toNanos());
        long deadline = System.nanoTime() + joinNanos;
        int fixed = SharedMemorySpan.CHANNELS + SharedMemorySpan.perLocalChannels(localRanks);
        // the world span's channels, and room for the sub-teams' (every split takes its own)
        int channels = Integer.getInteger("coll4j.shm.channels", Math.max(64, fixed + 48));
        // 1 MiB slices: 64 MiB allreduce across 2 processes of a loaded 2-CPU machine read 32 ms mean (min 18) against
        // 68 ms (min 18) with 256 KiB, alternated: fewer rounds, fewer waits for a descheduled peer
        long slot = Long.getLong("coll4j.shm.slotBytes", 1024 * 1024);
        long mail = Long.getLong("coll4j.shm.mailBytes", 64 * 1024);
        try {
            long region = regionBytes > 0 ? Region.roundUp(regionBytes) : defaultRegionBytes(path.getParent(), processes);
            return index == 0 ? create(path, processes, localRanks, channels, fixed, slot, mail, region, timeoutNanos, deadline)
                    : join(path, processes, index, localRanks, timeoutNanos, deadline);
        } catch (IOException e) {
            throw new IllegalStateException("shared mapping " + path + ": " + e, e);
        }
    }

    private static long pid() {
        return ProcessHandle.current().pid();
    }

    private static Mapping create(Path path, int n, int localRanks, int channels, int fixed, long slot, long mail, long region,
                                  long timeoutNanos, long deadline) throws IOException {
        long size = size(n, channels, slot, mail, region);
        for (int attempt = 0; ; attempt++) {
            try {
                Files.createFile(path, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                break;
            } catch (FileAlreadyExistsException e) {
                String why = staleReason(path);
                if (why == null || attempt > 3) {
                    throw new IllegalStateException("shared mapping " + path + " is in use by a live job of the same name"
                            + " (its creator is alive); pick another name(...)");
                }
                System.err.println("coll4j: replacing " + path + " left by an earlier job (" + why + ")");
                Files.deleteIfExists(path);
            }
        }
        boolean ok = false;
        Arena arena = Arena.ofShared();
        try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment seg = fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            seg.set(ValueLayout.JAVA_INT, 8, n);
            seg.set(ValueLayout.JAVA_INT, 12, channels);
            seg.set(ValueLayout.JAVA_INT, 16, (int) slot);
            seg.set(ValueLayout.JAVA_INT, 20, (int) mail);
            seg.set(ValueLayout.JAVA_LONG, 24, region);   // process 0's choice sizes every process's region
            seg.set(ValueLayout.JAVA_INT, 192, fixed);   // the world span's
            seg.set(ValueLayout.JAVA_LONG, PROC_LINES, pid());
            seg.set(ValueLayout.JAVA_INT, PROC_LINES + 8, 1);
            seg.set(ValueLayout.JAVA_INT, 64, 1);
            // last, with release: pairs with the joiners' getAcquire of the magic, so they see every field above
            LONG.setRelease(seg, 0L, MAGIC);
            Mapping m = new Mapping(path, n, 0, localRanks, channels, slot, mail, region, arena, seg, timeoutNanos);
            m.fileKey = fileKey(path);
            // every process maps the file, then it goes: a kill -9 from here on leaves nothing in /dev/shm
            for (int idle = 0; (int) INT.getAcquire(seg, 64L) < n; idle++) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("shared mapping " + path + ": only " + (int) INT.getAcquire(seg, 64L)
                            + " of " + n + " processes mapped it within the join timeout (the team timeout, at most "
                            + "coll4j.shm.joinSeconds); missing indices " + m.unregistered());
                }
                if (idle % 25 == 0) {
                    m.failIfAJoinerDied();
                }
                LockSupport.parkNanos(idle < 100 ? 100_000 : 2_000_000);
            }
            Files.deleteIfExists(path);
            ok = true;
            return m;
        } finally {
            if (!ok) {
                Files.deleteIfExists(path);
                arena.close();
            }
        }
    }

    /** During process 0's join wait: a process that registered its pid and died since will never be counted. */
    private void failIfAJoinerDied() {
        for (int p = 1; p < processes; p++) {
            long pid = pidOf(p);
            if (pid != 0 && !Liveness.alive(pid)) {
                throw new IllegalStateException("shared mapping " + path + ": process " + p + " (pid " + pid
                        + ") died during the join");
            }
        }
    }

    private List<Integer> unregistered() {
        List<Integer> l = new ArrayList<>();
        for (int p = 0; p < processes; p++) {
            if ((long) LONG.getAcquire(seg, PROC_LINES + 64L * p) == 0) {
                l.add(p);
            }
        }
        return l;
    }

    private static Object fileKey(Path path) {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * After a peer died: the file is still there when it died before every process had mapped it (process 0 unlinks
     * it at the full count), and nobody else would remove it; this process does, if it is still the file it mapped.
     */
    private void unlinkIfStillHere() {
        try {
            Object now = fileKey(path);
            if (now != null && now.equals(fileKey)) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // left to the next job of this name, which replaces a file whose creator is dead
        }
    }

    /** What an existing file's first lines say: its layout's magic and its creator's pid; null when it is gone. */
    private record Header(boolean tooShort, long magic, long creator) {
        boolean current() {
            return !tooShort && magic == MAGIC;
        }
    }

    private static Header header(Path path) throws IOException {
        try (FileChannel fc = FileChannel.open(path, StandardOpenOption.READ); Arena a = Arena.ofConfined()) {
            if (fc.size() < CHANNELS_AT) {
                return new Header(true, 0, 0);
            }
            MemorySegment h = fc.map(FileChannel.MapMode.READ_ONLY, 0, CHANNELS_AT, a);
            // acquire: pairs with the creator's setRelease of the magic (the creator's pid is then visible)
            long magic = (long) LONG.getAcquire(h, 0L);
            return new Header(false, magic, h.get(ValueLayout.JAVA_LONG, PROC_LINES));
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /** The creator's pid of the file at {@code path} with this version's magic, or 0 (none, not yet initialised). */
    private static long creatorOf(Path path) throws IOException {
        Header h = header(path);
        return h != null && h.current() ? h.creator() : 0;
    }

    /** Why an existing file is left over from a dead job (null: a live one): another layout version, or its creator dead. */
    private static String staleReason(Path path) throws IOException {
        Header h = header(path);
        if (h == null) {
            return "gone";
        }
        if (h.tooShort()) {
            return "too short for a coll4j mapping";
        }
        if (h.magic() != MAGIC) {
            return "magic " + Long.toHexString(h.magic()) + ", not this version's " + Long.toHexString(MAGIC);
        }
        return Liveness.alive(h.creator()) ? null : "its creator pid " + h.creator() + " is dead";
    }

    private static Mapping join(Path path, int n, int index, int localRanks, long timeoutNanos, long deadline)
            throws IOException {
        String last = "no file yet";
        long liveCreator = 0;
        for (int idle = 0; ; idle++) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("shared mapping " + path + ": process " + index + " of " + n
                        + " found no mapping made by process 0 within the join timeout (the team timeout, at most "
                        + "coll4j.shm.joinSeconds) (" + last + ")");
            }
            Mapping m = tryJoin(path, n, index, localRanks, timeoutNanos);
            if (m != null) {
                return m;
            }
            if (idle % 25 == 0) {
                // a creator this process saw alive in the file and that died since is this job's process 0, not the
                // creator of a stale file: nobody will replace the file, so waiting on is waiting for the timeout
                long creator = creatorOf(path);
                if (creator != 0 && Liveness.alive(creator)) {
                    liveCreator = creator;
                } else if (creator != 0 && creator == liveCreator) {
                    Files.deleteIfExists(path);
                    throw new IllegalStateException("shared mapping " + path + ": process 0 (pid " + creator
                            + ") died during the join");
                }
            }
            last = Files.exists(path) ? "a file not (yet) initialised, or left by an earlier job" : "no file yet";
            LockSupport.parkNanos(idle < 100 ? 200_000 : 2_000_000);
        }
    }

    private static Mapping tryJoin(Path path, int n, int index, int localRanks, long timeoutNanos) throws IOException {
        FileChannel fc;
        try {
            fc = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            return null;
        }
        try (fc) {
            if (fc.size() < CHANNELS_AT) {
                return null;
            }
            Arena arena = Arena.ofShared();
            boolean ok = false;
            try {
                MemorySegment h = fc.map(FileChannel.MapMode.READ_WRITE, 0, CHANNELS_AT, arena);
                // acquire: pairs with the creator's setRelease of the magic (every header field is then visible)
                if ((long) LONG.getAcquire(h, 0L) != MAGIC || !Liveness.alive(h.get(ValueLayout.JAVA_LONG, PROC_LINES))) {
                    return null;   // being initialised, or a stale file process 0 will replace
                }
                int procs = h.get(ValueLayout.JAVA_INT, 8);
                if (procs != n) {
                    throw new IllegalStateException("shared mapping " + path + " was made for " + procs
                            + " processes; this one was built with processes(" + n + ", " + index + ")");
                }
                long mine = PROC_LINES + 64L * index;
                long owner = (long) LONG.getAcquire(h, mine);
                if (owner == pid()) {
                    return null;   // this process's earlier team of the same name, not yet unlinked: wait for the next
                }
                if (owner != 0 && Liveness.alive(owner)) {
                    throw new IllegalStateException("shared mapping " + path + ": index " + index
                            + " is taken by live pid " + owner);
                }
                int channels = h.get(ValueLayout.JAVA_INT, 12);
                long slot = h.get(ValueLayout.JAVA_INT, 16);
                long mail = h.get(ValueLayout.JAVA_INT, 20);
                long region = h.get(ValueLayout.JAVA_LONG, 24);
                long size = size(n, channels, slot, mail, region);
                MemorySegment seg = fc.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
                seg.set(ValueLayout.JAVA_INT, mine + 8, 1);
                // release: peers that read this pid (liveness) also see the state word
                LONG.setRelease(seg, mine, pid());
                INT.getAndAdd(seg, 64L, 1);   // volatile RMW: pairs with the creator's getAcquire of the count
                ok = true;
                Mapping m = new Mapping(path, n, index, localRanks, channels, slot, mail, region, arena, seg, timeoutNanos);
                m.fileKey = fileKey(path);
                return m;
            } finally {
                if (!ok) {
                    arena.close();
                }
            }
        }
    }

    long channelBase(int c) {
        if (c >= channels) {
            throw new IllegalStateException("shared mapping: all " + channels + " channels are used (every split takes 3 + ranks per process per color; "
                    + "-Dcoll4j.shm.channels raises the number)");
        }
        return CHANNELS_AT + c * channelBytes;
    }

    /** Reserves {@code k} fresh channels (split): getAndAdd, so concurrent splits of different sub-teams never share one. */
    int reserveChannels(int k) {
        int base = (int) INT.getAndAdd(seg, 192L, k);
        if (base + k > channels) {
            throw new IllegalStateException("shared mapping: all " + channels + " channels are used (every split takes 3 + ranks per process per color; "
                    + "-Dcoll4j.shm.channels raises the number)");
        }
        return base;
    }

    long pidOf(int p) {
        return (long) LONG.getAcquire(seg, PROC_LINES + 64L * p);
    }

    private int stateOf(int p) {
        return (int) INT.getAcquire(seg, PROC_LINES + 64L * p + 8);
    }

    String ranksOf(int p) {
        return localRanks == 1 ? "global rank " + p
                : "global ranks " + (long) p * localRanks + ".." + ((long) p * localRanks + localRanks - 1);
    }

    /** Marks the mapping aborted by this process with {@code why} (the first abort wins); peers see it within a check. */
    void markAborted(String why) {
        byte[] b = why.getBytes(StandardCharsets.UTF_8);
        int len = Math.min(b.length, MSG_MAX - 4);
        if ((int) INT.getAcquire(seg, 128L) != 0) {
            return;
        }
        // the message may race with another aborter's; the CAS below decides whose index peers report
        MemorySegment.copy(MemorySegment.ofArray(b), 0, seg, MSG_AT + 4, len);
        seg.set(ValueLayout.JAVA_INT, MSG_AT, len);
        INT.compareAndSet(seg, 128L, 0, 1 + index);   // volatile: pairs with the peers' getAcquire in check()
    }

    private String abortMessage() {
        int len = Math.max(0, Math.min(seg.get(ValueLayout.JAVA_INT, MSG_AT), MSG_MAX - 4));
        byte[] b = new byte[len];
        MemorySegment.copy(seg, MSG_AT + 4, MemorySegment.ofArray(b), 0, len);
        return new String(b, StandardCharsets.UTF_8);
    }

    /**
     * The slow path of every wait: the abort word, then the liveness of the processes {@code members} (global
     * indices) through their pids, at most every {@link #CHECK_NANOS}; a dead one aborts the mapping for everyone.
     */
    void check(int[] members, String what, long started) {
        long now = System.nanoTime();
        if (now < nextCheck) {
            return;
        }
        nextCheck = now + CHECK_NANOS;
        int aborted = (int) INT.getAcquire(seg, 128L);   // pairs with markAborted's CAS
        if (aborted != 0) {
            int p = aborted - 1;
            throw new TeamAbortedException("process " + p + " (" + ranksOf(p) + ") aborted the job while process " + index
                    + " waited in " + what + ": " + abortMessage(), null);
        }
        for (int p : members) {
            if (p == index) {
                continue;
            }
            long pid = pidOf(p);
            if (pid == 0) {
                continue;   // not joined yet: the team timeout bounds that
            }
            if (!liveness.alive(p, pid)) {
                String why = "process " + p + " (pid " + pid + ", " + ranksOf(p) + ") died while process " + index
                        + " waited in " + what;
                markAborted(why);
                unlinkIfStillHere();
                throw new TeamAbortedException(why, null);
            }
            if (stateOf(p) == 2) {
                throw new TeamAbortedException("process " + p + " (" + ranksOf(p) + ") closed its team while process "
                        + index + " waited in " + what, null);
            }
        }
        if (timeoutNanos != Long.MAX_VALUE && now - started > timeoutNanos) {
            throw new CollectiveTimeoutException("shared mapping: process " + index + " waited more than "
                    + Duration.ofNanos(timeoutNanos) + " in " + what, List.of());
        }
    }

    /**
     * The abort word and the peers' liveness from inside a long step (a push's chunks), gated by the same
     * {@link #CHECK_NANOS} as a wait's checks; no timeout applies (the step is working, not waiting).
     */
    void checkDuringStep(int[] members, String what) {
        check(members, what, System.nanoTime());
    }

    /** An operation queued on the mapping: {@link #step} moves it as far as it can without waiting. */
    abstract static class Step {
        volatile boolean done;
        RuntimeException error;
        /** Global indices of the processes it waits on (liveness). */
        int[] members;
        String what;

        /**
         * The counter in the mapping this step last found behind (its offset, -1: none known) and the value it waits
         * for: written by {@link #step} under the lock, read by the waiting thread without it ({@link #await}), so
         * a stale pair only makes the wait poll sooner or a few spins later.
         */
        private volatile long waitAt = -1;
        private long waitFor;

        /** Non-blocking: true once complete. */
        abstract boolean step();

        /** Records that this step cannot go on until the long at {@code at} in the mapping reaches {@code value}. */
        final void waitOn(long at, long value) {
            waitFor = value;
            waitAt = at;   // volatile, after waitFor: a waiter that reads this offset reads this value or a later one
        }
    }

    /** Operations that must complete in order (a channel's collectives, a pair's messages in one direction). */
    static final class Queue {
        final ArrayDeque<Step> steps = new ArrayDeque<>();
        /** Set when an operation failed mid-protocol: the ones behind it cannot run. */
        RuntimeException broken;
    }

    Queue queue(Object key) {
        return queues.computeIfAbsent(key, k -> {
            Queue q = new Queue();
            active.add(q);
            return q;
        });
    }

    /** Queues {@code s} on {@code key}'s queue (under the lock). */
    void post(Object key, Step s) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("shared mapping: the span is closed");
            }
            Queue q = queue(key);
            if (q.broken != null) {
                throw new IllegalStateException("shared mapping: an earlier operation failed: " + q.broken, q.broken);
            }
            q.steps.addLast(s);
        } finally {
            lock.unlock();
        }
    }

    /** Moves every queue's head operations as far as they go (the progress of blocking and non-blocking calls alike). */
    void progressAll() {
        for (int i = 0; i < active.size(); i++) {
            Queue q = active.get(i);
            Step s;
            while ((s = q.steps.peekFirst()) != null) {
                boolean finished;
                try {
                    finished = s.step();
                } catch (RuntimeException e) {
                    s.error = e;
                    q.broken = e;
                    finished = true;
                }
                if (!finished) {
                    break;
                }
                q.steps.pollFirst();
                s.done = true;
            }
        }
    }

    /** One poll of {@code s} (a Pending's test): progress, then the slow-path checks. */
    boolean poll(Step s, long started) {
        lock.lock();
        try {
            progressAll();
        } finally {
            lock.unlock();
        }
        if (s.done) {
            if (s.error != null) {
                throw s.error;
            }
            return true;
        }
        try {
            check(s.members, s.what, started);
        } catch (TeamAbortedException e) {
            // a peer may have finished its part of this very step and then closed its team (or exited) between the
            // progress above and the check: its slices are all there, so progress once more before failing the step
            lock.lock();
            try {
                progressAll();
            } finally {
                lock.unlock();
            }
            if (s.done) {
                if (s.error != null) {
                    throw s.error;   // what the step found in the peer's last lines (a mismatch) is the cause, not the close
                }
                return true;
            }
            throw e;
        }
        return false;
    }

    /**
     * Waits for {@code s}: progress everything, spin ({@link #spin}) for {@link #SPIN_NANOS}, then yield for up to
     * {@link #YIELD_NANOS}, then nap; the peers' checks on the slow path. Yielding keeps this process runnable: on a
     * machine with more runnable threads than CPUs a napping waiter runs again only at its next time slice (8-byte
     * allreduce across 2 processes at load 10-13 on 2 CPUs: 160 µs mean when napping after ~0.1 ms of waiting, 77 µs
     * yielding up to 20 ms; noisy, indicative only).
     */
    void await(Step s) {
        long started = System.nanoTime();
        for (; ; ) {
            if (poll(s, started)) {
                return;
            }
            long waited = System.nanoTime() - started;
            if (waited < SPIN_NANOS) {
                spin(s);
            } else if (waited < YIELD_NANOS) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /**
     * How long a wait spins before it yields: what its 2 000 polls took when every spin was a poll (100-200 ns each),
     * now a bound of its own since a spin between polls reads the awaited line up to {@link #HINT_SPINS} times.
     */
    static final long SPIN_NANOS = 300_000L;

    /**
     * Between two polls of a spinning wait: up to {@link #HINT_SPINS} reads of the one counter the step waits on
     * ({@link Step#waitOn}), back to the poll as soon as it moves. A poll takes the lock, walks every queue, steps the
     * head operations and reads the clock for the liveness check (kvm-clock here: 60-80 ns a read); spinning on the
     * awaited line alone makes the loop that sees the peer's arrive a load and a pause, as a thread rank's wait on its
     * flag line is, and the progress of the other queues, the liveness and the timeout still come every few spins.
     */
    private void spin(Step s) {
        long at = s.waitAt;
        if (at < 0) {
            Thread.onSpinWait();
            return;
        }
        long want = s.waitFor;
        // acquire: pairs with the peer's setRelease of the counter (Channel.arrive / done); the poll that follows
        // reads it again under the lock before it uses anything behind it
        for (int i = 0; i < HINT_SPINS && (long) LONG.getAcquire(seg, at) < want; i++) {
            Thread.onSpinWait();
        }
    }

    /** Reads of the awaited counter between two polls of a spinning wait. */
    private static final int HINT_SPINS = 32;

    /** How long a wait yields before it naps (a long collective's waits, or a peer stopped in a debugger). */
    static final long YIELD_NANOS = 20_000_000L;

    /**
     * A native buffer of at least {@code bytes} for a fold whose result is a heap segment: the reducers run on native
     * segments only (a heap destination took 40-70 µs for 64 KiB against 3 µs native, and its profile slowed the native
     * calls after it), and the result is copied out. Called under the lock.
     */
    MemorySegment foldScratch(long bytes) {
        if (foldScratch == null || foldScratch.byteSize() < bytes) {
            foldScratch = arena.allocate(Math.max(bytes, slotBytes), 64);
        }
        return foldScratch;
    }

    /** Whether this process's last span over the mapping has closed (under the lock). */
    boolean isClosed() {
        return closed;
    }

    void retain() {
        lock.lock();
        try {
            open++;
        } finally {
            lock.unlock();
        }
    }

    /** Called by every span over this mapping when it closes; the last marks this process closed and unmaps. */
    void release() {
        lock.lock();
        try {
            if (--open > 0 || closed) {
                return;
            }
            closed = true;
            // release: a peer still waiting on this process reads it (check) and fails instead of timing out
            INT.setRelease(seg, PROC_LINES + 64L * index + 8, 2);
        } finally {
            lock.unlock();
        }
        // the file itself went when every process had mapped it (open); unmapping frees the last of it here
        arena.close();
        liveness.close();
    }
}
