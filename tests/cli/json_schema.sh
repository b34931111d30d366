#!/usr/bin/env bash
# docs/hprofan.schema.json, the JSON Schema (draft 2020-12) of hprofan's JSON
# output, against real output and against docs/json-schema.md:
#  (a) the documents hprofan writes validate: top and info on the sample (gzip,
#      plain, pipe, every size model, filters, -o FILE, --fast and retained
#      sizes under each policy), on a dump cut short (--salvage: partial
#      documents); dominators (--depth, --group=class, --filter), roots, and
#      object and path on ids taken from dominators --json (an instance, a
#      class object, a GC root, object and primitive arrays, a String, an
#      object unreachable under --weak=skip, --all-weak); with the shared
#      corpus, on the Android dump (--heap app, retained sizes, object and
#      path, leaks), stack roots with frames and thread names, a JDK 6 String, the
#      corrupt VisualVM dump (--salvage), a file without a heap dump and one
#      with two;
#  (b) documents that break the schema are rejected (a counter as a string,
#      a negative or fractional count, a required member missing, a wrong
#      schema name or command, partial without a reason, ...), and a member
#      the schema does not name is accepted (members may be added);
#  (c) the schema and docs/json-schema.md agree: every member the tables
#      document is in the schema with the same type, required unless marked
#      optional, and every member the schema has is in its section's table
#      (at the depth the table goes to); every ```json block is JSON (a line
#      "…" only for array elements left out), in its command's section, a
#      whole document that validates or an excerpt whose members do, and every
#      command has a whole example;
#  (d) every command hprofan --help lists whose JSON docs/json-schema.md
#      documents has a schema, and the schema knows no undocumented command.
# Validation uses python3's jsonschema module when it is importable (Debian:
# python3-jsonschema) and always a small validator built into this script for
# the keywords the schema uses (it refuses a schema with any other keyword, so
# a change to the schema cannot make it pass by being ignored).  Only without
# python3 is the test a skip.
. "$(dirname "$0")/../lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
SCHEMA=$SRC/docs/hprofan.schema.json
MD=$SRC/docs/json-schema.md
SAMPLE=$TESTDATA/hprof/leakycache-small.hprof.gz   # the sample program, 100 sessions (testdata/README.md)

if ! command -v python3 >/dev/null 2>&1; then
  skip json-schema "python3 is absent"
  exit 0
fi
[ -f "$SCHEMA" ] || { fail json-schema "docs/hprofan.schema.json is missing"; exit 0; }

DOCS=$TMPD/docs
mkdir -p "$DOCS"
: >"$TMPD/list"

# doc NAME COMMAND ARGS...: runs hprofan ARGS (with --json --quiet), and lists
# its output for validation as a COMMAND document
doc() {
  local name=$1 cmd=$2; shift 2
  "$HPROFAN" "$@" --json --quiet >"$DOCS/$name.json" 2>"$DOCS/$name.err"
  local rc=$?
  if [ $rc != 0 ] || [ ! -s "$DOCS/$name.json" ]; then
    fail "schema: $name" "hprofan $* exited $rc: $(head -c 300 "$DOCS/$name.err")"
    return
  fi
  printf '%s\t%s\t%s\n' "$name" "$cmd" "$DOCS/$name.json" >>"$TMPD/list"
}
# doc_pipe NAME COMMAND FILE ARGS...: the same, reading FILE from a pipe
doc_pipe() {
  local name=$1 cmd=$2 file=$3; shift 3
  # shellcheck disable=SC2002 # a pipe, not a redirected file (that is mapped)
  cat "$file" | "$HPROFAN" "$@" --json --quiet >"$DOCS/$name.json" 2>"$DOCS/$name.err"
  local rc=$?
  if [ $rc != 0 ] || [ ! -s "$DOCS/$name.json" ]; then
    fail "schema: $name" "cat $file | hprofan $* exited $rc: $(head -c 300 "$DOCS/$name.err")"
    return
  fi
  printf '%s\t%s\t%s\n' "$name" "$cmd" "$DOCS/$name.json" >>"$TMPD/list"
}

# ---- (a) real documents -------------------------------------------------------

gzip -dc "$SAMPLE" >"$TMPD/leaky.hprof"
head -c 3000000 "$TMPD/leaky.hprof" >"$TMPD/cut.hprof"

doc top-sample top "$SAMPLE" --top 5
doc top-sample-all top top "$SAMPLE" --top 0 --sort=name --filter Leaky --exclude Listener
doc top-fast-count top "$SAMPLE" --fast --sort=count --top 3
doc top-buckets top "$SAMPLE" --buckets --top 3
doc top-by-thread top "$SAMPLE" --by-thread --top 3
doc top-raw-plain top "$TMPD/leaky.hprof" --size-model=raw --top 3
doc_pipe top-gzip-pipe top "$SAMPLE" - --top 3
doc info-gzip info info "$SAMPLE"
doc info-plain-ahat info info "$TMPD/leaky.hprof" --size-model=ahat --ref-size 8 --header-size 16 --align 16
doc_pipe info-pipe info "$TMPD/leaky.hprof" info -
doc_pipe info-gzip-pipe info "$SAMPLE" info -
doc top-cut-salvage top "$TMPD/cut.hprof" --salvage --top 3
doc info-cut-salvage info info "$TMPD/cut.hprof" --salvage
# -o FILE writes the same document
if "$HPROFAN" info "$SAMPLE" --json --quiet -o "$DOCS/info-o.json" >"$DOCS/info-o.out" 2>&1 &&
   [ ! -s "$DOCS/info-o.out" ] && [ -s "$DOCS/info-o.json" ]; then
  printf '%s\t%s\t%s\n' info-o info "$DOCS/info-o.json" >>"$TMPD/list"
