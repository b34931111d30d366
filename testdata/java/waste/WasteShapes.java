// A heap with known duplicate Strings for tests/cli/waste_jdk.sh: the value
// "L-424242" (LATIN1) in 1,001 Strings with an array each, "\u00e9\u20ac-77"
// (UTF16) in 301, and 500 unique "Uniq-N".  Prints READY, then waits to be dumped.
public class WasteShapes {
	static String[] latin, utf16, uniq;

	public static void main(String[] args) throws Exception {
		String a = "L-" + Integer.toString(424242);
		String b = "\u00e9\u20ac-" + Integer.toString(77);
		latin = new String[1001];
		latin[0] = a;
		for (int i = 1; i < latin.length; i++)
			latin[i] = new String(a.toCharArray());
		utf16 = new String[301];
		utf16[0] = b;
		for (int i = 1; i < utf16.length; i++)
			utf16[i] = new String(b.toCharArray());
		uniq = new String[500];
		for (int i = 0; i < uniq.length; i++)
			uniq[i] = "Uniq-" + i;
		System.out.println("READY");
		System.out.flush();
		Thread.sleep(120_000);
	}
}
