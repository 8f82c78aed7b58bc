package io.coll4j;

/** Spin {@link #SPINS} times, then {@link Thread#yield()} on every idle call. */
final class YieldingWaitStrategy implements WaitStrategy {
    static final String ALIAS = "yield";
    /** A handful of PAUSEs first: the flag is often published within a cache-line transfer or two. */
    static final int SPINS = 64;
    static final YieldingWaitStrategy INSTANCE = new YieldingWaitStrategy();

    private YieldingWaitStrategy() {
    }

    @Override
    public void idle(int idleCount) {
        if (idleCount < SPINS) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    @Override
    public String alias() {
        return ALIAS;
    }

    @Override
    public String toString() {
        return ALIAS;
    }
}
