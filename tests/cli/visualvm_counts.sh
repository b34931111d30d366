#!/usr/bin/env bash
# Counts against VisualVM 2.1.5's heap library (../shared/corpus/expected/
# <folder>_<file>.vvm.json): class_count, total_instances, gc_roots.total and
# gc_roots.by_kind against `hprofan info --json`, and every class's instance
# count against `hprofan FILE --top 0 --json` (summed by name: VisualVM lists
# same-named classes of different loaders separately).
#
# Mapping: VisualVM's instances exclude class objects (hprofan: objects.total -
# objects.classes); its java.lang.Class row holds only real java.lang.Class
# INSTANCE DUMPs (the 9 primitive-type mirrors newer HotSpots write), while
# hprofan's java.lang.Class row also holds the class objects (CLASS DUMPs);
# root kinds "JNI global" -> jni_global etc.
#
# Shallow sizes are not compared here: hprofan's default model for HotSpot
# is MAT's, which differs from VisualVM's (MAT aligns every level of the class
# chain to the reference size and a primitive array's header to it: e.g.
# ClassC in sun_jdk6_18_x32, Constructor in hprof-64.bin). VisualVM's model
# (header = id size + oop size, instance = align8(header + the fields of the
# whole class chain), arrays = align8(header + 4 + n*elem), class objects in
# no total) is --size-model=visualvm, and tests/cli/golden_retained.sh checks
# its shallow and retained sizes against the same expected/*.vvm.json files.
. "$(dirname "$0")/../lib.sh"
have_corpus visualvm-counts || exit 0
command -v python3 >/dev/null 2>&1 || { skip visualvm-counts "python3 is absent"; exit 0; }

# expected/<folder>_<file>.vvm.json -> <folder>/<file> (folders are owner__repo)
list=$TMPD/list
: > "$list"
for j in "$CORPUS"/expected/*.vvm.json; do
  [ -f "$j" ] || continue
  b=$(basename "$j" .vvm.json) dump=
  for d in "$CORPUS"/*/; do
    d=$(basename "$d")
    case $b in "${d}_"*) dump=$d/${b#"${d}_"} ;; esac
  done
  if [ -z "$dump" ] || [ ! -f "$CORPUS/$dump" ]; then
    fail "visualvm $b" "no dump for $(basename "$j")"; continue
  fi
  printf '%s\t%s\t%s\n' "$b" "$j" "$dump" >> "$list"
done
[ -s "$list" ] || { skip visualvm-counts "no expected/*.vvm.json"; exit 0; }

# two hprofan runs per dump, a few at a time
while IFS=$'\t' read -r b j dump; do
  while [ "$(jobs -rp | wc -l)" -ge 4 ]; do wait -n; done
  ( run_hp "$TMPD/$b.info" "$TMPD/$b.ierr" info "$CORPUS/$dump" --json --quiet; echo $? > "$TMPD/$b.irc" ) &
  ( run_hp "$TMPD/$b.top" "$TMPD/$b.terr" "$CORPUS/$dump" --top 0 --json --quiet --fast; echo $? > "$TMPD/$b.trc" ) &
done < "$list"
wait

while IFS=$'\t' read -r b j dump; do
  for k in i t; do
    rc=$(cat "$TMPD/$b.${k}rc")
    [ "$rc" = 0 ] || fail "visualvm $dump ($k)" "exit $rc: $(head -c 300 "$TMPD/$b.${k}err")"
  done
  [ "$(cat "$TMPD/$b.irc")$(cat "$TMPD/$b.trc")" = 00 ] || continue
  python3 - "$j" "$TMPD/$b.info" "$TMPD/$b.top" "$dump" <<'PY'
import collections, json, sys
vf, inf, tf, label = sys.argv[1:5]
vv, info, top = (json.load(open(f)) for f in (vf, inf, tf))
def eq(name, got, want):
    print(('ok visualvm %s %s' % (label, name)) if got == want
          else 'FAIL visualvm %s %s: got %r, want %r' % (label, name, got, want))
o = info['objects']
eq('class_count %d' % vv['class_count'], info['classes']['dumped'], vv['class_count'])
eq('total_instances %d' % vv['total_instances'], o['total'] - o['classes'], vv['total_instances'])
eq('gc_roots.total %d' % vv['gc_roots']['total'], info['gc_roots']['total'], vv['gc_roots']['total'])
kinds = {k.lower().replace(' ', '_'): n for k, n in vv['gc_roots']['by_kind'].items()}
eq('gc_roots.by_kind', info['gc_roots']['by_kind'], kinds)
if vv.get('classes'):
    want = collections.Counter()
    for c in vv['classes']:
        want[c['name']] += c['instances']
    got = collections.Counter()
    for c in top['classes']:
        got[c['class']] += c['instances']
    got['java.lang.Class'] -= info['classes']['dumped']
    want, got = +want, +got          # drop zero counts
    diff = sorted((k, got[k], want[k]) for k in set(want) | set(got) if got[k] != want[k])
    eq('per-class instances (%d classes with instances)' % len(want), diff, [])
PY
done < "$list"
