package android.content;

/** Stand-in for Android's Context on HotSpot. */
public abstract class Context {
}
