#!/usr/bin/env bash
# hprofan refs on the heap of testdata/java/refs/Refs.java (a JDK 17 dump
# taken with -all, so that what only finalizers and phantom references hold
# is in it), against what the program built and the JVM's class histogram:
#  - only softly reachable: the 40 Soft objects, their shallow bytes 40 x the
#    histogram's per Soft, their retained bytes those and their byte[1000]s
#    (16 + 1000 bytes each: the JVM's array header with compressed class
#    pointers); the Strong object a SoftReference also holds is not there;
#  - only weakly: the 30 Weak objects (retained: and their byte[500]s, 16 +
#    500 aligned to 8); only phantom: the 10 Phantoms; only through final
#    references: the 5 Fins nothing else holds;
#  - the PhantomReferences: the histogram's 10, each with its referent, none
#    strongly reachable, all only phantom reachable;
#  - the finalizer queue: the 5 Fins (its queueLength the program read), 3
#    registered and not queued (the program keeps them), 1 in processing (the
#    one whose finalize() blocks the finalizer thread), and that thread;
#  - --json agrees with the text, its rows and "more" add up to the totals
#    (--top 1), the levels to what the roots reach; --level=weak shows only
#    weak;
#  - on corpus dumps (HotSpot JDK 8, JDK 11 gzip, Android 1.0.3 and its
#    hprof-conv twin) it runs cleanly, the levels add up to what top
#    --weak=follow reaches, and a finalizer queue is found or said absent.
# Skipped without a JDK (javac, java, jcmd); the corpus part without the
# corpus.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip refs "python3 is absent"; exit 0; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD

# adds-up FILE: the JSON document's rows and "more" make each total, the
# levels what the roots reach; prints "ok"
adds_up() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["reachability"]
lv = ["strong", "soft", "weak", "final", "phantom"]
assert sum(r[k]["objects"] for k in lv) == r["reached"], "levels do not add up to the reached"
def group(g, what):
    rows = g["by_class"] + ([g["more"]] if "more" in g else [])
    for k in ("objects", "shallow", "retained"):
        assert sum(x[k] for x in rows) == g[k], "%s: %s does not add up" % (what, k)
    assert len(g["by_class"]) + g.get("more", {}).get("classes", 0) == g["classes"], what + ": classes"
for k, g in d["levels"].items():
    group(g, k)
    assert g["objects"] == r[k]["objects"] and g["retained"] == r[k]["retained"], k + ": not the reachability's"
refs = d["references"]
rows = refs["by_class"] + ([refs["more"]] if "more" in refs else [])
for k in ("instances", "shallow", "referents", "strongly", "only"):
    assert sum(x[k] for x in rows) == refs["total"][k], "references: " + k
for x in refs["by_class"]:
    assert sum(x["referents_by_level"].values()) <= x["referents"] <= x["instances"], x["class"]
f = d.get("finalizers", {})
for k in ("queue", "registered", "running"):
    if k in f:
        group(f[k], k)
print("ok")
PY
}

