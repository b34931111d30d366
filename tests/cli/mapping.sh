#!/usr/bin/env bash
# hprofan --mapping FILE: a dump built byte by byte
# (tests/helper/mkhprof.py) with obfuscated names and a mapping written by
# hand in R8's format (header comments, a sourceFile comment, line ranges,
# inlined code); every expected name below is read off the two by hand:
#  - classes: a.a -> com.example.Cache; its inner class a.a$a (listed) ->
#    com.example.Cache$Entry; a.a$1 (not listed, its outer class is) ->
#    com.example.Cache$1; arrays [La/a$a; and [[La/a; -> com.example.Cache$Entry[]
#    and com.example.Cache[][]; a.z (not listed) and com.example.Keep (listed
#    as itself) unchanged;
#  - fields: a.a's two fields named "a" told apart by type (a reference ->
#    entries, an int -> count), its static c -> INSTANCE, the unlisted d kept;
#    a.a$a.b -> value; a.z.a and a.a$1.a (no member lines) kept;
#  - frames: a.a.a at line 2 (range 1:3, evict inlined into trim) -> trim at
#    line 40; a.a.a at line 5 (range 4:6, original 50:52) -> put at 51; a.a.b
#    (no range) -> clear, line 7 kept; source file Cache.kt from the sourceFile
#    comment; a.a$a.a (two methods named a, no line) -> run, the first, in
#    Cache.java (outermost class, no comment); a.z.a unchanged; the signature
#    (La/a$a;)V -> (Lcom/example/Cache$Entry;)V;
#  - the same frames in sites (the Cache's allocation site);
#  - the JSON header counts 5 classes, 4 fields, 4 frames renamed;
#  - --filter matches the original names;
#  - malformed mapping lines: one error line FILE:LINE: what, exit 2, no output;
#  - a mapping of another app: output unchanged, one warning on stderr.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip mapping "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D/m.hprof" "$H" <<'PY' || { fail mapping-build "cannot write the test dump"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
th = d.load_class("java.lang.Thread"); d.class_dump(th, obj, fields=[("name", OBJECT)])
cache = d.load_class("a.a")
entry = d.load_class("a.a$a")
anon = d.load_class("a.a$1")
unm = d.load_class("a.z")
keep = d.load_class("com.example.Keep")
earr = d.load_class("[La/a$a;")
carr2 = d.load_class("[[La/a;")
d.class_dump(entry, obj, fields=[("b", OBJECT)])
d.class_dump(anon, obj, fields=[("a", INT)])
d.class_dump(unm, obj, fields=[("a", INT)])
d.class_dump(keep, obj, fields=[("x", INT)])
d.class_dump(cache, obj, fields=[("a", OBJECT), ("a", INT), ("d", INT)], statics=[("c", OBJECT, 0)])
e1 = d.instance(entry, [0])
c = d.instance(cache, [d.obj_array(earr, [e1]), 7, 9], trace=1)   # an allocation site (sites)
d.root(c)
d.root(d.instance(anon, [1]))
d.root(d.instance(unm, [2]))
d.root(d.instance(keep, [3]))
d.root(d.obj_array(carr2, []))
f1 = d.stack_frame("a", "(La/a$a;)V", "SourceFile", cache, 2)
f2 = d.stack_frame("a", "(Ljava/lang/Object;)V", "SourceFile", cache, 5)
f3 = d.stack_frame("b", "()V", "SourceFile", cache, 7)
f4 = d.stack_frame("a", "()V", "SourceFile", entry, 0)
f5 = d.stack_frame("a", "()V", "Z.java", unm, 3)
d.stack_trace(1, 1, [f1, f2, f3, f4, f5])
d.thread_root(d.instance(th, [0]), 1, trace=1)
d.frame_root(e1, 1, 0)
d.write(sys.argv[1])
PY

