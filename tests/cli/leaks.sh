#!/usr/bin/env bash
# hprofan leaks on dumps built byte by byte (tests/helper/mkhprof.py), with
# every expected figure worked out by hand below (size model raw: an
# instance is its field bytes, an array its elements, a class its statics):
#  - the leak suspect: a static EventBus whose listener list only grows; the
#    walk down the dominator tree stops at the list's Object[] (3 steps), 50
#    Listeners accumulate there, held by com.acme.EventBus (JDK holders
#    skipped), in an ArrayList of 50 elements, the Object[]'s retained set
#    by class counted whole; a lower --big-drop walks on, a --threshold
#    above it finds none;
#  - zombies: two destroyed MainActivities held by inner classes' this$0
#    through one static array (one leak, count 2, shared byte[] counted once
#    in the leak's retained set), a detached Fragment under a live Activity,
#    a destroyed Activity below a ContextWrapper that wraps one; each trace
#    node by node (status, reason, the references to cut); a live Activity,
#    an attached Fragment and a destroyed Activity only a WeakReference
#    holds are not reported, a destroyed Activity under the Fragment is
#    counted as nested; what fixing all frees;
#  - the other built-in rules on an Android dump: a detached View whose
#    context wraps a destroyed Activity, a dismissed Dialog, a quit
#    MessageQueue, a detached androidx Fragment are zombies; an attached
#    View, a showing Dialog, a running MessageQueue are not;
#  - 101 leaks: the retained sets of the 100 largest, the last a sum;
#  - --zombie rules (on the command line and from a file), --fail-on-leak's
#    exit status 5, bad rules as usage errors;
#  - on the corpus: dialer.android-hprof runs, every instance of the classes
#    the rules name is classified (counts checked against the histogram),
#    and no dump of the corpus makes the command fail.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip leaks "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'EOF' || { fail leaks-build "cannot write the test dumps"; exit 0; }
import json, sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
I = {}                     # names -> ids, for the checks
def cls(name, super_id=0, fields=(), statics=()):
    c = d.load_class(name)
    d.class_dump(c, super_id=super_id, fields=fields, statics=statics)
    I["class " + name] = c
    return c
def arr_class(name):
    c = d.load_class(name)
    d.class_dump(c)
    return c

# ---- the suspect: App.BUS -> EventBus.listeners -> ArrayList.elementData -> Object[50] -> Listener -> byte[100]
objarr = arr_class("[Ljava/lang/Object;")
listener = cls("com.acme.Listener", fields=[("payload", OBJECT)])
alist = cls("java.util.ArrayList", fields=[("elementData", OBJECT), ("size", INT)])
bus_c = cls("com.acme.EventBus", fields=[("listeners", OBJECT)])
ls = [d.instance(listener, [d.prim_array(BYTE, bytes(100))]) for _ in range(50)]
arr = d.obj_array(objarr, ls)
lst = d.instance(alist, [arr, 50])
bus = d.instance(bus_c, [lst])
app = d.load_class("com.acme.App")
d.class_dump(app, statics=[("BUS", OBJECT, bus)])
d.root(app, kind=0x05)
I.update(app=app, bus=bus, list=lst, arr=arr)

# ---- Android stand-ins with their real fields
activity = cls("android.app.Activity", fields=[("mDestroyed", BOOLEAN)])
fragment = cls("android.app.Fragment", fields=[("mFragmentManager", OBJECT)])
wrapper = cls("android.content.ContextWrapper", fields=[("mBase", OBJECT)])
main = cls("com.acme.MainActivity", super_id=activity, fields=[("mData", OBJECT), ("mShared", OBJECT)])
inner = cls("com.acme.MainActivity$1", fields=[("this$0", OBJECT)])
live = cls("com.acme.LiveActivity", super_id=activity, fields=[("mFragment", OBJECT)])
myfrag = cls("com.acme.MyFragment", super_id=fragment, fields=[("mCache", OBJECT)])
cache = cls("com.acme.Cache", fields=[("owner", OBJECT)])
holder = cls("com.acme.Holder", fields=[("act", OBJECT)])
mywrap = cls("com.acme.MyWrapper", super_id=wrapper, fields=[("extra", OBJECT)])
box = cls("com.acme.Box", fields=[("act", OBJECT)])
fm = cls("android.app.FragmentManagerImpl")
ref = cls("java.lang.ref.Reference", fields=[("referent", OBJECT)])
weak = cls("java.lang.ref.WeakReference", super_id=ref)

