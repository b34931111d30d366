package android.view;

import android.content.Context;

/** Stand-in for Android's View: the fields Shark's VIEW inspector reads. */
public class View {
    ViewParent mParent;
    AttachInfo mAttachInfo;
    final Context mContext;
    int mWindowAttachCount;

    public View(Context context) {
        mContext = context;
    }

    static final class AttachInfo {
    }
}
