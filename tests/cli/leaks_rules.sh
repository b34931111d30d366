#!/usr/bin/env bash
# hprofan leaks: LeakCanary's other detectors as built-in rules, and rules
# that cannot pass silently.
#
# On a dump a JDK 17 writes of testdata/java/android_zombies/ (stand-in
# android.app.ActivityThread with mServices, android.app.Service,
# androidx.lifecycle.ViewModel with mCleared, android.view.WindowManagerGlobal
# with mViews and mRoots, ViewRootImpl, View, DecorView), against what the
# program built (its comment) and the JVM's histogram:
#  - the stopped service a static holds, the cleared ViewModel, the dismissed
#    dialog's DecorView and ViewRootImpl, and the ViewRootImpl that
#    WindowManagerGlobal forgot are the 5 zombies, each with its reasons and
#    the static that holds it; the forgotten window's detached view is nested
#    under its ViewRootImpl, the weakly held stopped service not strong;
#  - the running service, the live ViewModel, the live window's DecorView and
#    ViewRootImpl are NOT LEAKING; the removed toast's parentless view is not
#    a zombie (Shark lets such a view be one kept for reuse);
#  - a --zombie rule (or a --zombie-rules line) naming a class the dump lacks,
#    a field the class lacks or a value the field cannot have is a usage
#    error (exit 2, also with --fail-on-leak) with the nearest names; an
#    unquoted CLASS$Inner the shell cut to CLASS says so; a right rule finds
#    the two closed Sessions;
#  - unknown options get "did you mean".
# On dumps built byte by byte (tests/helper/mkhprof.py): a lifecycle 2.8
# ViewModel (impl.isCleared), a ViewRootImpl with mView null in a dump
# without WindowManagerGlobal, a Service in a dump without ActivityThread
# (decides nothing), and registries of the wrong shapes (no crash).
# On a dump of 100,000 classes (a super chain 40,000 deep, 60,000 names of
# about 100 bytes), with the release binary: a mistyped rule answers with
# the nearest names in well under a second, and a right one runs.
# The JDK part is skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip leaks-rules "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/android_zombies
D=$TMPD
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; builtin wait "$p" 2>/dev/null; done; }
at_exit cleanup