# 1. Registry.sCallbacks -> Object[2] -> MainActivity$1 -> this$0 -> MainActivity (destroyed), twice
shared = d.prim_array(BYTE, bytes(30))
ma1 = d.instance(main, [d.prim_array(BYTE, bytes(50)), shared, 1])
ma2 = d.instance(main, [d.prim_array(BYTE, bytes(50)), shared, 1])
cbs = d.obj_array(objarr, [d.instance(inner, [ma1]), d.instance(inner, [ma2])])
reg = d.load_class("com.acme.Registry")
d.class_dump(reg, statics=[("sCallbacks", OBJECT, cbs)])
d.root(reg, kind=0x05)
I.update(ma1=ma1, ma2=ma2, cbs=cbs, reg=reg, shared=shared)

# 2. JNI global -> Holder -> LiveActivity (not destroyed) -> MyFragment (detached) -> Cache -> Activity (destroyed: nested)
nested = d.instance(activity, [1])
c = d.instance(cache, [nested])
f = d.instance(myfrag, [c, 0])
a2 = d.instance(live, [f, 0])
h = d.instance(holder, [a2])
d.root(h)
I.update(nested=nested, cache=c, frag=f, live=a2, holder=h)

# 3. Cachey.sWrapper -> MyWrapper (wraps a destroyed Activity) -> extra -> Box -> act -> Activity (destroyed)
d3 = d.instance(activity, [1])
w2 = d.instance(wrapper, [d3])
b = d.instance(box, [d3])
w = d.instance(mywrap, [b, w2])
cachey = d.load_class("com.acme.Cachey")
d.class_dump(cachey, statics=[("sWrapper", OBJECT, w)])
d.root(cachey, kind=0x05)
I.update(d3=d3, w=w, w2=w2, box=b, cachey=cachey)

# not reported: an attached Fragment, a destroyed Activity only a WeakReference holds
f2 = d.instance(myfrag, [0, d.instance(fm)])
d.root(f2)
dw = d.instance(activity, [1])
wr = d.instance(weak, [dw])
d.root(wr)
I.update(f2=f2, dw=dw, weakref=wr)
d.write(D + "/leak.hprof")

# a heap without leaks: a live Activity and an attached Fragment
d = Dump()
activity = d.load_class("android.app.Activity"); d.class_dump(activity, fields=[("mDestroyed", BOOLEAN)])
fragment = d.load_class("android.app.Fragment"); d.class_dump(fragment, fields=[("mFragmentManager", OBJECT)])
d.root(d.instance(activity, [0]))
d.root(d.instance(fragment, [d.instance(activity, [0])]))
d.write(D + "/clean.hprof")

json.dump({k: "0x%x" % v for k, v in I.items()}, open(D + "/ids.json", "w"))

# 101 leaks (one static each, a destroyed Activity with a byte[k + 1]): the
# retained sets of the 100 largest are computed, the smallest gives its sum
d = Dump()
activity = d.load_class("android.app.Activity"); d.class_dump(activity, fields=[("mDestroyed", BOOLEAN), ("data", OBJECT)])
statics = [("s%d" % k, OBJECT, d.instance(activity, [1, d.prim_array(BYTE, bytes(k + 1))])) for k in range(101)]
many = d.load_class("com.acme.Many"); d.class_dump(many, statics=statics)
d.root(many, kind=0x05)
d.write(D + "/many.hprof")

# a class suspect with an accumulation point: 10 Items (4 + a byte[100]
# each), every one in two arrays that two JNI globals hold, so each is at the
# top of the dominator tree; the search reaches them all through the first
# array (the lower id): 1,040 of 1,120 bytes, no object suspect
d = Dump()
objarr = d.load_class("[Ljava/lang/Object;"); d.class_dump(objarr)
item = d.load_class("com.acme.Item"); d.class_dump(item, fields=[("data", OBJECT)])
items = [d.instance(item, [d.prim_array(BYTE, bytes(100))]) for _ in range(10)]
ga = d.obj_array(objarr, items)
gb = d.obj_array(objarr, items)
d.root(ga); d.root(gb)
d.write(D + "/group.hprof")
open(D + "/group-ids.txt", "w").write("0x%x" % ga)

