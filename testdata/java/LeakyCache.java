import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * Sample program for hprofan's bundled heap dump (testdata/hprof/leakycache.hprof.gz).
 *
 * A small "web session" service with two classic leaks:
 *   - SESSIONS: a static HashMap cache of Session objects that is never evicted;
 *     each session holds a byte[] payload, Strings and a list of attributes.
 *   - LISTENERS: a static listener list; every session registers a listener
 *     (an inner class that captures the session) and nobody unregisters it.
 * It also has a few worker threads holding objects in stack locals, a
 * WeakHashMap, a WeakReference, a SoftReference-backed buffer, an enum,
 * a class hierarchy with inherited fields, static primitive fields and
 * primitive / object / 2-D arrays, so the dump exercises most HPROF records.
 *
 * Everything is deterministic (fixed seed, fixed counts). After building
 * its data it runs System.gc(), prints READY on stdout and waits forever.
 */
public class LeakyCache {

    // ---- tunables (the counts below are what tests check against) ----
    // (-Dleakycache.sessions=N: scripts/make-sample --small, 2000 unless told)
    static final int SESSION_COUNT = Integer.getInteger("leakycache.sessions", 2000);
    static final int PAYLOAD_BYTES = 1024;
    static final int ATTRS_PER_SESSION = 4;
    static final int WORKERS = 3;

    // ---- static state: the leaks ----
    static final Map<String, Session> SESSIONS = new HashMap<>();
    static final List<SessionListener> LISTENERS = new ArrayList<>();
    static final Map<Session, String> AUDIT = new WeakHashMap<>();
    static final Map<String, Integer> HITS = new ConcurrentHashMap<>();

    // static primitives and arrays (for static-field parsing)
    static long totalPayloadBytes;
    static int createdSessions;
    static boolean leaking = true;
    static double loadFactor = 0.75;
    static char marker = 'L';
    static final int[] HISTOGRAM = new int[64];
    static final long[][] GRID = new long[8][16];
    static final String[] REGIONS = {"eu-west", "us-east", "ap-south", "sa-east"};

    // reference holders
    static WeakReference<Session> lastSession;
    static SoftReference<byte[]> scratch;

    // keeps worker threads parked until the process is killed
    static final CountDownLatch SHUTDOWN = new CountDownLatch(1);

    enum Role { GUEST, USER, ADMIN }

    /** Base class so Session has inherited instance fields. */
    static abstract class Entity {
        final long id;
        final long createdAt;
        int version;

        Entity(long id, long createdAt) {
            this.id = id;
            this.createdAt = createdAt;
        }
    }

    static final class Attribute {
        final String key;
        final String value;
        Attribute next; // small linked chain inside each session

        Attribute(String key, String value) {
            this.key = key;
            this.value = value;
        }
    }

    static final class Session extends Entity {
        final String user;
        final String region;
        final Role role;
        final byte[] payload;
        final List<Attribute> attributes = new ArrayList<>();
        Attribute firstAttr;
        short flags;
        float score;
        char grade;
        boolean active = true;

        Session(long id, long createdAt, String user, String region, Role role, byte[] payload) {
            super(id, createdAt);
            this.user = user;
            this.region = region;
            this.role = role;
            this.payload = payload;
        }
    }

    interface SessionListener {
        void onEvent(String event);
    }

    /** Non-static inner class: holds LeakyCache.this and the session. */
    final class ExpiryListener implements SessionListener {
        final Session session;
        int events;

        ExpiryListener(Session session) {
            this.session = session;
        }

        @Override
        public void onEvent(String event) {
            events++;
            HITS.merge(session.user, 1, Integer::sum);
        }
    }

    /** Object that only a worker thread's stack local refers to. */
    static final class WorkBuffer {
        final String owner;
        final int[] counters;
        final byte[] data;

