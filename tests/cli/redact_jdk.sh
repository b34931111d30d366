#!/usr/bin/env bash
# hprofan redact on a dump a JDK 17 writes (jcmd GC.heap_dump -all) of
# testdata/java/redact/: a program whose secrets are string literals (one
# UTF-16), a static final String, char[] and byte[] initialisers, a thread's
# and its group's names, a class loader's name, a system property and an
# environment variable (set here for the JVM), the keys and values of a
# HashMap, LinkedHashMap, HashSet, ConcurrentHashMap, Hashtable and
# WeakHashMap, and names: a static and an instance field's, an enum
# constant's, a nested class's, a class's whose lambda and method are on the
# secret thread's stack (and in a generic signature); and two numbers.
# HotSpot writes its whole symbol table as STRING records, every literal
# among it.  For each mode (values, strings, names):
#  - the text secrets are in IN and in none of OUT's bytes, nor in those of
#    the index built from OUT: UTF-8, UTF-16LE and UTF-16BE; the names are
#    gone under --mode=names (and --names-all) and kept, as those modes
#    promise, by values and strings; the numbers are gone but under
#    --mode=strings, which keeps numbers;
#  - the hash fields of the hash maps' nodes (which hold their keys'
#    hashCode: IN has the secret keys' there) and String.hash are 0 in OUT;
#  - top (every class), dominators, roots, leaks, threads and waste of OUT
#    equal IN's, where "equal" is: the same documents but for the file's
#    name and file offsets (the dropped STRING records move what follows);
#    a text the mode removes (a thread's name, a String's value) reads as
#    '*'s of its length (U+2A2A for a UTF-16 String); values and names zero
#    every number but a String's shape, so a thread's daemon flag, priority
#    and state (fields of the Thread) are not compared there, nor waste's
#    collections (their size fields); waste's sections on content
#    (duplicate Strings and arrays, constant arrays) are not compared in any
#    mode, the rest are (its totals of objects seen and heap, mostly-null
#    arrays, boxes); under names, the mapping gives the names back first,
#    rows are compared as sets (ties are ordered by name) and ranks are not;
#    --names-all, which renames the JDK's names too, is not compared.
# One JVM, one dump.  Skipped without a JDK (javac, java, jcmd) or python3.
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip redact-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/redact
D=$TMPD
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup
JFAST=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)

javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -d "$D/classes" "$SRC"/*.java 2>"$D/javac.err" ||
  { fail redact-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
envkZqM7b2Wp=envvZqN4h9Xc java -Xmx32m "${JFAST[@]}" -DprkZqC3j7Ny=prvZqK2s8Dt -cp "$D/classes" com.acme.RedactSecrets \
  >"$D/out" 2>&1 &
PID=$!
said_ready "$D/out" "$PID" || { fail redact-jdk "the JVM never said READY: $(head -c 300 "$D/out")"; exit 0; }
IN=$D/secrets.hprof
jcmd "$PID" GC.heap_dump -all "$IN" >"$D/jcmd" 2>&1 && [ -s "$IN" ] ||
  { fail redact-jdk "jcmd: $(head -c 300 "$D/jcmd")"; exit 0; }
cleanup; PID=""

# hp.py: enough of an HPROF reader (HotSpot's sub-records) for the checks
cat >"$D/hp.py" <<'EOF'
import struct
def read(path):
    """strings, class names, class layouts and instances of an HPROF file"""
    b = open(path, "rb").read()
    p = b.index(b"\0") + 1
    I = struct.unpack(">I", b[p:p + 4])[0]
    p += 12
    size = {2: I, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
    fixed = {0xFF: I, 0x01: 2 * I, 0x02: I + 8, 0x03: I + 8, 0x04: I + 4, 0x05: I, 0x06: I + 4, 0x07: I, 0x08: I + 8}
    rid = (lambda q: struct.unpack(">I", b[q:q + 4])[0]) if I == 4 else (lambda q: struct.unpack(">Q", b[q:q + 8])[0])
    u2 = lambda q: struct.unpack(">H", b[q:q + 2])[0]
    u4 = lambda q: struct.unpack(">I", b[q:q + 4])[0]
    strings, names, classes, insts = {}, {}, {}, []
    while p + 9 <= len(b):
        tag, ln = b[p], u4(p + 5)
        p += 9
        end = p + ln
        if tag == 0x01:
            strings[rid(p)] = b[p + I:end]
        elif tag == 0x02:
            names[rid(p + 4)] = rid(p + 8 + I)
        elif tag in (0x0C, 0x1C):
            q = p
            while q < end:
                t = b[q]
                q += 1
                if t in fixed:
                    q += fixed[t]
                elif t == 0x20:
                    cid, sup = rid(q), rid(q + I + 4)
                    q += 7 * I + 8
                    n = u2(q); q += 2
                    for _ in range(n):
                        q += 3 + size[b[q + 2]]
                    n = u2(q); q += 2
                    for _ in range(n):
                        q += I + 1 + size[b[q + I]]
                    n = u2(q); q += 2
                    classes[cid] = (sup, [(rid(q + k * (I + 1)), b[q + k * (I + 1) + I]) for k in range(n)])
                    q += n * (I + 1)
                elif t == 0x21:
                    cid, n = rid(q + I + 4), u4(q + 2 * I + 4)
                    insts.append((cid, b[q + 2 * I + 8:q + 2 * I + 8 + n]))
                    q += 2 * I + 8 + n
                elif t == 0x22:
                    q += 2 * I + 8 + u4(q + I + 4) * I
                elif t == 0x23:
                    q += I + 9 + u4(q + I + 4) * size[b[q + I + 8]]
                else:
                    raise ValueError("%s: sub-record 0x%02x at %d" % (path, t, q - 1))
        p = end
    return size, strings, names, classes, insts

def fields(path, wanted, plan=None):
    """{(class, field): [int values]} of every instance's int field `field`
    declared by class `class` (in wanted), its own or a super class's; and
    where they are by class id, the plan to read another file so (whose
    names may be renamed)"""
    size, strings, names, classes, insts = read(path)
    name = lambda cid: strings.get(names.get(cid), b"").decode("utf-8", "replace")
    got = {w: [] for w in wanted}
    plan = {} if plan is None else plan
    for cid, data in insts:
        if cid not in plan:
            plan[cid], c, off, seen = [], cid, 0, set()
            while c in classes and c not in seen:
                seen.add(c)
                sup, fs = classes[c]
                for sid, t in fs:
                    key = (name(c), strings.get(sid, b"").decode("utf-8", "replace"))
                    if key in got and t == 10:
                        plan[cid].append((key, off))
                    off += size[t]
                c = sup
        for key, off in plan[cid]:
            got[key].append(int.from_bytes(data[off:off + 4], "big", signed=True))
    return got, plan
EOF

# the secrets: TEXT in every mode; NAMES gone under names, kept otherwise
TEXT='litZqH4p7Kw u16Zq\u2603Mx9Tb sfsZqV2n8Jr chrZqP5d3Lx bytZqR7c1Nv thrZqB8x4Qe grpZqE1v6Ud ldrZqW9m5Fa
  prkZqC3j7Ny prvZqK2s8Dt envkZqM7b2Wp envvZqN4h9Xc hmkZqA1c6Rw hmvZqB2d7Sx lhkZqC3e8Ty lhvZqD4f9Uz hskZqE5g1Va
  chkZqF6h2Wb chvZqG7i3Xc htkZqH8j4Yd htvZqI9k5Ze whkZqJ1l6Af whvZqK2m7Bg'
NAMES='stfZqY3k9Gm fldZqT6w2Hs enmZqF8r3Ka InnZqS5y2Oc ClsZqG6t1Pb mthZqJ3n7Vs'
export TEXT NAMES
# secrets.py MODE IN OUT INDEX: what of the secrets is where it must not be
cat >"$D/secrets.py" <<'EOF'
import os, struct, sys
mode, IN, OUT, IDX = sys.argv[1], open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read(), open(sys.argv[4], "rb").read()
dec = lambda s: s.encode().decode("unicode_escape")
text = [dec(s) for s in os.environ["TEXT"].split()]
names = os.environ["NAMES"].split()
forms = lambda s: [s.encode(c) for c in ("utf-8", "utf-16-le", "utf-16-be")]
numbers = {"long field": [struct.pack(">Q", 0x1d2c3b4a59687786), struct.pack("<Q", 0x1d2c3b4a59687786)],
           "static int": [struct.pack(">I", 0x5a6b7c8d), struct.pack("<I", 0x5a6b7c8d)]}
bad = []
for s in text + names:
    if not any(f in IN for f in forms(s)):
        bad.append("%s is not in IN" % s)
for n, fs in numbers.items():
    if fs[0] not in IN:
        bad.append("the %s is not in IN" % n)
gone = text + (names if mode == "names" else [])
for where, data in (("OUT", OUT), ("its index", IDX)):
    left = [s for s in gone if any(f in data for f in forms(s))]
    if left:
        bad.append("in %s: %s" % (where, " ".join(left)))
if mode != "names":
    kept = [s for s in names if s.encode() not in OUT]
    if kept:
        bad.append("--mode=%s drops names it keeps: %s" % (mode, " ".join(kept)))
for n, fs in numbers.items():
    if mode == "strings" and fs[0] not in OUT:
        bad.append("--mode=strings drops the %s" % n)
    if mode != "strings" and any(f in OUT for f in fs):
        bad.append("the %s is in OUT" % n)
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
# hashes.py IN OUT: the secret keys' hashes are in IN's nodes, OUT's are 0
cat >"$D/hashes.py" <<'EOF'
import sys
sys.path.insert(0, sys.argv[3])
import hp
M = 0xffffffff
def jhash(s):
    h = 0
    for c in s.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(c, 16)) & M
    return h
s32 = lambda h: h - (1 << 32) if h & 0x80000000 else h
spread = lambda h: s32(h ^ (h >> 16))
def weak(h):
    h ^= (h >> 20) ^ (h >> 12)
    return s32(h ^ (h >> 7) ^ (h >> 4))
NODE, CHM, HT, WEAK = ("java/util/HashMap$Node", "hash"), ("java/util/concurrent/ConcurrentHashMap$Node", "hash"), \
    ("java/util/Hashtable$Entry", "hash"), ("java/util/WeakHashMap$Entry", "hash")
STR = ("java/lang/String", "hash")
want = {  # the key, where its hash is, how it is made
    "hmkZqA1c6Rw": (NODE, spread), "lhkZqC3e8Ty": (NODE, spread), "hskZqE5g1Va": (NODE, spread),
    "envkZqM7b2Wp": (NODE, spread), "chkZqF6h2Wb": (CHM, lambda h: spread(h) & 0x7fffffff),
    "prkZqC3j7Ny": (CHM, lambda h: spread(h) & 0x7fffffff), "htkZqH8j4Yd": (HT, s32), "whkZqJ1l6Af": (WEAK, weak),
}
wanted = [NODE, CHM, HT, WEAK, STR]
a, plan = hp.fields(sys.argv[1], wanted)
b, _ = hp.fields(sys.argv[2], wanted, plan)   # by IN's names: --names-all renames them
bad = ["IN has no %s hash %s" % (key, f(jhash(key))) for key, (where, f) in want.items() if f(jhash(key)) not in a[where]]
bad += ["%s.%s: %d of %d not 0 in OUT" % (w + (sum(v != 0 for v in b[w]), len(b[w])))
        for w in wanted if any(b[w]) or len(b[w]) != len(a[w])]
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
# same.py MODE CMD ORIG COPY [MAPPING]: equal as the header says
cat >"$D/same.py" <<'EOF'
import json, re, sys
mode, cmd, a, b = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
mapping = {}
if len(sys.argv) > 5:
    for line in open(sys.argv[5], encoding="utf-8"):   # HASHED<TAB>REAL
        k, v = line.rstrip("\n").split("\t")
        mapping[k] = v.replace("\\t", "\t").replace("\\n", "\n").replace("\\\\", "\\")
hashed = re.compile(r"[cfms][0-9a-f]{16}")
numbers = mode != "strings"
def drop(k):
    return (k == "file" or k.endswith("_offset") or (mapping and k == "rank") or
            (cmd == "threads" and numbers and k in ("daemon", "priority", "state")))
def norm(x, copy, path=""):
    if cmd == "threads" and path == "/threads/name" and isinstance(x, str):
        # a thread's name (rows are sorted by it)
        return "<%d characters%s>" % (len(x), ", not '*'s" if copy and x.strip("*\u2a2a") else "")
    if isinstance(x, dict):
        return {k: norm(v, copy, path + "/" + k) for k, v in x.items() if not drop(k)}
    if isinstance(x, list):
        l = [norm(v, copy, path) for v in x]
        if mapping and all(isinstance(v, dict) for v in l):
            l.sort(key=lambda v: json.dumps(v, sort_keys=True))
        return l
    if isinstance(x, str) and copy and mapping:
        return hashed.sub(lambda m: mapping.get(m.group(0), m.group(0)), x)
    return x
def masked(x, y):
    return len(x) == len(y) and y and not y.strip("*\u2a2a")
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
    elif x != y and not (isinstance(x, str) and masked(x, y)):
        return "%s: %r vs %r" % (path, x, y)
    return None
if cmd == "waste":
    keep = ["null_slots", "boxes"] + ([] if numbers else ["collections"])
    a, b = ({"seen": d["seen"], "heap": d["total"]["heap"],
             "sections": [s for s in d["sections"] if s["section"] in keep]} for d in (a, b))
r = diff(norm(a, False), norm(b, True))
if r:
    print(r)
    sys.exit(1)
EOF

CMDS='top dominators roots leaks threads waste'
analyse() {   # analyse FILE PREFIX: each command's JSON in PREFIX.CMD.json
  local c extra
  for c in $CMDS; do
    extra=''; case $c in top|waste) extra='--top 0' ;; esac
    # shellcheck disable=SC2086
    "$HPROFAN" $c "$1" $extra --json --quiet >"$2.$c.json" 2>"$2.$c.err" || return 1
  done
}
analyse "$IN" "$D/a" || { fail redact-jdk "the analyses of IN: $(cat "$D"/a.*.err | head -c 300)"; exit 0; }
for m in values strings names names-all; do
  OUT=$D/out-$m.hprof map='' opt=--mode=$m
  [ $m = names ] && map=$D/map.tsv
  [ $m = names-all ] && opt=--names-all
  if ! "$HPROFAN" redact "$IN" "$OUT" $opt ${map:+--mapping-out "$map"} --quiet 2>"$D/err"; then
    fail "redact-jdk --mode=$m" "exit $?: $(head -c 300 "$D/err")"; continue
  fi
  "$HPROFAN" index "$OUT" --quiet >/dev/null 2>"$D/err"
  idx=$(ls "$HPROFAN_INDEX_DIR"/out-$m.hprof.*.hprofan-index 2>/dev/null | head -1)
  [ -n "$idx" ] || { fail "redact-jdk --mode=$m: an index of OUT" "none: $(head -c 300 "$D/err")"; idx=/dev/null; }
  if why=$(python3 "$D/secrets.py" ${m%-all} "$IN" "$OUT" "$idx"); then
    ok "redact-jdk $opt: no secret text in OUT nor in its index$(case $m in names*) echo ', nor a secret name' ;; strings) echo ', the numbers kept' ;; esac)"
  else fail "redact-jdk $opt: no secret in OUT nor in its index" "$why"; fi
  if why=$(python3 "$D/hashes.py" "$IN" "$OUT" "$D"); then
    ok "redact-jdk $opt: the hash maps' node hashes and String.hash are 0"
  else fail "redact-jdk $opt: the hash maps' node hashes and String.hash are 0" "$why"; fi
  # --names-all renames the JDK's names too: the analyses that read them differ, as it says
  [ $m = names-all ] && continue
  if ! analyse "$OUT" "$D/b"; then
    fail "redact-jdk --mode=$m: the analyses of OUT" "$(cat "$D"/b.*.err | head -c 300)"; continue
  fi
  for c in $CMDS; do
    if why=$(python3 "$D/same.py" $m $c "$D/a.$c.json" "$D/b.$c.json" $map); then
      ok "redact-jdk --mode=$m: $c of OUT equals IN's"
    else fail "redact-jdk --mode=$m: $c of OUT equals IN's" "$why"; fi
  done
done
