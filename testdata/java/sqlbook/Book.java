import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/* The heap of docs/sql.md's cookbook (tests/cli/sql_cookbook.sh): shapes whose
 * answers this program knows and prints as KEY=VALUE lines before READY;
 * the test dumps the heap then and checks each recipe's answer against
 * them and against the JVM's class histogram. */
public class Book {
    static class Session {
        final String region;
        final byte[] payload;
        final Map<String, String> headers = new HashMap<>();
        Session(String region, int bytes) {
            this.region = region;
            this.payload = new byte[bytes];
            headers.put("X-Region", region);
        }
    }
    static class Order {
        final String status;
        final long amount;
        Order(String status, long amount) { this.status = status; this.amount = amount; }
    }
    static class Animal { int legs = 4; }
    static class Dog extends Animal { }
    static class Cat extends Animal { }
    static class Node {
        Node next;
        final byte[] data = new byte[100];
    }
    static class Root {
        final List<Session> sessions = new ArrayList<>();
        final List<Order> orders = new ArrayList<>();
        final List<Animal> animals = new ArrayList<>();
        final HashMap<Integer, String> big = new HashMap<>();
        final HashMap<?, ?>[] small = new HashMap<?, ?>[3];
        final HashMap<?, ?>[] empties = new HashMap<?, ?>[5];
        final List<String> texts = new ArrayList<>();
        String longText;
        final List<String> dups = new ArrayList<>();
        Node chain;
    }
    static final Root ROOT = new Root();

    public static void main(String[] args) throws Exception {
        Root r = ROOT;
        String[] regions = { "eu", "us", "ap" };
        int[] perRegion = { 30, 20, 10 };
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < perRegion[k]; i++)
                r.sessions.add(new Session(new String(regions[k]), 1000 * (k + 1)));
        for (int k = 0; k < 3; k++)
            System.out.println("REGION_" + regions[k] + "=" + perRegion[k] + "," + perRegion[k] * 1000 * (k + 1));
        String[] statuses = { "NEW", "PAID", "SHIPPED" };
        int[] perStatus = { 300, 150, 50 };
        long big = 0;
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < perStatus[k]; i++) {
                long amount = (i * 37 + k * 11) % 250;
                big += amount > 200 ? 1 : 0;
                r.orders.add(new Order(new String(statuses[k]), amount));
            }
        for (int k = 0; k < 3; k++)
            System.out.println("STATUS_" + statuses[k] + "=" + perStatus[k]);
        System.out.println("ORDERS_OVER_200=" + big);
        StringBuilder at = new StringBuilder();
        for (int i : new int[] { 0, 300, 450 })
            at.append(i).append(':').append(r.orders.get(i).status).append(':').append(r.orders.get(i).amount).append(';');
        System.out.println("ORDER_AT=" + at + r.orders.size() + ":NULL:NULL");
        for (int i = 0; i < 7; i++) r.animals.add(new Dog());
        for (int i = 0; i < 5; i++) r.animals.add(new Cat());
        System.out.println("DOGS=7");
        System.out.println("CATS=5");
        for (int i = 0; i < 1500; i++) r.big.put(i, "v" + i);
        System.out.println("BIG_MAP=" + r.big.size());
        System.out.println("BIG_1234=" + r.big.get(1234) + "," + r.big.containsKey(1500));
        for (int k = 0; k < 3; k++) {
            HashMap<Integer, Integer> m = new HashMap<>();
            for (int i = 0; i < 10 + k; i++) m.put(i, i);
            r.small[k] = m;
        }
        for (int k = 0; k < 5; k++) r.empties[k] = new HashMap<>();
        System.out.println("EMPTY_MAPS=5");
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 12000; i++) sb.append((char) ('a' + i % 26));
        r.longText = sb.toString();
        r.texts.add(r.longText);
        r.texts.add(sb.reverse().toString());
        System.out.println("LONG_TEXTS=2,12000");
        for (int i = 0; i < 137; i++) r.dups.add(new String("dup-value"));
        for (int i = 0; i < 42; i++) r.dups.add(new String("dup-other"));
        System.out.println("DUPS=dup-value,137;dup-other,42");
        Node head = null;
        for (int i = 0; i < 1000; i++) {
            Node n = new Node();
            n.next = head;
            head = n;
        }
        r.chain = head;
        System.out.println("CHAIN=1000");
        Object lock = new Object();
        Thread worker = new Thread(() -> {
            long[] local = new long[12345];
            local[0] = 1;
            synchronized (lock) {
                try { lock.wait(); } catch (InterruptedException e) { }
            }
            System.out.println(local.length);
        }, "book-worker");
        worker.setDaemon(true);
        worker.start();
        System.out.println("WORKER_LOCAL=12345");
        Thread.sleep(300);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