        WorkBuffer(String owner, int n) {
            this.owner = owner;
            this.counters = new int[n];
            this.data = new byte[n * 16];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) ('a' + (i % 26));
            }
        }
    }

    final Random random = new Random(42);
    final String serviceName = "session-service";

    /** Payload that looks like a serialized JSON blob (compresses well). */
    byte[] makePayload(int n, int seq) {
        StringBuilder sb = new StringBuilder(PAYLOAD_BYTES);
        while (sb.length() < PAYLOAD_BYTES) {
            sb.append("{\"seq\":").append(seq)
              .append(",\"cart\":[").append(random.nextInt(1000)).append(',')
              .append(random.nextInt(1000)).append("],\"ok\":true}");
        }
        byte[] b = new byte[PAYLOAD_BYTES];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) sb.charAt(i);
        }
        return b;
    }

    void build() {
        Role[] roles = Role.values();
        for (int i = 0; i < SESSION_COUNT; i++) {
            String sid = "sess-" + String.format("%06d", i);
            String user = "user" + (i % 500) + "@example.com";
            Session s = new Session(i, 1_700_000_000_000L + i * 1000L, user,
                    REGIONS[i % REGIONS.length], roles[i % roles.length],
                    makePayload(PAYLOAD_BYTES, i));
            s.flags = (short) (i & 0xff);
            s.score = i / 10.0f;
            s.grade = (char) ('A' + (i % 5));
            s.version = i % 7;
            Attribute prev = null;
            for (int a = 0; a < ATTRS_PER_SESSION; a++) {
                Attribute attr = new Attribute("attr" + a, "value-" + i + "-" + a);
                s.attributes.add(attr);
                if (prev == null) {
                    s.firstAttr = attr;
                } else {
                    prev.next = attr;
                }
                prev = attr;
            }
            SESSIONS.put(sid, s);                       // leak 1: never evicted
            LISTENERS.add(new ExpiryListener(s));        // leak 2: never removed
            if (i % 10 == 0) {
                AUDIT.put(s, "audited:" + sid);
            }
            HISTOGRAM[i % HISTOGRAM.length]++;
            totalPayloadBytes += s.payload.length;
            createdSessions++;
            lastSession = new WeakReference<>(s);
        }
        for (int r = 0; r < GRID.length; r++) {
            for (int c = 0; c < GRID[r].length; c++) {
                GRID[r][c] = (long) r * c;
            }
        }
        // only softly reachable; survives GC while the heap is not under pressure
        byte[] buf = new byte[256 * 1024];
        java.util.Arrays.fill(buf, (byte) 0x5a);
        scratch = new SoftReference<>(buf);
        for (SessionListener l : LISTENERS.subList(0, 10)) {
            l.onEvent("warmup");
        }
    }

    static void worker(int n) {
        WorkBuffer local = new WorkBuffer("worker-" + n, 1000 * n); // stack local root
        String label = "job-" + n;
        try {
            SHUTDOWN.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        // use the locals after the wait so they stay live in the frame
        System.out.println(label + " " + local.owner + " " + local.counters.length);
    }

    public static void main(String[] args) throws Exception {
        LeakyCache app = new LeakyCache();
        app.build();

        List<Thread> threads = new ArrayList<>();
        CountDownLatch started = new CountDownLatch(WORKERS);
        for (int i = 1; i <= WORKERS; i++) {
            final int n = i;
            Thread t = new Thread(() -> {
                started.countDown();
                worker(n);
            }, "worker-" + n);
            t.setDaemon(true);
            t.start();
            threads.add(t);
        }
        started.await();
        Thread.sleep(200); // let workers reach SHUTDOWN.await()

        System.gc();
        System.out.println("READY sessions=" + SESSIONS.size()
                + " listeners=" + LISTENERS.size()
                + " payloadBytes=" + totalPayloadBytes);
        System.out.flush();

        SHUTDOWN.await(); // never released: the dump is taken while we wait
        System.out.println(app.serviceName + threads.size());
    }
}
