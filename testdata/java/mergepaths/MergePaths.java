import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/*
 * The heap tests/cli/merge_paths.sh reads (hprofan merge-paths): 66
 * instances of one class, MergePaths$Item (an int and a byte[PAYLOAD]),
 * each reachable in a way the program knows:
 *  - 30 the values of the static HashMap MAP (keys Integers 0 .. 29);
 *  - 20 in the static ArrayList LIST;
 *  - 10 held only by WeakReferences, the static WeakReference[] WEAK: only
 *    weakly reachable;
 *  - 5 made and dropped in a method that has returned: unreachable (the
 *    dump must be taken with -all, no GC first, for them to stay);
 *  - 1 held only by a local variable of the thread "holder", parked for
 *    good (a Java frame's GC root).
 * No GC runs after the weak and the dropped ones are made (a GC would
 * clear the WeakReferences and free the garbage).  It prints KEY=VALUE
 * lines (the counts, the payload's size) and READY.
 */
public class MergePaths {
    static final class Item {
        final int n;
        final byte[] payload;
        Item(int n) { this.n = n; this.payload = new byte[PAYLOAD]; }
    }

    static final int PAYLOAD = 200;
    static final Map<Integer, Item> MAP = new HashMap<>();
    static final List<Item> LIST = new ArrayList<>();
    static final WeakReference<?>[] WEAK = new WeakReference<?>[10];
    static volatile int sink;

    /* the dropped ones: nothing holds them once this frame is gone */
    static void dropSome() {
        Item[] a = new Item[5];
        for (int i = 0; i < 5; i++)
            a[i] = new Item(1000 + i);
        for (Item x : a)
            sink += x.n;
    }

    public static void main(String[] args) throws Exception {
        // the classes and the JIT settle before the counted objects exist
        System.gc();
        for (int i = 0; i < 30; i++)
            MAP.put(i, new Item(i));
        for (int i = 0; i < 20; i++)
            LIST.add(new Item(100 + i));
        CountDownLatch holding = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            Item mine = new Item(500);
            holding.countDown();
            while (true) {
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    // keep holding it
                }
                sink += mine.n;
            }
        }, "holder");
        holder.setDaemon(true);
        holder.start();
        holding.await();
        for (int i = 0; i < 10; i++)
            WEAK[i] = new WeakReference<>(new Item(200 + i));
        dropSome();
        System.out.println("MAP=" + MAP.size());
        System.out.println("LIST=" + LIST.size());
        System.out.println("WEAK=" + WEAK.length);
        System.out.println("DROPPED=5");
        System.out.println("THREAD=1");
        System.out.println("PAYLOAD=" + PAYLOAD);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
