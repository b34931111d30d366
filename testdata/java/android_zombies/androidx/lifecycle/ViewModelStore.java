package androidx.lifecycle;

import java.util.HashMap;

/** Stand-in for androidx's ViewModelStore: clear() clears its ViewModels and forgets them. */
public class ViewModelStore {
    private final HashMap<String, ViewModel> mMap = new HashMap<>();

    public void put(String key, ViewModel vm) {
        mMap.put(key, vm);
    }

    public void clear() {
        for (ViewModel vm : mMap.values()) {
            vm.clear();
        }
        mMap.clear();
    }
}
