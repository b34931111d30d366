package android.view;

/** Stand-in for Android's ViewParent. */
public interface ViewParent {
}
