// tests/cli/group_jdk.sh: the same class name defined by two class loaders.
// plugin-A defines com.acme.billing.Bill, com.acme.billing.Line and
// com.acme.Util; plugin-B defines its own com.acme.billing.Bill.  Kept:
// a chain of 1,000 Bills of A, each with 2 Lines (only the statics here hold
// its head), 300 Utils of A in an Object[], 2,000 Bills of B in an ArrayList
// (nothing but this static keeps loader B alive).
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;

public class GroupMain {
	static Object headA, utilsA, listB;

	public static void main(String[] args) throws Exception {
		URL[] urls = { new File(args[0]).toURI().toURL() };
		ClassLoader parent = ClassLoader.getPlatformClassLoader();
		URLClassLoader a = new URLClassLoader("plugin-A", urls, parent);
		URLClassLoader b = new URLClassLoader("plugin-B", urls, parent);
		headA = a.loadClass("com.acme.billing.Bill").getMethod("chain", int.class).invoke(null, 1000);
		utilsA = a.loadClass("com.acme.Util").getMethod("many", int.class).invoke(null, 300);
		listB = b.loadClass("com.acme.billing.Bill").getMethod("list", int.class).invoke(null, 2000);
		a = null;
		b = null;
		System.out.println("READY");
		System.out.flush();
		Thread.sleep(600000);
	}
}
