import java.util.ArrayList;
import java.util.List;

/*
 * Runs out of heap in a thread named "oom-filler", which adds CHUNK-byte
 * arrays to the static list HOARD until an allocation fails; run with
 * -XX:+HeapDumpOnOutOfMemoryError the JVM dumps the heap at that moment.
 * Then the thread empties the list and prints what the dump must show:
 *   CHUNKS n      arrays in HOARD when the allocation failed
 *   CHUNK bytes   the size of each
 *   AT class method line   the frame where the allocation failed (the
 *                 error's own stack trace, which the JVM fills in)
 *   DONE
 * With "hold" it fills HOARD with 64 arrays, prints READY and waits (for a
 * dump by jcmd, which is not an out-of-memory dump).
 */
public class OomFill {
	static final List<byte[]> HOARD = new ArrayList<>();
	static final int CHUNK = 64 * 1024;

	static void fill(int max) {
		for (int i = 0; i != max; i++)
			HOARD.add(new byte[CHUNK]);
	}

	public static void main(String[] args) throws Exception {
		boolean hold = args.length > 0 && args[0].equals("hold");
		Thread t = new Thread(() -> {
			try {
				fill(hold ? 64 : -1);
			} catch (OutOfMemoryError e) {
				int n = HOARD.size();
				HOARD.clear();
				StackTraceElement top = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
				System.out.println("CHUNKS " + n);
				System.out.println("CHUNK " + CHUNK);
				if (top != null)
					System.out.println("AT " + top.getClassName() + " " + top.getMethodName() + " " + top.getLineNumber());
				System.out.println("DONE");
			}
		}, "oom-filler");
		t.start();
		t.join();
		if (hold) {
			System.out.println("READY");
			System.out.flush();
			Thread.sleep(600000);
		}
	}
}