if jdk_heap --all --jvm --add-opens=java.base/java.lang.ref=ALL-UNNAMED refs-jdk "$ROOT/testdata/java/refs/Refs.java" Refs "$D"; then
  F=$D/Refs.hprof
  H=$D/Refs.histo
  per() { awk -v c="$1" '$4 == c { print $3 / $2 }' "$H"; }
  count() { awk -v c="$1" '$4 == c { print $2 }' "$H"; }
  "$HPROFAN" refs "$F" --json --top 0 --quiet >"$D/all.json" 2>"$D/all.err" || fail "refs: runs" "$(head -c 300 "$D/all.err")"
  # "objects shallow retained" of a class in a level or finalizer group
  row() {
    python3 - "$D/all.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
where, cls = sys.argv[2], sys.argv[3]
g = d["finalizers"][where[4:]] if where.startswith("fin:") else d["levels"][where]
print(" ".join("%d %d %d" % (x["objects"], x["shallow"], x["retained"]) for x in g["by_class"] if x["class"] == cls) or "none")
PY
  }
  soft=$(per 'Refs$Soft') weak=$(per 'Refs$Weak') ph=$(per 'Refs$Phantom') fin=$(per 'Refs$Fin')
  expect_eq "refs: only softly reachable, the 40 Softs (shallow: the histogram's, retained: and their byte[1000])" \
    "$(row soft 'Refs$Soft')" "40 $((40 * soft)) $((40 * (soft + 1016)))"
  expect_eq "refs: the Strong a SoftReference also holds is strongly reachable" \
    "$(row soft 'Refs$Strong') $(count 'Refs$Strong')" "none 1"
  expect_eq "refs: only weakly reachable, the 30 Weaks (and their byte[500])" \
    "$(row weak 'Refs$Weak')" "30 $((30 * weak)) $((30 * (weak + 520)))"
  expect_eq "refs: only phantom reachable, the 10 Phantoms" "$(row phantom 'Refs$Phantom')" "10 $((10 * ph)) $((10 * ph))"
  expect_eq "refs: only finalizer reachable, the 5 Fins nothing else holds" "$(row final 'Refs$Fin')" "5 $((5 * fin)) $((5 * fin))"
  # the PhantomReferences: the histogram's, each to its Phantom
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
x = next(x for x in d["references"]["by_class"] if x["class"] == "java.lang.ref.PhantomReference")
print(x["kind"], x["instances"], x["referents"], x["strongly"], x["only"], x["referents_by_level"]["phantom"])' "$D/all.json" 2>&1)
  expect_eq "refs: the PhantomReferences (the histogram's), their referents only phantom reachable" \
    "$got" "phantom $(count java.lang.ref.PhantomReference) 10 0 10 10"
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
x = next(x for x in d["references"]["by_class"] if x["class"] == "java.lang.ref.SoftReference")
print(x["only"] >= 40, x["strongly"] >= 1)' "$D/all.json" 2>&1)
  expect_eq "refs: the SoftReferences: 40 referents only softly, the Strong strongly" "$got" "True True"
  # the finalizer queue
  queued=$(sed -n 's/^QUEUED=//p' "$D/Refs.out")
  expect_eq "refs: the program saw 5 Fins queued (Finalizer.queue.queueLength)" "$queued" 5
  expect_eq "refs: the finalizer queue holds the 5 Fins, queueLength as the program read it" \
    "$(row fin:queue 'Refs$Fin') $(jget "$D/all.json" 'd["finalizers"]["queue"]["objects"], d["finalizers"]["queue_length"]')" \
    "5 $((5 * fin)) $((5 * fin)) (5, $queued)"
  expect_eq "refs: 3 Fins registered and not queued (the program keeps them)" \
    "$(row fin:registered 'Refs$Fin') $(jget "$D/all.json" 'd["finalizers"]["registered"]["objects"]')" \
    "3 $((3 * fin)) $((3 * fin)) 3"
  expect_eq "refs: 1 Fin in processing (its finalize() blocks the finalizer thread)" \
    "$(row fin:running 'Refs$Fin')" "1 $fin $fin"
  expect_eq "refs: every Fin is in one group (the histogram's $(count 'Refs$Fin'))" \
    "$(jget "$D/all.json" 'sum(d["finalizers"][k]["objects"] for k in ("queue", "registered", "running"))')" "$(count 'Refs$Fin')"
  expect_eq "refs: the finalizer thread" "$(jget "$D/all.json" 'd["finalizers"]["thread"]["class"]')" 'java.lang.ref.Finalizer$FinalizerThread'
  expect_eq "refs: the rows add up (--top 0)" "$(adds_up "$D/all.json" 2>&1)" ok
  # --top 1: one row a table, the rest in a line that keeps the totals
  "$HPROFAN" refs "$F" --json --top 1 --quiet >"$D/top1.json"
  expect_eq "refs --top 1: one row a table and \"more\" adding up" "$(adds_up "$D/top1.json" 2>&1) $(jget "$D/top1.json" '
