// tests/cli/group_loader_jdk.sh: a class whose statics hold the heap, defined
// by a class loader of its own.  webapp-A (a URLClassLoader over the
// directory given) defines com.shop.ShopServer, whose static fields hold a
// HashMap of 160 byte[65536] and 100 com.shop.Carts.  Only the static
// `webapp` here holds the loader, and only the loader's list of its classes
// and main's local `shop` (used after the sleep, so the frame keeps it) the
// class.
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;

public class LoaderMain {
	static ClassLoader webapp;

	public static void main(String[] args) throws Exception {
		URL[] urls = { new File(args[0]).toURI().toURL() };
		webapp = new URLClassLoader("webapp-A", urls, ClassLoader.getPlatformClassLoader());
		Class<?> shop = Class.forName("com.shop.ShopServer", true, webapp);
		System.out.println("READY");
		System.out.flush();
		Thread.sleep(600000);
		System.out.println(shop.getName());
	}
}
