#!/usr/bin/env bash
# diff and trend compare every dump under one model: the size model and the
# weak and roots policies are the options' where given, else the first
# dump's own; a later dump whose own differs is read again under it, the
# JSON records each dump's own, and one line on stderr warns.
#
# The same objects in two formats, as hprof-conv makes them: and.hprof
# (1.0.3, heap-info records, ART's instance sizes in the CLASS DUMPs) and
# conv.hprof (1.0.2, the same records without heap-info).  Their own models:
#   and.hprof   ahat: an instance is its CLASS DUMP size, an array its elements;
#               weak skip-weak, roots all (Android's defaults)
#   conv.hprof  mat: header 8, array header 12, aligned to 16 (the ids are 16
#               apart); weak follow, roots threads
# so each alone gives (by hand)
#   t.Item (int v, Object next, byte b; 17 in its CLASS DUMP)  ahat 17   mat 8+9 -> 32
#   char[3]                                                     ahat 6    mat 12+6 -> 32
#   java.lang.Object[2]                                         ahat 8    mat 12+8 -> 32
# and W, an Item only a WeakReference holds, is retained by that reference
# under follow and by nothing under skip-weak.  Compared under either one
# model, the objects are the same (same ids, classes, lengths, references,
# roots), so every size is the same: no class changes, every delta is 0.
# Before, each was read under its own model: char[] +26, t.Item +45, ...
# and the dialer dump of the corpus against its hprof-conv conversion
# showed -317 KiB shallow and "+149 KiB char[]" (10,284 char[] gaining
# a 12-byte header and padding to 8).  (conv.hprof has no ART class, so it
# is not taken for a conversion; the corpus's conversion is, and reads as
# Android: the same model as the original, nothing to warn about.)
# Checks:
#  (a) diff and conv: zero change; compared_under ahat/skip-weak/all from
#      the first dump; NEW's own mat/follow/threads, read again; the
#      warning (one line); the text says which model;
#  (b) diff conv and: the same under mat/follow/threads;
#  (c) --fast: zero change, the size model only;
#  (d) every part given as an option: no warning, nothing inferred differs;
#  (e) trend and conv and conv: every series flat, one warning line;
#  (f) the later dump's index stays that of its own model;
#  (g) a pipe as NEW (read once): read under the chosen model at once;
#  (h) corpus: the Android dialer dump and its hprof-conv conversion, which
#      is recognised as one and read as Android: zero change under either
#      order, and in trend, with no warning and nothing read again; each
#      alone has the same model and total.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip diff-models "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'EOF' || { fail diff-models-dumps "could not write the dumps"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]

def build(path, android):
    d = Dump(android=android, first_id=0x1000)
    obj = d.load_class("java.lang.Object")
    d.class_dump(obj, instance_size=8)
    ref = d.load_class("java.lang.ref.Reference")
    d.class_dump(ref, obj, fields=[("referent", OBJECT)], instance_size=12)
    weak = d.load_class("java.lang.ref.WeakReference")
    d.class_dump(weak, ref, instance_size=12)
    item = d.load_class("t.Item")
    d.class_dump(item, obj, fields=[("v", INT), ("next", OBJECT), ("b", BYTE)], instance_size=17)
    arr = d.load_class("[Ljava.lang.Object;")
    d.class_dump(arr, obj, instance_size=8)
    chars = d.load_class("[C")
    d.class_dump(chars, obj, instance_size=8)
    d.string("app")                    # hprof-conv keeps the strings: the ids stay the same
    if android:
        d.heap_info(ord("A"), "app")
    a = d.instance(item, [1, 0, 7])
    b = d.instance(item, [2, a, 7])
    array = d.obj_array(arr, [a, b])
    name = d.prim_array(CHAR, "abc".encode("utf-16-be"))
    w = d.instance(item, [3, 0, 7])
    wr = d.instance(weak, [w], types=[OBJECT])
    holder = d.load_class("t.Holder")
    d.class_dump(holder, obj, statics=[("CACHE", OBJECT, array), ("NAME", OBJECT, name), ("WEAK", OBJECT, wr)])
    d.root(holder, kind=0x05)
    d.write(path)

build(D + "/and.hprof", True)
build(D + "/conv.hprof", False)
EOF

# check.py DOC CASE: the checks of one document
cat >"$D/check.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
case = sys.argv[2]
def ok(n): print("ok diff-models %s: %s" % (case, n))
def fail(n, why): print("FAIL diff-models %s: %s: %s" % (case, n, why))
def eq(n, got, want):
    if got == want: ok(n)
    else: fail(n, "got %r, want %r" % (got, want))
