package android.content;

/** Stand-in for Android's ContextWrapper: the field LeakCanary unwraps. */
public class ContextWrapper extends Context {
    public Context mBase;
}
