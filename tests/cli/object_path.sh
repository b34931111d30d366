#!/usr/bin/env bash
# hprofan object and hprofan path, on what the sample program
# (testdata/java/LeakyCache.java) is known to hold:
#  - the three LeakyCache$WorkBuffer objects are held only by a stack local
#    of thread worker-N (ROOT JAVA FRAME): their path is the object itself,
#    their referrer the Thread, their owner field the String "worker-N",
#    their arrays 1000 N ints and 16000 N bytes 'a', 'b', 'c', ...;
#  - session 1999 (the last one, which LeakyCache.lastSession's
#    WeakReference names) has the field values build() gives it, three
#    referrers (HashMap$Node.value, ExpiryListener.session and, with the
#    HotSpot default --weak=follow, WeakReference.referent), is dominated by
#    class LeakyCache, and its paths go through the statics LISTENERS and
#    SESSIONS, never through a referent unless --all-weak (then the shortest
#    is LeakyCache.lastSession.referent);
#  - class LeakyCache's statics;
#  - usage errors (exit 2) and an id the dump does not hold (exit 1);
# and, with the shared corpus, the facts py-hprof's tests assert about
# example-java.hprof (five Vehicles "Lolvo", "Toy Yoda", "Stretch",
# "Fånark", "Axes" with 4, 4, 4, 2, 2 wheels; arrays {1,2,3},
# {{10,15},{13,11}}, "hello"/"world"; static/instance shadowing 10, 13, 11,
# 12 and 4, 5, 6) and the thread names of the Android dump (Strings with
# offset/count over a char[]).
# shellcheck disable=SC2016 # the python checks are single-quoted on purpose
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip object-path "python3 is absent"; exit 0; }
S=$TESTDATA/hprof/leakycache.hprof.gz

# hp NAME ARGS...: hprofan ARGS into $TMPD/NAME (stdout), NAME.err; exit code in NAME.rc
hp() {
  local name=$1; shift
  "$HPROFAN" "$@" >"$TMPD/$name" 2>"$TMPD/$name.err"
  echo $? >"$TMPD/$name.rc"
}
rc() { cat "$TMPD/$1.rc"; }
# pyck NAME CODE ARGS...: python CODE over ARGS: the files among them are JSON
# documents (docs; d the first), the others words (args); any output fails
pyck() {
  local name=$1 code=$2; shift 2
  local out
  out=$(python3 - "$@" <<EOF 2>&1
import json, os, sys
docs = [json.load(open(f)) for f in sys.argv[1:] if os.path.isfile(f)]
args = [a for a in sys.argv[1:] if not os.path.isfile(a)]
d = docs[0]
def field(o, name, decl=None):
    for f in o["object"].get("fields", []) + o["object"].get("statics", []):
        if f["name"] == name and (decl is None or f["declared_by"] == decl):
            return f
    raise KeyError(name)
def val(o, name, decl=None):
    f = field(o, name, decl)
    if f["type"] == "object":
        r = f.get("object") or {}
        return r.get("string", f["value"])
    return f["value"]
$code
EOF
)
  if [ -z "$out" ]; then ok "$name"; else fail "$name" "$(printf '%s' "$out" | tail -n 3 | tr '\n' ' ')"; fi
}

# ---- usage ----------------------------------------------------------------

# usage NAME WORDS ARGS...: hprofan ARGS exits 2 and says WORDS
usage() {
  local name=$1 words=$2; shift 2
  hp u "$@" --quiet </dev/null
  if [ "$(rc u)" = 2 ] && grep -qF -- "$words" "$TMPD/u.err"; then ok "$name"
  else fail "$name" "exit $(rc u): $(head -c 200 "$TMPD/u.err")"; fi
}
usage "object without an id: exit 2" "missing the object id" object "$S"
usage "path with a bad id: exit 2" "'zz-z' is not an object id" path "$S" zz-z
hp pz path "$S" zzz --quiet
if [ "$(rc pz)" = 1 ] && grep -q "no class named 'zzz' in the dump" "$TMPD/pz.err"; then ok "path with a word that is no class: exit 1"
else fail "path with a word that is no class: exit 1" "exit $(rc pz): $(head -c 200 "$TMPD/pz.err")"; fi
usage "object with two ids: exit 2" "unexpected argument: 0x2" object "$S" 0x1 0x2
TMPDIR=$TMPD/none usage "object from a pipe, no place for a copy of it: exit 2" "a pipe cannot do" object - 0x1
for c in object path; do
  hp "n$c" "$c" "$S" 0x1 --quiet
  if [ "$(rc "n$c")" = 1 ] && [ "$(cat "$TMPD/n$c.err")" = "hprofan: $S: no object 0x1 in the dump" ] && [ ! -s "$TMPD/n$c" ]; then
    ok "$c of an id the dump does not hold: exit 1, one line"
  else
    fail "$c of an id the dump does not hold: exit 1, one line" "exit $(rc "n$c"): $(head -c 300 "$TMPD/n$c.err")"
  fi
