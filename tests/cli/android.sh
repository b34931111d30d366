#!/usr/bin/env bash
# The Android dump (1.0.3, heaps zygote/app) against the figures Android
# Studio's perflib tests assert (../shared/corpus/README.md):
#   app heap 38 classes / 1,406 instances; zygote 3,533 / 38,710;
#   byte[] 1,406 instances / 681,489 bytes summed over the heaps (elements only,
#   ahat's size model, hprofan's default for Android); int[][] 37; String[] 1,396;
#   11,182 GC roots plus 11 thread-object roots;
# --heap filtering; and the same dump after Android's hprof-conv (1.0.2, no
# heap info, Android roots turned into ROOT UNKNOWN) must give the same classes
# and objects: VisualVM says 3,571 classes, 40,116 objects (1,406 app + 38,710
# zygote), 11,193 roots.  The conversion is recognised as one (ART's classes)
# and read as Android: ahat's model by default, so the same per-class bytes as
# the original, and its objects in one heap, "default", as ahat reads it (the
# converter dropped the heap records).
. "$(dirname "$0")/../lib.sh"
have_corpus android || exit 0
command -v python3 >/dev/null 2>&1 || { skip android "python3 is absent"; exit 0; }
A=$CORPUS/tadfisher__platform_tools_base/dialer.android-hprof
V=$CORPUS/tadfisher__platform_tools_base/dialer.hprof-conv.hprof

bg() {   # bg NAME ARGS... : hprofan in the background, exit code in NAME.rc
  local name=$1; shift
  ( run_hp "$TMPD/$name" "$TMPD/$name.err" "$@"; echo $? > "$TMPD/$name.rc" ) &
}
bg a.info info "$A" --json --quiet
bg a.top "$A" --top 0 --json --quiet --fast
bg a.app "$A" --top 0 --json --quiet --fast --heap app
bg a.zyg "$A" --top 0 --json --quiet --fast --heap zygote
bg a.bad "$A" --top 0 --json --quiet --fast --heap nosuch
bg v.info info "$V" --json --quiet
bg v.top "$V" --top 0 --json --quiet --fast
bg v.ahat "$V" --top 0 --json --quiet --fast --size-model=ahat
wait

for n in a.info a.top a.app a.zyg v.info v.top v.ahat; do
  rc=$(cat "$TMPD/$n.rc")
  [ "$rc" = 0 ] || fail "android run $n" "exit $rc: $(head -c 300 "$TMPD/$n.err")"
done
expect_eq "android --heap nosuch: usage error" "$(cat "$TMPD/a.bad.rc")" 2

python3 - "$TMPD" <<'PY'
import json, sys, collections
T = sys.argv[1]
def load(n):
    try:
        return json.load(open('%s/%s' % (T, n)))
    except Exception as e:
        print('FAIL android read %s: %s' % (n, e)); return None
ai, at, aa, az, vi, vt, va = (load(n) for n in ('a.info', 'a.top', 'a.app', 'a.zyg', 'v.info', 'v.top', 'v.ahat'))
def eq(label, got, want):
    print(('ok android %s' % label) if got == want else 'FAIL android %s: got %r, want %r' % (label, got, want))
def by_class(top, heap=None):
    r = collections.defaultdict(lambda: [0, 0])
    for c in top['classes']:
        if heap is None or c.get('heap') == heap:
            r[c['class']][0] += c['instances']; r[c['class']][1] += c['shallow']
    return r

if ai:
    heaps = {h['name']: (h['classes'], h['instances']) for h in ai['heaps']}
    eq('heaps (classes, instances) as perflib', heaps, {'app': (38, 1406), 'zygote': (3533, 38710)})
    roots = ai['gc_roots']
    eq('GC roots 11,182 + 11 thread objects',
       (roots['total'] - roots['by_kind'].get('thread_object', 0), roots['by_kind'].get('thread_object')),
       (11182, 11))
    eq('size model is ahat', ai['size_model']['name'], 'ahat')
if at:
    c = by_class(at)
    eq('byte[] over both heaps: 1,406 / 681,489 bytes', tuple(c['byte[]']), (1406, 681489))
    eq('int[][] instances', c['int[][]'][0], 37)
    eq('java.lang.String[] instances', c['java.lang.String[]'][0], 1396)
    eq('every row has a heap (app or zygote)', sorted({x.get('heap') for x in at['classes']}), ['app', 'zygote'])
for label, t, heap, want in (('app', aa, 'app', (38, 1406)), ('zygote', az, 'zygote', (3533, 38710))):
    if not (t and at):
        continue
    eq('--heap %s: only %s rows' % (label, heap), sorted({x.get('heap') for x in t['classes']}), [heap])
    jlc = sum(x['instances'] for x in t['classes'] if x['class'] == 'java.lang.Class')
    eq('--heap %s: (classes, instances)' % label, (jlc, t['total']['instances'] - jlc), want)
    eq('--heap %s: rows equal the %s rows of the unfiltered run' % (label, heap),
       sorted((x['class'], x['instances'], x['shallow']) for x in t['classes']),
       sorted((x['class'], x['instances'], x['shallow']) for x in at['classes'] if x['heap'] == heap))
if aa and az and at:
    eq('--heap app + --heap zygote = all', aa['total']['shallow'] + az['total']['shallow'], at['total']['shallow'])

# hprof-conv: the same classes and objects, no heap split
if vi:
    o = vi['objects']
    eq('converted: VisualVM classes / objects / roots', (vi['classes']['dumped'], o['total'] - o['classes'], vi['gc_roots']['total']),
       (3571, 40116, 11193))
    eq('converted: recognised, one heap "default" in info',
       (vi['flavour'], [(x['name'], x['objects'] - x['classes'], x['classes']) for x in vi.get('heaps', [])]),
       ('Android ART, converted by hprof-conv', [('default', 40116, 3571)]))
if vi and ai:
    eq('converted: same object counts as the original', vi['objects'], dict(ai['objects'], shallow=vi['objects']['shallow']))
    k = dict(ai['gc_roots']['by_kind'])
    k['unknown'] = sum(k.pop(x, 0) for x in ('interned_string', 'finalizing', 'debugger', 'unknown'))
    eq('converted: Android root kinds became unknown, the rest unchanged', vi['gc_roots']['by_kind'], k)
if vt and at:
    eq('converted: every --top row in heap default', {x.get('heap') for x in vt['classes']}, {'default'})
    eq('converted: ahat by default, the same total bytes as the original',
       (vt['size_model']['name'], vt['total']['shallow']), ('ahat', at['total']['shallow']))
    a, v = by_class(at), by_class(vt)
    eq('converted: same per-class instance counts (%d classes)' % len(a),
       {n: x[0] for n, x in v.items()}, {n: x[0] for n, x in a.items()})
if va and at:
    a, v = by_class(at), by_class(va)
    eq('converted --size-model=ahat: same per-class bytes as the original', dict(v), dict(a))
PY
