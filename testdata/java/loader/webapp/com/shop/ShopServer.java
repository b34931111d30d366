package com.shop;

import java.util.HashMap;

// tests/cli/group_loader_jdk.sh: a class whose static fields hold what the
// service keeps (no instance of it is made).  No string constants, no
// lambdas: the class has no resolved references, so its class object
// holds nothing but these two statics.
public class ShopServer {
	static final HashMap<Integer, byte[]> CACHE = new HashMap<>();
	static final Cart[] CARTS = new Cart[100];

	static {
		for (int i = 0; i < 160; i++)
			CACHE.put(Integer.valueOf(1000 + i), new byte[65536]);
		for (int i = 0; i < CARTS.length; i++)
			CARTS[i] = new Cart(i);
	}
}
