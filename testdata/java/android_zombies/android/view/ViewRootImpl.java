package android.view;

import android.content.Context;

/**
 * Stand-in for Android's ViewRootImpl: setView() attaches the root view,
 * die() detaches it, clears its parent and lets go of it, as
 * dispatchDetachedFromWindow() does.
 */
public final class ViewRootImpl implements ViewParent {
    View mView;
    final Context mContext;

    ViewRootImpl(Context context) {
        mContext = context;
    }

    void setView(View view) {
        mView = view;
        view.mParent = this;
        view.mAttachInfo = new View.AttachInfo();
        view.mWindowAttachCount++;
    }

    void die() {
        mView.mAttachInfo = null;
        mView.mParent = null;
        mView = null;
    }

    /** Detaches the view and keeps both links (a window half torn down). */
    public void detachOnly() {
        mView.mAttachInfo = null;
    }
}