else
  fail "schema: info-o" "hprofan info --json -o FILE failed: $(head -c 300 "$DOCS/info-o.out")"
fi

# a small Android dump with native sizes (one Cleaner chain onto a
# Bitmap with its pixels): the native members of top, info, dominators,
# object and bitmaps
python3 - "$TMPD/native.hprof" "$(cd "$(dirname "$0")/../helper" && pwd)" <<'PY' || fail "schema: native dump" "cannot write it"
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump(android=True)
def cls(name, sup=0, fields=()):
    c = d.load_class(name); d.class_dump(c, super_id=sup, fields=fields); return c
d.heap_info(0x41, "app")
o = cls("java.lang.Object")
ph = cls("java.lang.ref.PhantomReference", cls("java.lang.ref.Reference", o, [("referent", OBJECT)]))
cl = cls("sun.misc.Cleaner", ph, [("thunk", OBJECT)])
reg = cls("libcore.util.NativeAllocationRegistry", o, [("size", LONG)])
th = cls("libcore.util.NativeAllocationRegistry$CleanerThunk", o, [("this$0", OBJECT)])
bm = cls("android.graphics.Bitmap", o, [("mBuffer", OBJECT), ("mWidth", INT), ("mHeight", INT)])
b = d.instance(bm, [d.prim_array(BYTE, bytes(range(16))), 2, 2])
d.root(b)
d.root(d.instance(cl, [d.instance(th, [d.instance(reg, [4096])]), b]))
d.write(sys.argv[1])
PY
doc top-native top "$TMPD/native.hprof" --top 0
doc info-native info info "$TMPD/native.hprof"
doc dominators-native dominators dominators "$TMPD/native.hprof" --depth 3 --top 0
doc bitmaps-native bitmaps bitmaps "$TMPD/native.hprof" --out "$TMPD/png-native"
if [ -s "$DOCS/bitmaps-native.json" ]; then
  doc object-native object object "$TMPD/native.hprof" "$(jget "$DOCS/bitmaps-native.json" "d['bitmaps'][0]['id']")"
fi

# the retained-size commands; object and path take their ids from
# dominators --json (pick FILE KIND prints one id of that kind, or nothing)
doc top-retained-policies top "$SAMPLE" --weak=skip --roots=all --top 3
doc top-visualvm top "$SAMPLE" --weak=skip --roots=all --size-model=visualvm --top 3
# --group: by package, loader, component
doc top-group-package top "$SAMPLE" --group=package --depth 3 --top 4
doc top-group-package-fast top "$SAMPLE" --group=package --fast --filter java.util
doc top-group-loader top "$SAMPLE" --group=loader
printf 'jdk ^(java|jdk|sun)\\.\nnothing ^no\\.such\\.package\\.\n' >"$TMPD/components"
doc top-group-component top "$SAMPLE" --components "$TMPD/components" --sort=count
doc dominators-sample dominators dominators "$SAMPLE" --depth 6 --top 6
doc dominators-group dominators dominators "$SAMPLE" --depth 3 --top 5 --group=class
doc dominators-filter dominators dominators "$SAMPLE" --filter Leaky --weak=skip --roots=all --size-model=netbeans
doc roots-sample roots roots "$SAMPLE" --top 10
doc roots-all roots roots "$TMPD/leaky.hprof" --top 0 --roots=all --weak=skip-weak
doc roots-cut-salvage roots roots "$TMPD/cut.hprof" --salvage --top 3
# leaks (suspects, zombies from a rule, a class suspect, statuses, --salvage)
doc leaks-sample leaks leaks "$SAMPLE"
doc leaks-rules leaks leaks "$TMPD/leaky.hprof" --zombie 'java.lang.Thread:daemon=true' --threshold 1 --big-drop 0.2
doc leaks-visualvm leaks leaks "$SAMPLE" --size-model=visualvm --weak=skip --threshold 0.5
doc leaks-cut-salvage leaks leaks "$TMPD/cut.hprof" --salvage
# check: within budget; growth against a baseline (the same dump, unzipped)
echo '{"classes": {"LeakyCache$Session": {"max_instances": 100, "max_retained": "10 MiB"}},
  "packages": {"java.util": {"max_retained": "50 MiB"}}, "zombies": 0}' >"$TMPD/budget.json"
echo '{"growth": {"max_retained": "5 MiB", "classes": {"LeakyCache$Session": {"max_instances": 0}}}}' >"$TMPD/growth.json"
doc check-sample check check "$SAMPLE" --budget "$TMPD/budget.json"
doc check-growth check check "$SAMPLE" --budget "$TMPD/growth.json" --baseline "$TMPD/leaky.hprof"
# waste
doc waste-sample waste waste "$SAMPLE" --top 3
doc waste-min waste waste "$SAMPLE" --min-count 100 --top 0 --size-model=raw
# --mapping (the header's "mapping")
printf 'org.example.Cache -> LeakyCache:\n    int total -> version\n' >"$TMPD/mapping.txt"
doc top-mapping top "$SAMPLE" --mapping "$TMPD/mapping.txt" --top 3
doc info-mapping info info "$SAMPLE" --mapping "$TMPD/mapping.txt"
# components (per loader; per component, with "other")
printf 'util ^java\\.util\\.\nlang ^java\\.lang\\.\n' >"$TMPD/comp.txt"
doc components-sample components components "$SAMPLE" --top 0
doc components-file components components "$SAMPLE" --components "$TMPD/comp.txt" --top 2
doc sql-sample sql sql "$SAMPLE" "SELECT id, class, kind, shallow, retained, idom, root_kinds, length, str(id) FROM objects WHERE class IN ('java.lang.String', 'byte[]') ORDER BY retained DESC LIMIT 20"
doc sql-classes sql sql "$SAMPLE" "SELECT * FROM classes WHERE instances = 0 LIMIT 3"
doc idom-sample idom idom "$SAMPLE" 'LeakyCache$Attribute' java.lang.String --top 3
doc idom-skip idom idom "$SAMPLE" 'LeakyCache$Session' --skip '^java' --top 0
# merge-paths: a list of 40 Nodes (its middle elided)
LONG=$TMPD/long.hprof
python3 - "$LONG" "$(cd "$(dirname "$0")/../helper" && pwd)" <<'PY' || fail "schema: long list" "cannot write it"
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
node = d.load_class("Node"); d.class_dump(node, obj, fields=[("next", OBJECT)])
nxt = 0
for i in range(40):
    nxt = d.instance(node, [nxt])
