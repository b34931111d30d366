// Secrets for tests/cli/redact_jdk.sh, each a token that appears nowhere else
// (tests/cli/redact_jdk.sh lists them, with where each one lives): string
// literals (one UTF-16), a static final String, char[] and byte[]
// initialisers, field names, a thread's and a thread group's name, a class
// loader's name, a system property and an environment variable (both set by
// the test), the keys and values of hash-based collections, an enum
// constant, and ClsZqG6t1Pb.java: a class, its lambda and a method whose
// names are secret, on the stack of the secret thread.  A long field and a
// static int hold secret numbers.  Prints READY, then waits to be dumped.
package com.acme;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

public class RedactSecrets {
	static final String SFS = "sfsZqV2n8Jr";
	static final char[] CHR = { 'c', 'h', 'r', 'Z', 'q', 'P', '5', 'd', '3', 'L', 'x' };
	static final byte[] BYT = { 'b', 'y', 't', 'Z', 'q', 'R', '7', 'c', '1', 'N', 'v' };
	static int stfZqY3k9Gm = 0x5a6b7c8d;
	static String lit = "litZqH4p7Kw";
	static String u16 = "u16Zq\u2603Mx9Tb";
	static List<ClsZqG6t1Pb> held = new ArrayList<>();
	static Object[] keep;

	long fldZqT6w2Hs = 0x1d2c3b4a59687786L;

	enum Tier { enmZqF8r3Ka, PLAIN }

	static class InnZqS5y2Oc {
		Tier tier = Tier.enmZqF8r3Ka;
	}

	public static void main(String[] args) throws Exception {
		HashMap<String, String> hm = new HashMap<>();
		hm.put("hmkZqA1c6Rw", "hmvZqB2d7Sx");
		LinkedHashMap<String, String> lhm = new LinkedHashMap<>();
		lhm.put("lhkZqC3e8Ty", "lhvZqD4f9Uz");
		HashSet<String> hs = new HashSet<>();
		hs.add("hskZqE5g1Va");
		ConcurrentHashMap<String, String> chm = new ConcurrentHashMap<>();
		chm.put("chkZqF6h2Wb", "chvZqG7i3Xc");
		Hashtable<String, String> ht = new Hashtable<>();
		ht.put("htkZqH8j4Yd", "htvZqI9k5Ze");
		WeakHashMap<String, String> whm = new WeakHashMap<>();
		whm.put("whkZqJ1l6Af", "whvZqK2m7Bg");
		Map<String, String> env = System.getenv();
		String envv = System.getenv("envkZqM7b2Wp");
		String prop = System.getProperty("prkZqC3j7Ny");
		URLClassLoader loader = new URLClassLoader("ldrZqW9m5Fa", new URL[0], RedactSecrets.class.getClassLoader());
		CountDownLatch started = new CountDownLatch(1);
		ThreadGroup group = new ThreadGroup("grpZqE1v6Ud");
		ClsZqG6t1Pb secret = new ClsZqG6t1Pb();
		held.add(secret);
		Thread t = new Thread(group, secret.mthZqJ3n7Vs(started), "thrZqB8x4Qe");
		t.setDaemon(true);
		t.start();
		started.await();
		keep = new Object[] { hm, lhm, hs, chm, ht, whm, env, envv, prop, loader, group, t,
				      new InnZqS5y2Oc(), new RedactSecrets(), CHR, BYT, SFS, lit, u16 };
		System.out.println("READY");
		System.out.flush();
		Thread.sleep(120_000);
	}
}
