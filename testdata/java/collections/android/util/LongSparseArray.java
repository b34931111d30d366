package android.util;

/** Stand-in with android.util.LongSparseArray's fields. */
public final class LongSparseArray<E> {
    private static final Object DELETED = new Object();
    boolean mGarbage;
    long[] mKeys;
    Object[] mValues;
    int mSize;

    public LongSparseArray(int n) {
        mKeys = new long[n + 1];
        mValues = new Object[n + 1];
        for (int i = 0; i < n; i++) {
            mKeys[i] = i;
            mValues[i] = "l" + i;
        }
        mSize = n;
    }
}
