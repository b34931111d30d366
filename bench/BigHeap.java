import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Heap generator for bench/run.sh: builds a large, deterministic live heap
 * of many small objects (by default about 30 million objects, giving an
 * HPROF dump of roughly 1.5 GB), prints a READY line on stdout and waits
 * until it is killed.
 *
 *   java -Xmx6g -XX:+UseParallelGC BigHeap [scale]
 *
 * scale (default 1.0) multiplies every count.
 */
public class BigHeap {

    /** Linked-list node: two references and two primitives. */
    static final class Node {
        Node next;
        Object payload;
        int id;
        long stamp;

        Node(int id, Node next) {
            this.id = id;
            this.next = next;
            this.stamp = id * 31L;
        }
    }

    /** Binary tree node (gives the dominator tree some depth). */
    static final class TreeNode {
        TreeNode left, right;
        int key;

        TreeNode(int key) {
            this.key = key;
        }
    }

    static final List<Node> CHAINS = new ArrayList<>();
    static final List<String> STRINGS = new ArrayList<>();
    static final List<Object> ARRAYS = new ArrayList<>();
    static final List<Map<Integer, Long>> MAPS = new ArrayList<>();
    static TreeNode TREE;

    static long objects; // our own count of what we allocated and keep live

    static TreeNode buildTree(int lo, int hi) {
        if (lo > hi) {
            return null;
        }
        int mid = (lo + hi) >>> 1;
        TreeNode t = new TreeNode(mid);
        objects++;
        t.left = buildTree(lo, mid - 1);
        t.right = buildTree(mid + 1, hi);
        return t;
    }

    public static void main(String[] args) throws Exception {
        double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1.0;
        int nodes = (int) (12_000_000 * scale);
        int strings = (int) (4_000_000 * scale);
        int arrays = (int) (3_000_000 * scale);
        int maps = (int) (200_000 * scale);
        int treeNodes = (int) (1_000_000 * scale);
        long t0 = System.nanoTime();

        // 1. linked chains of 1000 nodes; every 4th node carries a boxed Long payload
        Node head = null;
        for (int i = 0; i < nodes; i++) {
            head = new Node(i, head);
            objects++;
            if ((i & 3) == 0) {
                head.payload = Long.valueOf(1_000_000L + i);
                objects++;
            }
            if (i % 1000 == 999) {
                CHAINS.add(head);
                head = null;
            }
        }
        if (head != null) {
            CHAINS.add(head);
        }

        // 2. distinct Strings (String + its byte[] = 2 objects each)
        for (int i = 0; i < strings; i++) {
            STRINGS.add("str-" + i + "-" + (i * 7919L));
            objects += 2;
        }

        // 3. small primitive arrays
        for (int i = 0; i < arrays; i++) {
            switch (i % 3) {
                case 0: {
                    byte[] b = new byte[16 + (i % 48)];
                    b[0] = (byte) i;
                    ARRAYS.add(b);
                    break;
                }
                case 1: {
                    int[] a = new int[4 + (i % 8)];
                    a[0] = i;
                    ARRAYS.add(a);
                    break;
                }
                default: {
                    long[] l = new long[2 + (i % 4)];
                    l[0] = i;
                    ARRAYS.add(l);
                    break;
                }
            }
            objects++;
        }

        // 4. HashMaps of 10 entries (map + table + 10 x (node + Integer key + Long value))
        for (int i = 0; i < maps; i++) {
            Map<Integer, Long> m = new HashMap<>();
            for (int k = 0; k < 10; k++) {
                m.put(1000 + i * 10 + k, (long) (i * 10 + k) + 1_000_000L);
            }
            MAPS.add(m);
            objects += 2 + 10 * 3;
        }

        // 5. a balanced binary tree
        TREE = buildTree(0, treeNodes - 1);

        // containers' backing Object[] arrays and ArrayLists themselves are not counted
        System.gc();
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        System.out.printf("READY objects=%d used_mb=%d build_s=%.1f%n",
                objects, used >> 20, (System.nanoTime() - t0) / 1e9);
        System.out.flush();

        Object lock = new Object();
        synchronized (lock) {
            while (true) {
                lock.wait();
            }
        }
    }
}
