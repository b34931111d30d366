#!/usr/bin/env bash
# hprofan redact IN OUT (src/tools/redact.h):
#  (a) a dump built byte by byte: the copy is, byte for byte, the same dump
#      built again with the values a hand says redact leaves (values, strings
#      and names modes; an instance before its class's CLASS DUMP; a record of
#      an unknown kind; a String of each JDK layout; a STRING no record uses,
#      dropped; a START THREAD's names, '*'s; a frame's names; a hash map
#      node's hash, zero in every mode);
#  (b) the project's sample and every corpus dump that reads without error:
#      `--top --json`, `dominators --json` and `roots --json` of the copy give
#      the same numbers as the original (thread names, which are String
#      contents, read as '*'s of the same length; file offsets differ, the
#      STRING records no record uses being dropped), and the copy is no
#      larger; java_pid1884.0001.hprof.gz is left out (it inflates to 523 MB:
#      a minute under the sanitizers for these three commands twice);
#  (c) --mode=names on the same dumps: the same numbers, with the
#      application's names hashed, and the mapping gives the real ones back;
#      --mode=strings keeps the numbers a values copy zeroes;
#  (d) gzip in and out, pipes, and errors: a corrupt or truncated IN is the
#      usual positioned error, OUT is left as it was and no temporary file
#      stays; a pipe is read twice through a copy in TMPDIR, which goes, and
#      without a place for it is refused; the fuzz corpus goes through
#      without a crash.
# A JDK program's secrets: tests/cli/redact_jdk.sh.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip redact "python3 is absent"; exit 0; }
HELPER=$(cd "$(dirname "$0")/../helper" && pwd)
S=$TMPD/sample.hprof
gzip -dc "$TESTDATA/hprof/leakycache.hprof.gz" >"$S" || { fail redact-sample "cannot inflate the sample"; exit 0; }

# ---- (a) byte by byte ------------------------------------------------------------

# build.py MODE OUT: the dump as it is (MODE "in"), or as redact must make it
cat >"$TMPD/build.py" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[3])
from mkhprof import *
mode, out = sys.argv[1], sys.argv[2]
zero = mode in ("values", "names")          # every primitive value zero
def v(x, kept=None):                        # a number: kept in "in" and "strings"
    return 0 if zero else x
def h64(s):                                 # redact.c's name hash, written again here
    h = 0xcbf29ce484222325
    for c in s:
        h = ((h ^ c) * 0x100000001b3) & (2**64 - 1)
    for m in (0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53):
        h ^= h >> 33
        h = (h * m) & (2**64 - 1)
    return h ^ (h >> 33)
def nm(kind, s):                            # an application's name in names mode
    return "%s%016x" % (kind, h64(s.encode())) if mode == "names" else s
d = Dump()
# a STRING no record uses (HotSpot writes a literal so): dropped in every mode
if mode == "in":
    d.string("hunter2-literal")
else:
    d.new_id()
obj = d.load_class("java.lang.Object")
strc = d.load_class("java.lang.String")
sec = d.load_class(nm("c", "com/acme/Secret").replace(".", "/"))
sub = d.load_class(nm("c", "com/acme/Sub"))
arr = d.load_class("[L" + nm("c", "com/acme/Secret") + ";")
text = lambda s, unit: (b"*" if unit == 1 else b"\0*") * len(s) if mode != "in" else (
    s.encode("latin-1") if unit == 1 else s.encode("utf-16-be"))
# an instance of Sub before any CLASS DUMP: one pass cannot copy it
pos = len(d.sub)
d.class_dump(obj)
d.class_dump(strc, obj, fields=[("value", OBJECT), ("hash", INT), ("coder", BYTE)])
d.class_dump(sec, obj, fields=[(nm("f", "token"), OBJECT), (nm("f", "pin"), LONG), (nm("f", "flag"), BOOLEAN),
                               ("value", OBJECT)],
             statics=[(nm("f", "COUNT"), INT, v(1234)), (nm("f", "SELF"), OBJECT, 0x77), ("value", DOUBLE, v(0x4009))])