# ---- dumps built byte by byte ------------------------------------------------------
python3 - "$D" "$H" <<'EOF' || { fail leaks-rules-build "cannot write the test dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]

# lifecycle 2.8: ViewModel.impl -> ViewModelImpl.isCleared; a ViewRootImpl
# with mView null and no WindowManagerGlobal; a Service and no ActivityThread
d = Dump()
def cls(name, super_id=0, fields=(), statics=()):
    c = d.load_class(name)
    d.class_dump(c, super_id=super_id, fields=fields, statics=statics)
    return c
vm = cls("androidx.lifecycle.ViewModel", fields=[("impl", OBJECT)])
impl = cls("androidx.lifecycle.viewmodel.internal.ViewModelImpl", fields=[("isCleared", BOOLEAN)])
cart = cls("com.acme.CartModel", super_id=vm, fields=[("items", OBJECT)])
ctxw = cls("android.content.ContextWrapper", fields=[("mBase", OBJECT)])
svc = cls("android.app.Service", super_id=ctxw)
vri = cls("android.view.ViewRootImpl", fields=[("mView", OBJECT), ("mContext", OBJECT)])
view = cls("android.view.View", fields=[("mParent", OBJECT), ("mAttachInfo", OBJECT), ("mContext", OBJECT),
                                        ("mWindowAttachCount", INT)])
cleared = d.instance(cart, [d.prim_array(BYTE, bytes(64)), d.instance(impl, [1])])
live = d.instance(cart, [d.prim_array(BYTE, bytes(64)), d.instance(impl, [0])])
dead_root = d.instance(vri, [0, 0])
v = d.instance(view, [0, d.instance(svc, [0]), 0, 1])
live_root = d.instance(vri, [v, 0])
service = d.instance(svc, [0])
app = d.load_class("com.acme.App")
d.class_dump(app, statics=[("sCleared", OBJECT, cleared), ("sLive", OBJECT, live), ("sDeadRoot", OBJECT, dead_root),
                           ("sLiveRoot", OBJECT, live_root), ("sService", OBJECT, service)])
d.root(app, kind=0x05)
d.write(D + "/vm28.hprof")

# the registries of the wrong shapes: mServices' mArray an int[], mRoots an
# ArrayList whose size says 1,000,000 over 2 elements, mViews no list
d = Dump()
objarr = cls("[Ljava/lang/Object;")
amap = cls("android.util.ArrayMap", fields=[("mArray", OBJECT), ("mSize", INT)])
at_c = d.load_class("android.app.ActivityThread")
alist = cls("java.util.ArrayList", fields=[("elementData", OBJECT), ("size", INT)])
wmg_c = d.load_class("android.view.WindowManagerGlobal")
ctxw = cls("android.content.ContextWrapper", fields=[("mBase", OBJECT)])
svc = cls("android.app.Service", super_id=ctxw)
vri = cls("android.view.ViewRootImpl", fields=[("mView", OBJECT), ("mContext", OBJECT)])
at = d.new_id()
services = d.instance(amap, [d.prim_array(INT, bytes(16)), 2])
root_in = d.instance(vri, [0, 0])
root_out = d.instance(vri, [0, 0])
roots = d.instance(alist, [d.obj_array(objarr, [root_in, 0]), 1000000])
wmg = d.new_id()
d.sub.append(struct.pack(">BIIII", 0x21, at, 0, at_c, 4) + struct.pack(">I", services))
d.class_dump(at_c, fields=[("mServices", OBJECT)], statics=[("sCurrentActivityThread", OBJECT, at)])
d.sub.append(struct.pack(">BIIII", 0x21, wmg, 0, wmg_c, 8) + struct.pack(">II", roots, root_in))
d.class_dump(wmg_c, fields=[("mRoots", OBJECT), ("mViews", OBJECT)], statics=[("sDefaultWindowManager", OBJECT, wmg)])
holder = d.load_class("com.acme.Holder")
d.class_dump(holder, statics=[("a", OBJECT, d.instance(svc, [0])), ("b", OBJECT, root_in), ("c", OBJECT, root_out)])
for r in (holder, at_c, wmg_c):
    d.root(r, kind=0x05)
d.write(D + "/shapes.hprof")
EOF

"$HPROFAN" leaks "$D/vm28.hprof" --json --quiet >"$D/vm28.json" 2>"$D/vm28.err"
expect_eq "leaks on the lifecycle 2.8 dump exits 0" "$?" 0
"$HPROFAN" leaks "$D/shapes.hprof" --json --quiet >"$D/shapes.json" 2>"$D/shapes.err"
expect_eq "leaks on registries of the wrong shapes exits 0 (sanitized binary)" "$?:$(head -c 300 "$D/shapes.err")" "0:"
python3 - "$D" <<'EOF'
import json, sys
D = sys.argv[1]
def check(name, got, want):
    print(("ok leaks-rules/%s" % name) if got == want else ("FAIL leaks-rules/%s: got %r, want %r" % (name, got, want)))
j = json.load(open(D + "/vm28.json"))
check("lifecycle 2.8: the cleared CartModel and the ViewRootImpl with mView null are the zombies",
      sorted((z["class"], tuple(z["reasons"]), z["trace"][-1]["via"]["name"]) for z in j["zombies"]),
      [("android.view.ViewRootImpl", ("ViewRootImpl#mView is null",), "sDeadRoot"),
       ("com.acme.CartModel", ("ViewModel#impl.isCleared is true",), "sCleared")])
check("lifecycle 2.8: the live CartModel is not leaking; the Service and the ViewRootImpl with a view are not"
      " looked at without ActivityThread and WindowManagerGlobal",
      sorted((i["class"], i["status"], tuple(i["reasons"])) for i in j["inspected"]),
      [("android.view.ViewRootImpl", "leaking", ("ViewRootImpl#mView is null",)),
       ("com.acme.CartModel", "leaking", ("ViewModel#impl.isCleared is true",)),
       ("com.acme.CartModel", "not_leaking", ("ViewModel#impl.isCleared is false",))])
s = json.load(open(D + "/shapes.json"))
check("wrong shapes: an int[] mArray decides nothing; mRoots' size is cut to its array",
      sorted((z["class"], tuple(z["reasons"])) for z in s["zombies"]),
      [("android.view.ViewRootImpl", ("ViewRootImpl is not in WindowManagerGlobal.mRoots (its window was removed)",
                                      "ViewRootImpl#mView is null"))])
check("wrong shapes: the ViewRootImpl in mRoots is not leaking",
      sorted((i["class"], i["status"]) for i in s["inspected"]),
      [("android.view.ViewRootImpl", "leaking"), ("android.view.ViewRootImpl", "not_leaking")])
EOF

# ---- 100,000 classes: the cost of the nearest names ------------------------------
python3 - "$D/many.hprof" "$H" <<'EOF' || fail leaks-rules-many "cannot write the dump of 100,000 classes"
import random, sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
random.seed(31)
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
prev = obj
for i in range(40000):
    c = d.load_class("com.gen.deep.Layer%d" % i)
    d.class_dump(c, super_id=prev, fields=[("mDepth", INT)] if i == 0 else [])
    prev = c
leaf = d.instance(prev, [7])
words = ["Abstract", "Default", "Http", "Request", "Response", "Handler", "Factory", "Bean", "Proxy", "Manager",
         "Config", "Cache", "Listener", "Event", "Adapter", "Provider", "Resolver", "Builder", "Impl"]
for i in range(60000):
    n = "com.example.generated.persistence.entities.module%d.%s%d" % (
        i % 97, "".join(random.choice(words) for _ in range(6)), i)
    if i == 199:
        n = "com.example.generated.persistence.entities.module5.ProviderListenerManagerProviderResolverHttp199"
    elif i % 3 == 0:
        n += "$" + random.choice(words) + str(i % 11)
    d.class_dump(d.load_class(n), super_id=obj)
holder = d.load_class("com.gen.Holder")
d.class_dump(holder, statics=[("leaf", OBJECT, leaf)])
d.root(holder, kind=0x05)
d.write(sys.argv[1])
EOF
# the dump read once (its index built) before anything is timed
"$REL" info "$D/many.hprof" >/dev/null 2>&1
# timed NAME WANT-EXIT WANT ARGS...: that exit, WANT in stderr, within a
# second of processor time (not the wall clock: the machine is shared)
timed() {
  local name=$1 want_rc=$2 want=$3; shift 3
  local TIMEFORMAT='%3U %3S' t rc
  t=$( { time timeout 30 "$REL" leaks "$D/many.hprof" --quiet "$@" >"$D/many.out" 2>"$D/many.err"; echo "rc $?" >"$D/many.rc"; } 2>&1 )
  rc=$(sed 's/rc //' "$D/many.rc")
  local ms=$(echo "$t" | awk '{ printf "%d", ($1 + $2) * 1000 }')
  if [ "$rc" = "$want_rc" ] && grep -qF -- "$want" "$D/many.err" && [ "$ms" -lt 1000 ]; then ok "leaks-rules: $name (${ms} ms)"
  else fail "leaks-rules: $name" "exit $rc in $ms ms: $(head -c 400 "$D/many.err")"; fi
}
timed "100,000 classes: a long name mistyped, the nearest in under a second" 2 \
  "did you mean 'com.example.generated.persistence.entities.module5.ProviderListenerManagerProviderResolverHttp199'?" \
  --zombie 'com.example.generated.persistence.entities.module5.ProviderListenerManagerProviderResolverHtp199:x=true'
timed "100,000 classes: a field mistyped 40,000 classes below it, the nearest in under a second" 2 \
  "com.gen.deep.Layer39999 has no field mDepht (nor do its super classes or subclasses); did you mean 'mDepth'?" \
  --zombie 'com.gen.deep.Layer39999:mDepht=1'
timed "100,000 classes: a name of one letter, no class" 2 "no class Q in the dump" --zombie 'Q:x=true'
if grep -q "did you mean" "$D/many.err"; then fail "leaks-rules: no guess from a part of one letter" "$(head -c 300 "$D/many.err")"
else ok "leaks-rules: no guess from a part of one letter"; fi
timeout 30 "$REL" leaks "$D/many.hprof" --quiet --json --zombie 'com.gen.deep.Layer0:mDepth=7' >"$D/many.json" 2>"$D/many.err"
expect_eq "100,000 classes: a rule on a class 40,000 deep finds its zombie (within 30 s)" \
  "$(python3 -c 'import json,sys; print([z["class"] for z in json.load(open(sys.argv[1]))["zombies"]])' "$D/many.json" 2>&1 | tail -1)" \
  "['com.gen.deep.Layer39999']"

# ---- the JDK dump ------------------------------------------------------------------
for t in javac java jcmd; do
  command -v "$t" >/dev/null 2>&1 || { skip leaks-rules-jdk "$t is absent"; exit 0; }
done
javac -d "$D/classes" $(find "$SRC" -name '*.java') 2>"$D/javac.err" ||
  { fail leaks-rules-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
# a heap large enough that no collection runs after the program's own; -all:
# no collection before the dump, so the weakly held service is in it
java -Xms256m -Xmx256m -XX:+UseSerialGC -cp "$D/classes" AndroidZombies >"$D/az.out" 2>&1 &
pid=$!
PIDS="$PIDS $pid"
for ((i = 0; i < 300; i++)); do
  grep -q READY "$D/az.out" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
grep -q READY "$D/az.out" || { fail leaks-rules-jvm "the JVM never said READY: $(head -c 300 "$D/az.out")"; exit 0; }
jcmd "$pid" GC.heap_dump -all "$D/az.hprof" >"$D/az.jcmd" 2>&1 &&
  jcmd "$pid" GC.class_histogram -all >"$D/az.histo" 2>&1 ||
  { fail leaks-rules-jcmd "$(head -c 300 "$D/az.jcmd")"; exit 0; }
kill "$pid" 2>/dev/null
A=$D/az.hprof

"$HPROFAN" leaks "$A" --json --quiet >"$D/az.json" 2>"$D/az.err"
expect_eq "leaks on the JDK dump exits 0" "$?:$(head -c 300 "$D/az.err")" "0:"
"$HPROFAN" leaks "$A" --quiet --fail-on-leak >"$D/az.txt" 2>&1
expect_eq "--fail-on-leak on it exits 5 (the built-in rules find zombies)" "$?" 5
"$HPROFAN" leaks "$A" --json --quiet --zombie 'AndroidZombies$Session:closed=true' >"$D/rule.json" 2>"$D/rule.err"
expect_eq "a rule the dump can match runs" "$?:$(head -c 300 "$D/rule.err")" "0:"

python3 - "$D" <<'EOF'
import json, re, sys
D = sys.argv[1]
j = json.load(open(D + "/az.json"))
r = json.load(open(D + "/rule.json"))
def check(name, got, want):
    print(("ok leaks-rules/%s" % name) if got == want else ("FAIL leaks-rules/%s: got %r, want %r" % (name, got, want)))
def histo(cls):
    for line in open(D + "/az.histo"):
        m = re.match(r"\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)", line)
        if m and m.group(3) == cls:
            return int(m.group(1))
    return 0

GONE = "ViewRootImpl is not in WindowManagerGlobal.mRoots (its window was removed)"
check("the five zombies: class, reasons and the static that holds each",
      sorted((z["class"], tuple(z["reasons"]), z["trace"][-1]["via"]["name"]) for z in j["zombies"]), sorted([
          ("AndroidZombies$ShopService", ("Service is not in ActivityThread.mServices (destroyed)",), "sStoppedService"),
          ("AndroidZombies$CartViewModel", ("ViewModel#mCleared is true",), "sClearedModel"),
          ("com.android.internal.policy.DecorView", ("DecorView.mParent is null, View.mAttachInfo is null and"
           " View.mWindowAttachCount is 1 (a window's root view, detached)",), "sDismissedDecor"),
          ("android.view.ViewRootImpl", (GONE, "ViewRootImpl#mView is null"), "sDeadRoot"),
          ("android.view.ViewRootImpl", (GONE,), "sStuckRoot")]))
check("each trace: the class AndroidZombies not leaking, its static the reference to cut, the zombie leaking",
      sorted(set(tuple((s.get("class_object_of", s["class"]), s["status"], s.get("cut")) for s in z["trace"][-2:])
                 for z in j["zombies"])),
      sorted({(("AndroidZombies", "not_leaking", False), (z["class"], "leaking", True)) for z in j["zombies"]}))
check("the forgotten window's detached view is nested; the weakly held stopped service not strong",
      (j["nested_zombies"], j["not_strongly_reachable_zombies"]), (1, 1))
check("five leaks of one zombie each", [l["count"] for l in j["leaks"]], [1, 1, 1, 1, 1])

ins = {}
for i in j["inspected"]:
    ins.setdefault(i["class"], []).append((i["status"], tuple(i["reasons"])))
for c in ins:
    ins[c].sort()
check("every ShopService, CartViewModel and ViewRootImpl looked at (the JVM's counts: 3, 2, 3)",
      [len(ins.get(c, [])) for c in ("AndroidZombies$ShopService", "AndroidZombies$CartViewModel",
                                     "android.view.ViewRootImpl")],
      [histo("AndroidZombies$ShopService"), histo("AndroidZombies$CartViewModel"), histo("android.view.ViewRootImpl")])
check("the JVM counted 3 services, 2 ViewModels, 3 ViewRootImpls, 2 DecorViews, 2 ToastViews",
      [histo(c) for c in ("AndroidZombies$ShopService", "AndroidZombies$CartViewModel", "android.view.ViewRootImpl",
                          "com.android.internal.policy.DecorView", "AndroidZombies$ToastView")], [3, 2, 3, 2, 2])
check("services: the running one not leaking, the two stopped ones leaking", ins.get("AndroidZombies$ShopService"),
      [("leaking", ("Service is not in ActivityThread.mServices (destroyed)",))] * 2 +
      [("not_leaking", ("Service is in ActivityThread.mServices",))])
check("ViewModels: the live one not leaking", ins.get("AndroidZombies$CartViewModel"),
      [("leaking", ("ViewModel#mCleared is true",)), ("not_leaking", ("ViewModel#mCleared is false",))])
check("ViewRootImpls: the live window's not leaking", ins.get("android.view.ViewRootImpl"),
      [("leaking", (GONE,)), ("leaking", (GONE, "ViewRootImpl#mView is null")),
       ("not_leaking", ("ViewRootImpl is in WindowManagerGlobal.mRoots",))])
check("DecorViews: the live window's not leaking", ins.get("com.android.internal.policy.DecorView"),
      [("leaking", ("DecorView.mParent is null, View.mAttachInfo is null and View.mWindowAttachCount is 1"
                    " (a window's root view, detached)",)),
       ("not_leaking", ("View is in WindowManagerGlobal.mViews (a window's root view)",
                        "View.mAttachInfo is not null (view attached)"))])
check("ToastViews: the forgotten window's view leaking, the removed toast's not looked at",
      ins.get("AndroidZombies$ToastView"),
      [("leaking", ("View.mParent is a ViewRootImpl, View.mAttachInfo is null and View.mWindowAttachCount is 1"
                    " (a root view detached from its window)",))])

check("the --zombie rule: the two closed Sessions are zombies too",
      sorted((z["class"], tuple(z["reasons"])) for z in r["zombies"] if "Session" in z["class"]),
      [("AndroidZombies$Session", ("AndroidZombies$Session#closed is true (--zombie rule)",))] * 2)
check("the --zombie rule looked at every Session (the JVM's count)",
      sorted(i["status"] for i in r["inspected"] if i["class"] == "AndroidZombies$Session"),
      ["leaking"] * 2 + ["not_leaking"] * (histo("AndroidZombies$Session") - 2))
EOF
if grep -qF 'LEAKING (Service is not in ActivityThread.mServices (destroyed))' "$D/az.txt" &&
   grep -qF '↓ static AndroidZombies.sStoppedService' "$D/az.txt"; then
  ok "leaks-rules: the table draws the service's trace with its reason"
else fail "leaks-rules: the table draws the service's trace with its reason" "$(head -c 1500 "$D/az.txt")"; fi

# ---- rules that cannot pass silently ----------------------------------------------
# bad NAME WANT ARGS...: exit 2 and WANT in the message
bad() {
  local name=$1 want=$2; shift 2
  "$HPROFAN" leaks "$A" --quiet --fail-on-leak "$@" >"$D/bad.out" 2>"$D/bad.err"
  local rc=$?
  if [ "$rc" = 2 ] && grep -qF -- "$want" "$D/bad.err" && [ ! -s "$D/bad.out" ]; then ok "leaks-rules: $name"
  else fail "leaks-rules: $name" "exit $rc, stdout $(head -c 100 "$D/bad.out"), stderr $(head -c 400 "$D/bad.err")"; fi
}
bad "a class the dump lacks is a usage error naming the nearest" \
  "no class AndroidZombies\$Sesion in the dump; did you mean 'AndroidZombies\$Session'" \
  --zombie 'AndroidZombies$Sesion:closed=true'
bad "a field the class lacks is a usage error naming the nearest" \
  "AndroidZombies\$Session has no field clsoed (nor do its super classes or subclasses); did you mean 'closed'?" \
  --zombie 'AndroidZombies$Session:clsoed=true'
bad "a field named in another case: the field's name" "did you mean 'mAttachInfo'?" \
  --zombie 'android.view.View:mattachinfo=null'
bad "a value the field cannot have is a usage error" \
  "AndroidZombies\$Session#closed is a boolean: the value must be true or false" \
  --zombie 'AndroidZombies$Session:closed=ture'
bad "null for an int" "AndroidZombies\$Session#id is an int: the value must be a number" \
  --zombie 'AndroidZombies$Session:id=null'
bad "a class whose outer class is not in the dump: the shell's \$Inner" \
  "no class Pool in the dump, but Pool\$Slot is: did the shell expand an unquoted \$Slot to nothing? Quote the rule: --zombie 'Pool\$Slot:free=true'" \
  --zombie 'Pool:free=true'
# the user's own mistake: the shell expands an unquoted $Session to nothing
env -u Session bash -c '"$0" leaks "$1" --quiet --fail-on-leak --zombie AndroidZombies$Session:closed=true' \
  "$HPROFAN" "$A" >"$D/sh.out" 2>"$D/sh.err"
rc=$?
if [ "$rc" = 2 ] && grep -qF "AndroidZombies has no field closed (nor do its super classes or subclasses), but AndroidZombies\$Session has it: did the shell expand an unquoted \$Session to nothing? Quote the rule: --zombie 'AndroidZombies\$Session:closed=true'" "$D/sh.err"; then
  ok "leaks-rules: an unquoted CLASS\$Inner the shell cut to CLASS is named, with the quoted rule"
else fail "leaks-rules: an unquoted CLASS\$Inner the shell cut to CLASS is named" "exit $rc: $(head -c 400 "$D/sh.err")"; fi
printf '# rules\njava.lang.Thread:daemon=true\n\nAndroidZombies$Session:closd=true\n' >"$D/rules.txt"
bad "a --zombie-rules line: the file and line" \
  "$D/rules.txt:4: AndroidZombies\$Session:closd=true: AndroidZombies\$Session has no field closd" \
  --zombie-rules "$D/rules.txt"
printf 'AndroidZombies:closed=true\n' >"$D/rules2.txt"
bad "a --zombie-rules line of the outer class: the inner class that has the field" \
  "rules2.txt:1: AndroidZombies:closed=true: AndroidZombies has no field closed (nor do its super classes or subclasses); did you mean AndroidZombies\$Session?" \
  --zombie-rules "$D/rules2.txt"

# ---- options: did you mean ---------------------------------------------------------
# opt NAME WANT ARGS...: exit 2 and WANT in the message
opt() {
  local name=$1 want=$2; shift 2
  "$HPROFAN" "$@" >/dev/null 2>"$D/opt.err"
  local rc=$?
  if [ "$rc" = 2 ] && grep -qF -- "$want" "$D/opt.err"; then ok "leaks-rules: $name"
  else fail "leaks-rules: $name" "exit $rc: $(head -c 300 "$D/opt.err")"; fi
}
opt "--tpo: did you mean --top" "unknown option: --tpo; did you mean --top?" "$A" --tpo
opt "--treshold: did you mean --threshold" "unknown option: --treshold; did you mean --threshold?" leaks "$A" --treshold 5
opt "the start of an option: --zombie-rul" "unknown option: --zombie-rul; did you mean --zombie-rules?" \
  leaks "$A" --zombie-rul x
opt "an option with its value: the name only" "unknown option: --big-dorp; did you mean --big-drop?" \
  leaks "$A" --big-dorp=0.5
opt "nothing near: an unknown option" "unknown option: --qqqqqqqq" leaks "$A" --qqqqqqqq
if grep -q "did you mean" "$D/opt.err"; then fail "leaks-rules: nothing near, no guess" "$(cat "$D/opt.err")"
else ok "leaks-rules: nothing near, no guess"; fi
opt "a command mistyped: the same nearest-name function" "unknown command 'laeks'; did you mean 'leaks'?" laeks "$A"