# a member missing (a document of before these were recorded) is a failure, said once
sys.excepthook = lambda t, v, tb: print("FAIL diff-models %s: the document: %s %s" % (case, t.__name__, v))
def own(m): return {k: m[k] for k in ("size_model", "weak_policy", "roots_policy") if k in m}
AND = {"size_model": "ahat", "weak_policy": "skip-weak", "roots_policy": "all"}
MAT = {"size_model": "mat", "weak_policy": "follow", "roots_policy": "threads"}
FIRST = {"size_model_source": "first_dump", "weak_policy_source": "first_dump", "roots_policy_source": "first_dump"}
if doc["command"] == "diff":
    fast = not doc["retained_sizes"]
    zero = {"objects": 0, "shallow": 0} if fast else \
        {"objects": 0, "shallow": 0, "reachable_shallow": 0, "unreachable_shallow": 0}
    eq("every delta 0", doc["delta"], zero)
    eq("no class changed", (doc["class_counts"], doc["classes"]), ({"changed": 0, "new": 0, "gone": 0, "shown": 0}, []))
    if not fast and "dialer" not in doc["file"]:   # (the dialer's roots were renamed: see "dialer")
        eq("no growth point", doc["holders"]["points"], 0)
        eq("every object kept its id, none gone", (doc["object_ids"]["kept"], doc["object_ids"]["gone_shallow"]),
           (doc["base"]["objects"], 0))
    sm = [doc[k]["size_model"]["name"] for k in ("base", "new")]
if case == "and-conv":
    eq("compared under and's own", doc["compared_under"], dict(AND, **FIRST))
    eq("both read under ahat", sm, ["ahat", "ahat"])
    eq("each dump's own", [own(doc[k]["inferred_model"]) for k in ("base", "new")], [AND, MAT])
    eq("new's own differs, read again", [(doc[k]["inferred_model"]["differs"], doc[k]["inferred_model"]["read_again"])
                                        for k in ("base", "new")], [(False, False), (True, True)])
    eq("policies followed", [(doc[k]["weak_policy"], doc[k]["roots_policy"]) for k in ("base", "new")],
       [("skip-weak", "all")] * 2)
    eq("models_differ", doc["models_differ"], True)
elif case == "conv-and":
    eq("compared under conv's own", doc["compared_under"], dict(MAT, **FIRST))
    eq("both read under mat", sm, ["mat", "mat"])
    eq("each dump's own", [own(doc[k]["inferred_model"]) for k in ("base", "new")], [MAT, AND])
    eq("models_differ", doc["models_differ"], True)
elif case == "fast":
    eq("compared under the size model only", doc["compared_under"], {"size_model": "ahat", "size_model_source": "first_dump"})
    eq("each dump's own size model", [own(doc[k]["inferred_model"]) for k in ("base", "new")],
       [{"size_model": "ahat"}, {"size_model": "mat"}])
    eq("models_differ", doc["models_differ"], True)
elif case == "options":
    eq("compared under the options", doc["compared_under"],
       {"size_model": "mat", "weak_policy": "skip-weak", "roots_policy": "all", "size_model_source": "option",
        "weak_policy_source": "option", "roots_policy_source": "option"})
    eq("nothing inferred differs", [doc[k]["inferred_model"] for k in ("base", "new")],
       [{"weak_policy": "skip-weak", "roots_policy": "all", "differs": False, "read_again": False},
        {"weak_policy": "follow", "roots_policy": "threads", "differs": False, "read_again": False}])
    eq("models_differ", doc["models_differ"], False)
elif case == "pipe":
    eq("compared under and's", doc["compared_under"], {"size_model": "ahat", "size_model_source": "first_dump"})
    eq("the pipe read under it at once", (doc["new"]["size_model"]["name"], doc["new"]["inferred_model"]),
       ("ahat", {"differs": False, "read_again": False}))
elif case in ("trend", "dialer-same-trend"):
    first = AND if case == "dialer-same-trend" or doc["dumps"][0]["format"].endswith("1.0.3") else MAT
    eq("compared under the first dump's own", doc["compared_under"], dict(first, **FIRST))
    eq("every dump read under it", {d["size_model"]["name"] for d in doc["dumps"]}, {first["size_model"]})
    flat = [c["class"] for c in doc["classes"]
            if any(len(set(c[k])) != 1 for k in ("instances", "shallow", "retained"))]
    eq("every class's series flat", flat, [])
    eq("no path grows", doc["paths_total"], 0)
    eq("models_differ", doc["models_differ"], case == "trend")
    if case == "trend":
        eq("the dumps' own", [(own(d["inferred_model"]), d["inferred_model"]["read_again"]) for d in doc["dumps"]],
           [(AND, False), (MAT, True), (MAT, True)])