d.root(nxt)
d.write(sys.argv[1])
PY
doc mp-sample merge-paths merge-paths "$SAMPLE" java.lang.String 'LeakyCache$Session' --top 2
doc mp-long merge-paths merge-paths "$LONG" Node --top 0
doc gbv-sample group-by-value group-by-value "$SAMPLE" 'LeakyCache$Session' region --top 2
doc gbv-prims group-by-value group-by-value "$SAMPLE" 'LeakyCache$Session' grade --top 0
doc dominators-package dominators dominators "$SAMPLE" --group=package --depth 3 --top 2
doc dominators-loader dominators dominators "$SAMPLE" --group=loader --top 1
doc dominators-component dominators dominators "$SAMPLE" --components "$TMPD/comp.txt" --depth 2 --top 2
doc diff-package diff diff "$SAMPLE" "$SAMPLE" --group=package --top 3
doc diff-loader diff diff "$SAMPLE" "$SAMPLE" --group=loader --top 3
doc trend-component trend trend "$SAMPLE" "$SAMPLE" --components "$TMPD/comp.txt" --fast
pick() {
  python3 - "$1" "$2" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
kind = sys.argv[2]
def walk(es):
    for e in es:
        yield e
        yield from walk(e.get("children", []))
for e in walk(doc.get("dominators", [])):
    c = e.get("class", "")
    if "id" not in e:
        continue
    if (kind == "class" and "class_object_of" in e) or \
       (kind == "root" and "gc_root" in e) or \
       (kind == "objarray" and c.endswith("[]") and c[:-2] not in
            ("boolean", "char", "float", "double", "byte", "short", "int", "long")) or \
       (kind == "primarray" and c in ("byte[]", "char[]", "int[]", "long[]")) or \
       (kind == "string" and c == "java.lang.String") or \
       (kind == "instance" and not c.endswith("[]") and c != "java.lang.Class") or \
       (kind == c):
        print(e["id"])
        break
PY
}
# doc_id NAME COMMAND KIND DOMINATORS-DOC FILE ARGS...: doc with the id of KIND
doc_id() {
  local name=$1 cmd=$2 kind=$3 from=$4 file=$5; shift 5
  local id
  id=$(pick "$DOCS/$from.json" "$kind" 2>/dev/null)
  if [ -z "$id" ]; then
    fail "schema: $name" "no $kind in the output of $from (hprofan dominators --json)"
    return
  fi
  doc "$name" "$cmd" "$cmd" "$file" "$id" "$@"
}
if [ -s "$DOCS/dominators-sample.json" ]; then
  doc_id object-session object 'LeakyCache$Session' dominators-sample "$SAMPLE" --top 3
  doc_id object-session-all object 'LeakyCache$Session' dominators-sample "$SAMPLE" --top 0 --all-weak
  doc_id object-class object class dominators-sample "$SAMPLE" --top 4
  doc_id object-root object root dominators-sample "$TMPD/leaky.hprof" --roots=all
  doc_id object-objarray object objarray dominators-sample "$SAMPLE" --top 5
  doc_id object-primarray object primarray dominators-sample "$SAMPLE" --top 5
  doc_id object-string object string dominators-sample "$SAMPLE"
  doc_id object-primarray-skip object primarray dominators-sample "$SAMPLE" --weak=skip --size-model=visualvm
  doc_id path-session path 'LeakyCache$Session' dominators-sample "$SAMPLE"
  doc_id path-session-one path 'LeakyCache$Session' dominators-sample "$TMPD/leaky.hprof" --top 1
  doc_id path-primarray path primarray dominators-sample "$SAMPLE" --top 0
  doc_id path-primarray-all-weak path primarray dominators-sample "$SAMPLE" --all-weak --top 0
fi

# diff and trend: the sample against itself (gzip and plain), a salvaged
# cut dump in the series, --fast, filters, --sort-by-time
doc diff-sample diff diff "$SAMPLE" "$TMPD/leaky.hprof" --top 3
doc diff-mapping diff diff "$SAMPLE" "$TMPD/leaky.hprof" --top 3 --mapping "$TMPD/mapping.txt"
doc diff-cut-salvage diff diff "$TMPD/cut.hprof" "$SAMPLE" --salvage --top 3 --weak=skip
doc diff-fast diff diff "$TMPD/cut.hprof" "$SAMPLE" --salvage --fast --filter Leaky --exclude Listener
doc trend-sample trend trend "$TMPD/cut.hprof" "$SAMPLE" "$TMPD/leaky.hprof" --salvage --top 3 --sort-by-time
doc trend-fast trend trend "$SAMPLE" "$TMPD/leaky.hprof" --fast --top 0 --filter Leaky

