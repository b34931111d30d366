#!/usr/bin/env bash
# A class object (the java.lang.Class instance that stands for class C) is
# grouped with C: by the loader that defined C, in C's package and
# component, as Eclipse MAT's dominator tree and Top Components group it,
# in top --group, dominators --group, components, diff --group and trend
# --group alike.  The dump is built byte by byte (tests/helper/mkhprof.py,
# 4-byte ids) and read under --size-model=raw (an instance is its field
# bytes, an array its elements, a class object its static bytes; no class
# edges), so every figure below is counted by hand:
#
#   bootstrap classes, each a sticky-class root: java.lang.Object,
#     java.lang.Class, java.lang.String (value, coder: 5 B), app.Loader
#     (name, classes: 8 B), java.lang.Object[], java.util.Holder (ref: 4 B),
#     java.lang.Registry (static table -> byte[50]: 4 B)
#   [root] app.Loader L1 .name -> String "webapp-A" -> byte[8]
#                        .classes -> Object[2] LIST {ShopServer, Cart}
#   L1 defines com.shop.ShopServer: static CACHE -> Holder H .ref ->
#     Object[3] ARR -> 3 byte[1000]; static int hits (8 B of statics); a JNI
#     global holds the class too (a native library's jclass)
#   L1 defines com.shop.Cart (id: 4 B), no statics; [root] 2 Carts
#
# The dominator tree: the super-root's children are the 7 sticky class
# objects, L1 (retains itself 8, the String 5, byte[8] 8, LIST 8 and the Cart
# class 0: 29 B), class ShopServer (8 + H 4 + ARR 12 + 3,000: 3,024 B), the
# Carts (4 B each); class Registry retains 54 B.  3,115 B in 21 objects.
#
# per loader (instances, shallow, retained counted once):
#   webapp-A: class ShopServer, class Cart, 2 Carts: 4, 16 B; retained
#     3,024 + 0 + 8 = 3,032 B (the class object's static holds the cache)
#   bootstrap: the other 17 objects, 3,099 B; retained L1 29 + Registry 54 +
#     H 3,016 (no bootstrap object above it) = 3,099 B
#   (before: class objects counted as java.lang.Class's, so with the
#   bootstrap loader: webapp-A 2, 8 B, 8 B; bootstrap 19, 3,107 B, 3,107 B)
# per package (classes, instances, shallow, retained):
#   com.shop 2 (Cart, java.lang.Class for the class objects), 4, 16, 3,032
#   app 2, 2 (L1, class app.Loader), 8, 29
#   java.lang 3 (String, Object[], Class), 8 (the String, LIST, ARR, the
#     class objects of Object, Class, String, Object[], Registry), 29, 3,087
#     (the String 13, LIST 8, ARR 3,012 under H, Registry 54)
#   java.util 2, 2, 4, 3,016;  java 4, 10, 33, 3,091;  (no package) 1, 5, 3,058, 3,058
# dominators --group: the super-root's children by group:
#   loader: webapp-A 3 objects (class ShopServer, 2 Carts), 16 B, 3,032 B;
#     bootstrap 8 (7 class objects, L1), 12 B, 83 B
#   package: com.shop 3, 16, 3,032; java.lang 5, 4, 54; app 2, 8, 29;
#     java.util 1, 0, 0
# components --components (shop ^com\.shop\., util ^java\.util\.): shop 4,
#   16, 3,032; util 2, 4, 3,016; other 15, 3,095, 3,095 (L1 29, Registry 54,
#   ARR 3,012)
# components (per loader): webapp-A's top classes java.lang.Class (its 2
#   class objects, 8 B, 3,024 B) and Cart (2, 8 B, 8 B); its top objects class
#   ShopServer (3,024 B) and the 2 Carts; the bootstrap loader's
#   java.lang.Class part: 7 class objects, 4 B, 54 B
# diff and trend --group: a second dump, webapp-A's cache holding 5 byte[1000]
#   (ARR of 5): webapp-A +2,008 B retained; per package com.shop +2,008 B.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip group-class-objects "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD/groupcls
mkdir -p "$D"

