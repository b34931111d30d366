import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/*
 * The heap tests/cli/refs.sh reads (hprofan refs): objects of known
 * reachability.
 *  - 40 SoftReferences, each to its own Soft holding a byte[1000]: only
 *    softly reachable;
 *  - 30 WeakReferences, each to its own Weak holding a byte[500]: only weakly;
 *  - 10 PhantomReferences (with a queue) to Phantoms: only phantom reachable;
 *  - a Strong held by a static and by a SoftReference: strongly reachable;
 *  - Fins (a class with finalize()): the first one's finalize() blocks the
 *    finalizer thread for good (in processing), then 5 unreachable ones wait
 *    in the finalizer queue (only the Finalizers reach them) and 3 kept in a
 *    list are registered, not queued.
 * It prints QUEUED=<Finalizer.queue's queueLength> (read by reflection:
 * java --add-opens java.base/java.lang.ref=ALL-UNNAMED) and READY; the
 * references are made after the last GC, which would clear the weak and
 * phantom ones, and the dump must be taken with -all (no GC first).
 */
public class Refs {
    static final class Soft { final byte[] data = new byte[1000]; }
    static final class Weak { final byte[] data = new byte[500]; }
    static final class Phantom { long x; }
    static final class Strong { int v; }

    static final class Fin {
        static final CountDownLatch entered = new CountDownLatch(1);
        static final CountDownLatch never = new CountDownLatch(1);
        final int id;
        Fin(int id) { this.id = id; }
        @Override
        @SuppressWarnings("deprecation")
        protected void finalize() throws Throwable {
            if (id == 0) {
                entered.countDown();
                never.await();
            }
        }
    }

    static final List<SoftReference<Soft>> softs = new ArrayList<>();
    static final List<WeakReference<Weak>> weaks = new ArrayList<>();
    static final List<PhantomReference<Phantom>> phantoms = new ArrayList<>();
    static final ReferenceQueue<Phantom> phantomQueue = new ReferenceQueue<>();
    static final List<Fin> keptFins = new ArrayList<>();
    static Strong strong;
    static SoftReference<Strong> strongSoftly;

    static long queueLength() throws Exception {
        Field q = Class.forName("java.lang.ref.Finalizer").getDeclaredField("queue");
        q.setAccessible(true);
        Field n = ReferenceQueue.class.getDeclaredField("queueLength");
        n.setAccessible(true);
        return n.getLong(q.get(null));
    }

    public static void main(String[] args) throws Exception {
        new Fin(0);
        while (!Fin.entered.await(50, TimeUnit.MILLISECONDS))
            System.gc();
        for (int i = 0; i < 3; i++)
            keptFins.add(new Fin(100 + i));
        for (int i = 1; i <= 5; i++)
            new Fin(i);
        long queued = 0;
        for (int t = 0; t < 500 && queued < 5; t++) {
            System.gc();
            Thread.sleep(10);
            queued = queueLength();
        }
        for (int i = 0; i < 40; i++)
            softs.add(new SoftReference<>(new Soft()));
        for (int i = 0; i < 30; i++)
            weaks.add(new WeakReference<>(new Weak()));
        for (int i = 0; i < 10; i++)
            phantoms.add(new PhantomReference<>(new Phantom(), phantomQueue));
        strong = new Strong();
        strongSoftly = new SoftReference<>(strong);
        System.out.println("QUEUED=" + queued);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
