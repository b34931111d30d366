package shop;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/*
 * ListenerService — a service whose listeners are lambdas and method
 * references, with a dynamic proxy, reflection accessors, a serialised
 * object and two thread pools: every kind of class and thread name a JVM
 * makes up at run time.  tests/cli/diff_runs_jdk.sh runs it in two JVMs and
 * compares their dumps.
 *
 *   java -Dsun.reflect.noInflation=true shop.ListenerService EXTRA ORDER
 *
 * It registers 2,000 + EXTRA lambda listeners (each a ListenerService$$Lambda
 * capturing one int: 16 bytes with compressed oops) and 500 bound method
 * references on the static CopyOnWriteArrayList LISTENERS, makes two
 * proxies, calls methods and a constructor by reflection (so that
 * GeneratedMethodAccessor and GeneratedConstructorAccessor classes exist),
 * serialises and reads back an Audit (a GeneratedSerializationConstructor-
 * Accessor), keeps three instances each of classes named as CGLIB, Spring,
 * ByteBuddy, Mockito and Hibernate name the classes they generate (variant
 * ORDER of the suffix), and starts a fixed pool of 3 threads and a
 * ForkJoinPool of 2 workers whose tasks block, and one plain Thread.  Then
 * collects its garbage, prints READY and sleeps (a minute at most).
 *
 * ORDER "forward" or "reverse": the order in which the generated classes
 * are first made (so their counters and addresses differ), the suffixes of
 * the library-named classes, and whether a pool, a ForkJoinPool and a
 * thread that end are made before the live ones ("reverse": so the thread
 * names' numbers differ) or after.
 * Nothing else differs: with the same EXTRA, two runs hold the same objects.
 */
public class ListenerService {
    public interface Listener { void on(int event); }
    public interface Pricing { int price(int item); }
    interface Stock { int count(int item); }

    static final class Audit implements Serializable {
        private static final long serialVersionUID = 1L;
        final int id;
        Audit(int id) { this.id = id; }
    }

    public static final CopyOnWriteArrayList<Listener> LISTENERS = new CopyOnWriteArrayList<>();
    static final List<Object> KEEP = new ArrayList<>();
    static volatile long sink;
    static final CountDownLatch NEVER = new CountDownLatch(1);

    int handled;
    void onOrder(int event) { handled += event; }
    public int touch(int k) { return k + 1; }
    public static int stamp(int k) { return k * 2; }
    public ListenerService() { }

    static void lambdas(int n) {
        for (int i = 0; i < n; i++) {
            final int k = i;
            LISTENERS.add(e -> sink += k);
        }
    }

    static void methodRefs(int n) {
        ListenerService svc = new ListenerService();
        KEEP.add(svc);
        for (int i = 0; i < n; i++)
            LISTENERS.add(svc::onOrder);
    }

    static void proxies(boolean reverse) {
        ClassLoader cl = ListenerService.class.getClassLoader();
        Object a = null, b = null;
        for (int k = 0; k < 2; k++) {
            if ((k == 0) != reverse)
                a = Proxy.newProxyInstance(cl, new Class<?>[] { Pricing.class }, (p, m, args) -> 7);
            else
                b = Proxy.newProxyInstance(cl, new Class<?>[] { Stock.class }, (p, m, args) -> 3);
        }
        KEEP.add(a);
        KEEP.add(b);
        sink += ((Pricing) a).price(1) + ((Stock) b).count(2);
    }

    static void reflection(boolean reverse) throws Exception {
        Method touch = ListenerService.class.getMethod("touch", int.class);
        Method stamp = ListenerService.class.getMethod("stamp", int.class);
        Constructor<ListenerService> cons = ListenerService.class.getConstructor();
        ListenerService svc = cons.newInstance();
        for (int k = 0; k < 2; k++) {
            Method m = (k == 0) != reverse ? touch : stamp;
            for (int i = 0; i < 20; i++)
                sink += (Integer) m.invoke(svc, i);
        }
        KEEP.add(touch);
        KEEP.add(stamp);
        KEEP.add(cons);
        KEEP.add(svc);
    }