python3 - "$D" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
for name, ncache in (("c1", 3), ("c2", 5)):
    d = Dump()
    obj = d.load_class("java.lang.Object")
    jlc = d.load_class("java.lang.Class")
    strc = d.load_class("java.lang.String")
    ldr = d.load_class("app.Loader")
    oarr = d.load_class("[Ljava/lang/Object;")
    hold = d.load_class("java.util.Holder")
    reg = d.load_class("java.lang.Registry")
    shop = d.load_class("com.shop.ShopServer")
    cart = d.load_class("com.shop.Cart")
    for nm in ("value", "coder", "name", "classes", "ref", "table", "CACHE", "hits", "id"):
        d.string(nm)
    # ids are given out in order: the objects' ids are known before they are written
    i = d.next_id
    L1, S, SB, LIST, HH, ARR, B50 = (i + 16 * k for k in range(1, 8))
    d.class_dump(obj)
    d.class_dump(jlc, super_id=obj)
    d.class_dump(strc, super_id=obj, fields=[("value", OBJECT), ("coder", BYTE)])
    d.class_dump(ldr, super_id=obj, fields=[("name", OBJECT), ("classes", OBJECT)])
    d.class_dump(oarr, super_id=obj)
    d.class_dump(hold, super_id=obj, fields=[("ref", OBJECT)])
    d.class_dump(reg, super_id=obj, statics=[("table", OBJECT, B50)])
    d.class_dump(shop, super_id=obj, statics=[("CACHE", OBJECT, HH), ("hits", INT, 7)], loader=L1)
    d.class_dump(cart, super_id=obj, fields=[("id", INT)], loader=L1)
    for c in (obj, jlc, strc, ldr, oarr, hold, reg):
        d.root(c, 0x05)
    assert d.instance(ldr, [S, LIST]) == L1
    assert d.instance(strc, [SB, 0]) == S
    assert d.prim_array(BYTE, b"webapp-A") == SB
    assert d.obj_array(oarr, [shop, cart]) == LIST
    assert d.instance(hold, [ARR]) == HH
    assert d.obj_array(oarr, [i + 16 * (8 + k) for k in range(ncache)]) == ARR
    assert d.prim_array(BYTE, bytes(50)) == B50
    for k in range(ncache):
        d.prim_array(BYTE, bytes([k + 1]) * 1000)
    d.root(L1)
    d.root(shop)
    for k in range(2):
        d.root(d.instance(cart, [k]))
    d.write("%s/%s.hprof" % (D, name))
EOF
[ -f "$D/c2.hprof" ] || { fail group-class-objects "mkhprof.py wrote no dump"; exit 0; }
F=$D/c1.hprof
R="--size-model=raw --quiet"

# top --group=loader
if run_hp "$D/l.json" "$D/e" top "$F" $R --group=loader --json; then
  expect_eq "top --group=loader: the class objects with their loaders (classes, defined, instances, shallow, retained)" \
    "$(jget "$D/l.json" '[(g.get("loader_name", "<bootstrap>"), g["classes"], g["defined"], g["instances"], g["shallow"], g["retained"]) for g in d["groups"]]')" \
    "[('<bootstrap>', 6, 7, 17, 3099, 3099), ('webapp-A', 2, 2, 4, 16, 3032)]"
  expect_eq "top --group=loader: instances and shallow add up to the class table's" \
    "$(jget "$D/l.json" 'sum(g["instances"] for g in d["groups"]), sum(g["shallow"] for g in d["groups"])')" "(21, 3115)"
else
  fail "top --group=loader" "$(head -c 300 "$D/e")"
fi
# top --group=package
flat='"\n".join("%s %d %d %d %d" % (g["name"], g["classes"], g["instances"], g["shallow"], g["retained"]) for g in (lambda f: f(f, d["groups"]))(lambda f, gs: [x for g in gs for x in [g] + f(f, g.get("packages", []))]))'
if run_hp "$D/p.json" "$D/e" top "$F" $R --group=package --depth 3 --top 0 --sort=name --json; then
  expect_eq "top --group=package: the class objects in their classes' packages" "$(jget "$D/p.json" "$flat")" \
"(no package) 1 5 3058 3058
app 2 2 8 29
com 2 4 16 3032
com.shop 2 4 16 3032
java 4 10 33 3091
java.lang 3 8 29 3087
java.util 2 2 4 3016"
else
  fail "top --group=package" "$(head -c 300 "$D/e")"
fi
# --filter picks the class objects with java.lang.Class's row, as the class table shows them
if run_hp "$D/f.json" "$D/e" top "$F" $R --group=loader --filter '^java\.lang\.Class$' --json; then
  expect_eq "top --group=loader --filter java.lang.Class: the class objects by loader" \
    "$(jget "$D/f.json" '[(g.get("loader_name", "<bootstrap>"), g["classes"], g["instances"], g["shallow"], g["retained"]) for g in d["groups"]]')" \
    "[('webapp-A', 1, 2, 8, 3024), ('<bootstrap>', 1, 7, 4, 54)]"
else
  fail "top --group=loader --filter" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/f2.json" "$D/e" top "$F" $R --group=loader --filter Cart --json; then
  expect_eq "top --group=loader --filter Cart: the instances only" \
    "$(jget "$D/f2.json" '[(g.get("loader_name", "<bootstrap>"), g["classes"], g["instances"], g["shallow"], g["retained"]) for g in d["groups"]]')" \
    "[('webapp-A', 1, 2, 8, 8)]"
else
  fail "top --group=loader --filter Cart" "$(head -c 300 "$D/e")"
fi

# dominators --group
if run_hp "$D/dl.json" "$D/e" dominators "$F" $R --group=loader --top 0 --json; then
  expect_eq "dominators --group=loader: class ShopServer at the top under webapp-A" \
    "$(jget "$D/dl.json" '[(g["loader"], g.get("loader_name"), g["objects"], g["shallow"], g["retained"]) for g in d["dominators"]]')" \
    "[('app.Loader@0x11c0', 'webapp-A', 3, 16, 3032), ('<bootstrap>', None, 8, 12, 83)]"
