#!/usr/bin/env bash
# Retained sizes against VisualVM's and NetBeans' heap libraries,
# object by object where they print them, with --weak=skip --roots=all and
# their size models:
#   --size-model=visualvm: VisualVM 2.1.5 (lib.jfluid.heap): header = id +
#     reference size (inferred as VisualVM does), instance = align8(header +
#     the fields of the whole class chain), arrays = align8(header + 4 +
#     n*elem), class objects outside every total;
#   --size-model=netbeans: the older NetBeans library: header = 2 ids,
#     references at the id size, arrays = header + 8 + n*elem, no alignment.
# Both models also make the dominator tree VisualVM's (retained.h): referents
# and unreachable objects share what they reference, classes do not hold
# their super class, an instance can hold its class, and VisualVM's "tree
# objects" rules (a class object's own size counts only inside a tree
# object, a GC root can count in its one referrer).
#
# Checks (tests/cli/golden_retained.py does the comparing):
#  - expected/golden-logs/visualvm-small_heap.bin.log.txt (visualvm) and
#    netbeans-hprof-64.bin.log.txt (netbeans): classes, live instances and
#    bytes, every class's instance count, instance size and all-instances
#    size, and the retained size of every instance and array (2,208; 7,788);
#  - expected/*.vvm.json (visualvm; eleven dumps): the reference size
#    inferred, totals, reachable and unreachable bytes, every class's
#    shallow and retained bytes and instance size, the 50 objects with the
#    largest retained size (class, retained, shallow, and that no other
#    object retains more), the threads' shallow and retained sizes;
#  - the corpus README's figures: small_heap (VisualVM HeapTest), hprof-64
#    (NetBeans HeapTest), tokuhirom's test objects (netbeans sizes: its
#    figures are unaligned, with a 16-byte header and 8-byte array overhead).
# Known differences are listed in golden_retained.py (KNOWN), each with its
# reason; one that stops showing up fails too.  Today the only one: VisualVM
# prints java.lang.Class's instance size as a class object's shallow size
# (and counts it nowhere), hprofan's visualvm model gives class objects 0.
#
# Not checked: Eclipse MAT's "the retained set of all 492 Strings of
# sun_jdk5_64bit.hprof has 963 objects" needs the retained set of a set of
# objects (remove them, see what else becomes unreachable), which hprofan
# has no command for; it is not derivable from the dominator tree.
. "$(dirname "$0")/../lib.sh"
have_corpus golden-retained || exit 0
command -v python3 >/dev/null 2>&1 || { skip golden-retained "python3 is absent"; exit 0; }
PY=$(dirname "$0")/golden_retained.py
G=$CORPUS/expected/golden-logs
COMMON=(--weak=skip --roots=all --quiet)

# runs: NAME MODEL DUMP -> $TMPD/NAME.{info,top,dom,roots}
runs=$TMPD/runs
: > "$runs"
add() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$runs"; }

add small_heap.visualvm visualvm oracle__visualvm/small_heap.bin
add hprof-64.netbeans netbeans agourlay__hprof-slurp/hprof-64.bin
for j in "$CORPUS"/expected/*.vvm.json; do
  [ -f "$j" ] || continue
  b=$(basename "$j" .vvm.json) dump=
  for d in "$CORPUS"/*/; do
    d=$(basename "$d")
    case $b in "${d}_"*) dump=$d/${b#"${d}_"} ;; esac
  done
  if [ -z "$dump" ] || [ ! -f "$CORPUS/$dump" ]; then
    fail "golden-retained $b" "no dump for $(basename "$j")"; continue
  fi
  [ "$dump" = oracle__visualvm/small_heap.bin ] || add "$b.visualvm" visualvm "$dump"
done

# The whole dominator tree where every object is compared (the golden logs);
# elsewhere the 50 largest children of each object, at a quarter of the cost:
# that holds the 50 largest objects of the heap, since each is among the 50
# largest of its siblings and so are its dominators, which retain more (under
# VisualVM's rules not always: what a tree class object holds counts nowhere
# above it, so an object under a small one could be missed; a listed object
# missed fails, an unlisted one would go unseen).  The threads' sizes come
# from `roots`, which lists every GC root.
one() {   # NAME MODEL DUMP
  local n=$1 m=$2 f=$CORPUS/$3 rc=0 top=50
  case $n in small_heap.visualvm|hprof-64.netbeans) top=0 ;; esac
  run_hp "$TMPD/$n.info" "$TMPD/$n.ierr" info "$f" --json --size-model="$m" --quiet || rc=$?
  [ $rc = 0 ] && { run_hp "$TMPD/$n.top" "$TMPD/$n.terr" "$f" --top 0 --json --size-model="$m" "${COMMON[@]}" || rc=$?; }
  [ $rc = 0 ] && { run_hp "$TMPD/$n.dom" "$TMPD/$n.derr" dominators "$f" --top $top --depth 1000 --json \
                     --size-model="$m" "${COMMON[@]}" || rc=$?; }
  [ $rc = 0 ] && [ "$m" = visualvm ] && { run_hp "$TMPD/$n.roots" "$TMPD/$n.rerr" roots "$f" --top 0 --json \
                     --size-model="$m" "${COMMON[@]}" || rc=$?; }
  echo $rc > "$TMPD/$n.rc"
}
while IFS=$'\t' read -r n m f; do
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
  one "$n" "$m" "$f" &
