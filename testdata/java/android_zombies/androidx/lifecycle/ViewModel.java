package androidx.lifecycle;

/** Stand-in for androidx's ViewModel up to lifecycle 2.7: clear() sets mCleared. */
public abstract class ViewModel {
    private volatile boolean mCleared = false;

    protected void onCleared() {
    }

    final void clear() {
        mCleared = true;
        onCleared();
    }
}