done
hp help1 help object
if grep -q '^usage: hprofan object FILE ID' "$TMPD/help1"; then ok "help object"; else fail "help object" "$(cat "$TMPD/help1")"; fi

# ---- the sample: WorkBuffers ------------------------------------------------

hp roots roots "$S" --roots=all --json --top 0 --quiet --filter 'WorkBuffer$'
ids=$(python3 -c 'import json,sys; print(" ".join(r["id"] for r in json.load(open(sys.argv[1]))["roots"]))' "$TMPD/roots" 2>/dev/null)
n=$(echo "$ids" | wc -w)
expect_eq "three WorkBuffers are GC roots of their own (--roots=all)" "$n" 3
k=0
for id in $ids; do
  k=$((k + 1))
  hp "wb$k.json" object "$S" "$id" --json --quiet
  hp "wb$k.txt" object "$S" "$id" --quiet
  if [ "$(rc "wb$k.json")" != 0 ] || [ "$(rc "wb$k.txt")" != 0 ]; then
    fail "object WorkBuffer $id" "exit $(rc "wb$k.json")/$(rc "wb$k.txt"): $(head -c 300 "$TMPD/wb$k.json.err")"
    continue
  fi
  pyck "WorkBuffer $id: class, root, thread, owner, referrer, dominator, path" '
