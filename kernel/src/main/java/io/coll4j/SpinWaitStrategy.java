package io.coll4j;

/** Busy spin: {@link Thread#onSpinWait()} (x86 PAUSE) on every idle call. */
final class SpinWaitStrategy implements WaitStrategy {
    static final String ALIAS = "spin";
    static final SpinWaitStrategy INSTANCE = new SpinWaitStrategy();

    private SpinWaitStrategy() {
    }

    @Override
    public void idle(int idleCount) {
        Thread.onSpinWait();
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
