#!/usr/bin/env bash
# hprof-32.bin and hprof-64.bin: record and root counts against hprof-slurp's
# expected output (../shared/corpus/expected/hprof-slurp/*-result.txt):
# UTF-8 strings, classes loaded/unloaded, stack traces and frames, the other
# top-level records, the number of heap dumps, the total of heap-dump
# sub-records ("segments" in hprof-slurp's words), each GC root kind and each
# object dump kind, and the dump's timestamp.
# Not compared: hprof-slurp's sizes (its own "raw shallow" model: 2 x id +
# fields, aligned to 8) and its thread list (stack traces with frames).
. "$(dirname "$0")/../lib.sh"
have_corpus slurp || exit 0
command -v python3 >/dev/null 2>&1 || { skip slurp "python3 is absent"; exit 0; }

for b in 32 64; do
  dump=$CORPUS/agourlay__hprof-slurp/hprof-$b.bin
  want=$CORPUS/expected/hprof-slurp/hprof-$b-result.txt
  if ! run_hp "$TMPD/i$b.json" "$TMPD/e$b" info "$dump" --json --quiet; then
    fail "slurp hprof-$b" "exit $?: $(head -c 300 "$TMPD/e$b")"
    continue
  fi
  python3 - "$want" "$TMPD/i$b.json" "hprof-$b" <<'PY'
import json, re, sys
want, js, label = sys.argv[1:4]
d = json.load(open(js))
rec, sub, roots = d['records'], d['subrecords'], d['gc_roots']['by_kind']
# hprof-slurp's summary line -> what hprofan says
top = {
    'UTF-8 Strings': rec.get('STRING', 0),
    # hprof-64.bin holds 531 LOAD CLASS records for 474 distinct class ids;
    # hprof-slurp counts classes (by id), as does hprofan's classes.loaded
    'Classes loaded': d['classes']['loaded'],
    'Classes unloaded': rec.get('UNLOAD CLASS', 0),
    'Stack traces': rec.get('STACK TRACE', 0),
    'Stack frames': rec.get('STACK FRAME', 0),
    'Start threads': rec.get('START THREAD', 0),
    'Allocation sites': rec.get('ALLOC SITES', 0),
    'End threads': rec.get('END THREAD', 0),
    'Control settings': rec.get('CONTROL SETTINGS', 0),
    'CPU samples': rec.get('CPU SAMPLES', 0),
    'Heap summaries': rec.get('HEAP SUMMARY', 0),
}
gc = {
    'GC root unknown': ('unknown', 'ROOT UNKNOWN'),
    'GC root thread objects': ('thread_object', 'ROOT THREAD OBJECT'),
    'GC root JNI global': ('jni_global', 'ROOT JNI GLOBAL'),
    'GC root JNI local': ('jni_local', 'ROOT JNI LOCAL'),
    'GC root Java frame': ('java_frame', 'ROOT JAVA FRAME'),
    'GC root native stack': ('native_stack', 'ROOT NATIVE STACK'),
    'GC root sticky class': ('sticky_class', 'ROOT STICKY CLASS'),
    'GC root thread block': ('thread_block', 'ROOT THREAD BLOCK'),
    'GC root monitor used': ('monitor_used', 'ROOT MONITOR USED'),
    'GC primitive array dump': (None, 'PRIMITIVE ARRAY DUMP'),
    'GC object array dump': (None, 'OBJECT ARRAY DUMP'),
    'GC class dump': (None, 'CLASS DUMP'),
    'GC instance dump': (None, 'INSTANCE DUMP'),
}
def eq(name, got, want):
    print(('ok slurp %s %s: %s' % (label, name, want)) if got == want
          else 'FAIL slurp %s %s: got %r, want %r' % (label, name, got, want))
seen = set()
for line in open(want):
    line = line.rstrip('\r\n')
    m = re.match(r'^Dump captured at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) UTC\.$', line)
    if m:
        eq('timestamp', d['timestamp'][:19], m.group(1) + 'T' + m.group(2)); seen.add('ts')
    m = re.match(r'^([A-Za-z0-9 -]+): (\d+)$', line)
    if m and m.group(1) in top:
        eq(m.group(1), top[m.group(1)], int(m.group(2))); seen.add(m.group(1))
    m = re.match(r'^(\d+) heap dumps containing in total (\d+) segments:$', line)
    if m:
        eq('heap dumps', len(d['dumps']), int(m.group(1)))
        eq('heap dump sub-records', sum(sub.values()), int(m.group(2))); seen.add('dumps')
    m = re.match(r'^\.\.(GC [A-Za-z ]+): (\d+)$', line)
    if m and m.group(1) in gc:
        key, tag = gc[m.group(1)]
        n = int(m.group(2))
        got = sub.get(tag, 0) if key is None else (roots.get(key, 0), sub.get(tag, 0))
        eq(m.group(1), got, n if key is None else (n, n)); seen.add(m.group(1))
missing = set(top) | set(gc) | {'ts', 'dumps'}
eq('summary lines all found', sorted(missing - seen), [])
PY
done
