package android.util;

/** Stand-in with android.util.ArraySet's fields. */
public final class ArraySet<E> {
    int[] mHashes;
    Object[] mArray;
    int mSize;

    public ArraySet(int n) {
        mHashes = new int[n + 2];
        mArray = new Object[n + 2];
        for (int i = 0; i < n; i++) {
            mHashes[i] = i;
            mArray[i] = "e" + i;
        }
        mSize = n;
    }
}
