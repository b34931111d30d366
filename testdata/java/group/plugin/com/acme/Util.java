package com.acme;

public class Util {
	int x;

	public static Object many(int n) {
		Object[] u = new Object[n];
		for (int i = 0; i < n; i++)
			u[i] = new Util();
		return u;
	}
}
