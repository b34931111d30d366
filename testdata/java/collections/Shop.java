import android.util.ArrayMap;
import android.util.ArraySet;
import android.util.LongSparseArray;
import android.util.SparseArray;
import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.function.Consumer;

/**
 * A heap with two leaks and collections of known sizes, for
 * tests/cli/collections_jdk.sh (hprofan leaks, instances, object):
 *   - CACHE: a static HashMap of 10,000 String -> byte[64] entries (Shop's
 *     class is leak suspect #1);
 *   - the "bus" thread's CopyOnWriteArrayList of 15,000 listeners, each a
 *     lambda made in CheckoutSession (CheckoutSession::onEvent) that
 *     captures its session (arg$1) (the thread is suspect #2);
 *   - Zoo's statics: every JDK and Android collection hprofan sizes, each
 *     printed as "SIZE field n" with what its own size() says.
 * Prints READY and waits.
 */
public class Shop {
    static final Map<String, byte[]> CACHE = new HashMap<>();

    static final class Bus implements Runnable {
        final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

        public void run() {
            synchronized (this) {
                try {
                    wait();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    static final class Zoo {
        static HashMap<Integer, String> hashMap = new HashMap<>();
        static LinkedHashMap<Integer, String> linkedHashMap = new LinkedHashMap<>();
        static ConcurrentHashMap<Integer, String> concurrentHashMap = new ConcurrentHashMap<>();
        static Hashtable<Integer, String> hashtable = new Hashtable<>();
        static Properties properties = new Properties();
        static WeakHashMap<Integer, String> weakHashMap = new WeakHashMap<>();
        static List<Integer> weakKeys = new ArrayList<>();
        static IdentityHashMap<Integer, String> identityHashMap = new IdentityHashMap<>();
        static TreeMap<Integer, String> treeMap = new TreeMap<>();
        static HashSet<Integer> hashSet = new HashSet<>();
        static LinkedHashSet<Integer> linkedHashSet = new LinkedHashSet<>();
        static TreeSet<Integer> treeSet = new TreeSet<>();
        static ArrayList<Integer> arrayList = new ArrayList<>(1000);
        static Vector<Integer> vector = new Vector<>();
        static CopyOnWriteArrayList<Integer> copyOnWriteArrayList = new CopyOnWriteArrayList<>();
        static CopyOnWriteArraySet<Integer> copyOnWriteArraySet = new CopyOnWriteArraySet<>();
        static ArrayDeque<Integer> arrayDeque = new ArrayDeque<>();
        static LinkedList<Integer> linkedList = new LinkedList<>();
        static PriorityQueue<Integer> priorityQueue = new PriorityQueue<>();
        static HashMap<Integer, String> emptyMap = new HashMap<>();
        static ArrayMap<Integer, String> arrayMap = new ArrayMap<>(21);
        static ArraySet<String> arraySet = new ArraySet<>(13);
        static SparseArray<String> sparseArray = new SparseArray<>(10, 3);
        static LongSparseArray<String> longSparseArray = new LongSparseArray<>(9);
    }

    static void size(String field, int n) {
        System.out.println("SIZE " + field + " " + n);
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 10_000; i++)
            CACHE.put("key-" + i, new byte[64]);
        Bus bus = new Bus();
        for (int i = 0; i < 15_000; i++)
            bus.listeners.add(new CheckoutSession(i).listener());
        Thread t = new Thread(bus, "bus");
        t.setDaemon(true);
        t.start();

        for (int i = 0; i < 123; i++) Zoo.hashMap.put(i, "h" + i);
        for (int i = 0; i < 45; i++) Zoo.linkedHashMap.put(i, "l" + i);
        // four threads at once: the map's count goes to its CounterCells
        Thread[] ts = new Thread[4];
        for (int k = 0; k < ts.length; k++) {
            final int base = k * 10_000;
            ts[k] = new Thread(() -> {
                for (int i = 0; i < 777; i++) Zoo.concurrentHashMap.put(base + i, "c");
            });
            ts[k].start();
        }
        for (Thread x : ts) x.join();
        for (int i = 0; i < 55; i++) Zoo.hashtable.put(i, "t" + i);
        for (int i = 0; i < 5; i++) Zoo.properties.setProperty("p" + i, "v");
        for (int i = 0; i < 44; i++) {
            Integer k = 1000 + i;
            Zoo.weakKeys.add(k);
            Zoo.weakHashMap.put(k, "w");
        }
        for (int i = 0; i < 33; i++) Zoo.identityHashMap.put(2000 + i, "i");
        for (int i = 0; i < 222; i++) Zoo.treeMap.put(i, "r");
        for (int i = 0; i < 111; i++) Zoo.hashSet.add(i);
        for (int i = 0; i < 11; i++) Zoo.linkedHashSet.add(i);
        for (int i = 0; i < 22; i++) Zoo.treeSet.add(i);
        for (int i = 0; i < 333; i++) Zoo.arrayList.add(i);
        for (int i = 0; i < 99; i++) Zoo.vector.add(i);
        for (int i = 0; i < 17; i++) Zoo.copyOnWriteArrayList.add(i);
        for (int i = 0; i < 7; i++) Zoo.copyOnWriteArraySet.add(i);
        // wrap around: head ends past tail in the elements array
        for (int i = 0; i < 14; i++) Zoo.arrayDeque.addLast(i);
        for (int i = 0; i < 10; i++) Zoo.arrayDeque.pollFirst();
        for (int i = 0; i < 62; i++) Zoo.arrayDeque.addLast(i);
        for (int i = 0; i < 77; i++) Zoo.linkedList.add(i);
        for (int i = 0; i < 88; i++) Zoo.priorityQueue.add(i);
        size("hashMap", Zoo.hashMap.size());
        size("linkedHashMap", Zoo.linkedHashMap.size());
        size("concurrentHashMap", Zoo.concurrentHashMap.size());
        size("hashtable", Zoo.hashtable.size());
        size("properties", Zoo.properties.size());
        size("weakHashMap", Zoo.weakHashMap.size());
        size("identityHashMap", Zoo.identityHashMap.size());
        size("treeMap", Zoo.treeMap.size());
        size("hashSet", Zoo.hashSet.size());
        size("linkedHashSet", Zoo.linkedHashSet.size());
        size("treeSet", Zoo.treeSet.size());
        size("arrayList", Zoo.arrayList.size());
        size("vector", Zoo.vector.size());
        size("copyOnWriteArrayList", Zoo.copyOnWriteArrayList.size());
        size("copyOnWriteArraySet", Zoo.copyOnWriteArraySet.size());
        size("arrayDeque", Zoo.arrayDeque.size());
        size("linkedList", Zoo.linkedList.size());
        size("priorityQueue", Zoo.priorityQueue.size());
        size("emptyMap", Zoo.emptyMap.size());
        size("arrayMap", 21);
        size("arraySet", 13);
        size("sparseArray", 7);
        size("longSparseArray", 9);
        size("CACHE", CACHE.size());
        size("listeners", bus.listeners.size());
        System.out.println("READY");
        Thread.sleep(600_000);
    }
}