elif case == "dialer":
    eq("compared under the Android dump's own", doc["compared_under"], dict(AND, **FIRST))
    eq("the conversion's own", own(doc["new"]["inferred_model"]), AND)
    # hprof-conv made the Android roots ROOT UNKNOWN: 7,286 interned
    # strings, 1 finalizing, 3 debugger; the same 11,193 roots
    rk = {r["kind"]: r["delta"]["roots"] for r in doc["root_kinds"]}
    eq("root records renamed, none added or lost", (sum(rk.values()), rk.get("unknown")), (0, 7290))
    # paths begin with their root kinds: what interned_string held is now
    # held by unknown, the same bytes gone and new; nothing grown
    H = doc["holders"]
    eq("only renamed roots' paths: nothing grown, new and gone the same",
       (len(H["grown"]), sum(e["delta"]["retained"] for e in H["new"]), -sum(e["delta"]["retained"] for e in H["shrunk"])),
       (0,) + (sum(e["delta"]["retained"] for e in H["new"]),) * 2)
elif case == "dialer-rev":
    eq("compared under the conversion's own", doc["compared_under"], dict(AND, **FIRST))
if case in ("dialer", "dialer-rev", "dialer-fast", "dialer-same-trend"):
    dumps = doc["dumps"] if "dumps" in doc else [doc["base"], doc["new"]]
    eq("both read as Android, none again", [(d["size_model"]["name"], d["inferred_model"]["differs"],
                                            d["inferred_model"]["read_again"]) for d in dumps],
       [("ahat", False, False)] * len(dumps))
    eq("models_differ", doc["models_differ"], False)
PY

j() { "$HPROFAN" "$@" --json --quiet >"$D/out.json" 2>"$D/err"; echo $? >"$D/rc"; }
# one_warning NAME FILE GREP: exactly one line on stderr, the warning, matching GREP
one_warning() {
  local n w
  n=$(wc -l <"$2")
  w=$(grep -c "^hprofan: warning: models differ: " "$2")
  if [ "$n" = 1 ] && [ "$w" = 1 ] && grep -qF -- "$3" "$2"; then ok "$1"
  else fail "$1" "stderr: $(head -c 400 "$2")"; fi
}
no_stderr() {
  if [ ! -s "$2" ]; then ok "$1"; else fail "$1" "stderr: $(head -c 300 "$2")"; fi
}
check() {
  if [ "$(cat "$D/rc")" = 0 ]; then python3 "$D/check.py" "$D/out.json" "$1"
  else fail "diff-models $1" "exit $(cat "$D/rc"): $(head -c 300 "$D/err")"; fi
}

# the two dumps' own models do differ (else the rest proves nothing)
"$HPROFAN" top "$D/and.hprof" --json --quiet --top 0 >"$D/ta.json" 2>/dev/null
"$HPROFAN" top "$D/conv.hprof" --json --quiet --top 0 >"$D/tc.json" 2>/dev/null
expect_eq "diff-models: each alone (t.Item, char[], Object[])" \
  "$(python3 -c 'import json,sys
for f in sys.argv[1:]:
    d = json.load(open(f)); c = {r["class"]: r["shallow"] for r in d["classes"]}
    print(d["size_model"]["name"], c["t.Item"], c["char[]"], c["java.lang.Object[]"])' "$D/ta.json" "$D/tc.json" | tr '\n' ' ')" \
  "ahat 51 6 8 mat 96 32 32 "

# (a)
j diff "$D/and.hprof" "$D/conv.hprof"; check and-conv
one_warning "diff-models: the warning" "$D/err" \
  "$D/conv.hprof's own is size model mat, weak follow, roots threads; $D/and.hprof's is size model ahat, weak skip-weak, roots all; both are compared under $D/and.hprof's"
"$HPROFAN" diff "$D/and.hprof" "$D/conv.hprof" --quiet >"$D/out.txt" 2>"$D/err"
if grep -qxF "compared under: size model ahat, weak skip-weak, roots all (base's own)" "$D/out.txt" &&
   grep -qxF "  new's own: size model mat, weak follow, roots threads (read again under base's)" "$D/out.txt" &&
   grep -qxF "change: 0 objects, 0 B shallow, 0 B reachable, 0 B unreachable" "$D/out.txt"; then
  ok "diff-models: the text says which model"