done < "$runs"
TOKU="empty:Object1=16 int:Object1=20 object:Object1=66,Object2=42 recursion:Object1=48,Object2=24 string:Object1=24 bytearray:Object1=53"
for t in $TOKU; do
  k=${t%%:*}
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
  ( run_hp "$TMPD/toku.$k.top" "$TMPD/toku.$k.err" "$CORPUS/tokuhirom__heapdump/${k}__heapdump.hprof" \
      --top 0 --json --size-model=netbeans --filter '^Object[12]$' "${COMMON[@]}"; echo $? > "$TMPD/toku.$k.rc" ) &
done
wait

ran() {   # NAME: its runs succeeded, else one FAIL line
  local rc
  rc=$(cat "$TMPD/$1.rc" 2>/dev/null || echo none)
  [ "$rc" = 0 ] && return 0
  fail "golden-retained $1" "hprofan exited $rc: $(cat "$TMPD/$1".?err 2>/dev/null | head -c 300)"
  return 1
}

if ran small_heap.visualvm; then
  s=$TMPD/small_heap.visualvm
  python3 "$PY" log "visualvm-log small_heap.bin" "$G/visualvm-small_heap.bin.log.txt" "$s.info" "$s.top" "$s.dom"
  python3 "$PY" vvm "vvm small_heap.bin" "$CORPUS/expected/oracle__visualvm_small_heap.bin.vvm.json" \
    "$s.info" "$s.top" "$s.dom" "$s.roots"
  # VisualVM's HeapTest
  python3 "$PY" figs "VisualVM-HeapTest small_heap.bin" "$s.dom" "$s.top" "$s.info" \
    live_objects=2208 live_bytes=140120 top_retained=66544,25080 \
    java.lang.String=17864 java.util.HashMap=11712 java.util.ArrayList=600
fi
if ran hprof-64.netbeans; then
  s=$TMPD/hprof-64.netbeans
  python3 "$PY" log "netbeans-log hprof-64.bin" "$G/netbeans-hprof-64.bin.log.txt" "$s.info" "$s.top" "$s.dom"
  # NetBeans' HeapTest (sizes without alignment)
  python3 "$PY" figs "NetBeans-HeapTest hprof-64.bin" "$s.dom" "$s.top" "$s.info" \
    live_objects=7788 live_bytes=2635552 top_retained=52283,52082 \
    java.lang.String=82026 java.util.HashMap=39703 java.util.ArrayList=792
fi
while IFS=$'\t' read -r n m f; do
  case $n in small_heap.*|hprof-64.netbeans) continue ;; esac
  ran "$n" || continue
  b=${n%.visualvm}
  python3 "$PY" vvm "vvm $f" "$CORPUS/expected/$b.vvm.json" "$TMPD/$n.info" "$TMPD/$n.top" "$TMPD/$n.dom" \
    "$TMPD/$n.roots"
done < "$runs"
for t in $TOKU; do
  k=${t%%:*}
  rc=$(cat "$TMPD/toku.$k.rc")
  if [ "$rc" != 0 ]; then
    fail "golden-retained tokuhirom $k" "hprofan exited $rc: $(head -c 300 "$TMPD/toku.$k.err")"; continue
  fi
  # shellcheck disable=SC2046
  python3 "$PY" toku "tokuhirom ${k}__heapdump.hprof" "$TMPD/toku.$k.top" $(echo "${t#*:}" | tr ',' ' ')
done
