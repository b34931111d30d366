package com.android.internal.policy;

import android.content.Context;
import android.view.View;

/** Stand-in for the root view of a phone window. */
public class DecorView extends View {
    public DecorView(Context context) {
        super(context);
    }
}
