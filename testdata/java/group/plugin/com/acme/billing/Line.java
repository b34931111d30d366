package com.acme.billing;

public class Line {
	long cents;
}
