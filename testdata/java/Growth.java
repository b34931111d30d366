package gen;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/*
 * Growth — a program that dumps its own heap several times while a known
 * structure grows (tests/cli/diff_jvm.sh drives it).
 *
 *   java gen.Growth DIR STEPS PER_STEP
 *
 * Step k (0-based) adds PER_STEP Session objects (no arrays, no boxed
 * values: one object each) to the static list SESSIONS, churns garbage
 * that dies at once, prints "READY" and waits for a line on standard
 * input (the test takes the JVM's class histogram then), dumps the live heap
 * (HotSpotDiagnosticMXBean.dumpHeap(live = true)) to DIR/growth-k.hprof,
 * prints "DUMPED" and waits for a line again.  Before step 0 it dumps
 * DIR/warmup.hprof, prints "STARTED" and waits (the test attaches once).
 * STABLE, a list of 500 Stable objects made before the first step,
 * does not change.  Prints "DONE" at the end and waits for a last line.
 */
public class Growth {
    static final class Session {
        final long id;
        long created, touched;
        Session(long id) { this.id = id; this.created = id * 3; }
    }

    static final class Stable {
        final int n;
        final int[] data = new int[4];
        Stable(int n) { this.n = n; }
    }

    static final List<Session> SESSIONS = new ArrayList<>();
    static final List<Stable> STABLE = new ArrayList<>();
    static volatile Object sink;

    /* a line on standard output, then a line from standard input */
    static boolean say(String what, BufferedReader in) throws Exception {
        System.out.println(what);
        System.out.flush();
        return in.readLine() != null;
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int steps = Integer.parseInt(args[1]);
        int perStep = Integer.parseInt(args[2]);
        for (int i = 0; i < 500; i++)
            STABLE.add(new Stable(i));
        HotSpotDiagnosticMXBean mx = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        long next = 2_000_000L;
        /* the names made now: no string is concatenated (which makes
         * method handles the first time) between a histogram and its dump */
        String[] names = new String[steps];
        for (int k = 0; k < steps; k++)
            names[k] = dir + "/growth-" + k + ".hprof";
        /* a first dump and a first histogram: what the JDK makes the first
         * time it dumps or is attached to is there before step 0 */
        mx.dumpHeap(dir + "/warmup.hprof", true);
        if (!say("STARTED", in))
            return;
        for (int k = 0; k < steps; k++) {
            for (int i = 0; i < perStep; i++, next++)
                SESSIONS.add(new Session(next));
            for (int i = 0; i < 20000; i++)          /* garbage: dies at once */
                sink = new byte[100 + i % 50];
            sink = null;
            if (!say("READY", in))
                return;
            mx.dumpHeap(names[k], true);
            if (!say("DUMPED", in))
                return;
        }
        System.out.println("DONE");
        System.out.flush();
        in.readLine();
    }
}
