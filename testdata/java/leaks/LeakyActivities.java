import android.app.Activity;
import android.app.Fragment;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/**
 * A heap with known leaks for tests/cli/leaks_jdk.sh (hprofan leaks):
 *   - LISTENERS: a static listener list that only grows (20,000 Listeners,
 *     each with a 512-byte payload): leak suspect #1, accumulated in the
 *     list's Object[];
 *   - a destroyed MainActivity held by its inner class Callback (this$0)
 *     through the static sCallback: a zombie;
 *   - a live Activity, an attached Fragment and a destroyed Activity that
 *     only a WeakReference holds: not reported.
 * With the argument "clean" it builds the live Activity and the attached
 * Fragment only.  Prints READY and waits.
 */
public class LeakyActivities {
    static final List<Listener> LISTENERS = new ArrayList<>();
    static Runnable sCallback;
    static Activity sLive;
    static Fragment sAttached;
    static WeakReference<Activity> sWeak;

    static final class Listener {
        final byte[] payload = new byte[512];
        final int n;

        Listener(int n) {
            this.n = n;
        }
    }

    static class MainActivity extends Activity {
        final byte[] state = new byte[100_000];

        /** Non-static inner class: holds MainActivity.this. */
        class Callback implements Runnable {
            public void run() {
                state[0]++;
            }
        }
    }

    static class LiveActivity extends Activity {
    }

    public static void main(String[] args) throws Exception {
        boolean clean = args.length > 0 && args[0].equals("clean");
        sLive = new LiveActivity();
        Fragment f = new Fragment();
        f.mFragmentManager = new Object();
        sAttached = f;
        if (!clean) {
            for (int i = 0; i < 20_000; i++) {
                LISTENERS.add(new Listener(i));
            }
            MainActivity a = new MainActivity();
            sCallback = a.new Callback();
            a.destroy();
        }
        System.gc();
        if (!clean) {
            MainActivity w = new MainActivity();
            w.destroy();
            sWeak = new WeakReference<>(w);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