d.class_dump(sub, sec, fields=[(nm("f", "extra"), SHORT)])
latin = d.prim_array(BYTE, text("hunter2", 1))
utf16 = d.prim_array(CHAR, text("pw", 2))
ints = d.prim_array(INT, struct.pack(">ii", v(7), v(-8)))
s1 = d.instance(strc, [latin, 0 if mode != "in" else 0x1234567, 0])
s2 = d.instance(strc, [utf16, 0 if mode != "in" else 0x7654321, 1])
# Sub's fields, then Secret's: extra; token, pin, flag, value
subdata = struct.pack(">hIqBI", v(-2), s1, v(0x1122334455667788), v(1), s2)
oid = d.new_id()
d.sub.insert(pos, struct.pack(">BIIII", 0x21, oid, 0, sub, len(subdata)) + subdata)
d.obj_array(arr, [oid, 0])
# a frame of the application: its method, signature and source file are names
fr = d.stack_frame(nm("m", "leak"), "(L" + nm("c", "com/acme/Secret") + ";Ljava/lang/String;)V",
                   nm("s", "Secret.java"), sec, 7)
d.stack_trace(1, 1, [fr])
# a thread's and its group's names (START THREAD) are text: a '*' each character
star = lambda s: s if mode == "in" else "*" * len(s)
d.start_thread(1, oid, 1, star("worker-\u00e9"), star("grp-secret"))
# a hash map node (a LinkedHashMap's, its hash field its super class's) holds
# its key's hashCode: zero in every mode; another class's int is a number as
# any other
node = d.load_class("java/util/HashMap$Node")
lnode = d.load_class("java/util/LinkedHashMap$Entry")
other = d.load_class("com/acme/Other" if mode != "names" else nm("c", "com/acme/Other"))
d.class_dump(node, obj, fields=[("hash", INT), ("key", OBJECT), ("value", OBJECT), ("next", OBJECT)])
d.class_dump(lnode, node, fields=[("before", OBJECT), ("after", OBJECT)])
d.class_dump(other, obj, fields=[(nm("f", "digest"), INT)])
n1 = d.instance(lnode, [0, 0, 0x5eed1234 if mode == "in" else 0, s1, s2, 0])
n2 = d.instance(other, [v(0x0bad5eed)])
d.root(oid)
d.root(n1)
d.root(n2)
d.root(latin, 0xff)
# a record of a kind hprofan does not know: its body becomes zeros
d.records.append(struct.pack(">BII", 0x99, 0, 5) + (b"\0" * 5 if mode != "in" else b"topsy"))
d.write(out)
EOF
for m in in values strings names; do
  python3 "$TMPD/build.py" $m "$TMPD/hand-$m.hprof" "$HELPER" || fail "redact: build the $m dump" "mkhprof failed"
done
for m in values strings names; do
  if "$HPROFAN" redact "$TMPD/hand-in.hprof" "$TMPD/hand-out.hprof" --mode=$m --stats 2>"$TMPD/err"; then
    if cmp -s "$TMPD/hand-out.hprof" "$TMPD/hand-$m.hprof"; then
      ok "redact --mode=$m: a dump built by hand, byte for byte"
    else
      fail "redact --mode=$m: a dump built by hand, byte for byte" \
        "$(cmp "$TMPD/hand-out.hprof" "$TMPD/hand-$m.hprof" 2>&1 | head -1)"
    fi
    expect_eq "redact --mode=$m: two passes (an instance before its class)" \
      "$(grep -o 'passes=[0-9]*' "$TMPD/err")" "passes=2"
  else
    fail "redact --mode=$m: a dump built by hand" "exit $?: $(head -c 300 "$TMPD/err")"
  fi
done
# the same through pipes (plain and gzip): read twice through a copy in
# TMPDIR, which is gone after; without a place for it, refused
mkdir -p "$TMPD/spool"
for m in values names; do
  for z in cat "gzip -1c"; do
    $z "$TMPD/hand-in.hprof" | TMPDIR=$TMPD/spool "$HPROFAN" redact - "$TMPD/pipe.hprof" --mode=$m 2>"$TMPD/err"; rc=$?
    if [ $rc = 0 ] && cmp -s "$TMPD/pipe.hprof" "$TMPD/hand-$m.hprof" && [ -z "$(ls -A "$TMPD/spool")" ]; then
      ok "redact --mode=$m: a pipe ($z) is copied, read twice, the copy gone"
    else fail "redact --mode=$m: a pipe ($z) is copied, read twice, the copy gone" \
      "exit $rc, $(ls -A "$TMPD/spool" | wc -l) files left: $(head -c 300 "$TMPD/err")"; fi
  done