if have_corpus "schema: corpus documents"; then
  A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
  BAD=$CORPUS/oracle__visualvm/small_heap.CORRUPT-spelling-amount.bin
  doc top-android-app top "$A" --heap app --top 5
  doc top-android-fast top "$A" --fast --top 0
  doc info-android info info "$A"
  # the break comes before the heap dump begins: nothing to salvage, exit 1
  # (the partial documents come from a dump cut inside its heap dump)
  "$HPROFAN" "$BAD" --salvage --json -q >"$TMPD/bad.out" 2>"$TMPD/bad.err"; rc=$?
  if [ $rc = 1 ] && [ ! -s "$TMPD/bad.out" ] && grep -q 'nothing to salvage' "$TMPD/bad.err"; then
    ok "schema: a corrupt dump with nothing to salvage writes no document (exit 1)"
  else fail "schema: a corrupt dump with nothing to salvage writes no document (exit 1)" "exit $rc: $(head -c 300 "$TMPD/bad.err")"; fi
  doc info-corrupt-salvage info info "$BAD" --salvage
  "$HPROFAN" "$CORPUS/frohoff__jdk8u-jdk/minimal.bin" --json -q >"$TMPD/nd.out" 2>"$TMPD/nd.err"; rc=$?
  if [ $rc = 1 ] && [ ! -s "$TMPD/nd.out" ] && grep -q 'holds no heap dump' "$TMPD/nd.err"; then
    ok "schema: a file with no heap dump writes no top document (exit 1)"
  else fail "schema: a file with no heap dump writes no top document (exit 1)" "exit $rc: $(head -c 300 "$TMPD/nd.err")"; fi
  doc info-no-heap-dump info info "$CORPUS/frohoff__jdk8u-jdk/minimal.bin"
  doc info-two-dumps info info "$CORPUS/eclipse-mat__mat/oracle_jdk7_21_hprofagent.hprof" --dump 1
  doc info-dump-all info info "$CORPUS/eclipse-mat__mat/oracle_jdk7_21_hprofagent.hprof" --dump all
  doc top-dump-all top top "$CORPUS/eclipse-mat__mat/oracle_jdk7_21_hprofagent.hprof" --dump all
  doc info-hprof-conv info info "$CORPUS/tadfisher__platform_tools_base/dialer.hprof-conv.hprof"
  # Android (heaps, Android root kinds), stack roots with frames and thread
  # names, an old String layout, a salvaged corrupt dump
  J8=$CORPUS/eclipse-mat__mat/oracle_jdk8_05_x64.hprof
  J6=$CORPUS/eclipse-mat__mat/sun_jdk6_18_x32.hprof
  AGENT=$CORPUS/eclipse-mat__mat/oracle_jdk7_21_hprofagent.hprof
  doc top-android-retained top "$A" --top 5
  doc dominators-android dominators dominators "$A" --depth 3 --top 5
  doc diff-android diff diff "$A" "$A" --top 3
  doc roots-android roots roots "$A" --top 20
  doc roots-frames roots roots "$J8" --top 0 --roots=all
  doc roots-agent-threads roots roots "$AGENT" --top 0 --roots=all --dump 1
  # threads (stacks with locals, JNI locals, a dump with threads but no frames)
  doc threads-frames threads threads "$J8" --locals
  doc threads-agent threads threads "$AGENT" --locals --dump 1 --roots=all
  doc threads-android threads threads "$A"
  doc sites-agent sites sites "$AGENT" --flat --top 0 --depth 0
  doc sites-agent-tree sites sites "$AGENT" --top 3 --depth 4 --filter 'java\.'
  doc sites-agent-bottom-up sites sites "$AGENT" --bottom-up --top 0
  doc sites-none sites sites "$J8"
  doc sites-agent-records sites sites "$CORPUS/agourlay__hprof-slurp/hprof-32.bin" --top 3
  doc sites-no-heap-dump sites sites "$CORPUS/frohoff__jdk8u-jdk/minimal.bin" --flat
  doc bitmaps-android bitmaps bitmaps "$A" --out "$TMPD/png"
  doc dominators-j6 dominators dominators "$J6" --depth 4 --top 8
  doc dominators-cut-salvage dominators dominators "$TMPD/cut.hprof" --salvage --depth 2
  if [ -s "$DOCS/dominators-android.json" ]; then
    doc_id object-android object instance dominators-android "$A" --top 3
    doc_id object-android-class object class dominators-android "$A" --top 3
    doc_id path-android path instance dominators-android "$A"
    doc leaks-android leaks leaks "$A"   # a MessageQueue zombie with its trace
  fi
  if [ -s "$DOCS/dominators-j6.json" ]; then
    doc_id object-j6-string object string dominators-j6 "$J6"
    doc_id object-j6-root object root dominators-j6 "$J6" --top 3
    doc_id path-j6-root path root dominators-j6 "$J6"
  fi
fi

# ---- (d) the commands --help lists --------------------------------------------

"$HPROFAN" --help 2>/dev/null |
  awk 'NR == 1 || (started && $0 != "") { started = 1; print; next } { exit }' |
  grep -oE 'hprofan \[?[a-z][a-z0-9-]*' | sed 's/^hprofan \[*//' | grep -vx help |
  LC_ALL=C sort -u >"$TMPD/commands"

# ---- the validators --------------------------------------------------------------

cat >"$TMPD/validate.py" <<'PY'
import copy, json, re, sys

schema_path, md_path, list_path, commands_path = sys.argv[1:5]

def ok(name): print("ok " + name)
def fail(name, why): print("FAIL %s: %s" % (name, why))

