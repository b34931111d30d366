import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/*
 * ShopServer — a ThreadLocal leak in a pool (tests/cli/threadlocal_jdk.sh
 * drives it).
 *
 *   java ShopServer DIR STEPS PER_STEP
 *
 * A fixed pool of 4 threads; at each step every pool thread (a barrier holds
 * the 4 tasks apart, one a thread) adds PER_STEP AuditRecords, each with a
 * byte[1024], to its own list in the ThreadLocal AUDIT (an ArrayList made
 * with room for STEPS x PER_STEP, so its array never grows), and touches
 * SCRATCH, a small unrelated ThreadLocal (an int[16] a thread).  After each
 * step the program dumps its live heap to DIR/shop-K.hprof
 * (HotSpotDiagnosticMXBean.dumpHeap) and prints "DUMPED K RECORDS" with the
 * records each thread holds.  Prints "DONE" at the end.
 */
public class ShopServer {
    static final class AuditRecord {
        final int n;
        final byte[] data = new byte[1024];
        AuditRecord(int n) { this.n = n; }
    }

    static int capacity;
    static final ThreadLocal<List<AuditRecord>> AUDIT = ThreadLocal.withInitial(() -> new ArrayList<>(capacity));
    static final ThreadLocal<int[]> SCRATCH = new ThreadLocal<>();

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int steps = Integer.parseInt(args[1]);
        int perStep = Integer.parseInt(args[2]);
        capacity = steps * perStep;
        HotSpotDiagnosticMXBean mx = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CyclicBarrier barrier = new CyclicBarrier(4);
        for (int k = 0; k < steps; k++) {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++)
                done.add(pool.submit(() -> {
                    List<AuditRecord> l = AUDIT.get();
                    for (int i = 0; i < perStep; i++)
                        l.add(new AuditRecord(l.size()));
                    if (SCRATCH.get() == null)
                        SCRATCH.set(new int[16]);
                    barrier.await();
                    return null;
                }));
            for (Future<?> f : done)
                f.get();
            done = null;
            mx.dumpHeap(dir + "/shop-" + k + ".hprof", true);
            System.out.println("DUMPED " + k + " " + (k + 1) * perStep);
            System.out.flush();
        }
        pool.shutdown();
        System.out.println("DONE");
    }
}