else
  fail "diff-models: the text says which model" "$(head -c 600 "$D/out.txt" | tr "\n" "|")"
fi
# (b)
j diff "$D/conv.hprof" "$D/and.hprof"; check conv-and
one_warning "diff-models: the warning, the other way" "$D/err" "both are compared under $D/conv.hprof's"
# (c)
j diff "$D/and.hprof" "$D/conv.hprof" --fast; check fast
one_warning "diff-models: the warning with --fast" "$D/err" "$D/conv.hprof's own is size model mat; $D/and.hprof's is size model ahat;"
# (d)
j diff "$D/and.hprof" "$D/conv.hprof" --size-model=mat --weak=skip-weak --roots=all; check options
no_stderr "diff-models: no warning when the options choose" "$D/err"
# (e)
j trend "$D/and.hprof" "$D/conv.hprof" "$D/conv.hprof"; check trend
one_warning "diff-models: one warning for the trend" "$D/err" "$D/conv.hprof's own is size model mat, weak follow, roots threads (1 more dump differs too); $D/and.hprof's is"
"$HPROFAN" trend "$D/and.hprof" "$D/conv.hprof" --quiet >"$D/out.txt" 2>/dev/null
if grep -qxF "compared under: size model ahat, weak skip-weak, roots all ($D/and.hprof's own)" "$D/out.txt" &&
   grep -qF "$D/conv.hprof  (own: size model mat, weak follow, roots threads; read again)" "$D/out.txt"; then
  ok "diff-models: trend's text says which model"
else
  fail "diff-models: trend's text says which model" "$(head -c 600 "$D/out.txt" | tr "\n" "|")"
fi
# (f) conv's index, made by reading it alone, is not replaced by one of ahat
rm -rf "$HPROFAN_INDEX_DIR"
"$HPROFAN" index "$D/conv.hprof" --quiet >/dev/null 2>&1
sum_before=$(find "$HPROFAN_INDEX_DIR" -type f -exec md5sum {} + 2>/dev/null | sort)
"$HPROFAN" diff "$D/and.hprof" "$D/conv.hprof" --quiet >/dev/null 2>&1
"$HPROFAN" top "$D/conv.hprof" --json --quiet >"$D/t.json" 2>&1
sum_after=$(find "$HPROFAN_INDEX_DIR" -type f -name '*conv*' -exec md5sum {} + 2>/dev/null | sort)
if [ -n "$sum_before" ] && [ "$sum_before" = "$sum_after" ] && [ "$(jget "$D/t.json" 'd["size_model"]["name"]')" = mat ]; then
  ok "diff-models: the later dump's index stays its own"
else
  fail "diff-models: the later dump's index stays its own" "before: $sum_before; after: $sum_after"
fi
# (g)
"$HPROFAN" diff "$D/and.hprof" - --fast --json --quiet <"$D/conv.hprof" >"$D/out.json" 2>"$D/err"; echo $? >"$D/rc"
check pipe
no_stderr "diff-models: a pipe, no warning (its own not inferred)" "$D/err"

# (h) the corpus: Android's dialer dump and its hprof-conv conversion
if have_corpus diff-models-dialer; then
  A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
  B=$CORPUS/tadfisher__platform_tools_base/dialer.hprof-conv.hprof
  j diff "$A" "$B" --top 0; check dialer
  no_stderr "diff-models dialer: no warning" "$D/err"
  j diff "$B" "$A"; check dialer-rev
  j diff "$A" "$B" --fast; check dialer-fast
  j trend "$A" "$B" "$A" --top 0; check dialer-same-trend
  no_stderr "diff-models dialer: no warning for the trend" "$D/err"
  # each alone: the same bytes under ahat (before, 2,24x,xxx under mat for
  # the conversion: the -317 KiB)
  "$HPROFAN" top "$A" --json --quiet >"$D/ta.json" 2>/dev/null
  "$HPROFAN" top "$B" --json --quiet >"$D/tb.json" 2>/dev/null
  expect_eq "diff-models dialer: each alone differs" \
    "$(python3 -c 'import json,sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
print(a["size_model"]["name"], b["size_model"]["name"], round((b["total"]["shallow"] - a["total"]["shallow"]) / 1024))' "$D/ta.json" "$D/tb.json")" \
    "ahat ahat 0"
fi
