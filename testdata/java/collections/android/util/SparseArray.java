package android.util;

/**
 * Stand-in with android.util.SparseArray's fields: n keys in mKeys and
 * mValues, the first `deleted` of them removed (DELETED) and not yet
 * compacted (mGarbage), as delete() leaves them: size() is n - deleted.
 */
public final class SparseArray<E> {
    private static final Object DELETED = new Object();
    boolean mGarbage;
    int[] mKeys;
    Object[] mValues;
    int mSize;

    public SparseArray(int n, int deleted) {
        mKeys = new int[n + 3];
        mValues = new Object[n + 3];
        for (int i = 0; i < n; i++) {
            mKeys[i] = i;
            mValues[i] = i < deleted ? DELETED : "s" + i;
        }
        mSize = n;
        mGarbage = deleted > 0;
    }
}
