package android.view;

import android.content.Context;
import java.util.ArrayList;

/**
 * Stand-in for Android's WindowManagerGlobal: each window's root view in
 * mViews and its ViewRootImpl in mRoots, at the same index.
 */
public final class WindowManagerGlobal {
    private static WindowManagerGlobal sDefaultWindowManager;
    private final ArrayList<View> mViews = new ArrayList<>();
    private final ArrayList<ViewRootImpl> mRoots = new ArrayList<>();

    public static WindowManagerGlobal getInstance() {
        if (sDefaultWindowManager == null) {
            sDefaultWindowManager = new WindowManagerGlobal();
        }
        return sDefaultWindowManager;
    }

    public ViewRootImpl addView(View view, Context context) {
        ViewRootImpl root = new ViewRootImpl(context);
        mViews.add(view);
        mRoots.add(root);
        root.setView(view);
        return root;
    }

    public void removeView(View view) {
        int i = mViews.indexOf(view);
        mRoots.get(i).die();
        mRoots.remove(i);
        mViews.remove(i);
    }

    /** Forgets a window without tearing it down. */
    public void forget(View view) {
        int i = mViews.indexOf(view);
        mRoots.remove(i);
        mViews.remove(i);
    }
}