# the other built-in rules, in an Android (1.0.3) dump: a detached View whose
# context (through a ContextThemeWrapper) is a destroyed Activity, an attached
# one, a dismissed and a showing Dialog, a quit and a running MessageQueue, an
# androidx Fragment detached; all JNI globals
d = Dump(android=True)
A = {}
def acls(name, super_id=0, fields=()):
    c = d.load_class(name); d.class_dump(c, super_id=super_id, fields=fields); return c
act_c = acls("android.app.Activity", fields=[("mDestroyed", BOOLEAN)])
ctx_c = acls("android.content.Context")
cw_c = acls("android.content.ContextWrapper", super_id=ctx_c, fields=[("mBase", OBJECT)])
ctw_c = acls("android.view.ContextThemeWrapper", super_id=cw_c)
view_c = acls("android.view.View", fields=[("mAttachInfo", OBJECT), ("mContext", OBJECT)])
tv_c = acls("android.widget.TextView", super_id=view_c)
ai_c = acls("android.view.View$AttachInfo")
dlg_c = acls("android.app.Dialog", fields=[("mDecor", OBJECT), ("mCreated", BOOLEAN)])
mq_c = acls("android.os.MessageQueue", fields=[("mQuitting", BOOLEAN)])
xf_c = acls("androidx.fragment.app.Fragment", fields=[("mFragmentManager", OBJECT)])
A["act"] = d.instance(act_c, [1])
ctw = d.instance(ctw_c, [A["act"]])
A["tv1"] = d.instance(tv_c, [0, ctw])
A["tv2"] = d.instance(tv_c, [d.instance(ai_c), ctw])
A["dlg1"] = d.instance(dlg_c, [0, 1])
A["dlg2"] = d.instance(dlg_c, [d.instance(ai_c), 1])
A["mq1"] = d.instance(mq_c, [1])
A["mq2"] = d.instance(mq_c, [0])
A["xf"] = d.instance(xf_c, [0])
for k in ("tv1", "tv2", "dlg1", "dlg2", "mq1", "mq2", "xf"):
    d.root(A[k])
d.write(D + "/android.hprof")
json.dump({k: "0x%x" % v for k, v in A.items()}, open(D + "/android-ids.json", "w"))
EOF

HP() { "$HPROFAN" leaks "$@" --size-model=raw --quiet; }
HP "$D/leak.hprof" --json >"$D/leak.json" 2>"$D/leak.err"
expect_eq "leaks --json exits 0 with zombies" "$?" 0
HP "$D/leak.hprof" >"$D/leak.txt" 2>&1
expect_eq "leaks (table) exits 0 with zombies" "$?" 0

# every figure of the JSON against the hand-worked values
python3 - "$D" <<'EOF'
import json, sys
D = sys.argv[1]
j = json.load(open(D + "/leak.json"))
I = json.load(open(D + "/ids.json"))
def check(name, got, want):
    print(("ok leaks/%s" % name) if got == want else ("FAIL leaks/%s: got %r, want %r" % (name, got, want)))

# the reachable heap, by hand (raw sizes):
#   suspect part 5,416 = App statics 4 + EventBus 4 + ArrayList 8 + Object[50] 200 + 50 x (Listener 4 + byte[100])
#   Registry 4 + Object[2] 8 + 2 x MainActivity$1 4 + 2 x (MainActivity 9 + byte[50]) + shared byte[30] = 168
#   Holder 4 + LiveActivity 5 + MyFragment 8 + Cache 4 + Activity 1 = 22
#   Cachey 4 + MyWrapper 8 + Box 4 + ContextWrapper 4 + Activity 1 = 21
#   MyFragment 8 + FragmentManagerImpl 0; WeakReference 4 + Activity 1 (MAT follows referents) = 13
check("reachable heap", j["reachable"], 5416 + 168 + 22 + 21 + 13)
check("threshold bytes (10%, rounded up)", j["threshold_bytes"], 564)
S = j["suspects"]
check("one suspect", len(S), 1)
s = S[0]
check("suspect: the App class", (s["kind"], s["object"]["id"], s["object"].get("class_object_of")),
      ("object", I["app"], "com.acme.App"))
