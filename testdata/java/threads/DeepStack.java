// A thread whose stack alone holds known objects, for tests/cli/threads_jdk.sh:
// thread "deep" recurses 50 frames into down(d), each frame holding its own
// byte[1000 + 8 * d] in a local (used after the call, so it stays live),
// then sleeps; thread "idle" holds nothing.  Prints READY when in place.
// Run with -Xint so that every frame keeps its locals.
public class DeepStack {
    static volatile boolean ready;

    static void down(int d) throws InterruptedException {
        byte[] mine = new byte[1000 + 8 * d];
        if (d < 49)
            down(d + 1);
        else {
            ready = true;
            Thread.sleep(600_000);
        }
        mine[0] = 1;
    }

    public static void main(String[] args) throws Exception {
        Thread deep = new Thread(() -> {
            try {
                down(0);
            } catch (InterruptedException e) {
            }
        }, "deep");
        deep.setDaemon(true);
        deep.start();
        Thread idle = new Thread(() -> {
            try {
                Thread.sleep(600_000);
            } catch (InterruptedException e) {
            }
        }, "idle");
        idle.setDaemon(true);
        idle.start();
        while (!ready)
            Thread.sleep(10);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
