import java.util.ArrayList;
import java.util.List;

/* tests/cli/mapping_proguard.sh: obfuscated by ProGuard (only main kept), so
 * the dump names Shop$Cart, Shop$Item, their fields and waitHere() the way
 * mapping.txt says; 7 carts of 3 items each. */
public class Shop {
    static class Cart {
        final List<Item> items = new ArrayList<>();
        int total;
        String owner;
    }

    static class Item {
        final String sku;
        final long price;

        Item(String sku, long price) {
            this.sku = sku;
            this.price = price;
        }
    }

    static Cart[] carts;

    static void waitHere() throws InterruptedException {
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000); // WAIT-LINE
    }

    public static void main(String[] args) throws Exception {
        carts = new Cart[7];
        for (int i = 0; i < carts.length; i++) {
            Cart c = new Cart();
            c.owner = "owner-" + i;
            for (int j = 0; j < 3; j++) {
                c.items.add(new Item("sku-" + i + "-" + j, 100 * i + j));
                c.total += 100 * i + j;
            }
            carts[i] = c;
        }
        waitHere(); // CALL-LINE
    }
}