check("suspect retained", s["retained"], 5416)
check("accumulation point: the Object[]", (s["accumulation_point"]["id"], s["accumulation_point"]["class"]),
      (I["arr"], "java.lang.Object[]"))
check("accumulation point: 3 steps down, 5,400 bytes", (s["accumulation_point"]["depth"], s["accumulation_point"]["retained"]), (3, 5400))
check("accumulated: 50 x Listener, 5,200 bytes", s["accumulated"], {"class": "com.acme.Listener", "count": 50, "retained": 5200})
check("its collection: the ArrayList one step above, of the 50 its size field says",
      (s["collection"]["id"], s["collection"]["collection"], s["collection"]["size"], s["collection"]["map"]),
      (I["list"], "java.util.ArrayList", 50, False))
# the Object[]'s whole retained set: itself 200, 50 x Listener 4 (retaining 104), 50 x byte[100]
check("accumulated by class over the whole set",
      (s["accumulated_by_class"]["objects"], s["accumulated_by_class"]["shallow"], s["accumulated_by_class"]["classes"],
       [(r["class"], r["count"], r["shallow"], r["retained"]) for r in s["accumulated_by_class"]["rows"]]),
      (101, 5400, 3, [("byte[]", 50, 5000, 5000), ("com.acme.Listener", 50, 200, 5200), ("java.lang.Object[]", 1, 200, 5400)]))
check("no lambda or inner class captures anything there", s["captured"], [])
check("held by com.acme.EventBus", (s["held_by"]["id"], s["held_by"]["class"]), (I["bus"], "com.acme.EventBus"))
check("suspect trace", [(t["id"], t.get("via", {}).get("name")) for t in s["trace"]],
      [(I["app"], None), (I["bus"], "BUS"), (I["list"], "listeners"), (I["arr"], "elementData")])

Z = j["zombies"]
check("four zombies listed", sorted(z["id"] for z in Z), sorted([I["ma1"], I["ma2"], I["frag"], I["d3"]]))
check("nested and not strongly reachable", (j["nested_zombies"], j["not_strongly_reachable_zombies"]), (1, 1))
L = j["leaks"]
check("three leaks, largest first", [(l["class"], l["count"]) for l in L],
      [("com.acme.MainActivity", 2), ("com.acme.MyFragment", 1), ("android.app.Activity", 1)])
# MainActivity 9 + its byte[50]; the shared byte[30] only in the leak's retained set
check("MainActivity leak: retained 59 each, 148 together (shared byte[30] once)",
      (L[0]["retained_sum"], L[0]["retained"], L[0]["retained_objects"]), (118, 148, 5))
check("Fragment leak retains Fragment 8 + Cache 4 + Activity 1", (L[1]["retained"], L[1]["retained_objects"]), (13, 3))
check("fixing all frees 148 + 13 + 1", (j["freed_by_fixing_all"]["bytes"], j["freed_by_fixing_all"]["objects"]), (162, 9))
check("same signature for both MainActivities", len({z["signature"] for z in Z if z["class"] == "com.acme.MainActivity"}), 1)
check("signature text", L[0]["signature_text"],
      "class com.acme.Registry.static sCallbacks > java.lang.Object[][x] > com.acme.MainActivity$1.this$0 > com.acme.MainActivity")

def steps(zid):
    z = next(z for z in Z if z["id"] == zid)
    return [(t["class_object_of"] if "class_object_of" in t else t["class"], t["status"], t["reasons"], t.get("cut"),
             t.get("via", {}).get("name", t.get("via", {}).get("index"))) for t in z["trace"]]
check("trace of a destroyed MainActivity held by this$0", steps(I["ma1"]), [
    ("com.acme.Registry", "not_leaking", ["a class is never leaking"], None, None),
    ("java.lang.Object[]", "unknown", [], True, "sCallbacks"),
    ("com.acme.MainActivity$1", "unknown", [], True, 0),
    ("com.acme.MainActivity", "leaking", ["Activity#mDestroyed is true"], True, "this$0")])
