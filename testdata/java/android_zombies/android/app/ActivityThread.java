package android.app;

import android.util.ArrayMap;

/**
 * Stand-in for Android's ActivityThread: the services it runs are the values
 * of mServices (token -> Service); a stopped service leaves it after
 * onDestroy(), as in handleStopService().
 */
public final class ActivityThread {
    static volatile ActivityThread sCurrentActivityThread;
    final ArrayMap<Object, Service> mServices = new ArrayMap<>();

    public static ActivityThread start() {
        sCurrentActivityThread = new ActivityThread();
        return sCurrentActivityThread;
    }

    public void startService(Object token, Service s) {
        mServices.put(token, s);
    }

    public void stopService(Object token) {
        Service s = mServices.remove(token);
        if (s != null) {
            s.onDestroy();
        }
    }
}
