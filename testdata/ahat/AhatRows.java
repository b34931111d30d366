package com.android.ahat.heapdump;

import java.io.File;
import java.lang.reflect.Field;
import java.util.*;

/* Prints every (heap, class) row of a dump as ahat's heapdump library sees it:
 * instances, shallow Java size, retained Java size (each class's instances
 * counted once: those with no instance of the same class above them in
 * ahat's dominator tree), plus per-heap totals. Scratch driver, not hprofan's. */
public class AhatRows {
  public static void main(String[] args) throws Exception {
    String name = args[0];
    AhatSnapshot snap = new Parser(new File(name)).parse();   // retained = SOFT (ahat's default)
    Field f = AhatSnapshot.class.getDeclaredField("mInstances");
    f.setAccessible(true);
    @SuppressWarnings("unchecked")
    Instances<AhatInstance> insts = (Instances<AhatInstance>) f.get(snap);
    Field sr = AhatSnapshot.class.getDeclaredField("mSuperRoot");
    sr.setAccessible(true);
    AhatInstance root = (AhatInstance) sr.get(snap);

    Map<String, long[]> rows = new TreeMap<>();   // heap \t class -> count, shallow, retained
    for (AhatInstance i : insts) {
      String heap = i.getHeap() == null ? "(none)" : i.getHeap().getName();
      String key = heap + "\t" + i.getClassName();
      long[] r = rows.computeIfAbsent(key, k -> new long[3]);
      r[0]++;
      r[1] += i.getSize().getJavaSize();
    }
    // topmost instance of its class on its dominator path: iterative DFS
    Map<AhatClassObj, Integer> active = new HashMap<>();
    Deque<Object[]> st = new ArrayDeque<>();
    st.push(new Object[] { root, Boolean.FALSE });
    while (!st.isEmpty()) {
      Object[] e = st.pop();
      AhatInstance v = (AhatInstance) e[0];
      boolean leaving = (Boolean) e[1];
      AhatClassObj c = v == root ? null : v.getClassObj();
      if (leaving) {
        if (c != null) active.merge(c, -1, Integer::sum);
        continue;
      }
      if (c != null) {
        int a = active.getOrDefault(c, 0);
        if (a == 0) {
          String heap = v.getHeap() == null ? "(none)" : v.getHeap().getName();
          rows.get(heap + "\t" + v.getClassName())[2] += v.getTotalRetainedSize().getJavaSize();
        }
        active.put(c, a + 1);
      }
      st.push(new Object[] { v, Boolean.TRUE });
      for (AhatInstance d : v.getDominated()) st.push(new Object[] { d, Boolean.FALSE });
    }
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, long[]> en : rows.entrySet()) {
      long[] r = en.getValue();
      out.append(en.getKey()).append('\t').append(r[0]).append('\t').append(r[1]).append('\t').append(r[2]).append('\n');
    }
    for (AhatHeap h : snap.getHeaps())
      out.append("#heap\t").append(h.getName()).append('\t').append(h.getSize().getJavaSize()).append('\n');
    System.out.print(out);
  }
}
