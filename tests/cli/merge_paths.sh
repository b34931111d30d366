#!/usr/bin/env bash
# hprofan merge-paths (Eclipse MAT's "merge shortest paths to GC roots")
# against heaps whose shape is known by construction.
#
# Every document the test reads must add up (adds_up below): objects =
# reached + only_weakly + unreachable; the nodes in preorder, each parent
# before its children, depth = the parent's + 1 + the nodes elided between;
# at every node ref_objects = (1 if in_set) + its shown children's (and
# the set members elided above them) + more.ref_objects, ref_shallow
# likewise, children = shown + more.nodes; the children in order (ref
# objects desc, ref shallow desc, id); the top-level nodes' ref_objects and
# the document's more.ref_objects make total.reached, their ref_shallow
# total.shallow; a top-level node has gc_root and no via, every other a
# via; no node leads to no object of the set; with --top 0, no "more" and
# (without gaps) total.nodes nodes, reached of them in the set.
#
# 1. A dump built byte by byte (tests/helper/mkhprof.py), by hand: a GC
#    root Holder R {a, b, c, d, e, w}: a -> Object[] A {L1, L2}, L1.next ->
#    L1b; b -> Object[] B {BigLeaf B1, B2}; c -> C {C1, C2}; d -> D {D1,
#    D2}; e -> Leaf E; w -> WeakReference W -> Leaf WL; Leaf R2 a GC root
#    of its own; Leaf TL a Java-frame local of thread "t1"; Leaf U held by
#    nothing.  merge-paths Leaf BigLeaf:
#     - 14 objects: 12 reached, 1 only weakly (WL), 1 unreachable (U);
#     - the tree exactly: R (10: A 3 [L1 2 [L1b], L2], B 2 (the BigLeafs'
#       bytes put it before C), C 2, D 2 (C's id first), E 1), R2 1, TL 1
#       (a start of its own, gc_root java_frame, thread "t1"), with each
#       node's via; --all-weak adds W -> WL under R (after E: the id);
#     - --top 2: R's more is C, D and E (3 nodes, 5 objects, their bytes),
#       the document's more TL;
#     - the arguments as given in "of", an object named twice counted once;
#       IDs alone (A and E: A first, its bytes);
#     - a set no GC root reaches (U and WL): exit 0, an empty tree, the
#       counts;
#     - the text: the first lines, the labels ("VIA -> CLASS @0xID", "●
#       " for the set, "LABEL  [GC root: KIND]"), the ● lines in the JSON's
#       order, the "… N more" lines' ref objs the JSON's.
# 2. A list of N = 1,000,000 Nodes (Node 0 a GC root, Node k's next Node
#    k+1, Node N-1's a Tail; ids 0x10000000 + 16 k, the Tail's 16 N), by
#    hand: merge-paths Tail is one run of N + 1 nodes of one child each;
#    shown by its ends: Nodes 0-9, Nodes N-9 .. N-1 and the Tail, 999,981
#    left out (the node after the gap has elided 999,981, elided_in_set 0),
#    depth k at Node k, ref_objects 1 and the Tail's bytes at every node;
#    the Tail's ID gives the same; merge-paths Node: Node k's ref_objects N
#    - k (counted up a million deep), 999,980 elided of which all in the
#    set; the text's gap line and "(depth N)"; each run in a few seconds.
#    Lists of 21 and 22 objects: 21 shown whole, 22 by their ends (2 left
#    out).  A list of 200 with --full-path: all 201 nodes (sanitized
#    binary).
# 3. --max-nodes on a complete binary tree of 16,383 objects, all of the
#    set: 200 nodes by default (truncated), all with 0, the "more" lines
#    of --max-nodes 7 adding up to the tree.
# 4. The heap of testdata/java/mergepaths/MergePaths.java (a JDK 17 dump
#    taken with -all: what only weak references hold and the garbage stay),
#    against the program (each Item's n says where it is) and the JVM's
#    class histogram:
#     - 66 Items (the histogram's), 51 reached, 10 only weakly, 5
#       unreachable; --all-weak: 61, 0, 5; total.shallow the reached
#       times the histogram's bytes per Item;
#     - the class MergePaths' node: 50 objects, via static MAP 30 (30 x the
#       Item's bytes), via static LIST 20; below MAP exactly the Items n =
#       0 .. 29, below LIST n = 100 .. 119; --all-weak: 60, via static
#       WEAK 10 (n = 200 .. 209, each by .referent);
#     - each Item of the tree has its shallow (the histogram's) and
#       retained bytes (and its byte[PAYLOAD]); the thread's Item (n = 500)
#       a start, gc_root java_frame of thread "holder";
#     - each set member's branch of the tree is hprofan path's first path
#       (ids, vias, the GC root), with and without --all-weak; path says
#       the weak ones need --all-weak and the garbage has no path (its
#       text says which);
#     - --top 1: the more members add up; the text: the first lines,
#       "static MAP -> java.util.HashMap @0x..", the thread's Item line;
#     - a class no dump has: exit 1 "no class named"; an ID no object has:
#       exit 1; no CLASS|ID: exit 2.
#    Skipped without a JDK (javac, java, jcmd).
# The JSON documents against docs/hprofan.schema.json (without python3's
# jsonschema, a skip).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip merge-paths "python3 is absent"; exit 0; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
H=$ROOT/tests/helper
D=$TMPD

