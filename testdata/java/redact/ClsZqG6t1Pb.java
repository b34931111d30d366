// A class, a lambda and a method whose names are secret (RedactSecrets.java
// says what for); the thread the lambda runs on waits in them.
package com.acme;

import java.util.concurrent.CountDownLatch;

class ClsZqG6t1Pb {
	Runnable mthZqJ3n7Vs(CountDownLatch started) {
		return () -> {
			started.countDown();
			try {
				Thread.sleep(600_000);
			} catch (InterruptedException e) {
				return;
			}
		};
	}
}