len(d["levels"]["soft"]["by_class"]), d["levels"]["soft"]["more"]["classes"] == d["levels"]["soft"]["classes"] - 1')" "ok (1, True)"
  # the text: the same figures
  "$HPROFAN" refs "$F" --top 1 --quiet >"$D/top1.txt"
  got=$(awk '/^only softly reachable:/ { on = 1; next } on && /more classes$/ { print $1, $(NF - 2); exit }' "$D/top1.txt" | tr -d ,)
  expect_eq "refs --top 1: the text's more line is the JSON's" "$got" \
    "$(jget "$D/top1.json" '"%d %d" % (d["levels"]["soft"]["more"]["objects"], d["levels"]["soft"]["more"]["classes"])')"
  got=$(awk '$NF == "Refs$Soft" || $NF == "Refs$Weak" || $NF == "Refs$Phantom" { print $NF, $1 }' "$D/top1.txt" | paste -sd' ')
  expect_eq "refs: the text's rows (Soft, Weak, Phantom first in their levels)" "$got" 'Refs$Soft 40 Refs$Weak 30 Refs$Phantom 10'
  got=$(grep -E '^  (strongly|only softly|only weakly|only finalizer|only phantom) reach' "$D/top1.txt" | awk '{ for (i = 2; i <= NF; i++) if ($i == "shallow") print $(i - 1) }' | tr -d , | paste -sd' ')
  expect_eq "refs: the text's level counts are the JSON's" "$got" \
    "$(jget "$D/all.json" '" ".join(str(d["reachability"][k]["objects"]) for k in ("strong", "soft", "weak", "final", "phantom"))')"
  if grep -q '^finalizer queue (java.lang.ref.Finalizer.queue), ready for finalization: 5 objects in 1 class' "$D/top1.txt" &&
     grep -q '^finalizer thread: java.lang.ref.Finalizer\$FinalizerThread @0x' "$D/top1.txt"; then ok "refs: the text's finalizer queue"
  else fail "refs: the text's finalizer queue" "$(grep -A3 '^finalizer' "$D/top1.txt" | head -c 400)"; fi
  # --level=weak: that level only, its References, no finalizers
  "$HPROFAN" refs "$F" --level=weak --json --quiet >"$D/weak.json"
  expect_eq "refs --level=weak: the weak level and weak References only" "$(jget "$D/weak.json" '
list(d["levels"]), sorted(set(x["kind"] for x in d["references"]["by_class"])), "finalizers" in d')" "(['weak'], ['weak'], False)"
  "$HPROFAN" refs "$F" --level=weak --quiet >"$D/weak.txt"
  if grep -q '^only weakly reachable: ' "$D/weak.txt" && ! grep -q '^only softly reachable: \|^finalizer queue' "$D/weak.txt"; then
    ok "refs --level=weak: the text"
  else fail "refs --level=weak: the text" "$(head -c 400 "$D/weak.txt")"; fi
  "$HPROFAN" refs "$F" --level=strong --quiet >/dev/null 2>"$D/e.txt"
  rc=$?
  [ $rc = 2 ] && grep -q 'soft, weak, final or phantom' "$D/e.txt" && ok "refs --level=strong: a usage error naming the levels" ||
    fail "refs --level=strong: a usage error" "exit $rc: $(cat "$D/e.txt")"
  # the levels hold what every reference followed reaches
  "$HPROFAN" top "$F" --weak=follow --json --quiet >"$D/top.json"
  expect_eq "refs: the levels add up to what top --weak=follow reaches" "$(jget "$D/all.json" 'd["reachability"]["reached"]')" \
    "$(jget "$D/top.json" 'd["total"]["reachable_objects"]')"
fi

# ---- a chain of a million links, and no finalizer ------------------------------
# (tests/helper/mkhprof.py) a GC root Holder {w, s}: w a WeakReference to
# Node 0 of a list of N Nodes (Node k's next Node k + 1), s a SoftReference
# to Node N/2; so, by hand: Nodes 0 .. N/2-1 only weakly reachable, Nodes
# N/2 .. N-1 only softly (the stronger path wins), each level's top object
# its first Node, which retains the rest of its level and nothing else; one
# WeakReference and one SoftReference, each referent only that strongly
# reachable; no Finalizer class: no finalizer queue.  The searches have no
# recursion: a million links deep is no deeper for them than one.
H=$(cd "$(dirname "$0")/../helper" && pwd)
N=1000000
if python3 - "$D/chain.hprof" $N "$H" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
from mkhprof import *
path, N = sys.argv[1], int(sys.argv[2])
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
ref = d.load_class("java.lang.ref.Reference"); d.class_dump(ref, obj, [("referent", OBJECT)])
weak = d.load_class("java.lang.ref.WeakReference"); d.class_dump(weak, ref)
soft = d.load_class("java.lang.ref.SoftReference"); d.class_dump(soft, ref)
node = d.load_class("Node"); d.class_dump(node, obj, [("next", OBJECT), ("n", INT)])
holder = d.load_class("Holder"); d.class_dump(holder, obj, [("w", OBJECT), ("s", OBJECT)])
BASE = 0x10000000
d.next_id = BASE - 16                 # Node k: BASE + 16 k
for k in range(N):
    assert d.instance(node, [BASE + 16 * (k + 1) if k + 1 < N else 0, k]) == BASE + 16 * k