# mp NAME BIN ARGS...: BIN merge-paths ARGS --quiet into $D/NAME.out, .err,
# its exit status in .rc, its seconds in .s
mp() {
  local n=$1 bin=$2 t0 rc; shift 2
  t0=$(date +%s%N)
  timeout 120 "$bin" merge-paths "$@" --quiet >"$D/$n.out" 2>"$D/$n.err"
  rc=$?
  echo $rc >"$D/$n.rc"
  echo $((($(date +%s%N) - t0) / 1000000)) >"$D/$n.ms"
  [ $rc = 0 ] || fail "merge-paths $n: runs" "exit $rc: $(head -c 300 "$D/$n.err")"
}
# ran NAME: the run NAME went well (else mp has said so)
ran() { [ "$(cat "$D/$1.rc" 2>/dev/null)" = 0 ]; }
# pycheck NAME [ARG]: (when NAME ran) the Python on stdin with d (the JSON of $D/NAME.out),
# A (ARG), check(what, got, want), adds_up(d, full) (a list of what does not
# add up) and ids (the byte-built dump's KEY=0x.. ids, when written)
pycheck() {
  ran "$1" || { cat >/dev/null; return; }
  python3 - "$D/$1.out" "$1" "${2:-}" "$D/ids.txt" <<<"import json, os, sys
try:
    d = json.load(open(sys.argv[1]))
except ValueError as e:
    print('FAIL merge-paths %s: not JSON: %s' % (sys.argv[2], e)); sys.exit(0)
A = sys.argv[3]
ids = dict(l.strip().split('=') for l in open(sys.argv[4])) if os.path.exists(sys.argv[4]) else {}
def short(v):
    r = repr(v)
    return r if len(r) <= 400 else r[:400] + '...'
def check(what, got, want):
    print(('ok merge-paths %s: %s' % (sys.argv[2], what)) if got == want else
          ('FAIL merge-paths %s: %s: got %s, want %s' % (sys.argv[2], what, short(got), short(want))))
def adds_up(d, full=False):
    bad = []
    ns, t = d['nodes'], d['total']
    if t['objects'] != t['reached'] + t['only_weakly'] + t['unreachable']:
        bad.append('objects != reached + only_weakly + unreachable')
    kids, tops = [[] for _ in ns], []
    for i, n in enumerate(ns):
        p = n['parent']
        if p is None:
            tops.append(i)
            if n['depth'] != 0 or 'gc_root' not in n or 'via' in n or 'elided' in n:
                bad.append('%d: a top-level node: depth 0, a gc_root, no via' % i)
            continue
        if not isinstance(p, int) or not 0 <= p < i:
            bad.append('%d: its parent %r is not a node before it' % (i, p)); continue
        kids[p].append(i)
        if n['depth'] != ns[p]['depth'] + 1 + n.get('elided', 0):
            bad.append('%d: depth %d, its parent %d' % (i, n['depth'], ns[p]['depth']))
        if 'via' not in n or 'gc_root' in n:
            bad.append('%d: a child: a via, no gc_root' % i)
        a = i - 1                      # preorder: the parent is the node before or one of its ancestors
        while a is not None and a != p:
            up = ns[a]['parent']
            a = up if isinstance(up, int) and up < a else None
        if a != p:
            bad.append('%d: not in preorder' % i)
    def level(what, own_objs, own_shallow, shown, m, want_objs, want_shallow, want_nodes):
        if len(shown) + m.get('nodes', 0) != want_nodes:
            bad.append('%s: %d shown + %d more, not %d' % (what, len(shown), m.get('nodes', 0), want_nodes))
        o = own_objs + sum(ns[k]['ref_objects'] + ns[k].get('elided_in_set', 0) for k in shown) + m.get('ref_objects', 0)
        if o != want_objs:
            bad.append('%s: ref_objects %d, its own, children and more make %d' % (what, want_objs, o))
        if not any(ns[k].get('elided_in_set', 0) for k in shown):
            s = own_shallow + sum(ns[k]['ref_shallow'] for k in shown) + m.get('ref_shallow', 0)
            if s != want_shallow:
                bad.append('%s: ref_shallow %d, its own, children and more make %d' % (what, want_shallow, s))
        keys = [(-ns[k]['ref_objects'], -ns[k]['ref_shallow'], int(ns[k]['id'], 16)) for k in shown]
        if keys != sorted(keys):
            bad.append('%s: the children are not by ref objects, ref shallow, id' % what)
        if m and shown and m['ref_objects'] > m['nodes'] * ns[shown[-1]]['ref_objects']:
            bad.append('%s: its more leads to more than the children shown' % what)
        if full and m:
            bad.append('%s: a more with --top 0' % what)
    for i, n in enumerate(ns):
        if n['ref_objects'] < 1:
            bad.append('%d: leads to no object of the set' % i)
        level('node %d' % i, int(n['in_set']), n['shallow'] if n['in_set'] else 0, kids[i], n.get('more', {}),
              n['ref_objects'], n['ref_shallow'], n['children'])
    level('the top level', 0, 0, tops, d.get('more', {}), t['reached'], t['shallow'], t['roots'])
    if full:
        if len(ns) + sum(n.get('elided', 0) for n in ns) != t['nodes']:
            bad.append('%d nodes and %d elided, total.nodes %d' % (len(ns), sum(n.get('elided', 0) for n in ns), t['nodes']))
        if sum(n['in_set'] for n in ns) + sum(n.get('elided_in_set', 0) for n in ns) != t['reached']:
            bad.append('the nodes in the set are not the reached')
    return bad
$(cat)"
}
# text NAME: the node lines' labels (past the indent and any (depth N)) of a
# text table, one a line
labels() { awk 'NR > 1 && /@0x/ { sub(/^ *[0-9,]+ +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B +(\(depth [0-9]+\) )?/, ""); print }' "$D/$1.out"; }
# indent TEXT JSON: the text's node lines indented by their depth (the
# JSON's, the same tree): the same depth the same indent, a deeper one more
indent() {
  python3 - "$D/$1.out" "$D/$2" <<'PY'
import json, re, sys
row = re.compile(r"^ *[0-9,]+ +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B +[0-9.]+ [KMG]?i?B( *)(\(depth [0-9]+\) )?\S.* @0x[0-9a-f]+")
at = [len(m.group(1)) for m in map(row.match, open(sys.argv[1], encoding="utf-8")) if m]
depth = [min(n["depth"], 20) for n in json.load(open(sys.argv[2]))["nodes"]]
by = {}
for a, k in zip(at, depth):
    by.setdefault(k, set()).add(a)
ok = len(at) == len(depth) and all(len(v) == 1 for v in by.values()) and \
    all(min(by[k]) < min(by[j]) for k in by for j in by if k < j)
print(("ok merge-paths %s: the indent grows with the depth" % sys.argv[1].split("/")[-1]) if ok else
      "FAIL merge-paths %s: the indent: %d lines, %d nodes, indents by depth %r" % (sys.argv[1].split("/")[-1], len(at), len(depth), by))
PY
}

