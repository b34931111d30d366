package android.app;

/** Stand-in for Android's Activity on HotSpot: the field LeakCanary reads. */
public class Activity {
    public boolean mDestroyed;
    public boolean mFinishing;

    public void destroy() {
        mFinishing = true;
        mDestroyed = true;
    }
}