check("trace of a detached Fragment under a live Activity", steps(I["frag"]), [
    ("com.acme.Holder", "not_leaking", ["LiveActivity\u2193 is not leaking"], None, None),
    ("com.acme.LiveActivity", "not_leaking", ["Activity#mDestroyed is false"], False, "act"),
    ("com.acme.MyFragment", "leaking", ["Fragment#mFragmentManager is null"], True, "mFragment")])
check("trace below a ContextWrapper around a destroyed Activity", steps(I["d3"]), [
    ("com.acme.Cachey", "not_leaking", ["a class is never leaking"], None, None),
    ("com.acme.MyWrapper", "leaking", ["MyWrapper wraps an Activity with Activity#mDestroyed true"], True, "sWrapper"),
    ("com.acme.Box", "leaking", ["MyWrapper\u2191 is leaking"], False, "extra"),
    ("android.app.Activity", "leaking", ["Box\u2191 is leaking", "Activity#mDestroyed is true"], False, "act")])
ins = {i["id"]: (i["status"], i["zombie"]) for i in j["inspected"]}
check("the live Activity and the attached Fragment are inspected, not leaking",
      (ins.get(I["live"]), ins.get(I["f2"])), (("not_leaking", False), ("not_leaking", False)))
check("the weakly held destroyed Activity is inspected but not listed",
      (ins.get(I["dw"]), I["dw"] in [z["id"] for z in Z]), (("leaking", True), False))
check("eight objects inspected", len(j["inspected"]), 8)
EOF

# the table: LeakCanary's drawing, the ~~~ under the references to cut
if grep -qF '│    ↓ MainActivity$1.this$0' "$D/leak.txt" && grep -qE '^  │ +~{6}$' "$D/leak.txt" &&
   grep -qF '╰→ com.acme.MainActivity @' "$D/leak.txt" && grep -qF 'LEAKING (Box↑ is leaking and Activity#mDestroyed is true)' "$D/leak.txt" &&
   grep -qF '  collection: java.util.ArrayList @' "$D/leak.txt" && grep -qF ' of 50 elements' "$D/leak.txt" &&
   grep -qF '            50 × com.acme.Listener: 200 B shallow, 5.08 KiB retained' "$D/leak.txt" && grep -qF 'held by com.acme.EventBus @' "$D/leak.txt"; then
  ok "leaks: the table draws the traces"
else fail "leaks: the table draws the traces" "$(head -c 2000 "$D/leak.txt")"; fi

# --big-drop: 0.005 walks on to the largest Listener (104 of 5,400 is 1.9%), then its byte[]
HP "$D/leak.hprof" --json --big-drop 0.005 >"$D/bd.json"
expect_eq "leaks --big-drop 0.005 walks to the byte[]" "$(jget "$D/bd.json" '(d["suspects"][0]["accumulation_point"]["class"], d["suspects"][0]["accumulation_point"]["depth"])')" "('byte[]', 5)"
# above 96.03% (5,416 of 5,640) the App class is no suspect alone, but the three
# sticky classes together are (5,416 + 168 + 21 = 5,605: 99.38%), with no
# object on the paths of most of them; above that, nothing
HP "$D/leak.hprof" --json --threshold 96.5 >"$D/th.json"
expect_eq "leaks --threshold 96.5: a class suspect, 3 x java.lang.Class" \
  "$(jget "$D/th.json" '[(s["kind"], s["class"], s["count"], s["retained"], s["accumulation_point"]) for s in d["suspects"]]')" \
  "[('class', 'java.lang.Class', 3, 5605, None)]"
HP "$D/leak.hprof" --json --threshold 99.5 >"$D/th.json"
expect_eq "leaks --threshold 99.5: no suspect" "$(jget "$D/th.json" 'len(d["suspects"])')" 0

# 101 leaks: 100 retained sets, the smallest leak (a byte[1]: 5 + 1 bytes) as a sum
HP "$D/many.hprof" --json >"$D/many.json"
expect_eq "101 leaks: the 100 largest exact, the last a sum" \
  "$(jget "$D/many.json" '(len(d["leaks"]), sum(l["retained_exact"] for l in d["leaks"]), [(l["retained"], l["retained_sum"], "retained_objects" in l) for l in d["leaks"] if not l["retained_exact"]])')" \
  "(101, 100, [(6, 6, False)])"