w = d.instance(weak, [BASE])
s = d.instance(soft, [BASE + 16 * (N // 2)])
d.root(d.instance(holder, [w, s]))
d.root(node, 0x05)                    # its class a sticky class root (as a JVM's are)
d.write(path)
PY
then
  "$HPROFAN" refs "$D/chain.hprof" --json --quiet >"$D/chain.json" 2>"$D/chain.err" || fail "refs: the chain" "$(head -c 300 "$D/chain.err")"
  got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
out = []
for k in ("weak", "soft"):
    g = d["levels"][k]
    out.append("%s %d %s %s" % (k, g["objects"], [x["class"] for x in g["by_class"]], g["retained"] == g["shallow"]))
out += ["%s %d %d %d" % (x["class"], x["instances"], x["referents"], x["only"]) for x in d["references"]["by_class"]]
out.append(str(d["finalizers"]["found"]))
print("; ".join(out))' "$D/chain.json" 2>&1)
  expect_eq "refs: a chain of $N links, half weakly, half softly reachable (by hand)" "$got" \
    "weak $((N / 2)) ['Node'] True; soft $((N / 2)) ['Node'] True; java.lang.ref.WeakReference 1 1 1; java.lang.ref.SoftReference 1 1 1; False"
  "$HPROFAN" refs "$D/chain.hprof" --quiet >"$D/chain.txt" 2>&1
  grep -q '^no finalizer queue found (neither java.lang.ref.Finalizer nor java.lang.ref.FinalizerReference is in the dump)$' "$D/chain.txt" &&
    ok "refs: a dump without finalizers says so" || fail "refs: a dump without finalizers says so" "$(tail -n 3 "$D/chain.txt")"
else
  fail "refs: the chain" "cannot write the dump"
fi

# ---- corpus dumps -------------------------------------------------------------
if have_corpus refs-corpus; then
  for f in eclipse-mat__mat/oracle_jdk8_05_x64.hprof eclipse-mat__mat/openjdk_jdk11_04_x64.hprof.gz \
           tadfisher__platform_tools_base/dialer.android-hprof tadfisher__platform_tools_base/dialer.hprof-conv.hprof; do
    n=${f##*/}
    if ! "$HPROFAN" refs "$CORPUS/$f" --json --quiet >"$D/c.json" 2>"$D/c.err" || [ -s "$D/c.err" ]; then
      fail "refs: $n runs cleanly" "$(head -c 300 "$D/c.err")"; continue
    fi
    "$HPROFAN" top "$CORPUS/$f" --weak=follow --json --quiet >"$D/ct.json" 2>/dev/null
    expect_eq "refs: $n: the levels add up to what top --weak=follow reaches" \
      "$(adds_up "$D/c.json" 2>&1) $(jget "$D/c.json" 'd["reachability"]["reached"]')" "ok $(jget "$D/ct.json" 'd["total"]["reachable_objects"]')"
    "$HPROFAN" refs "$CORPUS/$f" --quiet >"$D/c.txt" 2>&1
    case $n in
      *.android-hprof | *conv.hprof) want='^registered, not queued (java.lang.ref.FinalizerReference.head): [0-9]' ;;
      *) want='^finalizer queue (java.lang.ref.Finalizer.queue), ready for finalization: ' ;;
    esac
    if grep -q "$want" "$D/c.txt"; then ok "refs: $n: its finalizer queue"
    else fail "refs: $n: its finalizer queue" "$(grep -i -A2 'finaliz' "$D/c.txt" | head -c 400)"; fi
  done
fi