M=$D/mapping.txt
cat >"$M" <<'MAP'
# compiler: R8
# compiler_version: 8.2.42
# min_api: 24
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 6f9c1a2
com.example.Cache -> a.a:
# {"id":"sourceFile","fileName":"Cache.kt"}
    java.util.Map entries -> a
    int count -> a
    com.example.Cache INSTANCE -> c
    1:3:void evict(com.example.Cache$Entry):10:12 -> a
    1:3:void trim(com.example.Cache$Entry):40 -> a
    4:6:void put(java.lang.Object):50:52 -> a
    void clear() -> b
com.example.Cache$Entry -> a.a$a:
    java.lang.Object value -> b
    void run() -> a
    void stop() -> a
    # {"id":"com.android.tools.r8.synthesized"}
com.example.Keep -> com.example.Keep:
    int x -> x
com.example.Unused -> a.y:
    int q -> a
MAP

# the class column of top
classes() { awk '$1 ~ /^[0-9]+$/ { print $NF }' "$1" | LC_ALL=C sort | paste -sd' '; }

run_hp "$D/top" "$D/top.err" top "$D/m.hprof" --top 0 --mapping "$M" --quiet
expect_eq "mapping: top's classes" "$(classes "$D/top")" \
  'a.z com.example.Cache com.example.Cache$1 com.example.Cache$Entry com.example.Cache$Entry[] com.example.Cache[][] com.example.Keep java.lang.Class java.lang.Thread'
expect_eq "mapping: top says nothing on stderr" "$(cat "$D/top.err")" ""
run_hp "$D/top0" "$D/top0.err" top "$D/m.hprof" --top 0 --quiet
expect_eq "mapping: top's classes without it" "$(classes "$D/top0")" \
  'a.a a.a$1 a.a$a a.a$a[] a.a[][] a.z com.example.Keep java.lang.Class java.lang.Thread'

# --filter and class arguments match the original names
run_hp "$D/f" "$D/f.err" top "$D/m.hprof" --top 0 --mapping "$M" --filter 'example\.Cache\$' --quiet
expect_eq "mapping: --filter matches the original names" "$(classes "$D/f")" \
  'com.example.Cache$1 com.example.Cache$Entry com.example.Cache$Entry[]'
run_hp "$D/f" "$D/f.err" top "$D/m.hprof" --top 0 --mapping "$M" --filter '^a\.a' --quiet
expect_eq "mapping: --filter does not match the obfuscated names" "$(classes "$D/f")" ""

# --json: the header, the rows
run_hp "$D/top.json" "$D/e" top "$D/m.hprof" --top 0 --mapping "$M" --json --quiet
expect_eq "mapping: JSON header" "$(jget "$D/top.json" 'd["mapping"]')" \
  "{'file': '$M', 'classes': 5, 'fields': 4, 'frames': 4}"
expect_eq "mapping: JSON rows" "$(jget "$D/top.json" '" ".join(sorted(r["class"] for r in d["classes"]))')" \
  'a.z com.example.Cache com.example.Cache$1 com.example.Cache$Entry com.example.Cache$Entry[] com.example.Cache[][] com.example.Keep java.lang.Class java.lang.Thread'
run_hp "$D/top0.json" "$D/e" top "$D/m.hprof" --json --quiet
expect_eq "mapping: no header member without it" "$(jget "$D/top0.json" '"mapping" in d')" "false"

# instances and object: fields by their original names
run_hp "$D/inst.json" "$D/e" instances "$D/m.hprof" com.example.Cache --mapping "$M" --json --quiet
C=$(jget "$D/inst.json" 'd["instances"][0]["id"]')
run_hp "$D/inst" "$D/e" instances "$D/m.hprof" 'com.example.Cache$Entry[]' --mapping "$M" --quiet
expect_eq "mapping: instances of an array class by its original name" "$(head -c 40 "$D/inst")" \
  '1 instance of com.example.Cache$Entry[]:'