    static void serialisation() throws Exception {
        ByteArrayOutputStream bo = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bo)) {
            out.writeObject(new Audit(42));
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bo.toByteArray()))) {
            KEEP.add(in.readObject());
        }
    }

    static final String[][] LIBRARY = {
        { "Cart$$EnhancerByCGLIB$$1a2b3c", "Cart$$EnhancerByCGLIB$$9f8e7d6c" },
        { "Cart$$FastClassByCGLIB$$5e6f7a", "Cart$$FastClassByCGLIB$$0b1c2d3e" },
        { "Config$$SpringCGLIB$$0", "Config$$SpringCGLIB$$1" },
        { "Repo$ByteBuddy$abc123", "Repo$ByteBuddy$Xy7Qw2Lm" },
        { "Repo$MockitoMock$123456", "Repo$MockitoMock$987654" },
        { "Order$HibernateProxy$AbCd1234", "Order$HibernateProxy$Zx9Y8w7V" },
    };

    static void library(boolean reverse) throws Exception {
        for (String[] names : LIBRARY) {
            Class<?> c = Class.forName("shop." + names[reverse ? 1 : 0]);
            for (int i = 0; i < 3; i++)
                KEEP.add(c.getDeclaredConstructor().newInstance());
        }
    }

    static void block() {
        try {
            NEVER.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /* a pool, a ForkJoinPool and a thread that end: they take numbers */
    static void throwaway() throws Exception {
        ExecutorService gone = Executors.newFixedThreadPool(1);
        gone.submit(() -> sink++).get();
        gone.shutdown();
        ForkJoinPool fj = new ForkJoinPool(1);
        fj.submit(() -> sink++).get();
        fj.shutdown();
        Thread t = new Thread(() -> sink++);
        t.start();
        t.join();
        gone.awaitTermination(10, TimeUnit.SECONDS);
        fj.awaitTermination(10, TimeUnit.SECONDS);
    }

    public static void main(String[] args) throws Exception {
        int extra = Integer.parseInt(args[0]);
        boolean reverse = args[1].equals("reverse");
        if (reverse)
            throwaway();
        if (reverse) {
            library(true);
            serialisation();
            reflection(true);
            proxies(true);
            methodRefs(500);
            lambdas(2000 + extra);
        } else {
            lambdas(2000 + extra);
            methodRefs(500);
            proxies(false);
            reflection(false);
            serialisation();
            library(false);
        }
        ExecutorService pool = Executors.newFixedThreadPool(3);
        for (int i = 0; i < 3; i++)
            pool.submit(ListenerService::block);
        ForkJoinPool fjp = new ForkJoinPool(2);
        for (int i = 0; i < 2; i++)
            fjp.submit(ListenerService::block);
        Thread plain = new Thread(ListenerService::block);
        plain.setDaemon(true);
        plain.start();
        KEEP.add(pool);
        KEEP.add(fjp);
        if (!reverse)
            throwaway();
        /* what died (the ended threads, call sites of the lambdas made on
         * the way) collected and its cleaners run before the histogram and
         * the dump, which would otherwise see them at different moments */
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(60_000);
        System.exit(0);
    }
}

class Cart { int items; }
class Cart$$EnhancerByCGLIB$$1a2b3c extends Cart { }
class Cart$$EnhancerByCGLIB$$9f8e7d6c extends Cart { }
class Cart$$FastClassByCGLIB$$5e6f7a { }
class Cart$$FastClassByCGLIB$$0b1c2d3e { }
class Config { }
class Config$$SpringCGLIB$$0 extends Config { }
class Config$$SpringCGLIB$$1 extends Config { }
class Repo { }
class Repo$ByteBuddy$abc123 extends Repo { }
class Repo$ByteBuddy$Xy7Qw2Lm extends Repo { }
class Repo$MockitoMock$123456 extends Repo { }
class Repo$MockitoMock$987654 extends Repo { }
class Order { long id; }
class Order$HibernateProxy$AbCd1234 extends Order { }
class Order$HibernateProxy$Zx9Y8w7V extends Order { }