# ---- 1. a tree built by hand ----------------------------------------------------
python3 - "$D/tree.hprof" "$H" >"$D/ids.txt" <<'PY' || { fail merge-paths-build "cannot write the tree"; exit 0; }
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
ref = d.load_class("java.lang.ref.Reference"); d.class_dump(ref, obj, [("referent", OBJECT)])
weak = d.load_class("java.lang.ref.WeakReference"); d.class_dump(weak, ref)
thread = d.load_class("java.lang.Thread"); d.class_dump(thread, obj, [("name", OBJECT)])
arr = d.load_class("[Ljava/lang/Object;"); d.class_dump(arr, obj)
hold = d.load_class("Holder"); d.class_dump(hold, obj, [(c, OBJECT) for c in "abcdew"])
leaf = d.load_class("Leaf"); d.class_dump(leaf, obj, [("next", OBJECT), ("v", INT)])
big = d.load_class("BigLeaf"); d.class_dump(big, obj, [(c, LONG) for c in "xyzt"])
ids = {}
def put(name, oid):
    ids[name] = oid
    return oid
# the ids grow in the order made: C's before D's, E's before W's, R2's before TL's
L1b = put("L1b", d.instance(leaf, [0, 11]))
L1 = put("L1", d.instance(leaf, [L1b, 1]))
L2 = put("L2", d.instance(leaf, [0, 2]))
A = put("A", d.obj_array(arr, [L1, L2]))
B = put("B", d.obj_array(arr, [put("B1", d.instance(big, [1, 2, 3, 4])), put("B2", d.instance(big, [5, 6, 7, 8]))]))
C = put("C", d.obj_array(arr, [put("C1", d.instance(leaf, [0, 31])), put("C2", d.instance(leaf, [0, 32]))]))
D = put("D", d.obj_array(arr, [put("D1", d.instance(leaf, [0, 41])), put("D2", d.instance(leaf, [0, 42]))]))
E = put("E", d.instance(leaf, [0, 5]))
WL = put("WL", d.instance(leaf, [0, 6]))
W = put("W", d.instance(weak, [WL]))
R = put("R", d.instance(hold, [A, B, C, D, E, W]))
d.root(R)
R2 = put("R2", d.instance(leaf, [0, 7]))
d.root(R2)
f = d.stack_frame("run", "()V", "T.java", thread, 1)
d.stack_trace(1, 1, [f])
T = put("T", d.instance(thread, [0]))
d.start_thread(1, T, 1, "t1")
d.thread_root(T, 1, trace=1)
TL = put("TL", d.instance(leaf, [0, 8]))
d.frame_root(TL, 1, 0)
put("U", d.instance(leaf, [0, 9]))
d.write(sys.argv[1])
for k, v in ids.items():
    print("%s=0x%x" % (k, v))
PY
idof() { sed -n "s/^$1=//p" "$D/ids.txt"; }
T=$D/tree.hprof
mp tree "$HPROFAN" "$T" Leaf BigLeaf --json --top 0
mp tree.weak "$HPROFAN" "$T" Leaf BigLeaf --json --top 0 --all-weak
pycheck tree <<'PY'
check("the counts (by hand): 14, 12 reached, WL only weakly, U unreachable, 17 nodes from 3 roots",
      {k: d["total"][k] for k in ("objects", "reached", "only_weakly", "unreachable", "nodes", "roots")},
      {"objects": 14, "reached": 12, "only_weakly": 1, "unreachable": 1, "nodes": 17, "roots": 3})
check("the header members", (d["schema"], d["command"], d["weak_referents"], d["of"]),
      ("hprofan/1", "merge-paths", "excluded", ["Leaf", "BigLeaf"]))
check("it adds up", adds_up(d, True), [])
# (depth, name, in_set, ref_objects, children) in preorder
want = [(0, "R", False, 10, 5), (1, "A", False, 3, 2), (2, "L1", True, 2, 1), (3, "L1b", True, 1, 0), (2, "L2", True, 1, 0),
        (1, "B", False, 2, 2), (2, "B1", True, 1, 0), (2, "B2", True, 1, 0),
        (1, "C", False, 2, 2), (2, "C1", True, 1, 0), (2, "C2", True, 1, 0),
        (1, "D", False, 2, 2), (2, "D1", True, 1, 0), (2, "D2", True, 1, 0),
        (1, "E", True, 1, 0), (0, "R2", True, 1, 0), (0, "TL", True, 1, 0)]
name = {v: k for k, v in ids.items()}
check("the tree, by hand: R (A [L1 [L1b], L2], B, C, D, E), R2, TL",
      [(n["depth"], name.get(n["id"], n["id"]), n["in_set"], n["ref_objects"], n["children"]) for n in d["nodes"]], want)
leaf = next(n["shallow"] for n in d["nodes"] if n["class"] == "Leaf")
bigl = next(n["shallow"] for n in d["nodes"] if n["class"] == "BigLeaf")
check("ref_shallow: the BigLeafs' bytes put B before C (ref objects tied)", (bigl > leaf,
      [n["ref_shallow"] for n in d["nodes"] if n["id"] in (ids["B"], ids["C"])]), (True, [2 * bigl, 2 * leaf]))
check("total.shallow: 10 Leafs, 2 BigLeafs", d["total"]["shallow"], 10 * leaf + 2 * bigl)
via = lambda v: "%s.%s" % (v["kind"], v.get("name", v.get("index"))) if v else None
check("the references from the parents", [(name.get(n["id"]), via(n.get("via"))) for n in d["nodes"]],
      [("R", None), ("A", "field.a"), ("L1", "element.0"), ("L1b", "field.next"), ("L2", "element.1"),
       ("B", "field.b"), ("B1", "element.0"), ("B2", "element.1"), ("C", "field.c"), ("C1", "element.0"), ("C2", "element.1"),
       ("D", "field.d"), ("D1", "element.0"), ("D2", "element.1"), ("E", "field.e"), ("R2", None), ("TL", None)])
check("the GC roots: R and R2 JNI globals, TL a Java frame's local of thread t1 (a start of its own)",
      [(name.get(n["id"]), n["gc_root"], n.get("thread")) for n in d["nodes"] if n["parent"] is None],
      [("R", ["jni_global"], None), ("R2", ["jni_global"], None), ("TL", ["java_frame"], "t1")])
check("the classes", sorted(set((n["class"], n.get("class_object_of")) for n in d["nodes"])),
      [("BigLeaf", None), ("Holder", None), ("Leaf", None), ("java.lang.Object[]", None)])
