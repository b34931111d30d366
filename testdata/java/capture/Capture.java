// The program tests/cli/capture.sh takes heap dumps of (hprofan capture):
// 1234 Kept objects a static list holds, and 500 Dropped objects made and
// let go of before READY (no GC runs in between on a 256 MiB heap, so a
// dump of every object has them, a dump of live objects does not).
import java.util.ArrayList;
import java.util.List;

public class Capture {
    static final class Kept { final int n; Kept(int n) { this.n = n; } }
    static final class Dropped { final long[] pad = new long[4]; }

    static final List<Kept> KEPT = new ArrayList<>();
    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 1234; i++)
            KEPT.add(new Kept(i));
        for (int i = 0; i < 500; i++)
            sink = new Dropped();
        sink = null;
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(120_000);   // the test kills it long before
    }
}
