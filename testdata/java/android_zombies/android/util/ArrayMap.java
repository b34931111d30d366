package android.util;

/**
 * Stand-in for Android's ArrayMap with its layout: mArray holds key, value,
 * key, value, ... (what Shark reads for ActivityThread.mServices).
 */
public final class ArrayMap<K, V> {
    Object[] mArray = new Object[8];
    int mSize;

    public void put(K key, V value) {
        if (2 * mSize + 2 > mArray.length) {
            mArray = java.util.Arrays.copyOf(mArray, 2 * mArray.length);
        }
        mArray[2 * mSize] = key;
        mArray[2 * mSize + 1] = value;
        mSize++;
    }

    @SuppressWarnings("unchecked")
    public V remove(K key) {
        for (int i = 0; i < mSize; i++) {
            if (mArray[2 * i].equals(key)) {
                V v = (V) mArray[2 * i + 1];
                System.arraycopy(mArray, 2 * i + 2, mArray, 2 * i, 2 * (mSize - i - 1));
                mSize--;
                mArray[2 * mSize] = null;
                mArray[2 * mSize + 1] = null;
                return v;
            }
        }
        return null;
    }
}
