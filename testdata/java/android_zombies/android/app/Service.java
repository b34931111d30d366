package android.app;

import android.content.ContextWrapper;

/** Stand-in for Android's Service (a ContextWrapper, as on Android). */
public class Service extends ContextWrapper {
    public void onDestroy() {
    }
}
