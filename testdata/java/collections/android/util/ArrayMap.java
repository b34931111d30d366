package android.util;

/** Stand-in with android.util.ArrayMap's fields: n entries in mHashes and mArray. */
public final class ArrayMap<K, V> {
    int[] mHashes;
    Object[] mArray;
    int mSize;

    public ArrayMap(int n) {
        mHashes = new int[n + 4];
        mArray = new Object[2 * (n + 4)];
        for (int i = 0; i < n; i++) {
            mHashes[i] = i;
            mArray[2 * i] = Integer.valueOf(i);
            mArray[2 * i + 1] = "v" + i;
        }
        mSize = n;
    }
}
