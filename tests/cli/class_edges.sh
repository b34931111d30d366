#!/usr/bin/env bash
# Eclipse MAT's class edges: under the mat size model every
# object refers to its class object (MAT's "<class>"), so a class object
# that a class loader's list holds and that an instance another root reaches
# also holds is dominated by the super-root, not by the loader.  The dump is
# built byte by byte (tests/helper/mkhprof.py), 4-byte ids 16 apart (align 16):
#
#   [JNI global] Loader LOADER .classes -> Object[] LIST [0] -> class Meta
#   class Meta: loader LOADER, static cache -> Node CACHE .next -> byte[8] BYTES
#   [JNI global] Holder HOLDER .meta -> Meta MI (no fields)
#                              .lonely -> Lonely LI (no fields)
#   class Lonely: loader LOADER (in no list), static s -> Node S2
#   every other class a sticky-class root
#
# mat sizes: instances header 8, Node 16, Loader 16, Holder 16, Meta and
# Lonely instances 16 (8 aligned to 16), Object[1] 8+4+4 = 16, byte[8]
# align4(8+4)+8 = 20 -> 32, class Meta and class Lonely one static ref 4 -> 16.
#   MAT (class edges): class Meta has two referrers, LIST (under LOADER) and
#     MI (under HOLDER, through <class>): idom super-root, retains itself +
#     CACHE + BYTES = 64; LOADER retains LOADER + LIST = 32 (96 without the
#     edges); class Lonely only through LI: idom LI, and LI retains 16 + 16 +
#     S2 16 = 48; HOLDER 16 + MI 16 + 48 = 80; nothing is unreachable.
#     Paths: to class Meta through the list, never MI's <class>; to S2
#     through LI's <class> (the only way), with a note.
#   VisualVM (--size-model=visualvm --weak=skip --roots=all), as before:
#     class Meta under LIST under LOADER; LOADER retains 16 + 16 + CACHE's
#     tree (16 + byte[8] 24) = 72 (VisualVM: header 8, align 8; a class
#     object does not count itself).
#   ahat: no class edges either: class Meta under LIST.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip class-edges "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD
F=$D/classes.hprof

python3 - "$D" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
d = Dump()
obj = d.load_class("java.lang.Object")
jlc = d.load_class("java.lang.Class")
ldr = d.load_class("Loader")
oarr = d.load_class("[Ljava/lang/Object;")
node = d.load_class("Node")
meta = d.load_class("Meta")
hold = d.load_class("Holder")
lone = d.load_class("Lonely")
barr = d.load_class("[B")
for nm in ("classes", "next", "other", "cache", "meta", "lonely", "s"):
    d.string(nm)
# ids are given out in order: the objects' ids are known before they are written
i = d.next_id
LOADER, LIST, CACHE, BYTES, MI, HOLDER, LI, S2 = (i + 16 * k for k in range(1, 9))
d.class_dump(obj)
d.class_dump(jlc, super_id=obj)
d.class_dump(ldr, super_id=obj, fields=[("classes", OBJECT)])
d.class_dump(oarr, super_id=obj)
d.class_dump(node, super_id=obj, fields=[("next", OBJECT), ("other", OBJECT)])
d.class_dump(meta, super_id=obj, statics=[("cache", OBJECT, CACHE)], loader=LOADER)
d.class_dump(hold, super_id=obj, fields=[("meta", OBJECT), ("lonely", OBJECT)])
d.class_dump(lone, super_id=obj, statics=[("s", OBJECT, S2)], loader=LOADER)
d.class_dump(barr, super_id=obj)
for c in (obj, jlc, ldr, oarr, node, hold, barr):
    d.root(c, 0x05)
assert d.instance(ldr, [LIST]) == LOADER
assert d.obj_array(oarr, [meta]) == LIST
assert d.instance(node, [BYTES, 0]) == CACHE
assert d.prim_array(BYTE, bytes(8)) == BYTES
assert d.instance(meta) == MI
assert d.instance(hold, [MI, LI]) == HOLDER
assert d.instance(lone) == LI
assert d.instance(node, [0, 0]) == S2
d.root(LOADER)
d.root(HOLDER)
d.write("%s/classes.hprof" % D)
# the same objects written backwards (the reference graph is built another way then)
objs = [b for b in d.sub if b[0] in (0x21, 0x22, 0x23)]
rest = [b for b in d.sub if b[0] not in (0x21, 0x22, 0x23)]
d.sub = rest + objs[::-1]
d.write("%s/classes-rev.hprof" % D)
with open("%s/ids.sh" % D, "w") as f:
    for k, v in dict(LOADER=LOADER, LIST=LIST, CACHE=CACHE, MI=MI, HOLDER=HOLDER, LI=LI, S2=S2,
                     META=meta, LONELY=lone).items():
        f.write("%s=0x%x\n" % (k, v))
EOF
[ -s "$F" ] || { fail class-edges "the dump was not written"; exit 0; }
. "$D/ids.sh"

# json NAME OUT ARGS... : hprofan ARGS --json into OUT, a failure reported
json() {
  local name=$1 out=$2; shift 2
  if ! run_hp "$out" "$D/err" "$@" --json; then
    fail "$name" "exit $?: $(head -c 300 "$D/err")"
    return 1
  fi
}