HP "$D/many.hprof" | grep -qF "fixing it frees at least 6 B" && ok "the table says which leak's figure is a sum" ||
  fail "the table says which leak's figure is a sum" "$(HP "$D/many.hprof" | grep -F 'leak 101 of')"

# a class suspect and its common path
HP "$D/group.hprof" --json >"$D/group.json"
expect_eq "a class suspect: 10 x com.acme.Item, 1,040 bytes, accumulated in the first array" \
  "$(jget "$D/group.json" '[(s["kind"], s["class"], s["count"], s["retained"], s["accumulation_point"]["id"], s["held_by"], [t["id"] for t in s["trace"]]) for s in d["suspects"]]')" \
  "[('class', 'com.acme.Item', 10, 1040, '$(cat "$D/group-ids.txt")', None, ['$(cat "$D/group-ids.txt")'])]"

# the other built-in rules
"$HPROFAN" leaks "$D/android.hprof" --json --quiet >"$D/android.json" 2>"$D/android.err"
expect_eq "leaks on the Android stand-ins exits 0" "$?" 0
python3 - "$D" <<'EOF'
import json, sys
D = sys.argv[1]
j = json.load(open(D + "/android.json"))
I = json.load(open(D + "/android-ids.json"))
def check(name, got, want):
    print(("ok leaks/%s" % name) if got == want else ("FAIL leaks/%s: got %r, want %r" % (name, got, want)))
Z = {z["id"]: z["reasons"] for z in j["zombies"]}
check("zombies: the detached View, the dismissed Dialog, the quit MessageQueue, the androidx Fragment", Z, {
    I["tv1"]: ["View.mContext references a destroyed activity", "View.mAttachInfo is null (view detached)"],
    I["dlg1"]: ["Dialog#mDecor is null, Dialog#mCreated is true (dismissed)"],
    I["mq1"]: ["MessageQueue#mQuitting is true"],
    I["xf"]: ["Fragment#mFragmentManager is null"]})
check("the destroyed Activity under the View is nested", j["nested_zombies"], 1)
ins = {i["id"]: (i["status"], i["reasons"]) for i in j["inspected"]}
check("the attached View is no zombie (views are listed only as zombies)", I["tv2"] in ins, False)
check("the showing Dialog and the running MessageQueue are not leaking", (ins.get(I["dlg2"]), ins.get(I["mq2"])),
      (("not_leaking", ["Dialog#mDecor is not null (showing)"]), ("not_leaking", ["MessageQueue#mQuitting is false"])))
check("Android policies", (j["weak_policy"], j["roots_policy"]), ("skip-weak", "all"))
EOF

# the heap without leaks
HP "$D/clean.hprof" --json --fail-on-leak >"$D/clean.json"
expect_eq "leaks --fail-on-leak without zombies exits 0" "$?" 0
expect_eq "no zombie in a heap without leaks" "$(jget "$D/clean.json" '(len(d["zombies"]), len(d["inspected"]), [i["status"] for i in d["inspected"]])')" "(0, 3, ['not_leaking', 'not_leaking', 'not_leaking'])"
HP "$D/leak.hprof" --fail-on-leak >/dev/null
expect_eq "leaks --fail-on-leak with zombies exits 5" "$?" 5

# user rules: a class of the dump's own, its subclasses, values of every kind
HP "$D/leak.hprof" --json --zombie 'com.acme.Holder:act=!null' --zombie 'java.util.ArrayList:size=50' >"$D/rule.json"
expect_eq "--zombie rules: Holder (a JNI global) and the ArrayList are zombies" \
  "$(jget "$D/rule.json" 'sorted((z["class"], z["reasons"][-1]) for z in d["zombies"] if z["class"] in ("com.acme.Holder", "java.util.ArrayList"))')" \
  "[('com.acme.Holder', 'Holder#act is not null (--zombie rule)'), ('java.util.ArrayList', 'ArrayList#size is 50 (--zombie rule)')]"