run_hp "$D/obj.json" "$D/e" object "$D/m.hprof" "$C" --mapping "$M" --json --quiet
expect_eq "mapping: object's class" "$(jget "$D/obj.json" 'd["object"]["class"]')" "com.example.Cache"
expect_eq "mapping: object's fields" \
  "$(jget "$D/obj.json" '" ".join(f["name"] + "=" + str(f.get("value")) for f in d["object"]["fields"])')" \
  "entries=$(jget "$D/obj.json" '[f for f in d["object"]["fields"] if f["type"] == "object"][0]["value"]') count=7 d=9"
run_hp "$D/obj" "$D/e" object "$D/m.hprof" "$C" --mapping "$M" --quiet
expect_eq "mapping: object's text" "$(grep -E '^    [a-z]+ = ' "$D/obj" | sed -E 's/ @0x[0-9a-f]+//' | paste -sd'|')" \
  '    entries = com.example.Cache$Entry[]|    count = 7 (int)|    d = 9 (int)'
K=$(jget "$D/obj.json" 'd["object"]["class_id"]' 2>/dev/null)
[ -n "$K" ] || K=$("$HPROFAN" dominators "$D/m.hprof" --json --top 0 --quiet --mapping "$M" |
  python3 -c 'import json,sys; print(next(e["id"] for e in json.load(sys.stdin)["dominators"] if e.get("class_object_of") == "com.example.Cache"))')
run_hp "$D/cls.json" "$D/e" object "$D/m.hprof" "$K" --mapping "$M" --json --quiet
expect_eq "mapping: a static field" "$(jget "$D/cls.json" '" ".join(f["name"] for f in d["object"]["statics"])')" "INSTANCE"
for cls in 'com.example.Cache$Entry:value' 'a.z:a' 'com.example.Cache$1:a' 'com.example.Keep:x'; do
  run_hp "$D/i.json" "$D/e" instances "$D/m.hprof" "${cls%%:*}" --mapping "$M" --json --quiet
  run_hp "$D/o.json" "$D/e" object "$D/m.hprof" "$(jget "$D/i.json" 'd["instances"][0]["id"]')" --mapping "$M" --json --quiet
  expect_eq "mapping: the field of ${cls%%:*}" "$(jget "$D/o.json" '" ".join(f["name"] for f in d["object"]["fields"])')" "${cls#*:}"
done

# threads: the frames
run_hp "$D/th" "$D/th.err" threads "$D/m.hprof" --mapping "$M" --quiet
expect_eq "mapping: threads' frames" "$(grep -E '^ +at ' "$D/th" | sed 's/^ *//' | paste -sd'|')" \
  'at com.example.Cache.trim(Cache.kt:40)|at com.example.Cache.put(Cache.kt:51)|at com.example.Cache.clear(Cache.kt:7)|at com.example.Cache$Entry.run(Cache.java)|at a.z.a(Z.java:3)'
run_hp "$D/th0" "$D/th.err" threads "$D/m.hprof" --quiet
expect_eq "mapping: threads' frames without it" "$(grep -E '^ +at ' "$D/th0" | sed 's/^ *//' | paste -sd'|')" \
  'at a.a.a(SourceFile:2)|at a.a.a(SourceFile:5)|at a.a.b(SourceFile:7)|at a.a$a.a(SourceFile)|at a.z.a(Z.java:3)'
run_hp "$D/th.json" "$D/e" threads "$D/m.hprof" --mapping "$M" --json --quiet
expect_eq "mapping: a frame's signature" "$(jget "$D/th.json" 'd["threads"][0]["frames"][0]["signature"]')" \
  '(Lcom/example/Cache$Entry;)V'

# sites: the Cache was allocated at the thread's stack trace
run_hp "$D/sites.json" "$D/e" sites "$D/m.hprof" --flat --mapping "$M" --json --quiet
expect_eq "mapping: sites' frames" \
  "$(jget "$D/sites.json" '"|".join("%s.%s(%s:%d)" % (f["class"], f["method"], f["source"], f["line"]) for f in d["sites"][0]["frames"])')" \
  'com.example.Cache.trim(Cache.kt:40)|com.example.Cache.put(Cache.kt:51)|com.example.Cache.clear(Cache.kt:7)|com.example.Cache$Entry.run(Cache.java:0)|a.z.a(Z.java:3)'