PY
pycheck tree.weak <<'PY'
check("--all-weak: 13 reached, none only weakly, U unreachable, 19 nodes",
      [d["total"][k] for k in ("objects", "reached", "only_weakly", "unreachable", "nodes", "roots")], [14, 13, 0, 1, 19, 3])
check("--all-weak: it adds up", (adds_up(d, True), d["weak_referents"]), ([], "followed"))
name = {v: k for k, v in ids.items()}
r = d["nodes"][0]
check("--all-weak: R leads to 11, its children A, B, C, D, E, W (E before W: the id)",
      (r["ref_objects"], [name.get(n["id"]) for n in d["nodes"] if n["parent"] == 0]), (11, ["A", "B", "C", "D", "E", "W"]))
w = next((i for i, n in enumerate(d["nodes"]) if n["id"] == ids["W"]), None)
check("--all-weak: W -> WL by the referent", [(name.get(n["id"]), n["in_set"], n["via"]) for n in d["nodes"] if w is not None and n["parent"] == w],
      [("WL", True, {"kind": "field", "name": "referent", "declared_by": "java.lang.ref.Reference"})])
check("--all-weak: U in no tree", ids["U"] in [n["id"] for n in d["nodes"]], False)
PY
# --top 2: R's more (C, D, E), the document's (TL)
mp tree.top2 "$HPROFAN" "$T" Leaf BigLeaf --json --top 2
cp "$D/tree.out" "$D/tree.full.json"
pycheck tree.top2 "$D/tree.full.json" <<'PY'
full = json.load(open(A))
sh = {n["id"]: n["shallow"] for n in full["nodes"]}
rs = {n["id"]: n["ref_shallow"] for n in full["nodes"]}
check("--top 2: it adds up", adds_up(d), [])
name = {v: k for k, v in ids.items()}
check("--top 2: the nodes shown", [name.get(n["id"]) for n in d["nodes"]], ["R", "A", "L1", "L1b", "L2", "B", "B1", "B2", "R2"])
check("--top 2: R's more: C, D and E added up", d["nodes"][0].get("more"),
      {"nodes": 3, "ref_objects": 5, "ref_shallow": sum(rs[ids[k]] for k in "CDE"), "shallow": sum(sh[ids[k]] for k in "CDE")})
check("--top 2: the document's more: TL", d.get("more"), {"nodes": 1, "ref_objects": 1, "ref_shallow": sh[ids["TL"]], "shallow": sh[ids["TL"]]})
check("--top 2: the totals are --top 0's", d["total"], full["total"])
check("--top 2: the nodes are --top 0's", [n for n in d["nodes"] if n.get("more") is None],
      [n for n in full["nodes"] if n["id"] in [m["id"] for m in d["nodes"]] and n["id"] != ids["R"]])
PY
# the arguments as given, an object named twice (and by its class) once; IDs alone
L2=$(idof L2)
mp tree.args "$HPROFAN" "$T" Leaf BigLeaf "$L2" "$L2" Leaf --json
mp tree.ids "$HPROFAN" "$T" "$(idof E)" "$(idof A)" --json --top 0
pycheck tree.args "$L2" <<'PY'
check("\"of\": the arguments as given; each object once", (d["of"], d["total"]["objects"], d["total"]["reached"]),
      (["Leaf", "BigLeaf", A, A, "Leaf"], 14, 12))
PY
pycheck tree.ids <<'PY'
name = {v: k for k, v in ids.items()}
check("IDs: E and the Object[] A, under R: A first (its bytes, ref objects tied)",
      ([(name.get(n["id"]), n["in_set"], n["ref_objects"], n["children"]) for n in d["nodes"]], d["total"]["objects"], adds_up(d, True)),
      ([("R", False, 2, 2), ("A", True, 1, 0), ("E", True, 1, 0)], 2, []))
PY
# a set no GC root reaches: an empty tree, the counts
mp tree.none "$HPROFAN" "$T" "$(idof U)" "$(idof WL)" --json
pycheck tree.none <<'PY'
check("a set no GC root reaches (U, WL): exit 0, no node, 1 only weakly, 1 unreachable",
      ([d["total"][k] for k in ("objects", "reached", "only_weakly", "unreachable", "shallow", "nodes", "roots")], d["nodes"], "more" in d),
      ([2, 0, 1, 1, 0, 0, 0], [], False))
PY
mp tree.none.txt "$HPROFAN" "$T" "$(idof U)" "$(idof WL)"
ran tree.none.txt && expect_eq "merge-paths: a set no GC root reaches: the text says why" "$(cat "$D/tree.none.txt.out")" \
  "merged shortest paths from GC roots to 2 objects (weak referents excluded)
1 of them only through the referent of a soft, weak, final or phantom reference (--all-weak follows those)
1 no GC root reaches"
mp tree.none.weak "$HPROFAN" "$T" "$(idof U)" --all-weak
ran tree.none.weak && expect_eq "merge-paths --all-weak: an unreachable object" "$(cat "$D/tree.none.weak.out")" \
  "merged shortest paths from GC roots to 1 object (weak referents followed)
1 no GC root reaches"
# the text
mp tree.txt "$HPROFAN" "$T" Leaf BigLeaf --top 0
expect_eq "merge-paths: the text's first lines" "$(sed -n 1,3p "$D/tree.txt.out")" \
  "merged shortest paths from GC roots to 14 objects (weak referents excluded)
1 of them only through the referent of a soft, weak, final or phantom reference (--all-weak follows those)
1 no GC root reaches"
got=$(labels tree.txt | sed -n '1,4p;16,17p')
expect_eq "merge-paths: the text's labels (VIA -> CLASS @0xID, ● for the set, the GC roots)" "$got" \
  "Holder @$(idof R)  [GC root: JNI global]