expect_eq "--zombie: the zombies under the Holder are nested now" "$(jget "$D/rule.json" 'd["nested_zombies"]')" 2
printf '# rules\n\n  com.acme.Box:act=!null   # a comment\n' >"$D/rules.txt"
HP "$D/leak.hprof" --json --zombie-rules "$D/rules.txt" >"$D/rf.json"
expect_eq "--zombie-rules FILE: the Box is a zombie, the Activity under it nested" \
  "$(jget "$D/rf.json" '(sorted(z["class"] for z in d["zombies"]), d["nested_zombies"])')" \
  "(['com.acme.Box', 'com.acme.MainActivity', 'com.acme.MainActivity', 'com.acme.MyFragment'], 2)"
expect_eq "--zombie-rules FILE: rules read" "$(jget "$D/rf.json" 'd["zombie_rules"]')" "['com.acme.Box:act=!null']"
HP "$D/leak.hprof" --zombie 'nocolon' >/dev/null 2>"$D/bad.err"
expect_eq "a bad --zombie rule is a usage error" "$?:$(grep -c "not a rule CLASS:FIELD=VALUE" "$D/bad.err")" "2:1"
printf 'a.B:c=1\nbroken line\n' >"$D/bad.txt"
HP "$D/leak.hprof" --zombie-rules "$D/bad.txt" >/dev/null 2>"$D/bad.err"
expect_eq "a bad line of --zombie-rules names the line" "$?:$(grep -c "bad.txt:2:" "$D/bad.err")" "2:1"

# ---- the corpus ---------------------------------------------------------------------
have_corpus leaks-corpus || exit 0
DIALER=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
"$HPROFAN" leaks "$DIALER" --json --quiet >"$D/dialer.json" 2>"$D/dialer.err"
expect_eq "leaks on dialer.android-hprof exits 0" "$?" 0
"$HPROFAN" top "$DIALER" --json --top 0 --quiet >"$D/dialer-top.json"
python3 - "$D" <<'EOF'
import json, sys
D = sys.argv[1]
j = json.load(open(D + "/dialer.json"))
t = json.load(open(D + "/dialer-top.json"))
def check(name, got, want):
    print(("ok leaks/%s" % name) if got == want else ("FAIL leaks/%s: got %r, want %r" % (name, got, want)))
# the histogram counts each class's instances; the rules must have looked at
# every instance of MessageQueue, and of Activity (none: a service process)
count = lambda name: sum(r["instances"] for r in t["classes"] if r["class"] == name)
ins = j["inspected"]
check("dialer: every MessageQueue classified", len([i for i in ins if i["class"] == "android.os.MessageQueue"]),
      count("android.os.MessageQueue"))
check("dialer: each classified object has a reason", all(i["reasons"] for i in ins), True)
acts = [i for i in ins if "Activity" in i["class"] and i["class"] != "android.app.ActivityThread"]
check("dialer: no Activity instance (none in the histogram either)",
      (len(acts), sum(r["instances"] for r in t["classes"] if r["class"].endswith("Activity"))), (0, 0))
z = j["zombies"]
# the IntentService was stopped (ActivityThread.mServices is empty) and a
# static singleton still holds it: the zombie, and its quit MessageQueue
# nested under it
check("dialer: the destroyed CallLogNotificationsService is the zombie, its quit MessageQueue nested",
      ([(x["class"], x["reasons"], [s["class"] for s in x["trace"]][-2:]) for x in z], j["nested_zombies"]),
      ([("com.android.dialer.calllog.CallLogNotificationsService",
         ["Service is not in ActivityThread.mServices (destroyed)"],
         ["com.android.dialer.calllog.DefaultVoicemailNotifier",
          "com.android.dialer.calllog.CallLogNotificationsService"])], 1))
EOF
fails=0
for f in $(awk -F'\t' 'NR > 1 && $1 !~ /CORRUPT|minimal/ { print $1 }' "$CORPUS/MANIFEST.tsv"); do
  "$HPROFAN" leaks "$CORPUS/$f" --json --quiet >"$D/c.json" 2>"$D/c.err" ||
    { fails=$((fails + 1)); echo "FAIL leaks/corpus $f: $(head -c 300 "$D/c.err")"; continue; }
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d["suspects"], list) and isinstance(d["zombies"], list)' "$D/c.json" ||
    { fails=$((fails + 1)); echo "FAIL leaks/corpus $f: no suspects/zombies arrays"; }
done
expect_eq "leaks runs on every dump of the corpus" "$fails" 0