def no_duplicates(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError("member %r appears twice" % k)
        seen.add(k)
    return dict(pairs)

def load(path):
    with open(path, encoding="utf-8") as f:
        return json.loads(f.read(), object_pairs_hook=no_duplicates)

schema = load(schema_path)

# -- the built-in validator: the keywords below, nothing else ---------------------
class SchemaError(Exception):
    pass

ANNOTATIONS = {"$schema", "$id", "title", "description", "$comment", "$defs", "examples", "default"}
KEYWORDS = {"type", "required", "properties", "additionalProperties", "items", "enum", "const",
            "minimum", "maximum", "pattern", "allOf", "anyOf", "oneOf", "not", "if", "then",
            "else", "$ref"}

def resolve(ref):
    if not ref.startswith("#/"):
        raise SchemaError("only local $ref is supported: " + ref)
    node = schema
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node

def is_type(v, t):
    if t == "object": return isinstance(v, dict)
    if t == "array": return isinstance(v, list)
    if t == "string": return isinstance(v, str)
    if t == "boolean": return isinstance(v, bool)
    if t == "null": return v is None
    # stricter than JSON Schema on purpose: an integer is written without a
    # fraction or exponent (hprofan writes integers in full)
    if t == "integer": return isinstance(v, int) and not isinstance(v, bool)
    if t == "number": return isinstance(v, (int, float)) and not isinstance(v, bool)
    raise SchemaError("unknown type " + repr(t))

def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b

def short(v):
    s = json.dumps(v, ensure_ascii=False)
    return s if len(s) <= 60 else s[:57] + "..."

def errors(v, s, path):
    if s is True:
        return
    if s is False:
        yield "%s: not allowed" % path
        return
    for k in s:
        if k not in KEYWORDS and k not in ANNOTATIONS:
            raise SchemaError("keyword %r is not supported by the built-in validator" % k)
    if "$ref" in s:
        yield from errors(v, resolve(s["$ref"]), path)
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(is_type(v, t) for t in types):
            yield "%s: %s is not of type %s" % (path, short(v), " or ".join(types))
            return
    if "const" in s and not same(v, s["const"]):
        yield "%s: %s is not %s" % (path, short(v), short(s["const"]))
    if "enum" in s and not any(same(v, e) for e in s["enum"]):
        yield "%s: %s is not one of %s" % (path, short(v), short(s["enum"]))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            yield "%s: %s is less than %s" % (path, v, s["minimum"])
        if "maximum" in s and v > s["maximum"]:
            yield "%s: %s is more than %s" % (path, v, s["maximum"])
    if isinstance(v, str) and "pattern" in s and not re.search(s["pattern"], v):
        yield "%s: %s does not match %s" % (path, short(v), s["pattern"])
    if isinstance(v, dict):
        for r in s.get("required", []):
            if r not in v:
                yield "%s: required member %r is missing" % (path, r)
        props = s.get("properties", {})
        for k, sub in props.items():
            if k in v:
                yield from errors(v[k], sub, "%s.%s" % (path, k))
        if "additionalProperties" in s:
            for k in v:
                if k not in props:
                    yield from errors(v[k], s["additionalProperties"], "%s.%s" % (path, k))
    if isinstance(v, list) and "items" in s:
        for i, x in enumerate(v):
            yield from errors(x, s["items"], "%s[%d]" % (path, i))
    for sub in s.get("allOf", []):
        yield from errors(v, sub, path)
    if "anyOf" in s and not any(valid(v, sub) for sub in s["anyOf"]):
        yield "%s: matches none of anyOf" % path
    if "oneOf" in s:
        n = sum(1 for sub in s["oneOf"] if valid(v, sub))
        if n != 1:
            yield "%s: matches %d of oneOf, not 1" % (path, n)
    if "not" in s and valid(v, s["not"]):
        yield "%s: must not match %s" % (path, short(s["not"]))
    if "if" in s:
        if valid(v, s["if"]):
            if "then" in s:
                yield from errors(v, s["then"], path)
        elif "else" in s:
            yield from errors(v, s["else"], path)

def valid(v, s):
    return next(errors(v, s, "$"), None) is None

def builtin(doc):
    return [e for e in errors(doc, schema, "$")]

validators = [("builtin", builtin)]

# every keyword in the schema, wherever it is, must be one the validator knows
def check(s):
    if isinstance(s, bool):
        return
    for k in s:
        if k not in KEYWORDS and k not in ANNOTATIONS:
            raise SchemaError("keyword %r is not supported by the built-in validator" % k)
    if "$ref" in s:
        resolve(s["$ref"])
    for k, x in s.items():
        if k in ("properties", "$defs"):
            for y in x.values():
                check(y)
        elif k in ("allOf", "anyOf", "oneOf"):
            for y in x:
                check(y)
        elif k in ("items", "additionalProperties", "not", "if", "then", "else"):
            check(x)
try:
    check(schema)
    ok("schema: the built-in validator knows every keyword the schema uses")
except (SchemaError, KeyError) as e:
    fail("schema: the built-in validator knows every keyword the schema uses", str(e))
    sys.exit(0)

try:
    import jsonschema
    cls = jsonschema.validators.validator_for(schema, default=None)
    if cls is not None:     # else too old for the draft: the built-in validator runs alone
        try:
            cls.check_schema(schema)
            ok("schema: the schema is valid %s (jsonschema)" % cls.__name__)
            v = cls(schema)
            validators.append(("jsonschema", lambda doc: ["%s: %s" % ("$" + "".join(
                "[%d]" % p if isinstance(p, int) else "." + p for p in e.absolute_path), e.message)
                for e in v.iter_errors(doc)]))
        except jsonschema.exceptions.SchemaError as e:
            fail("schema: the schema is valid (jsonschema)", e.message)
except ImportError:
    pass    # the built-in validator runs alone

def check_doc(name, doc, want_valid):
    for vname, fn in validators:
        errs = fn(doc)
        label = "schema: %s (%s)" % (name, vname)
        if want_valid:
            if errs: fail(label, "; ".join(errs[:3]))
            else: ok(label)
        else:
            if errs: ok(label + " rejected")
            else: fail(label + " rejected", "the schema accepts it")

# -- (a) real documents -------------------------------------------------------------
docs = {}
with open(list_path) as f:
    for line in f:
        name, command, path = line.rstrip("\n").split("\t")
        try:
            doc = load(path)
        except ValueError as e:
            fail("schema: %s is JSON" % name, str(e))
            continue
        if not isinstance(doc, dict) or doc.get("command") != command:
            fail("schema: %s is a %s document" % (name, command),
                 "command is %s" % short(doc.get("command") if isinstance(doc, dict) else doc))
            continue
        docs[name] = doc
        check_doc(name, doc, True)

# -- (b) broken documents -----------------------------------------------------------
def mutate(doc, path, value=None, delete=False):
    d = copy.deepcopy(doc)
    node = d
    for p in path[:-1]:
        node = node[p]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return d

top = docs.get("top-sample")
info = docs.get("info-gzip")
if top is None or info is None:
    fail("schema: broken documents", "top-sample or info-gzip was not written")
else:
    broken = [
        ("top without schema", mutate(top, ["schema"], delete=True)),
        ("schema hprofan/2", mutate(top, ["schema"], "hprofan/2")),
        ("an unknown command", mutate(top, ["command"], "nosuch")),
        ("top without classes", mutate(top, ["classes"], delete=True)),
        ("a class's shallow as a string", mutate(top, ["classes", 0, "shallow"], "3251344")),
        ("a negative instance count", mutate(top, ["classes", 0, "instances"], -1)),
        ("a fractional total", mutate(top, ["total", "shallow"], 1.5)),
        ("a row without largest", mutate(top, ["classes", 0, "largest"], delete=True)),
        ("percent as a string", mutate(top, ["classes", 0, "percent"], "63.92")),
        ("id_size 6", mutate(top, ["id_size"], 6)),
        ("partial as a number", mutate(top, ["partial"], 0)),
        ("partial without partial_reason", mutate(top, ["partial"], True)),
        ("partial_reason when not partial", mutate(top, ["partial_reason"], "x")),
        ("a size model named foo", mutate(top, ["size_model", "name"], "foo")),
        ("a warning that is not a string", mutate(top, ["warnings"], [1])),
        ("info without objects", mutate(info, ["objects"], delete=True)),
        ("a record count as a string", mutate(info, ["records", "STRING"], "40115")),
        ("a root count below zero", mutate(info, ["gc_roots", "by_kind", "java_frame"], -64)),
        ("a dump's complete as a string", mutate(info, ["dumps", 0, "complete"], "true")),
        ("a timestamp without milliseconds", mutate(info, ["timestamp"], "2026-11-22T11:22:55Z")),
        ("gzip input without gzip_members", mutate(info, ["gzip_members"], delete=True)),
        ("a count past 2^64-1", mutate(info, ["bytes"], 2**64)),
    ]
    for name, d in broken:
        check_doc(name, d, False)
    check_doc("a member the schema does not name", mutate(mutate(top, ["new_member"], {"x": 1}),
              ["classes", 0, "new_member"], "y"), True)

dom, roots = docs.get("dominators-sample"), docs.get("roots-sample")
obj, path = docs.get("object-session"), docs.get("path-session")
if None in (dom, roots, obj, path):
    fail("schema: broken documents of the retained-size commands",
         "dominators-sample, roots-sample, object-session or path-session was not written")
else:
    fast = docs.get("top-fast-count")
    broken = [
        ("top with retained sizes but no weak_policy", mutate(top, ["weak_policy"], delete=True)),
        ("top with retained sizes, a row without retained", mutate(top, ["classes", 0, "retained"], delete=True)),
        ("top without reachable_objects", mutate(top, ["total", "reachable_objects"], delete=True)),
        ("top without retained_sizes", mutate(top, ["retained_sizes"], delete=True)),
        ("a weak policy named weak", mutate(top, ["weak_policy"], "weak")),
        ("dominators without size_model", mutate(dom, ["size_model"], delete=True)),
        ("dominators depth 0", mutate(dom, ["depth"], 0)),
        ("a dominator without retained", mutate(dom, ["dominators", 0, "retained"], delete=True)),
        ("a dominator's percent over 100", mutate(dom, ["dominators", 0, "percent"], 100.5)),
        ("a dominator id in decimal", mutate(dom, ["dominators", 0, "id"], "4252115160")),
        ("a child without id or group", mutate(dom, ["dominators", 0, "children", 0, "id"], delete=True)),
        ("a group of one", mutate(mutate(dom, ["dominators", 0, "group"], "x"), ["dominators", 0, "count"], 1)),
        ("a group with an id", mutate(mutate(dom, ["dominators", 0, "group"], "x"), ["dominators", 0, "count"], 2)),
        ("a cut level without retained", mutate(dom, ["more"], {"rows": 1, "objects": 1, "shallow": 1})),
        ("a root kind named static", mutate(roots, ["kinds", 0, "kind"], "static")),
        ("roots without joint", mutate(roots, ["total", "joint"], delete=True)),
        ("a root without kinds", mutate(roots, ["roots", 0, "kinds"], delete=True)),
        ("object without referrers", mutate(obj, ["referrers"], delete=True)),
        ("an object of kind array", mutate(obj, ["object", "kind"], "array")),
        ("an instance without fields", mutate(obj, ["object", "fields"], delete=True)),
        ("a field of type Object", mutate(obj, ["object", "fields", 0, "type"], "Object")),
        ("an int field that is null", mutate(mutate(obj, ["object", "fields", 0, "type"], "int"),
                                          ["object", "fields", 0, "value"], None)),
        ("a reference field without value", mutate(obj, ["object", "fields", 4, "value"], delete=True)),
        ("a referrer without via", mutate(obj, ["referrers", 0, "via"], delete=True)),
        ("a via of kind pointer", mutate(obj, ["referrers", 0, "via", "kind"], "pointer")),
        ("a reachable path without steps", mutate(obj, ["path", "steps"], delete=True)),
        ("path without target", mutate(path, ["target"], delete=True)),
        ("weak_referents ignored", mutate(path, ["weak_referents"], "ignored")),
        ("a path step without shallow", mutate(path, ["paths", 0, "steps", 0, "shallow"], delete=True)),
        ("a path length as a string", mutate(path, ["paths", 0, "length"], "5")),
    ]
    if fast is not None:
        broken.append(("top --fast with weak_policy", mutate(fast, ["weak_policy"], "follow")))
        broken.append(("top --fast sorted by retained", mutate(fast, ["sort"], "retained")))
    for name, d in broken:
        check_doc(name, d, False)

# -- (c) docs/json-schema.md ---------------------------------------------------------
md = open(md_path, encoding="utf-8").read()
root_props = schema["properties"]
defs = schema["$defs"]

def deref(s):
    while isinstance(s, dict) and "$ref" in s and "properties" not in s and "type" not in s and "enum" not in s and "const" not in s:
        s = resolve(s["$ref"])
    return s

def kind_of(s):
    s = deref(s)
    if "type" in s: return s["type"]
    for key in ("const", "enum"):
        if key in s:
            vals = s[key] if key == "enum" else [s[key]]
            ts = {"string" if isinstance(x, str) else "boolean" if isinstance(x, bool)
                  else "integer" if isinstance(x, int) else "number" for x in vals}
            return ts.pop() if len(ts) == 1 else "mixed"
    if "$ref" in s: return kind_of(resolve(s["$ref"]))
    return None

def lookup(container, member):
    """the schema of member (a.b, a[].b) in container; (schema, required?)"""
    node, req = container, None
    parts = re.findall(r"[A-Za-z0-9_]+|\[\]", member)
    for i, p in enumerate(parts):
        node = deref(node)
        if p == "[]":
            node = node["items"]
            continue
        props = node.get("properties", {})
        if p not in props:
            return None, None
        req = p in node.get("required", [])
        node = props[p]
    return node, req

section = None
rows = 0
documented = set()      # the commands whose documents have a "## `NAME`" section
for line in md.splitlines():
    m = re.match(r"^##(#?) `([a-z_-]+)`", line)
    if line.startswith("## Members of every document"):
        section = ("document", schema)
    elif m:
        if not m.group(1):
            documented.add(m.group(2))
        section = (m.group(2), defs.get(m.group(2)))
        if section[1] is None:
            fail("docs: `%s`" % m.group(2), "docs/json-schema.md has a section on it, "
                 "docs/hprofan.schema.json no $defs/%s" % m.group(2))
            section = None
    elif line.startswith("## "):
        section = None
    m = re.match(r"^\| `([^`]+)` \| ([^|]+) \| (.*) \|$", line)
    if not m or section is None:
        continue
    member, typ, meaning = m.group(1), m.group(2).strip(), m.group(3)
    rows += 1
    name = "docs: %s member %s" % (section[0], member)
    s, required = lookup(section[1], member)
    if s is None:
        fail(name, "docs/json-schema.md documents it, docs/hprofan.schema.json does not")
        continue
    optional = "*optional*" in typ or "*Android only*" in typ
    want = typ.split(",")[0].strip()
    got = kind_of(s)
    problems = []
    if want == "array of strings":
        if got != "array" or kind_of(deref(s).get("items", {})) != "string":
            problems.append("the schema's type is not an array of strings")
    elif " or " in want:
        # several types: "string or null"
        gotset = set(got) if isinstance(got, list) else {got}
        if gotset != set(want.split(" or ")):
            problems.append("type %s in the docs, %s in the schema" % (want, got))
    elif got != want:
        problems.append("type %s in the docs, %s in the schema" % (want, got))
    if optional and required:
        problems.append("optional in the docs, required in the schema")
    if not optional and not required:
        problems.append("required in the docs, optional in the schema")
    d = deref(s)
    enum = d.get("enum") if isinstance(d.get("enum"), list) else None
    if enum and all(isinstance(x, str) for x in enum):
        quoted = set(re.findall(r'`"([^"`]*)"`', meaning))
        missing = [x for x in quoted if x not in enum]
        if missing:
            problems.append("the docs name %s, the schema's enum lacks it" % ", ".join(sorted(missing)))
    if problems: fail(name, "; ".join(problems))
    else: ok(name)
if rows < 50:
    fail("docs: the member tables of docs/json-schema.md", "found only %d rows" % rows)

# the examples: every ```json block of docs/json-schema.md is JSON (a line
# that is only "…" stands for array elements left out, and only there), and
# sits in the section of its command: a whole document (every member a
# document must have) whose command is the section's, valid against the
# schema; or, a block without "schema", an excerpt of one, each of its members
# one the section's command has, valid against that member's schema. Every
# command has a whole document in its section.
TRIM = "\u0000trimmed"
commands = set(root_props["command"].get("enum", []))

class Misplaced(Exception):
    pass

def untrim(v):
    """v without the TRIM elements of its arrays (Misplaced: one is elsewhere)"""
    if isinstance(v, list):
        return [untrim(x) for x in v if x != TRIM]
    if isinstance(v, dict):
        return {k: untrim(x) for k, x in v.items()}
    if v == TRIM:
        raise Misplaced()
    return v

def excerpt_errors(doc, command):
    errs = []
    for k, v in doc.items():
        s, _ = lookup(defs[command], k)
        if s is None:
            s = root_props.get(k)
        if s is None:
            errs.append("$.%s: the %s document has no such member" % (k, command))
            continue
        errs.extend(errors(v, s, "$." + k))
    return errs

section = None
whole = set()
block = None
for lineno, line in enumerate(md.splitlines(), 1):
    if block is not None:
        if line.strip() == "```":
            start, body = block
            block = None
            name = "docs: the example at docs/json-schema.md:%d" % start
            where = section or "no command's section"
            text = "\n".join(re.sub(r"^(\s*)…(,?)\s*$",
                                     lambda m: m.group(1) + json.dumps(TRIM) + m.group(2), l)
                             for l in body)
            try:
                d = json.loads(text, object_pairs_hook=no_duplicates)
            except ValueError as e:
                fail(name, "not JSON (%s)" % e)
                continue
            try:
                d = untrim(d)
            except Misplaced:
                d = None
            if not isinstance(d, dict):
                fail(name, "not a JSON object, or a \"…\" line outside an array")
                continue
            if "schema" in d:
                missing = [k for k in schema["required"] if k not in d]
                if missing:
                    fail(name, "a document without %s" % ", ".join(missing))
                elif section is not None and d.get("command") != section:
                    fail(name, "a %s document in %s's section" % (d.get("command"), section))
                else:
                    whole.add(d.get("command"))
                    check_doc("docs example at line %d (%s)" % (start, d.get("command")), d, True)
            elif section is None:
                fail(name, "an excerpt (no \"schema\") in %s" % where)
            else:
                errs = excerpt_errors(d, section)
                if errs: fail(name + " (an excerpt of %s)" % section, "; ".join(errs[:3]))
                else: ok(name + " (an excerpt of %s)" % section)
        else:
            block[1].append(line)
        continue
    m = re.match(r"^## `([a-z_-]+)`", line)
    if m:
        section = m.group(1) if m.group(1) in commands else None
    elif line.startswith("## "):
        section = None
    if line.startswith("```json"):
        block = (lineno, [])
if block is not None:
    fail("docs: the example at docs/json-schema.md:%d" % block[0], "its ``` block is not closed")
for c in sorted(commands):
    if c in whole: ok("docs: %s has a whole example document" % c)
    else: fail("docs: %s has a whole example document" % c,
                "its section in docs/json-schema.md has none")

# the tables name every member the schema has: each member of a command's
# (or a part's) schema has a row in its section's table, at the depth the
# table goes to (a member whose table rows name none of its members may
# describe them in its meaning); members shared by every document and parts
# with a section of their own ($ref to one) are documented there
def rows_of(md):
    """{section: {member path: meaning}} of the member tables"""
    out, sec = {}, None
    for line in md.splitlines():
        m = re.match(r"^##(#?) `([a-z_-]+)`", line)
        if line.startswith("## Members of every document"):
            sec = "document"
        elif m:
            sec = m.group(2) if m.group(2) in defs else None
        elif line.startswith("## "):
            sec = None
        if sec is None or not line.startswith("| `"):
            continue
        cells = line.split(" | ")
        names = re.findall(r"`([^`]+)`", cells[0])
        meaning = cells[2] if len(cells) > 2 else ""
        first = names[0]
        parent = first.rsplit(".", 1)[0] if "." in first else ""
        for n in names:
            path = (parent + n if parent else n[1:]) if n.startswith(".") else n
            out.setdefault(sec, {})[path] = meaning
    return out

table = rows_of(md)
own_section = set(table) | {"size_model", "native", "out_of_memory", "mapping", "dump_info",
                            "via", "step"}

def members(s, prefix, depth=0):
    """(path, schema) of every member below s, not through a part with a section"""
    if depth > 12:
        return
    if isinstance(s, dict) and "$ref" in s:
        name = s["$ref"].rsplit("/", 1)[-1]
        if prefix and name in own_section:
            return
        s = resolve(s["$ref"])
        yield from members(s, prefix, depth + 1)
        return
    if not isinstance(s, dict):
        return
    for sub in s.get("allOf", []) + s.get("anyOf", []) + s.get("oneOf", []):
        yield from members(sub, prefix, depth + 1)
    if "items" in s:
        yield from members(s["items"], prefix + "[]", depth + 1)
    for k, sub in s.get("properties", {}).items():
        p = prefix + "." + k if prefix else k
        yield p, sub
        yield from members(sub, p, depth + 1)

for c in sorted(commands - set(table)):
    fail("docs: the table of %s" % c, "its section in docs/json-schema.md has no member table")
for sec, rows in sorted(table.items()):
    if sec == "document":
        continue
    missing = []
    seen = set()
    for p, _ in members(defs[sec], ""):
        if p in seen or (sec in commands and p in root_props):
            continue
        seen.add(p)
        if p in rows:
            continue
        parent = re.sub(r"(\[\])*$", "", p.rsplit(".", 1)[0]) if "." in p else None
        if parent is None:
            missing.append(p)
            continue
        if parent not in rows:
            continue        # an undocumented parent is missing itself
        kids = [r for r in rows if r.startswith(parent + ".") or r.startswith(parent + "[].")]
        leaf = p.rsplit(".", 1)[1]
        if not kids or "`%s`" % leaf in rows[parent]:
            continue
        missing.append(p)
    name = "docs: the table of %s names every member of its schema" % sec
    if missing: fail(name, "docs/hprofan.schema.json has %s; docs/json-schema.md's table does not"
                     % ", ".join(missing[:12]) + (" (and %d more)" % (len(missing) - 12) if len(missing) > 12 else ""))
    else: ok(name)

# -- (d) commands ---------------------------------------------------------------------
# a command --help lists has a schema once docs/json-schema.md documents its
# JSON (commands still being written may have neither yet)
known = root_props["command"].get("enum", [])
for c in open(commands_path).read().split():
    if c in known:
        ok("schema: command %s has a schema" % c)
    elif c in documented:
        fail("schema: command %s has a schema" % c, "docs/json-schema.md documents its JSON, "
             "docs/hprofan.schema.json does not know it (command enum, $defs/%s)" % c)
for c in known:
    if c not in documented:
        fail("docs: command %s" % c, "the schema knows it, docs/json-schema.md has no section on it")
PY

python3 "$TMPD/validate.py" "$SCHEMA" "$MD" "$TMPD/list" "$TMPD/commands" 2>&1 |
  sed -E '/^(ok|FAIL|skip) /!s/^/FAIL json-schema: validator: /'
