import android.app.ActivityThread;
import android.app.Service;
import android.content.Context;
import android.view.View;
import android.view.ViewRootImpl;
import android.view.WindowManagerGlobal;
import androidx.lifecycle.ViewModel;
import androidx.lifecycle.ViewModelStore;
import com.android.internal.policy.DecorView;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

/**
 * A heap with LeakCanary's other leaks, on stand-in Android classes, for
 * tests/cli/leaks_rules.sh (hprofan leaks):
 *   - services: one running (in ActivityThread.mServices), one stopped and
 *     held by sStoppedService (a zombie), one stopped and only weakly held
 *     (not reported);
 *   - ViewModels: one in a live store, two in a store that was cleared, one
 *     of them held by sClearedModel (a zombie; the other is collected);
 *   - windows: a live one (DecorView and its ViewRootImpl in
 *     WindowManagerGlobal), a dismissed one whose DecorView sDismissedDecor
 *     and ViewRootImpl sDeadRoot hold (two zombies), a removed toast whose
 *     parentless view sToastView holds (not a zombie: Shark's rule lets a
 *     detached parentless view of another class be a view kept for reuse),
 *     and a half torn down one that WindowManagerGlobal forgot: its
 *     ViewRootImpl sStuckRoot (a zombie) still holds its detached view (a
 *     zombie nested under it);
 *   - three Sessions, two of them closed, for --zombie rules, and a
 *     Pool.Slot (Pool itself is never loaded).
 * Prints READY and waits.
 */
public class AndroidZombies {
    static Service sStoppedService;
    static WeakReference<Service> sWeakService;
    static ViewModelStore sLiveStore;
    static ViewModel sClearedModel;
    static View sDismissedDecor;
    static ViewRootImpl sDeadRoot;
    static View sToastView;
    static ViewRootImpl sStuckRoot;
    static final List<Session> SESSIONS = new ArrayList<>();
    static Object sSlot;

    static final class AppContext extends Context {
    }

    static class ShopService extends Service {
        final byte[] cache = new byte[50_000];
    }

    static class CartViewModel extends ViewModel {
        final byte[] items = new byte[30_000];
    }

    static class ToastView extends View {
        ToastView(Context c) {
            super(c);
        }
    }

    static final class Session {
        boolean closed;
        final int id;

        Session(int id, boolean closed) {
            this.id = id;
            this.closed = closed;
        }
    }

    public static void main(String[] args) throws Exception {
        ActivityThread at = build();
        System.gc();
        weaklyHeld(at);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    /** Everything but the weakly held service; no local outlives it. */
    static ActivityThread build() {
        Context app = new AppContext();
        ActivityThread at = ActivityThread.start();
        at.startService("live", new ShopService());
        ShopService stopped = new ShopService();
        at.startService("stopped", stopped);
        at.stopService("stopped");
        sStoppedService = stopped;

        sLiveStore = new ViewModelStore();
        sLiveStore.put("live", new CartViewModel());
        ViewModelStore gone = new ViewModelStore();
        CartViewModel kept = new CartViewModel();
        gone.put("kept", kept);
        gone.put("dropped", new CartViewModel());
        gone.clear();
        sClearedModel = kept;

        WindowManagerGlobal wm = WindowManagerGlobal.getInstance();
        wm.addView(new DecorView(app), app);
        DecorView dialog = new DecorView(app);
        ViewRootImpl dialogRoot = wm.addView(dialog, app);
        wm.removeView(dialog);
        sDismissedDecor = dialog;
        sDeadRoot = dialogRoot;
        ToastView toast = new ToastView(app);
        wm.addView(toast, app);
        wm.removeView(toast);
        sToastView = toast;
        ToastView stuck = new ToastView(app);
        ViewRootImpl stuckRoot = wm.addView(stuck, app);
        wm.forget(stuck);
        stuckRoot.detachOnly();
        sStuckRoot = stuckRoot;

        for (int i = 0; i < 3; i++) {
            SESSIONS.add(new Session(i, i > 0));
        }
        sSlot = new Pool.Slot();
        return at;
    }

    /** After the collection, so that the referent is still in the dump. */
    static void weaklyHeld(ActivityThread at) {
        ShopService weak = new ShopService();
        at.startService("weak", weak);
        at.stopService("weak");
        sWeakService = new WeakReference<>(weak);
    }
}