# ---- mat (the HotSpot default) ----
if json class-edges-mat-meta "$D/meta.json" object "$F" "$META"; then
  expect_eq class-edges-mat-meta-idom "$(jget "$D/meta.json" 'len(d["dominators"])')" 0
  expect_eq class-edges-mat-meta-retained "$(jget "$D/meta.json" 'd["object"]["retained"]')" 64
  expect_eq class-edges-mat-meta-referrers \
    "$(jget "$D/meta.json" '[(r["id"], r["via"]["kind"]) for r in d["referrers"]]')" "[('$LIST', 'element')]"
  expect_eq class-edges-mat-meta-class-referrers \
    "$(jget "$D/meta.json" '(d["referrers_total"], d["class_referrers"], d["class_referrers_listed"])')" "(1, 1, False)"
  expect_eq class-edges-mat-meta-path \
    "$(jget "$D/meta.json" '[s["id"] for s in d["path"]["steps"]]')" "['$LOADER', '$LIST', '$META']"
fi
if json class-edges-mat-loader "$D/loader.json" object "$F" "$LOADER"; then
  expect_eq class-edges-mat-loader-retained "$(jget "$D/loader.json" 'd["object"]["retained"]')" 32
fi
if json class-edges-mat-cache "$D/cache.json" object "$F" "$CACHE"; then
  expect_eq class-edges-mat-cache-idom "$(jget "$D/cache.json" 'd["dominators"][0]["id"]')" "$META"
fi
if json class-edges-mat-lonely "$D/lonely.json" object "$F" "$LONELY"; then
  expect_eq class-edges-mat-lonely-idom "$(jget "$D/lonely.json" '[x["id"] for x in d["dominators"]]')" \
    "['$LI', '$HOLDER']"
  expect_eq class-edges-mat-lonely-referrers \
    "$(jget "$D/lonely.json" '([(r["id"], r["via"]["kind"]) for r in d["referrers"]], d["class_referrers_listed"])')" \
    "([('$LI', 'class')], True)"
fi
if json class-edges-mat-li "$D/li.json" object "$F" "$LI" && json class-edges-mat-holder "$D/holder.json" object "$F" "$HOLDER"; then
  expect_eq class-edges-mat-retained-li-holder \
    "$(jget "$D/li.json" 'd["object"]["retained"]') $(jget "$D/holder.json" 'd["object"]["retained"]')" "48 80"
fi
if json class-edges-mat-top "$D/top.json" "$F" --top 0; then
  expect_eq class-edges-mat-unreachable "$(jget "$D/top.json" 'd["total"]["unreachable_objects"]')" 0
fi
# the path to S2 goes through LI's <class>: there is no other, and the text says so
if json class-edges-mat-path-s2 "$D/s2.json" path "$F" "$S2"; then
  expect_eq class-edges-mat-path-s2-steps \
    "$(jget "$D/s2.json" '[(s["id"], s.get("via", {}).get("kind")) for s in d["paths"][0]["steps"]]')" \
    "[('$HOLDER', None), ('$LI', 'field'), ('$LONELY', 'class'), ('$S2', 'static')]"
fi
if run_hp "$D/s2.txt" "$D/err" path "$F" "$S2" && grep -q '^  <class> -> class Lonely' "$D/s2.txt" &&
   grep -q "^  (<class> is Eclipse MAT's reference from an object to its class" "$D/s2.txt"; then
  ok class-edges-mat-path-s2-text
else
  fail class-edges-mat-path-s2-text "$(cat "$D/s2.txt" "$D/err" | head -c 600)"
fi
# class Meta: the list's path only, never MI's <class> as another path
if json class-edges-mat-path-meta "$D/pmeta.json" path "$F" "$META" --top 0; then
  expect_eq class-edges-mat-path-meta-all \
    "$(jget "$D/pmeta.json" '[[s["id"] for s in p["steps"]] for p in d["paths"]]')" "[['$LOADER', '$LIST', '$META']]"
fi
if run_hp "$D/meta.txt" "$D/err" object "$F" "$META" &&
   grep -q '^  and 1 object of its class through <class>' "$D/meta.txt"; then
  ok class-edges-mat-object-text
else
  fail class-edges-mat-object-text "$(cat "$D/meta.txt" "$D/err" | head -c 600)"
fi

# objects written backwards: the same tree and sizes
if json class-edges-mat-dom "$D/dom.json" dominators "$F" --top 0 --depth 9 &&
   json class-edges-mat-dom-rev "$D/dom-rev.json" dominators "$D/classes-rev.hprof" --top 0 --depth 9; then
  expect_eq class-edges-mat-backwards "$(jget "$D/dom-rev.json" 'd["dominators"]')" "$(jget "$D/dom.json" 'd["dominators"]')"
fi

# ---- VisualVM's model: no class edges; the figures as before ----
V="--size-model=visualvm --weak=skip --roots=all"
# shellcheck disable=SC2086  # V is several options
if json class-edges-vvm-meta "$D/vmeta.json" object "$F" "$META" $V &&
   json class-edges-vvm-loader "$D/vloader.json" object "$F" "$LOADER" $V; then
  expect_eq class-edges-vvm-meta-idom "$(jget "$D/vmeta.json" '[x["id"] for x in d["dominators"]]')" \
    "['$LIST', '$LOADER']"
  expect_eq class-edges-vvm-no-class-referrers "$(jget "$D/vmeta.json" '"class_referrers" in d')" false
  expect_eq class-edges-vvm-loader-retained "$(jget "$D/vloader.json" 'd["object"]["retained"]')" 72
fi
# ahat's: no class edges either
if json class-edges-ahat-meta "$D/ameta.json" object "$F" "$META" --size-model=ahat; then
  expect_eq class-edges-ahat-meta-idom "$(jget "$D/ameta.json" '[x["id"] for x in d["dominators"]]')" \
    "['$LIST', '$LOADER']"
fi