.a -> java.lang.Object[] @$(idof A)
[0] -> ● Leaf @$(idof L1)
.next -> ● Leaf @$(idof L1b)
● Leaf @$(idof R2)  [GC root: JNI global]
● Leaf @$(idof TL)  [GC root: Java frame (thread \"t1\")]"
got=$(labels tree.txt | grep -o '● [^ ]* @0x[0-9a-f]*' | sed 's/.*@//' | paste -sd' ')
want=$(python3 -c 'import json, sys
print(" ".join(n["id"] for n in json.load(open(sys.argv[1]))["nodes"] if n["in_set"]))' "$D/tree.full.json")
expect_eq "merge-paths: the text's ● lines are the JSON's set members, in its order" "$got" "$want"
indent tree.txt tree.full.json
mp tree.txt2 "$HPROFAN" "$T" Leaf BigLeaf --top 2
got=$(grep '… ' "$D/tree.txt2.out" | awk '{ print $1 }' | paste -sd' ')
expect_eq "merge-paths --top 2: the more lines (R's: 5 ref objs; the roots': 1)" "$got" "5 1"
if grep -q '… 3 more objects$' "$D/tree.txt2.out" && grep -q '… 1 more GC root$' "$D/tree.txt2.out"; then
  ok "merge-paths --top 2: the more lines say how many they stand for"
else fail "merge-paths --top 2: the more lines" "$(grep '…' "$D/tree.txt2.out")"; fi

# ---- 2. long lists ------------------------------------------------------------
# mk FILE N: the list of N Nodes and the Tail
mk() {
  python3 - "$1" "$2" "$H" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[3])
from mkhprof import *
path, N = sys.argv[1], int(sys.argv[2])
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
node = d.load_class("Node"); d.class_dump(node, obj, [("next", OBJECT), ("n", INT)])
tail = d.load_class("Tail"); d.class_dump(tail, obj, [("dead", BOOLEAN)])
BASE = 0x10000000
d.next_id = BASE - 16                 # Node k: BASE + 16 k, the Tail BASE + 16 N
assert d.instance(node, [BASE + 16, 0]) == BASE
# the other Nodes' INSTANCE DUMP records as d.instance writes them (the
# first's), packed at once: a million in a fraction of the time
rec = struct.Struct(">BIIIIII").pack
assert d.sub[-1] == rec(0x21, BASE, 0, node, 8, BASE + 16, 0)
d.sub.extend(rec(0x21, BASE + 16 * k, 0, node, 8, BASE + 16 * (k + 1), k) for k in range(1, N))
d.next_id = BASE + 16 * (N - 1)
assert d.instance(tail, [1]) == BASE + 16 * N
d.root(BASE)
d.write(path)
PY
}
N=1000000
TAIL=$(printf '0x%x' $((0x10000000 + 16 * N)))
if mk "$D/list.hprof" $N; then
  for n in 20 21 200; do mk "$D/list$n.hprof" $n || fail merge-paths-build "cannot write the list of $n"; done
  mp list "$REL" "$D/list.hprof" Tail --json
  mp list.id "$REL" "$D/list.hprof" $TAIL --json
  mp list.node "$REL" "$D/list.hprof" Node --json
  mp list.txt "$REL" "$D/list.hprof" Tail
  ms=$(cat "$D/list.ms" "$D/list.id.ms" "$D/list.node.ms" "$D/list.txt.ms" | sort -n | tail -1)
  if [ "$ms" -le 10000 ]; then ok "merge-paths: a million-link list, each run in at most ${ms} ms"
  else fail "merge-paths: a million-link list in a few seconds" "the slowest run took $ms ms"; fi
  pycheck list $N <<'PY'
N = int(A)
node = lambda k: "0x%x" % (0x10000000 + 16 * k)
ns = d["nodes"]
keep = list(range(10)) + list(range(N - 9, N + 1))
check("the list's Tail: 1 object, a tree of N + 1 nodes from 1 root", [d["total"][k] for k in ("objects", "reached", "nodes", "roots")], [1, 1, N + 1, 1])
check("shown by its ends: Nodes 0-9, Nodes N-9 .. N-1, the Tail", [n["id"] for n in ns], [node(k) for k in keep])
check("Node N-9 after the gap: 999,981 elided, none of the set; no other gap",
      [(i, n.get("elided"), n.get("elided_in_set")) for i, n in enumerate(ns) if "elided" in n or "elided_in_set" in n], [(10, N + 1 - 20, 0)])
check("depth k at Node k, the parents the node before", [(n["depth"], n["parent"]) for n in ns], [(k, i - 1 if i else None) for i, k in enumerate(keep)])
tail = ns[-1]["shallow"] if ns else None
check("ref_objects 1, ref_shallow the Tail's at every node; the Tail alone in the set",
      [(n["ref_objects"], n["ref_shallow"], n["in_set"], n["children"]) for n in ns], [(1, tail, False, 1)] * 19 + [(1, tail, True, 0)])
check("the vias: .next", [n.get("via", {}).get("name") for n in ns], [None] + ["next"] * 19)
check("it adds up", adds_up(d, True), [])
PY
  expect_eq "merge-paths: the Tail's ID gives the Tail's tree" \
    "$(jget "$D/list.id.out" '[(n["id"], n.get("elided")) for n in d["nodes"]] == [(n["id"], n.get("elided")) for n in __import__("json").load(open("'"$D/list.out"'"))["nodes"]]')" true
  pycheck list.node $N <<'PY'
N = int(A)
node = lambda k: "0x%x" % (0x10000000 + 16 * k)
ns = d["nodes"]
keep = list(range(10)) + list(range(N - 10, N))
check("every Node: N objects reached, the tree N nodes (the Tail not in it)", [d["total"][k] for k in ("objects", "reached", "nodes", "roots")], [N, N, N, 1])
check("shown by its ends: Nodes 0-9, Nodes N-10 .. N-1", [n["id"] for n in ns], [node(k) for k in keep])
check("Node k leads to N - k objects (counted up a million deep)", [n["ref_objects"] for n in ns], [N - k for k in keep])
check("Node N-10 after the gap: 999,980 elided, all of the set", [(n.get("elided"), n.get("elided_in_set")) for n in ns[10:11]], [(N - 20, N - 20)])
check("total.shallow: N x the Node's", d["total"]["shallow"], N * (ns[0]["shallow"] if ns else 0))
check("it adds up", adds_up(d, True), [])
PY
  gap=$(grep -c "999,981 more" "$D/list.txt.out")
  last=$(tail -1 "$D/list.txt.out" | sed 's/^.*(depth/(depth/')
  expect_eq "merge-paths: the text: 21 lines of the list, one saying 999,981 left out, the Tail at depth N" \
    "$(labels list.txt | wc -l) $gap $last" "20 1 (depth $N) .next -> ● Tail @$TAIL"
  # the cut: a run of 21 whole, 22 by its ends; --full-path on 200 (the binary under test)
  mp list20 "$HPROFAN" "$D/list20.hprof" Tail --json
  mp list21 "$HPROFAN" "$D/list21.hprof" Tail --json
  mp list200 "$HPROFAN" "$D/list200.hprof" Tail --json
  mp list200.full "$HPROFAN" "$D/list200.hprof" Tail --json --full-path
  mp list200.txt "$HPROFAN" "$D/list200.hprof" Tail --full-path
  expect_eq "merge-paths: a run of 21 nodes whole, of 22 by its ends (2 left out), of 201 (181 left out)" \
    "$(jget "$D/list20.out" 'len(d["nodes"]), sum(n.get("elided", 0) for n in d["nodes"])') $(jget "$D/list21.out" 'len(d["nodes"]), [n.get("elided") for n in d["nodes"][10:11]]') $(jget "$D/list200.out" 'len(d["nodes"]), [n.get("elided") for n in d["nodes"][10:11]]')" \
    "(21, 0) (20, [2]) (20, [181])"
  pycheck list200.full 200 <<'PY'
M = int(A)
node = lambda k: "0x%x" % (0x10000000 + 16 * k)
check("--full-path: all 201 nodes (200 Nodes, the Tail), none left out", ([n["id"] for n in d["nodes"]], [n["depth"] for n in d["nodes"]], any("elided" in n for n in d["nodes"])),
      ([node(k) for k in range(M + 1)], list(range(M + 1)), False))
check("--full-path: it adds up", adds_up(d, True), [])
PY
  expect_eq "merge-paths --full-path: the text, a line a node" \
    "$(labels list200.txt | wc -l) $(grep -c 'more' "$D/list200.txt.out")" "201 0"
  rm -f "$D/list.hprof"
else
  fail merge-paths-build "cannot write the list of $N"
fi

# --max-nodes: a complete binary tree of 16,383 T objects (a GC root at its
# top), every one in the set: by default 200 nodes are opened (the rest of
# a run begun is finished: here there are none), the others added up in
# the "more" lines; 0 opens all; the counts add up either way
if python3 - "$D/btree.hprof" "$H" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
t = d.load_class("T"); d.class_dump(t, obj, fields=[("left", OBJECT), ("right", OBJECT)])
level = [d.instance(t, [0, 0]) for _ in range(1 << 13)]
while len(level) > 1:
    level = [d.instance(t, [level[i], level[i + 1]]) for i in range(0, len(level), 2)]
d.root(level[0])
d.write(sys.argv[1])
PY
then
  mp btree "$HPROFAN" "$D/btree.hprof" T --json
  mp btree.all "$HPROFAN" "$D/btree.hprof" T --json --max-nodes 0
  mp btree.txt "$HPROFAN" "$D/btree.hprof" T --max-nodes 7
  pycheck btree <<'PY'
check("--max-nodes (default 200): 200 nodes, truncated, the root's count the tree's",
      (len(d["nodes"]), d["truncated"], d["max_nodes"], d["nodes"][0]["ref_objects"], d["total"]["nodes"]), (200, True, 200, 16383, 16383))
check("--max-nodes: it adds up", adds_up(d), [])
PY
  pycheck btree.all <<'PY'
check("--max-nodes 0: every node, not truncated", (len(d["nodes"]), d["truncated"], d["max_nodes"]), (16383, False, 0))
check("--max-nodes 0: it adds up", adds_up(d, True), [])
PY
  expect_eq "merge-paths --max-nodes 7: 7 node lines, the more lines add up to the tree, the last line says so" \
    "$(grep -c ' -> \|GC root:' "$D/btree.txt.out") $(awk '/more object/ { gsub(",", "", $1); s += $1 } END { print s }' "$D/btree.txt.out") $(tail -1 "$D/btree.txt.out")" \
    "7 16376 (7 of the tree's 16,383 nodes shown, --max-nodes; the others are in the \"more\" lines: --max-nodes 0 shows all)"
else
  fail merge-paths-btree "cannot write the binary tree"
fi

# schema_check: the documents written so far against the schema
# (docs/hprofan.schema.json)
schema_check() {
  python3 -c 'import jsonschema' 2>/dev/null || {
    skip "merge-paths: the schema" "python3's jsonschema is absent (tests/cli/json_schema.sh checks the schema)"; return; }
  local docs=() n
  for n in tree tree.weak tree.top2 tree.ids tree.none list list.node list200.full jdk jdk.weak jdk.top1; do
    ran $n && docs+=("$D/$n.out")
  done
  python3 - "$ROOT/docs/hprofan.schema.json" "${docs[@]}" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
bad = []
for f in sys.argv[2:]:
    try:
        jsonschema.validate(json.load(open(f)), schema)
    except Exception as e:
        bad.append("%s: %s" % (f.split("/")[-1], str(e).splitlines()[0][:200]))
print(("ok merge-paths: the schema takes its %d documents" % (len(sys.argv) - 2)) if not bad else
      "FAIL merge-paths: the schema: %s" % "; ".join(bad[:3]))
PY
}

# ---- 3. a JDK 17 heap -------------------------------------------------------------
jdk_heap --all merge-paths "$ROOT/testdata/java/mergepaths/MergePaths.java" MergePaths "$D" || { schema_check; exit 0; }
F=$D/MergePaths.hprof
HI=$D/MergePaths.histo
item=$(awk '$4 == "MergePaths$Item" { print $3 / $2 }' "$HI")
items=$(awk '$4 == "MergePaths$Item" { print $2 }' "$HI")
payload=$(sed -n 's/^PAYLOAD=//p' "$D/MergePaths.out")
expect_eq "merge-paths: the program's Items (30 + 20 + 10 + 5 + 1), the histogram's" \
  "$(($(sed -n 's/^\(MAP\|LIST\|WEAK\|DROPPED\|THREAD\)=//p' "$D/MergePaths.out" | paste -sd+))) $items" "66 66"
# each Item's n: where the program put it
"$HPROFAN" sql "$F" --csv --quiet "SELECT printf('0x%x', id), field(id, 'n') FROM objects WHERE class = 'MergePaths\$Item'" |
  tail -n +2 | tr -d '\r' >"$D/items.csv"
mp jdk "$HPROFAN" "$F" 'MergePaths$Item' --json --top 0
mp jdk.weak "$HPROFAN" "$F" 'MergePaths$Item' --json --top 0 --all-weak
mp jdk.top1 "$HPROFAN" "$F" 'MergePaths$Item' --json --top 1
mp jdk.txt "$HPROFAN" "$F" 'MergePaths$Item'
mp jdk.txt1 "$HPROFAN" "$F" 'MergePaths$Item' --top 1
mp jdk.weak.txt "$HPROFAN" "$F" 'MergePaths$Item' --all-weak
# pyjdk NAME: pycheck with item, payload, n (id -> the Item's n), an id's
# subtree's set members' ns, the node of class MergePaths and its child by a
# static
pyjdk() {
  pycheck "$1" "$item $payload $D/items.csv" <<<"item, payload, csv = A.split()
item, payload = int(float(item)), int(payload)
n = {a: int(b) for a, b in (l.strip().split(',') for l in open(csv) if l.strip())}
ns = d['nodes']
def below(i):                       # the set members at or below node i (a whole tree: --top 0)
    out, j = [], i + 1
    if ns[i]['in_set']: out.append(n.get(ns[i]['id']))
    while j < len(ns) and ns[j]['depth'] > ns[i]['depth']:
        if ns[j]['in_set']: out.append(n.get(ns[j]['id']))
        j += 1
    return sorted(out)
cls = next((i for i, x in enumerate(ns) if x.get('class_object_of') == 'MergePaths'), None)
def static(name):
    return next((i for i, x in enumerate(ns) if cls is not None and x['parent'] == cls and x['via'].get('kind') == 'static' and x['via'].get('name') == name), None)
$(cat)"
}
pyjdk jdk <<'PY'
check("66 Items: 51 reached, 10 only weakly, 5 unreachable (the program, the histogram)",
      [d["total"][k] for k in ("objects", "reached", "only_weakly", "unreachable")] + [len(n)], [66, 51, 10, 5, 66])
check("total.shallow: 51 x the histogram's Item", d["total"]["shallow"], 51 * item)
check("it adds up", adds_up(d, True), [])
check("the set members in the tree: n = 0..29, 100..119, 500", sorted(n.get(x["id"]) for x in ns if x["in_set"]),
      list(range(30)) + list(range(100, 120)) + [500])
check("every node in the set an Item", sorted(set(x["class"] for x in ns if x["in_set"])), ["MergePaths$Item"])
c, m, l = cls, static("MAP"), static("LIST")
check("class MergePaths: 50 objects, 50 Items' bytes", (ns[c]["class"], ns[c]["ref_objects"], ns[c]["ref_shallow"]) if c is not None else None,
      ("java.lang.Class", 50, 50 * item))
check("via static MAP: a HashMap, 30, 30 Items' bytes, exactly n = 0..29",
      (ns[m]["class"], ns[m]["ref_objects"], ns[m]["ref_shallow"], below(m)) if m is not None else None,
      ("java.util.HashMap", 30, 30 * item, list(range(30))))
check("via static LIST: an ArrayList, 20, 20 Items' bytes, exactly n = 100..119",
      (ns[l]["class"], ns[l]["ref_objects"], ns[l]["ref_shallow"], below(l)) if l is not None else None,
      ("java.util.ArrayList", 20, 20 * item, list(range(100, 120))))
check("no WEAK below the class without --all-weak", static("WEAK"), None)
arr = 16 + payload + 7 & ~7
check("each Item: the histogram's shallow bytes, retained with its byte[%d] (%d)" % (payload, arr),
      sorted(set((x["shallow"], x["retained"], x["children"]) for x in ns if x["in_set"])), [(item, item + arr, 0)])
t = [x for x in ns if n.get(x["id"]) == 500]
check("the thread's Item: a start of its own, a Java frame's local of thread \"holder\"",
      [(x["parent"], x["in_set"], x["ref_objects"], x["gc_root"], x.get("thread")) for x in t], [(None, True, 1, ["java_frame"], "holder")])
check("the garbage and the weakly held in no tree", [v for k, v in n.items() if k in set(x["id"] for x in ns) and v >= 200 and v != 500], [])
PY
pyjdk jdk.weak <<'PY'
check("--all-weak: 61 reached, 0 only weakly, 5 unreachable", [d["total"][k] for k in ("objects", "reached", "only_weakly", "unreachable", "shallow")],
      [66, 61, 0, 5, 61 * item])
check("--all-weak: it adds up", (adds_up(d, True), d["weak_referents"]), ([], "followed"))
w = static("WEAK")
check("--all-weak: class MergePaths 60; via static WEAK a WeakReference[], 10, exactly n = 200..209",
      (ns[cls]["ref_objects"], ns[w]["class"], ns[w]["ref_objects"], ns[w]["ref_shallow"], below(w)) if w is not None else None,
      (60, "java.lang.ref.WeakReference[]", 10, 10 * item, list(range(200, 210))))
check("--all-weak: each weakly held Item by a WeakReference's referent",
      sorted(set((ns[x["parent"]]["class"], x["via"]["kind"], x["via"]["name"]) for x in ns if 200 <= n.get(x["id"], 0) < 210)),
      [("java.lang.ref.WeakReference", "field", "referent")])
check("--all-weak: the garbage in no tree", [n.get(x["id"]) for x in ns if n.get(x["id"], 0) >= 1000], [])
PY
pyjdk jdk.top1 <<'PY'
check("--top 1: it adds up (the more members)", adds_up(d), [])
c = next((x for x in ns if x.get("class_object_of") == "MergePaths"), {})
check("--top 1: class MergePaths: MAP shown, LIST in its more; the thread's Item the document's",
      ([x["via"]["name"] for x in ns if x["parent"] is not None and x["parent"] == ns.index(c)] if c else None, c.get("more"), d.get("more")),
      (["MAP"], {"nodes": 1, "ref_objects": 20, "ref_shallow": 20 * item, "shallow": c.get("more", {}).get("shallow")},
       {"nodes": 1, "ref_objects": 1, "ref_shallow": item, "shallow": item}))
mores = sorted([x["more"]["ref_objects"] for x in ns if "more" in x] + ([d["more"]["ref_objects"]] if "more" in d else []))
print("MORES " + " ".join(map(str, mores)), file=open(csv + ".mores", "w"))
PY
# each set member's branch is path's first path (ids, vias, GC root); path
# on the weakly held and the garbage
python3 - "$REL" "$F" "$D/jdk.out" "$D/jdk.weak.out" "$D/items.csv" <<'PY'
import json, subprocess, sys
hp, f = sys.argv[1], sys.argv[2]
n = {a: int(b) for a, b in (l.strip().split(",") for l in open(sys.argv[5]) if l.strip())}
def path(oid, *more):
    p = subprocess.run([hp, "path", f, oid, "--top", "1", "--json", "--quiet"] + list(more), capture_output=True, text=True)
    return json.loads(p.stdout) if p.returncode == 0 else {"rc": p.returncode, "err": p.stderr[:200]}
def branches(doc):
    ns = json.load(open(doc))["nodes"]
    out = {}
    for i, x in enumerate(ns):
        if not x["in_set"]:
            continue
        chain, j = [], i
        while j is not None:
            y = ns[j]
            chain.append({k: y[k] for k in ("id", "via", "gc_root") if k in y})
            j = y["parent"]
        out[x["id"]] = chain[::-1]
    return out
for doc, flags, what, want in ((sys.argv[3], [], "", 51), (sys.argv[4], ["--all-weak"], " --all-weak", 61)):
    b = branches(doc)
    bad = []
    for oid, chain in sorted(b.items()):
        if flags and not 200 <= n[oid] < 210:
            continue               # (the others: above)
        p = path(oid, *flags)
        steps = [{k: s[k] for k in ("id", "via", "gc_root") if k in s} for s in (p.get("paths") or [{"steps": []}])[0]["steps"]]
        if steps != chain:
            bad.append((n[oid], chain, steps))
    print(("ok merge-paths: each set member's branch (%s) is path%s's first path" % ("the 10 weakly held of 61" if flags else "51", what)) if not bad and len(b) == want else
          "FAIL merge-paths: the branches are path%s's: %d set members, want %d; %r" % (what, len(b), want, bad[:1]))
bad = []
for oid, v in sorted(n.items()):
    if 200 <= v < 210:
        p = path(oid)
        if p.get("reachable") is not False or path(oid, "--all-weak").get("reachable") is not True:
            bad.append((v, p))
    if v >= 1000 and path(oid, "--all-weak").get("reachable") is not False:
        bad.append((v, "reached"))
print("ok merge-paths: path: the 10 weakly held need --all-weak, the 5 dropped have no path" if not bad else
      "FAIL merge-paths: path on the weakly held and the garbage: %r" % bad[:2])
# path's text tells the two apart (the garbage: no path even through a weak referent)
def last_line(oid):
    p = subprocess.run([hp, "path", f, oid, "--quiet"], capture_output=True, text=True)
    return p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr
said = sorted(set((v // 100 * 100 if v < 1000 else 1000, last_line(oid)) for oid, v in n.items() if 200 <= v < 210 or v >= 1000))
want = [(200, "no GC root reaches it without going through the referent of a soft, weak, final or phantom reference (--all-weak follows those)"),
        (1000, "no GC root reaches it")]
print("ok merge-paths: path's text: the weakly held need --all-weak, the garbage has no path at all" if said == want else
      "FAIL merge-paths: path's text on the weakly held and the garbage: %r" % said[:3])
PY
# the text
expect_eq "merge-paths: the text's first lines" "$(sed -n 1,3p "$D/jdk.txt.out")" \
  "merged shortest paths from GC roots to 66 objects (weak referents excluded)
10 of them only through the referent of a soft, weak, final or phantom reference (--all-weak follows those)
5 no GC root reaches"
expect_eq "merge-paths --all-weak: the text's first lines" "$(sed -n 1,2p "$D/jdk.weak.txt.out")" \
  "merged shortest paths from GC roots to 66 objects (weak referents followed)
5 no GC root reaches"
map=$(jget "$D/jdk.out" '[x["id"] for x in d["nodes"] if x.get("via", {}).get("name") == "MAP"]' | tr -d "[]'")
mine=$(awk -F, '$2 == 500 { print $1 }' "$D/items.csv")
expect_eq "merge-paths: the text: static MAP -> the HashMap; the thread's Item a GC root" \
  "$(labels jdk.txt | grep -c "^static MAP -> java.util.HashMap @$map$") $(labels jdk.txt | grep -c "^● MergePaths\$Item @$mine  \[GC root: Java frame (thread \"holder\")\]$")" "1 1"
expect_eq "merge-paths: the text's ● lines (--top 10: 10 below MAP's table, 10 below LIST's, the thread's)" \
  "$(labels jdk.txt | grep -c '● MergePaths\$Item @')" 21
got=$(grep '… ' "$D/jdk.txt1.out" | awk '{ print $1 }' | tr -d , | sort -n | paste -sd' ')
expect_eq "merge-paths --top 1: the text's more lines are the JSON's" "MORES $got" "$(cat "$D/items.csv.mores" 2>/dev/null)"
# bad input
"$HPROFAN" merge-paths "$F" 'MergePaths$Itme' --quiet >/dev/null 2>"$D/e.txt"
rc=$?
[ $rc = 1 ] && grep -q "no class named 'MergePaths\$Itme'.*did you mean 'MergePaths\$Item'" "$D/e.txt" &&
  ok "merge-paths: a class no dump has: the nearest, exit 1" || fail "merge-paths: a class no dump has" "exit $rc: $(cat "$D/e.txt")"
"$HPROFAN" merge-paths "$F" 0x1234 --quiet >/dev/null 2>"$D/e.txt"
rc=$?
[ $rc = 1 ] && grep -q "no object 0x1234" "$D/e.txt" && ok "merge-paths: an ID no object has: exit 1" ||
  fail "merge-paths: an ID no object has" "exit $rc: $(cat "$D/e.txt")"
"$HPROFAN" merge-paths "$F" --quiet >/dev/null 2>"$D/e.txt"
rc=$?
[ $rc = 2 ] && grep -q "hprofan merge-paths FILE CLASS|ID" "$D/e.txt" && ok "merge-paths: without CLASS or ID: exit 2" ||
  fail "merge-paths: without CLASS or ID" "exit $rc: $(cat "$D/e.txt")"
schema_check