done
rm -f "$TMPD/pipe.hprof"
cat "$TMPD/hand-in.hprof" | TMPDIR=$TMPD/nowhere "$HPROFAN" redact - "$TMPD/pipe.hprof" 2>"$TMPD/err"; rc=$?
if [ $rc != 0 ] && grep -q "redact reads a pipe twice, through a copy, and cannot create one in $TMPD/nowhere: No such file" "$TMPD/err" &&
   [ ! -e "$TMPD/pipe.hprof" ]; then ok "redact: a pipe with no place for its copy is refused, nothing written"
else fail "redact: a pipe with no place for its copy is refused, nothing written" "exit $rc: $(head -c 300 "$TMPD/err")"; fi

# ---- (b) the sample and the corpus ----------------------------------------------------

# same.py ORIG COPY [MAPPING]: the JSON documents agree; thread names are
# '*'s (U+2A2A for a UTF-16 JDK 9+ String) as long as the original's; with a
# mapping, hashed names are given back first and rows are compared as sets
# (ties are ordered by name); file offsets are not compared (dropped and
# renamed STRING records move what follows).
# same.py MAPPING NAME ORIG COPY [NAME ORIG COPY]...: MAPPING "" for none;
# prints "NAME --json: where they differ" for the first pair that does
cat >"$TMPD/same.py" <<'EOF'
import json, re, sys
mapping = {}
if sys.argv[1]:
    for line in open(sys.argv[1], encoding="utf-8"):   # HASHED<TAB>REAL
        k, v = line.rstrip("\n").split("\t")
        mapping[k] = v.replace("\\t", "\t").replace("\\n", "\n").replace("\\\\", "\\")
hashed = re.compile(r"[cfms][0-9a-f]{16}")
def back(s):
    return hashed.sub(lambda m: mapping.get(m.group(0), m.group(0)), s) if mapping else s
def norm(x, copy, key=None):
    if isinstance(x, dict):
        return {k: norm(v, copy, k) for k, v in x.items()
                if k != "file" and not k.endswith("_offset") and not (mapping and k == "rank")}
    if isinstance(x, list):
        l = [norm(v, copy, key) for v in x]
        if mapping and all(isinstance(v, dict) for v in l):
            l.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return l
    if isinstance(x, str):
        if key == "thread":
            if copy and x.strip("*\u2a2a"):
                return "not filler: " + x
            return "<%d characters>" % len(x)
        return back(x) if copy else x
    return x
