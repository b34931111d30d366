/** Only its nested class Slot is used: Pool itself is never loaded. */
public class Pool {
    static final class Slot {
        boolean free = true;
    }
}