# malformed lines: FILE:LINE: what, exit 2, nothing on stdout
bad() {   # NAME LINE MESSAGE CONTENT (printf format)
  # shellcheck disable=SC2059
  printf "$4" >"$D/bad.txt"
  run_hp "$D/b.out" "$D/b.err" top "$D/m.hprof" --mapping "$D/bad.txt" --quiet
  local rc=$?
  expect_eq "mapping: $1" "$rc|$(cat "$D/b.err")|$(wc -c <"$D/b.out")" "2|hprofan: $D/bad.txt:$2: $3|0"
}
bad "no colon" 2 "a class line ends with ':'" '# c\na.B -> c\n'
bad "no arrow" 1 "expected 'ORIGINAL -> OBFUSCATED:' (a class) or an indented member" 'a.B c:\n'
bad "member first" 3 "a member line before any class line" '#\n\n    int x -> a\n'
bad "field without a type" 2 "expected a type and a name before '->'" 'a -> b:\n    count -> a\n'
bad "bad range" 2 "expected a line range 'START:END:' before the method" 'a -> b:\n    1:2void f() -> a\n'
bad "backwards range" 3 "line range 3:2 ends before it starts" 'a -> b:\n    int x -> a\n    3:2:void f() -> a\n'
bad "range on a field" 2 "a line range before a field (a method has '(')" 'a -> b:\n    1:2:int x -> a\n'
bad "open paren" 2 "a method's '(' without ')'" 'a -> b:\n    void f(:3 -> a\n'
bad "bad original line" 2 "expected ':LINE' or ':START:END' after the method's ')'" 'a -> b:\n    void f():x -> a\n'
bad "huge line number" 2 "expected ':LINE' or ':START:END' after the method's ')'" 'a -> b:\n    void f():99999999999 -> a\n'
bad "space in a name" 1 "class line: white space or a control character in a name" 'a b -> c:\n'
bad "control character" 1 "class line: white space or a control character in a name" 'a -> \001:\n'
bad "not UTF-8" 1 "class line: a name that is not valid UTF-8" 'a -> \377\376:\n'
bad "NUL byte" 2 "a NUL byte" 'a -> b:\n    int \000x -> a\n'
python3 -c 'import sys; sys.stdout.write("a -> b:\n#" + "x" * 70000 + "\n")' >"$D/long.txt"
run_hp "$D/b.out" "$D/b.err" top "$D/m.hprof" --mapping "$D/long.txt" --quiet
expect_eq "mapping: a line too long" "$?|$(cat "$D/b.err")" "2|hprofan: $D/long.txt:2: a line longer than 65536 bytes"
run_hp "$D/b.out" "$D/b.err" top "$D/m.hprof" --mapping "$D/no-such.txt" --quiet
expect_eq "mapping: no such file" "$?|$(cat "$D/b.err")" "2|hprofan: --mapping $D/no-such.txt: No such file or directory"

# a mapping of another app: nothing renamed, said once
printf 'com.other.App -> b.c:\n    int n -> a\n' >"$D/other.txt"
for cmd in top threads; do
  run_hp "$D/o.out" "$D/o.err" $cmd "$D/m.hprof" --mapping "$D/other.txt" --quiet
  run_hp "$D/n.out" "$D/n.err" $cmd "$D/m.hprof" --quiet
  if cmp -s "$D/o.out" "$D/n.out"; then ok "mapping: another app's leaves $cmd unchanged"
  else fail "mapping: another app's leaves $cmd unchanged" "$(diff "$D/n.out" "$D/o.out" | head -5)"; fi
  expect_eq "mapping: another app's, said once ($cmd)" "$(cat "$D/o.err")" \
    "hprofan: warning: --mapping $D/other.txt: no class, field or stack frame of $D/m.hprof is in it (a mapping of another build?); names are as in the dump"
done