def diff(x, y, path=""):
    if type(x) != type(y): return "%s: %r vs %r" % (path, x, y)
    if isinstance(x, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y: return "%s/%s: only in one" % (path, k)
            r = diff(x[k], y[k], path + "/" + k)
            if r: return r
    elif isinstance(x, list):
        if len(x) != len(y): return "%s: %d vs %d entries" % (path, len(x), len(y))
        for i, (u, v) in enumerate(zip(x, y)):
            r = diff(u, v, "%s[%d]" % (path, i))
            if r: return r
    elif x != y: return "%s: %r vs %r" % (path, x, y)
    return None
args = sys.argv[2:]
for i in range(0, len(args), 3):
    a, b = (json.load(open(p)) for p in args[i + 1:i + 3])
    r = diff(norm(a, False), norm(b, True))
    if r:
        print("%s --json: %s" % (args[i], r)); sys.exit(1)
EOF
# compare NAME ORIG COPY [MAPPING]: the three commands agree on both (top on
# every class; one same.py for the three); the original's documents, from
# the release binary (the copy's runs, and index.sh's on every corpus dump,
# are the sanitized ones), are kept for the next call
LAST_ORIG=''
compare() {
  local name=$1 orig=$2 copy=$3 map=${4:-} c why='' all pairs=()
  [ "$orig" = "$LAST_ORIG" ] || rm -f "$TMPD"/a.*.json
  LAST_ORIG=$orig
  for c in top dominators roots; do
    all=''; [ $c = top ] && all='--top 0'   # every class
    if [ ! -s "$TMPD/a.$c.json" ] &&
       ! "$REL" $c "$orig" $all --json --quiet >"$TMPD/a.$c.json" 2>"$TMPD/a.err"; then
      rm -f "$TMPD/a.$c.json"
      # a file with no heap dump (minimal.bin): the copy says the same
      if grep -q 'holds no heap dump' "$TMPD/a.err" &&
         ! "$HPROFAN" $c "$copy" $all --json --quiet >/dev/null 2>"$TMPD/b.err" &&
         grep -q 'holds no heap dump' "$TMPD/b.err"; then continue; fi
      why="$c of the original: exit $?"; break
    fi
    "$HPROFAN" $c "$copy" $all --json --quiet >"$TMPD/b.$c.json" 2>"$TMPD/b.err" || { why="$c of the copy: exit $?: $(head -c 200 "$TMPD/b.err")"; break; }
    pairs+=("$c" "$TMPD/a.$c.json" "$TMPD/b.$c.json")
  done
  if [ -z "$why" ] && [ ${#pairs[@]} -gt 0 ] && ! out=$(python3 "$TMPD/same.py" "$map" "${pairs[@]}"); then why=$out; fi
  if [ -z "$why" ]; then ok "$name"; else fail "$name" "$why"; fi
}

dumps="$S"
bigs=''
if have_corpus "redact: the corpus"; then
  while IFS= read -r f; do
    case $f in
      */java_pid1884.0001.hprof.gz) bigs="$bigs $f"; continue ;;
    esac
    # the dumps that read without error (corpus.sh reads each one under
    # the sanitizers)
    "$REL" info "$f" --quiet >/dev/null 2>&1 && dumps="$dumps $f"
  done < <(awk -F'\t' 'NR > 1 { print $1 }' "$CORPUS/MANIFEST.tsv" | sed "s|^|$CORPUS/|" | LC_ALL=C sort)
  for f in $bigs; do skip "redact: ${f#"$CORPUS"/}" "523 MB inflated: too slow for the suite under the sanitizers"; done
fi
for f in $dumps; do
  n=${f#"$CORPUS"/}; n=${n#"$TMPD"/}
  if ! "$HPROFAN" redact "$f" "$TMPD/copy.hprof" --quiet 2>"$TMPD/err"; then
    fail "redact $n" "exit $?: $(head -c 300 "$TMPD/err")"; continue
  fi
  size_in=$(gzip -dcf "$f" | wc -c); size_out=$(wc -c <"$TMPD/copy.hprof")
  if [ "$size_out" -le "$size_in" ]; then ok "redact $n: no more bytes than the original"
  else fail "redact $n: no more bytes than the original" "$size_out > $size_in"; fi
  compare "redact $n: top, dominators, roots give the same numbers" "$f" "$TMPD/copy.hprof"
  # ---- (c) names: the same, once the mapping has given the names back
  rm -f "$TMPD/map.tsv"
  if ! "$HPROFAN" redact "$f" "$TMPD/names.hprof" --mode=names --mapping-out "$TMPD/map.tsv" --quiet 2>"$TMPD/err"; then
    fail "redact --mode=names $n" "exit $?: $(head -c 300 "$TMPD/err")"; continue
  fi
  compare "redact --mode=names $n: the same numbers, the mapping gives the names back" \
    "$f" "$TMPD/names.hprof" "$TMPD/map.tsv"
done

# ---- (c) names and strings, on the sample -------------------------------------------------
# the sample's own classes are renamed, the JDK's are not
"$HPROFAN" redact "$S" "$TMPD/names.hprof" --mapping-out "$TMPD/map.tsv" --quiet
"$HPROFAN" "$TMPD/names.hprof" --fast --top 0 --quiet >"$TMPD/names.txt"
expect_eq "redact --mapping-out alone means --mode=names: LeakyCache is gone" \
  "$(grep -c LeakyCache "$TMPD/names.txt")" "0"
expect_eq "redact --mode=names: java.util.HashMap keeps its name" \
  "$(grep -cE ' java\.util\.HashMap$' "$TMPD/names.txt")" "1"
expect_eq "redact --mode=names: the mapping names LeakyCache\$Session" \
  "$(awk -F'\t' '$2 == "LeakyCache$Session" && $1 ~ /^c[0-9a-f]+$/ && length($1) == 17' "$TMPD/map.tsv" | wc -l)" "1"
"$HPROFAN" redact "$S" "$TMPD/all.hprof" --names-all --quiet
expect_eq "redact --names-all: java.util.HashMap is hashed too" \
  "$("$HPROFAN" "$TMPD/all.hprof" --fast --top 0 --quiet | grep -cE 'java\.util')" "0"

# strings: the numbers stay; values: they go (the sample's statics, README.md of testdata)
"$HPROFAN" dominators "$S" --json --top 0 --quiet >"$TMPD/dom.json"
CLS=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(next(e["id"] for e in d["dominators"] if e.get("class_object_of") == "LeakyCache"))' "$TMPD/dom.json")
static() {   # static FILE NAME: the value of LeakyCache's static NAME in FILE
  "$HPROFAN" object "$1" "$CLS" --json --quiet | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(f["value"] for f in d["object"]["statics"] if f["name"] == sys.argv[1]))' "$2"
}
"$HPROFAN" redact "$S" "$TMPD/strings.hprof" --mode=strings --quiet
"$HPROFAN" redact "$S" "$TMPD/values.hprof" --quiet
for f in totalPayloadBytes createdSessions; do
  expect_eq "redact --mode=strings keeps static $f" "$(static "$TMPD/strings.hprof" $f)" "$(static "$S" $f)"
  expect_eq "redact (values) zeroes static $f" "$(static "$TMPD/values.hprof" $f)" "0"
done
compare "redact --mode=strings: the same numbers" "$S" "$TMPD/strings.hprof"
REG=$("$HPROFAN" object "$TMPD/values.hprof" "$CLS" --json --quiet | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(next(f["value"] for f in d["object"]["statics"] if f["name"] == "REGIONS"))')
got=$("$HPROFAN" object "$TMPD/values.hprof" "$REG" --json --quiet | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(e["object"].get("string", "?") for e in d["object"]["elements"]))')
want=$("$HPROFAN" object "$S" "$REG" --json --quiet | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join("*" * len(e["object"]["string"]) for e in d["object"]["elements"]))')
expect_eq "redact: Strings read as '*'s of their length" "$got" "$want"

# ---- (d) gzip, pipes, output files, errors -------------------------------------------------

"$HPROFAN" redact "$S" "$TMPD/plain.hprof" --quiet
"$HPROFAN" redact "$TESTDATA/hprof/leakycache.hprof.gz" "$TMPD/fromgz.hprof" --quiet
if cmp -s "$TMPD/plain.hprof" "$TMPD/fromgz.hprof"; then ok "redact: gzip IN gives the copy plain IN gives"
else fail "redact: gzip IN gives the copy plain IN gives" "the copies differ"; fi
"$HPROFAN" redact - - --quiet <"$S" >"$TMPD/piped.hprof"
if cmp -s "$TMPD/plain.hprof" "$TMPD/piped.hprof"; then ok "redact - -: standard input to standard output"
else fail "redact - -: standard input to standard output" "the copies differ"; fi
for g in --gzip --gzip=9; do
  if "$HPROFAN" redact "$TESTDATA/hprof/leakycache.hprof.gz" "$TMPD/out.gz" $g --quiet && gzip -t "$TMPD/out.gz" &&
     gzip -dc "$TMPD/out.gz" | cmp -s - "$TMPD/plain.hprof"; then ok "redact $g: gzip that inflates to the plain copy"
  else fail "redact $g: gzip that inflates to the plain copy" "it does not"; fi
done
# usage errors: exit 2, nothing written
usage() {   # usage NAME PATTERN ARGS...
  local n=$1 pat=$2; shift 2
  rm -f "$TMPD/u.hprof"
  "$HPROFAN" redact "$@" --quiet >/dev/null 2>"$TMPD/err"; local rc=$?
  if [ $rc = 2 ] && grep -qE -- "$pat" "$TMPD/err" && [ ! -e "$TMPD/u.hprof" ]; then ok "redact: $n"
  else fail "redact: $n" "exit $rc: $(head -c 300 "$TMPD/err")"; fi
}
usage "--gzip=0 is refused" "--gzip=0: expected a level from 1 to 9" "$S" "$TMPD/u.hprof" --gzip=0
usage "--gzip 5 (a separate word) is an argument too many" "unexpected argument: 5" "$S" "$TMPD/u.hprof" --gzip 5
usage "--mode=bogus is refused" "--mode=bogus: not one of values, strings or names" "$S" "$TMPD/u.hprof" --mode=bogus
usage "--names-all goes with --mode=names" "--names-all renames names" "$S" "$TMPD/u.hprof" --mode=values --names-all
usage "--mapping-out goes with --mode=names" "--mapping-out renames names" "$S" "$TMPD/u.hprof" --mode=strings --mapping-out "$TMPD/m"
usage "OUT is needed" "missing OUT: hprofan redact IN OUT" "$S"
# a corrupt or truncated IN: the positioned error, OUT as it was, no temporary file left
badin() {   # badin NAME IN RC PATTERN
  printf 'before\n' >"$TMPD/keep.hprof"
  "$HPROFAN" redact "$2" "$TMPD/keep.hprof" --quiet 2>"$TMPD/err"; local rc=$?
  local left; left=$(find "$TMPD" -maxdepth 1 -name 'keep.hprof.tmp.*' | wc -l)
  if [ $rc = "$3" ] && grep -qE -- "$4" "$TMPD/err" && [ "$(cat "$TMPD/keep.hprof")" = before ] && [ "$left" = 0 ]; then
    ok "redact: $1"
  else fail "redact: $1" "exit $rc, OUT '$(head -c 20 "$TMPD/keep.hprof")', $left temporary files: $(head -c 300 "$TMPD/err")"; fi
}
head -c 3000000 "$S" >"$TMPD/cut.hprof"
badin "a truncated IN: exit 3, where, OUT untouched" "$TMPD/cut.hprof" 3 \
  "cut.hprof: offset [0-9]+ .*\(record [0-9]+, HEAP DUMP SEGMENT\): file ends inside"
if [ -d "$CORPUS" ]; then
  badin "a corrupt IN: exit 1, where, OUT untouched" "$CORPUS/oracle__visualvm/small_heap.CORRUPT-spelling-amount.bin" 1 \
    "offset 1057481 \(0x1022c9\).*(record framing is broken|CPU SAMPLES declares)"
fi
# the fuzz corpus and regressions (good, odd and broken dumps): each one is
# copied or refused with the usual exit status, never a crash (under the
# sanitizers), and a copy reads back
FUZZ=$(cd "$(dirname "$0")/../fuzz" && pwd)
crashed=''
for f in "$FUZZ"/corpus/*/* "$FUZZ"/regressions/*; do
  [ -f "$f" ] || continue
  rm -f "$TMPD/fz.hprof"
  "$HPROFAN" redact "$f" "$TMPD/fz.hprof" --quiet >/dev/null 2>"$TMPD/err"; rc=$?
  case $rc in
    0) "$HPROFAN" "$TMPD/fz.hprof" --fast --quiet >/dev/null 2>&1 || crashed="$crashed ${f#"$FUZZ"/}(copy unreadable)" ;;
    1|2|3) [ ! -e "$TMPD/fz.hprof" ] || crashed="$crashed ${f#"$FUZZ"/}(OUT left)" ;;
    *) crashed="$crashed ${f#"$FUZZ"/}(exit $rc)" ;;
  esac
done
if [ -z "$crashed" ]; then ok "redact: the fuzz corpus and regressions: copied or refused, never a crash"
else fail "redact: the fuzz corpus and regressions: copied or refused, never a crash" "$crashed"; fi

# OUT through a symbolic link, and to a device
printf 'old\n' >"$TMPD/target.hprof"
ln -sf "$TMPD/target.hprof" "$TMPD/link.hprof"
"$HPROFAN" redact "$S" "$TMPD/link.hprof" --quiet
if [ -L "$TMPD/link.hprof" ] && cmp -s "$TMPD/target.hprof" "$TMPD/plain.hprof"; then ok "redact: OUT a symbolic link: its target written"
else fail "redact: OUT a symbolic link: its target written" "link or target wrong"; fi
if "$HPROFAN" redact "$S" /dev/null --quiet && [ -c /dev/null ]; then ok "redact: OUT /dev/null written in place"
else fail "redact: OUT /dev/null written in place" "exit or /dev/null changed"; fi