else
  fail "dominators --group=loader" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/dp.json" "$D/e" dominators "$F" $R --group=package --top 0 --json; then
  expect_eq "dominators --group=package: class ShopServer in com.shop" \
    "$(jget "$D/dp.json" '[(g["package"], g["objects"], g["shallow"], g["retained"]) for g in d["dominators"]]')" \
    "[('com.shop', 3, 16, 3032), ('java.lang', 5, 4, 54), ('app', 2, 8, 29), ('java.util', 1, 0, 0)]"
else
  fail "dominators --group=package" "$(head -c 300 "$D/e")"
fi

# components
printf 'shop ^com\\.shop\\.\nutil ^java\\.util\\.\n' >"$D/comp"
if run_hp "$D/tc.json" "$D/e" top "$F" $R --components "$D/comp" --json; then
  expect_eq "top --components: the class objects in their classes' components" \
    "$(jget "$D/tc.json" '[(g["name"], g["instances"], g["shallow"], g["retained"]) for g in d["groups"]]')" \
    "[('other', 15, 3095, 3095), ('shop', 4, 16, 3032), ('util', 2, 4, 3016)]"
else
  fail "top --components" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/kc.json" "$D/e" components "$F" $R --components "$D/comp" --json; then
  expect_eq "components --components: as top's" \
    "$(jget "$D/kc.json" '[(g["name"], g["instances"], g["shallow"], g["retained"]) for g in d["components"]]')" \
    "[('other', 15, 3095, 3095), ('shop', 4, 16, 3032), ('util', 2, 4, 3016)]"
else
  fail "components --components" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/k.json" "$D/e" components "$F" $R --top 0 --json; then
  expect_eq "components: webapp-A retains its class's cache; its top classes and objects" \
    "$(jget "$D/k.json" '[(g.get("loader_name", g["name"]), g["instances"], g["shallow"], g["retained"], g["top_objects"], [(x["class"], x["instances"], x["shallow"], x["retained"]) for x in g["top_classes"] if x["class"] in ("java.lang.Class", "com.shop.Cart")], [(x["class"], x["retained"]) for x in g["top_dominators"]][:2]) for g in d["components"]]')" \
    "[('<bootstrap>', 17, 3099, 3099, 9, [('java.lang.Class', 7, 4, 54)], [('java.util.Holder', 3016), ('java.lang.Class', 54)]), ('webapp-A', 4, 16, 3032, 4, [('java.lang.Class', 2, 8, 3024), ('com.shop.Cart', 2, 8, 8)], [('java.lang.Class', 3024), ('com.shop.Cart', 4)])]"
else
  fail "components" "$(head -c 300 "$D/e")"
fi
run_hp "$D/k.txt" "$D/e" components "$F" $R
if grep -q '^   retained 2.96 KiB (97.3%), shallow 16 B, 4 objects of 2 classes (2 defined)$' "$D/k.txt" &&
   grep -qE '^ +2\.95 KiB +8 B +2  java\.lang\.Class$' "$D/k.txt" &&
   grep -qE '^ +2\.95 KiB +8 B  class com\.shop\.ShopServer @0x10f0$' "$D/k.txt"; then
  ok "components text: webapp-A's retained and its class objects' row"
else fail "components text: webapp-A's retained and its class objects' row" "$(head -c 1200 "$D/k.txt")"; fi

# diff and trend: the cache grows by 2 byte[1000] and 2 ARR slots (8 B)
if run_hp "$D/xl.json" "$D/e" diff "$F" "$D/c2.hprof" $R --group=loader --top 0 --json; then
  expect_eq "diff --group=loader: the cache's growth under webapp-A" \
    "$(jget "$D/xl.json" 'sorted((g["name"], g["delta"]["instances"], g["delta"]["shallow"], g["delta"]["retained"]) for g in d["groups"])')" \
    "[('<bootstrap>', 2, 2008, 2008), ('app.Loader \"webapp-A\"', 0, 0, 2008)]"
else
  fail "diff --group=loader" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/xp.json" "$D/e" diff "$F" "$D/c2.hprof" $R --group=package --top 0 --json; then
  expect_eq "diff --group=package: the cache's growth under com.shop" \
    "$(jget "$D/xp.json" 'sorted((g["name"], g["delta"]["instances"], g["delta"]["shallow"], g["delta"]["retained"]) for g in d["groups"])')" \
    "[('(no package)', 2, 2000, 2000), ('com.shop', 0, 0, 2008), ('java.lang', 0, 8, 2008), ('java.util', 0, 0, 2008)]"
else
  fail "diff --group=package" "$(head -c 300 "$D/e")"
fi
if run_hp "$D/t.json" "$D/e" trend "$F" "$D/c2.hprof" $R --group=loader --json; then
  expect_eq "trend --group=loader: webapp-A's series" \
    "$(jget "$D/t.json" 'sorted((g["name"], g["instances"], g["shallow"], g["retained"]) for g in d["groups"])')" \
    "[('<bootstrap>', [17, 19], [3099, 5107], [3099, 5107]), ('app.Loader \"webapp-A\"', [4, 4], [16, 16], [3032, 5040])]"
else
  fail "trend --group=loader" "$(head -c 300 "$D/e")"
fi
