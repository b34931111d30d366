import java.util.function.Consumer;

/** One shopper's session; its listener() is a lambda that captures it (arg$1). */
public class CheckoutSession {
    final byte[] cart = new byte[200];
    final int n;

    CheckoutSession(int n) {
        this.n = n;
    }

    void onEvent(String e) {
        cart[0]++;
    }

    Consumer<String> listener() {
        return this::onEvent;
    }
}