o = d["object"]
assert d["schema"] == "hprofan/1" and d["command"] == "object", d["command"]
assert o["id"] == args[0] and o["class"] == "LeakyCache$WorkBuffer" and o["kind"] == "instance", o
assert "java_frame" in o["gc_root"], o.get("gc_root")
t = o["thread"]
assert t.startswith("worker-") and t[7:] in ("1", "2", "3"), t
assert val(d, "owner") == t, (val(d, "owner"), t)
assert [r["class"] for r in d["referrers"]] == ["java.lang.Thread"] and d["referrers_total"] == 1, d["referrers"]
assert d["referrers"][0]["via"] == {"kind": "local", "root_kind": "java_frame", "frame": d["referrers"][0]["via"].get("frame")}, d["referrers"][0]["via"]
assert d["dominators"][0]["class"] == "java.lang.Thread", d["dominators"]
p = d["path"]
assert p["reachable"] and p["length"] == 0 and p["steps"][0]["id"] == o["id"] and p["weak_referents"] == "excluded", p
assert p["steps"][0]["thread"] == t
' "$TMPD/wb$k.json" "$id"
  t=$(jget "$TMPD/wb$k.json" 'd["object"]["thread"]')
  if grep -qF "owner = \"$t\" (java.lang.String @0x" "$TMPD/wb$k.txt" &&
     grep -qF "GC root   Java frame (thread \"$t\")" "$TMPD/wb$k.txt" &&
     grep -qF "[GC root: Java frame (thread \"$t\")]" "$TMPD/wb$k.txt"; then
    ok "WorkBuffer $id: the table shows owner = \"$t\" and the thread"
  else
    fail "WorkBuffer $id: the table shows owner = \"$t\" and the thread" "$(head -c 600 "$TMPD/wb$k.txt")"
  fi
  # its arrays: 1000 N ints, all 0; 16000 N bytes 'a' + i % 26
  nn=${t#worker-}
  ca=$(jget "$TMPD/wb$k.json" '[f for f in d["object"]["fields"] if f["name"] == "counters"][0]["value"]')
  da=$(jget "$TMPD/wb$k.json" '[f for f in d["object"]["fields"] if f["name"] == "data"][0]["value"]')
  hp "ca$k" object "$S" "$ca" --json --quiet --top 3
  hp "da$k" object "$S" "$da" --json --quiet --top 0
  pyck "WorkBuffer $id: counters int[$((1000 * nn))] and data byte[$((16000 * nn))]" '
c, b = docs
n = int(args[0])
assert c["object"]["class"] == "int[]" and c["object"]["length"] == 1000 * n and c["object"]["elements"] == [0, 0, 0], c["object"].get("length")
assert b["object"]["element_type"] == "byte" and b["object"]["length"] == 16000 * n
assert b["object"]["elements"] == [97 + i % 26 for i in range(16000 * n)], b["object"]["elements"][:30]
assert [r["via"] for r in c["referrers"]] == [{"kind": "field", "name": "counters", "declared_by": "LeakyCache$WorkBuffer"}]
' "$TMPD/ca$k" "$TMPD/da$k" "$nn"
done

# ---- the sample: class LeakyCache, session 1999 -------------------------------

hp dom dominators "$S" --json --quiet --top 5
lc=$(jget "$TMPD/dom" '[e["id"] for e in d["dominators"] if e.get("class_object_of") == "LeakyCache"][0]' 2>/dev/null)
hp lc object "$S" "$lc" --json --quiet
pyck "class LeakyCache: its statics" '
o = d["object"]
assert o["kind"] == "class" and o["class_object_of"] == "LeakyCache", o
assert val(d, "SESSION_COUNT") == 2000 and val(d, "createdSessions") == 2000
assert val(d, "totalPayloadBytes") == 2048000 and val(d, "leaking") is True
assert val(d, "loadFactor") == 0.75 and val(d, "marker") == "L"
assert field(d, "SESSIONS")["object"]["class"] == "java.util.HashMap"
assert field(d, "lastSession")["object"]["class"] == "java.lang.ref.WeakReference"
assert o["super"]["class_object_of"] == "java.lang.Object"
' "$TMPD/lc"
wr=$(jget "$TMPD/lc" '[f["value"] for f in d["object"]["statics"] if f["name"] == "lastSession"][0]' 2>/dev/null)
hp wr object "$S" "$wr" --json --quiet
ses=$(jget "$TMPD/wr" '[f["value"] for f in d["object"]["fields"] if f["name"] == "referent"][0]' 2>/dev/null)
hp ses object "$S" "$ses" --json --quiet
pyck "session 1999: its fields, as build() set them" '
o = d["object"]
assert o["class"] == "LeakyCache$Session" and "gc_root" not in o, o
assert val(d, "id", "LeakyCache$Entity") == 1999 and val(d, "version", "LeakyCache$Entity") == 1999 % 7
assert val(d, "createdAt") == 1700000000000 + 1999 * 1000
assert val(d, "user") == "user499@example.com" and val(d, "region") == "sa-east"
assert val(d, "grade") == "E" and val(d, "flags") == 1999 & 0xff and val(d, "score") == 199.9
assert val(d, "active") is True
assert field(d, "role")["object"]["class"] == "LeakyCache$Role"
assert field(d, "payload")["object"]["class"] == "byte[]"
' "$TMPD/ses"
pyck "session 1999: referrers, dominators, path without referents" '
vias = sorted((r["class"], r["via"]["kind"], r["via"].get("name")) for r in d["referrers"])
assert vias == [("LeakyCache$ExpiryListener", "field", "session"), ("java.lang.ref.WeakReference", "field", "referent"),
                ("java.util.HashMap$Node", "field", "value")], vias
assert d["referrers_total"] == 3
assert [x.get("class_object_of") for x in d["dominators"]] == ["LeakyCache"], d["dominators"]
p = d["path"]
assert p["reachable"] and p["weak_referents"] == "excluded" and p["length"] == len(p["steps"]) - 1
assert "gc_root" in p["steps"][0] and p["steps"][-1]["id"] == d["object"]["id"]
assert all(s["via"].get("name") != "referent" for s in p["steps"][1:]), p
' "$TMPD/ses"
role=$(jget "$TMPD/ses" '[f["value"] for f in d["object"]["fields"] if f["name"] == "role"][0]' 2>/dev/null)
hp role object "$S" "$role" --json --quiet
pyck "session 1999: role USER (1999 % 3 = 1)" '
assert val(d, "name") == "USER" and val(d, "ordinal") == 1
' "$TMPD/role"

hp p1 path "$S" "$ses" --json --quiet
hp p2 path "$S" "$ses" --json --quiet --all-weak
hp p3 path "$S" "$ses" --quiet
pyck "path to session 1999: through LISTENERS and SESSIONS, no referent" '
assert d["command"] == "path" and d["weak_referents"] == "excluded" and d["reachable"]
assert d["target"]["id"] == args[0]
names = [[s["via"].get("name") for s in p["steps"][1:]] for p in d["paths"]]
assert len(names) == 2, names
assert any("LISTENERS" in n for n in names) and any("SESSIONS" in n for n in names), names
for p in d["paths"]:
    kinds = [s["via"]["kind"] for s in p["steps"][1:]]
    assert all(n != "referent" for n in [s["via"].get("name") for s in p["steps"][1:]])
    assert p["length"] == len(p["steps"]) - 1 and p["steps"][-1]["id"] == args[0]
s = [p for p in d["paths"] if "SESSIONS" in [x["via"].get("name") for x in p["steps"][1:]]][0]["steps"]
i = [x.get("via", {}).get("name") for x in s].index("SESSIONS")
assert s[i]["via"] == {"kind": "static", "name": "SESSIONS", "declared_by": "LeakyCache"}, s[i]
assert s[i]["class"] == "java.util.HashMap" and s[i + 1]["via"]["name"] == "table" and s[i + 2]["via"]["kind"] == "element"
assert s[-1]["via"]["name"] == "value" and s[-2]["class"] == "java.util.HashMap$Node"
assert d["paths"][0]["length"] <= d["paths"][1]["length"]
' "$TMPD/p1" "$ses"
pyck "path --all-weak to session 1999: lastSession.referent first" '
assert d["weak_referents"] == "followed" and len(d["paths"]) == 3
s = d["paths"][0]["steps"]
assert d["paths"][0]["length"] == 3, d["paths"][0]["length"]
assert s[2]["via"] == {"kind": "static", "name": "lastSession", "declared_by": "LeakyCache"} and s[2]["class"] == "java.lang.ref.WeakReference"
assert s[3]["via"] == {"kind": "field", "name": "referent", "declared_by": "java.lang.ref.Reference"}
' "$TMPD/p2"
if grep -q '^  static SESSIONS -> java.util.HashMap @0x' "$TMPD/p3" && grep -q '^  \.value -> LeakyCache\$Session @0x' "$TMPD/p3" &&
   grep -q '^shortest paths from GC roots to LeakyCache\$Session @0x.* (weak referents excluded)$' "$TMPD/p3" &&
   grep -q '^path 2 of 2, ' "$TMPD/p3"; then
  ok "path to session 1999: the table"
else
  fail "path to session 1999: the table" "$(head -c 800 "$TMPD/p3")"
fi
hp p4 path "$S" "$ses" --quiet --top 1 -o "$TMPD/p4.out"
if [ "$(rc p4)" = 0 ] && [ ! -s "$TMPD/p4" ] && [ "$(grep -c ' -> ' "$TMPD/p4.out")" -ge 4 ] && ! grep -q '^path ' "$TMPD/p4.out"; then
  ok "path --top 1 -o FILE: one path, written to FILE"
else
  fail "path --top 1 -o FILE: one path, written to FILE" "exit $(rc p4): $(head -c 300 "$TMPD/p4.out")"
fi

# ---- the corpus ----------------------------------------------------------------

have_corpus object-path-corpus || exit 0
E=$CORPUS/SonyMobile__py-hprof/example-java.hprof
hp eroots roots "$E" --roots=all --json --top 0 --quiet --filter '^com\.example\.'
cid() { jget "$TMPD/eroots" "[r[\"id\"] for r in d[\"roots\"] if r[\"class\"] == \"$1\"][0]" 2>/dev/null; }
hp cars object "$E" "$(cid com.example.Cars)" --json --quiet
va=$(jget "$TMPD/cars" '[f["value"] for f in d["object"]["fields"] if f["name"] == "vehicles"][0]' 2>/dev/null)
hp varr object "$E" "$va" --json --quiet
k=0
: >"$TMPD/vlist"
for v in $(jget "$TMPD/varr" '" ".join(e["value"] for e in d["object"]["elements"])' 2>/dev/null); do
  k=$((k + 1))
  hp "veh$k" object "$E" "$v" --json --quiet
  echo "$TMPD/veh$k" >>"$TMPD/vlist"
done
# shellcheck disable=SC2046 # file names without spaces (TMPD is ours)
pyck "example-java: five Vehicles, their makes and wheels" '
got = [(val(x, "make"), val(x, "numWheels")) for x in docs]
assert got == [("Lolvo", 4), ("Toy Yoda", 4), ("Stretch", 4), ("F\u00e5nark", 2), ("Axes", 2)], got
assert all(field(x, "make")["declared_by"] == "com.example.cars.Vehicle" for x in docs)
' $(cat "$TMPD/vlist")

hp arrays object "$E" "$(cid com.example.Arrays)" --json --quiet
for f in i1 i2 c1 c2; do
  hp "a_$f" object "$E" "$(jget "$TMPD/arrays" "[x[\"value\"] for x in d[\"object\"][\"fields\"] if x[\"name\"] == \"$f\"][0]" 2>/dev/null)" --json --quiet
done
for e in 0 1; do
  hp "a_i2_$e" object "$E" "$(jget "$TMPD/a_i2" "d[\"object\"][\"elements\"][$e][\"value\"]" 2>/dev/null)" --json --quiet
done
pyck "example-java: arrays {1,2,3}, {{10,15},{13,11}}, \"hello\"/\"world\"" '
i1, c1, c2, e0, e1 = docs
assert i1["object"]["class"] == "int[]" and i1["object"]["elements"] == [1, 2, 3]
assert e0["object"]["elements"] == [10, 15] and e1["object"]["elements"] == [13, 11]
assert c1["object"]["class"] == "char[]" and c1["object"]["string"] == "hello" and c1["object"]["elements"] == list("hello")
assert [e["object"]["string"] for e in c2["object"]["elements"]] == ["hello", "world"], c2["object"]["elements"]
' "$TMPD/a_i1" "$TMPD/a_c1" "$TMPD/a_c2" "$TMPD/a_i2_0" "$TMPD/a_i2_1"

# shadowing: Shadowing.statics holds instances of classes with a static val,
# .instances of classes with an instance val (an object two of the arrays
# hold is read once)
hp shad object "$E" "$(cid com.example.Shadowing)" --json --quiet
: >"$TMPD/slist"
for f in statics instances bases; do
  hp "sh_$f" object "$E" "$(jget "$TMPD/shad" "[x[\"value\"] for x in d[\"object\"][\"fields\"] if x[\"name\"] == \"$f\"][0]" 2>/dev/null)" --json --quiet
  for el in $(jget "$TMPD/sh_$f" '" ".join(e["value"] for e in d["object"]["elements"] if e["value"])' 2>/dev/null); do
    if [ ! -s "$TMPD/el_$el" ]; then
      hp "el_$el" object "$E" "$el" --json --quiet
      hp "cl_$el" object "$E" "$(jget "$TMPD/el_$el" 'd["object"]["class_id"]')" --json --quiet
    fi
    echo "$TMPD/el_$el $TMPD/cl_$el" >>"$TMPD/slist"
  done
done
# shellcheck disable=SC2046
pyck "example-java: shadowed fields 10, 13, 11, 12 (static) and 4, 5, 6 (instance)" '
statics, inst = {}, {}
for i in range(0, len(docs), 2):
    o, c = docs[i], docs[i + 1]
    for f in o["object"]["fields"]:
        if f["name"] == "val":
            inst[(o["object"]["class"], f["declared_by"])] = f["value"]
    for f in c["object"].get("statics", []):
        if f["name"] == "val":
            statics[c["object"]["class_object_of"]] = f["value"]
assert sorted(statics.values()) == [10, 11, 12, 13], statics
assert statics["com.example.Base"] == 10 and statics["com.example.ShadowS"] == 13
assert statics["com.example.ShadowIS"] == 11 and statics["com.example.ShadowSS"] == 12
assert sorted(set(inst.values())) == [4, 5, 6], inst
assert inst[("com.example.ShadowII", "com.example.ShadowII")] == 5 and inst[("com.example.ShadowII", "com.example.ShadowI")] == 4
assert inst[("com.example.ShadowSI", "com.example.ShadowSI")] == 6
' $(cat "$TMPD/slist")

# Android (KitKat): thread names are Strings with offset/count over a char[]
A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
hp aroots roots "$A" --json --top 0 --quiet --filter 'Thread$'
: >"$TMPD/tlist"
for t in $(jget "$TMPD/aroots" '" ".join(r["id"] for r in d["roots"] if "thread_object" in r["kinds"])' 2>/dev/null); do
  hp "th_$t" object "$A" "$t" --json --quiet
  echo "$TMPD/th_$t" >>"$TMPD/tlist"
done
# shellcheck disable=SC2046
pyck "Android: the thread objects' names" '
names = sorted(val(x, "name", "java.lang.Thread") for x in docs)
for want in ("main", "AsyncQueryWorker", "Binder_1", "Binder_2", "FinalizerDaemon"):
    assert want in names, names
assert all(x["object"]["heap"] in ("app", "zygote") for x in docs)
' $(cat "$TMPD/tlist")
hp ath object "$A" "$(jget "$TMPD/aroots" '[r["id"] for r in d["roots"] if r["class"] == "android.os.HandlerThread"][0]' 2>/dev/null)" --quiet
if grep -q '^  GC root   Java frame (thread "AsyncQueryWorker"), thread object$' "$TMPD/ath" &&
   grep -q '^    name = "AsyncQueryWorker" (java.lang.String @0x' "$TMPD/ath"; then
  ok "Android: a HandlerThread's table"
else
  fail "Android: a HandlerThread's table" "$(head -c 600 "$TMPD/ath")"
fi
