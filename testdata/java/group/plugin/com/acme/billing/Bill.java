package com.acme.billing;

public class Bill {
	int amount;
	Bill next;
	Line a, b;

	public static Object chain(int n) {
		Bill head = null;
		for (int i = 0; i < n; i++) {
			Bill x = new Bill();
			x.amount = i;
			x.next = head;
			x.a = new Line();
			x.b = new Line();
			head = x;
		}
		return head;
	}

	public static Object list(int n) {
		java.util.ArrayList<Object> l = new java.util.ArrayList<>();
		for (int i = 0; i < n; i++)
			l.add(new Bill());
		return l;
	}
}
