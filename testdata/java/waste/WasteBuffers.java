// A heap for tests/cli/waste_buffers.sh: buffers never written beside true
// duplicates.  With argument 1: 2,000 zero-filled byte[4096] carts, 300
// int[1024] thumbnails all 0xFF808080, 1,000 Strings "SKU-31415" each with
// its own byte[9], 500 equal byte[64] that are no constant (1, 8, 15, ...);
// with 0: none of them (the JVM's own heap, to subtract).
// Prints READY, then waits to be dumped.
import java.util.Arrays;

public class WasteBuffers {
	static byte[][] carts, keys;
	static int[][] thumbs;
	static String[] skus;

	public static void main(String[] args) throws Exception {
		int n = args.length > 0 ? Integer.parseInt(args[0]) : 1;
		carts = new byte[2000 * n][];
		for (int i = 0; i < carts.length; i++)
			carts[i] = new byte[4096];
		thumbs = new int[300 * n][];
		for (int i = 0; i < thumbs.length; i++) {
			thumbs[i] = new int[1024];
			Arrays.fill(thumbs[i], 0xFF808080);
		}
		String sku = "SKU-" + Integer.toString(31415);
		skus = new String[1000 * n];
		for (int i = 0; i < skus.length; i++)
			skus[i] = i == 0 ? sku : new String(sku.toCharArray());
		byte[] key = new byte[64];
		for (int j = 0; j < key.length; j++)
			key[j] = (byte)(1 + 7 * j);
		keys = new byte[500 * n][];
		for (int i = 0; i < keys.length; i++)
			keys[i] = i == 0 ? key : key.clone();
		System.out.println("READY");
		System.out.flush();
		Thread.sleep(120_000);
	}
}
