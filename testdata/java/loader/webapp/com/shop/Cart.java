package com.shop;

public class Cart {
	int id;
	long total;

	Cart(int id) {
		this.id = id;
	}
}
