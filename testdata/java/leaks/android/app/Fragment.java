package android.app;

/** Stand-in for Android's Fragment: attached while mFragmentManager is set. */
public class Fragment {
    public Object mFragmentManager;
}
