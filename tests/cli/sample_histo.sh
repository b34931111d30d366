#!/usr/bin/env bash
# The project's sample dump (testdata/hprof/leakycache.hprof.gz, JDK 17,
# compressed oops) against the JVM's own histogram of the same process
# (leakycache.histo.txt, `jmap -histo:live` taken just before the dump).
# Every histogram class is compared, count and bytes; every difference is
# listed below with its reason (hprofan minus jmap), and an unlisted or a
# stale one fails.  See testdata/README.md.
#
# Under the default size model (vm: HotSpot's own sizes, from the gaps between
# object addresses and the JDK 15+ field layout) only the timing differences
# remain.  Under --size-model=mat (Eclipse MAT's) the size differences come
# from what HPROF cannot show and from MAT's model:
#  - VM-injected fields are not in a CLASS DUMP (MemberName.vmindex,
#    ResolvedMethodName.vmtarget/vmholder, Module.module_entry,
#    ClassLoader.loader_data): jmap's instances are larger;
#  - @Contended("tlr") padding of java.lang.Thread's ThreadLocalRandom fields
#    (2 x 128 bytes) is invisible in HPROF;
#  - JDK 15+ lays out fields across the class hierarchy (a subclass's fields
#    fill the gap at the end of its superclass's), MAT's model aligns every
#    level to the reference size: hprofan is 8 bytes larger for these classes;
#  - java.lang.Class: hprofan sizes a class object as its static field bytes
#    (MAT's convention), jmap counts the mirror's real size.
# If the sample is regenerated, per-instance deltas stay, counts may move:
# update this list together with the dump (testdata/README.md).
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip sample-histo "python3 is absent"; exit 0; }
dump=$TESTDATA/hprof/leakycache.hprof.gz
histo=$TESTDATA/hprof/leakycache.histo.txt

if ! run_hp "$TMPD/top.json" "$TMPD/err" "$dump" --top 0 --json --quiet --fast; then
  fail "sample-histo" "exit $?: $(head -c 300 "$TMPD/err")"
  exit 0
fi
if ! run_hp "$TMPD/mat.json" "$TMPD/err" "$dump" --top 0 --json --quiet --fast --size-model=mat; then
  fail "sample-histo mat" "exit $?: $(head -c 300 "$TMPD/err")"
  exit 0
fi

# name | count delta | bytes: per=N (per instance, counts equal), bytes=N (total) or bytes=*
cat > "$TMPD/allow.vm" <<'EOF'
reason: the attach mechanism ran between histogram and dump (testdata/README.md)
int[]                                                  +1  bytes=+80
jdk.internal.ref.CleanerImpl$PhantomCleanableRef       -1  per=0
java.lang.invoke.MethodHandleNatives$CallSiteContext   -1  bytes=-32
EOF
cp "$TMPD/allow.vm" "$TMPD/allow"
cat >> "$TMPD/allow" <<'EOF'
reason: MAT's class-object size (static field bytes) is not the JVM's mirror size; 918 CLASS DUMPs + 9 primitive-type mirrors (INSTANCE DUMPs) = 927 as in jmap
java.lang.Class                                         0  bytes=*
reason: VM-injected fields are not in HPROF (MemberName.vmindex)
java.lang.invoke.MemberName                             0  per=-8
reason: VM-injected fields are not in HPROF (ResolvedMethodName.vmtarget, vmholder)
java.lang.invoke.ResolvedMethodName                     0  per=-8
reason: VM-injected fields are not in HPROF (Module.module_entry)
java.lang.Module                                        0  per=-8
reason: VM-injected fields are not in HPROF (ClassLoader.loader_data)
jdk.internal.loader.ClassLoaders$AppClassLoader         0  per=-8
jdk.internal.loader.ClassLoaders$BootClassLoader        0  per=-8
jdk.internal.loader.ClassLoaders$PlatformClassLoader    0  per=-8
reason: @Contended padding of Thread.threadLocalRandom* (2 x 128 bytes) is not in HPROF
java.lang.Thread                                        0  per=-256
java.lang.ref.Reference$ReferenceHandler                0  per=-256
reason: @Contended padding (2 x 128 bytes), plus the subclass's boolean that the JVM places after the padding
java.lang.ref.Finalizer$FinalizerThread                 0  per=-264
jdk.internal.misc.InnocuousThread                       0  per=-264
reason: JDK 15+ packs subclass fields into the superclass's tail gap; MAT's model aligns each level
java.lang.invoke.DirectMethodHandle                     0  per=+8
java.lang.invoke.DirectMethodHandle$Accessor            0  per=+8
java.lang.invoke.DirectMethodHandle$Constructor         0  per=+8
java.lang.reflect.Constructor                           0  per=+8
java.nio.DirectByteBuffer                               0  per=+8
java.nio.DirectByteBufferR                              0  per=+8
java.security.Permissions                               0  per=+8
java.security.BasicPermissionCollection                 0  per=+8
sun.security.util.LazyCodeSourcePermissionCollection    0  per=+8
EOF

cat > "$TMPD/cmp.py" <<'PY'
import json, re, sys
histo, js, allowf, L = sys.argv[1:5]
PRIM = {'Z': 'boolean', 'C': 'char', 'F': 'float', 'D': 'double',
        'B': 'byte', 'S': 'short', 'I': 'int', 'J': 'long'}
def java_name(n):
    m = re.match(r'^(\[+)L(.*);$', n)
    if m:
        return m.group(2) + '[]' * len(m.group(1))
    m = re.match(r'^(\[+)(.)$', n)
    if m:
        return PRIM.get(m.group(2), 'unknown') + '[]' * len(m.group(1))
    # hidden classes: jmap writes Foo$$Lambda$14/0x..., HPROF Foo$$Lambda$14+0x...
    return n.replace('/', '+')
d = json.load(open(js))
rows = {}
for c in d['classes']:
    r = rows.setdefault(c['class'], [0, 0]); r[0] += c['instances']; r[1] += c['shallow']
allow, reason = {}, '?'
for line in open(allowf):
    line = line.strip()
    if not line:
        continue
    if line.startswith('reason:'):
        reason = line[7:].strip(); continue
    name, dc, spec = line.split()
    allow[name] = (int(dc), spec, reason)

hist, total = [], None
for line in open(histo):
    m = re.match(r'^\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)', line)
    if m:
        hist.append((java_name(m.group(3)), m.group(3), int(m.group(1)), int(m.group(2))))
    m = re.match(r'^Total\s+(\d+)\s+(\d+)', line)
    if m:
        total = (int(m.group(1)), int(m.group(2)))

same, unlisted, seen, lambdas, wrong = 0, [], {}, 0, []
for name, raw, n, b in hist:
    if '/' in raw:
        lambdas += 1
    hn, hb = rows.get(name, [0, 0])
    if (hn, hb) == (n, b):
        if name in allow:
            wrong.append('%s: listed, but identical (%d, %d)' % (name, n, b))
        same += 1
        continue
    if name not in allow:
        unlisted.append('%s jmap %d/%d hprofan %d/%d' % (name, n, b, hn, hb))
        continue
    dc, spec, why = allow[name]
    ok = hn - n == dc
    kind, _, val = spec.partition('=')
    if kind == 'per':
        ok = ok and n and hn and b % n == 0 and hb % hn == 0 and hb // hn - b // n == int(val)
    elif val != '*':
        ok = ok and hb - b == int(val)
    if ok:
        seen[name] = why
    else:
        wrong.append('%s: want count %+d %s, got jmap %d/%d hprofan %d/%d' % (name, dc, spec, n, b, hn, hb))
stale = [k for k in allow if k not in seen and not any(k in w for w in wrong)]

print(('ok' if not unlisted else 'FAIL') + ' %s identical: %d of %d histogram classes have the same count and bytes%s'
      % (L, same, len(hist), '' if not unlisted else '; unlisted differences: ' + ', '.join(unlisted)))
if wrong or stale:
    print('FAIL %s explained: %s%s' % (L, '; '.join(wrong), '; listed but absent from the histogram: ' + ', '.join(stale) if stale else ''))
else:
    print('ok %s explained: %d listed differences, each as expected' % (L, len(seen)))

# hidden classes: 12 in this histogram, all found once / is read as +
found = sum(1 for name, raw, n, b in hist if '/' in raw and rows.get(name, [0, 0])[0] == n)
expect_eq = lambda label, got, want: print(('ok %s' % label) if got == want else 'FAIL %s: got %r, want %r' % (label, got, want))
expect_eq('%s lambda names (/ read as +): %d of %d found' % (L, found, lambdas), (found, lambdas > 0), (lambdas, True))

hist_names = {h[0] for h in hist}
extra = sorted(k for k in rows if k not in hist_names)
expect_eq('%s every dump class is in the histogram' % L, extra, [])

dsum = sum(v[0] for v in allow.values())
expect_eq('%s total instances: histogram %d %+d listed = %d' % (L, total[0], dsum, d['total']['instances']),
          d['total']['instances'], total[0] + dsum)

# the program's own classes (testdata/README.md), identical in both
own = {'LeakyCache$Session': 2000, 'LeakyCache$Attribute': 8000, 'LeakyCache$ExpiryListener': 2000,
       'LeakyCache$WorkBuffer': 3, 'LeakyCache$Role': 3, 'LeakyCache': 1}
expect_eq('%s LeakyCache classes as in testdata/README.md' % L,
          {k: rows.get(k, [0])[0] for k in own}, own)
hmap = {h[0]: (h[2], h[3]) for h in hist}
expect_eq('%s LeakyCache classes: same bytes as jmap' % L,
          {k: rows.get(k, [0, 0])[1] for k in own}, {k: hmap.get(k, (0, 0))[1] for k in own})
PY
python3 "$TMPD/cmp.py" "$histo" "$TMPD/top.json" "$TMPD/allow.vm" sample-histo
python3 "$TMPD/cmp.py" "$histo" "$TMPD/mat.json" "$TMPD/allow" sample-histo-mat

# the small sample (scripts/make-sample --small: 100 sessions, for
# options.sh): the program's classes, byte[], String and HashMap$Node as
# its own histogram counts them (count and bytes)
small=$TESTDATA/hprof/leakycache-small.hprof.gz
if ! run_hp "$TMPD/small.json" "$TMPD/err" "$small" --top 0 --json --quiet --fast; then
  fail "sample-histo small" "exit $?: $(head -c 300 "$TMPD/err")"
else
  python3 - "$TESTDATA/hprof/leakycache-small.histo.txt" "$TMPD/small.json" <<'PY'
import json, re, sys
rows = {c['class']: (c['instances'], c['shallow']) for c in json.load(open(sys.argv[2]))['classes']}
hist = {}
for line in open(sys.argv[1]):
    m = re.match(r'\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)', line)
    if m:
        hist[m.group(3)] = (int(m.group(1)), int(m.group(2)))
want = {'LeakyCache$Session': 100, 'LeakyCache$Attribute': 400, 'LeakyCache$ExpiryListener': 100,
        'LeakyCache$WorkBuffer': 3, 'LeakyCache$Role': 3, 'LeakyCache': 1}
raw = {'byte[]': '[B', 'java.lang.String': 'java.lang.String', 'java.util.HashMap$Node': 'java.util.HashMap$Node'}
raw.update({k: k for k in want})
got = {k: rows.get(k) for k in raw}
jmap = {k: hist.get(v) for k, v in raw.items()}
ok = got == jmap and all(jmap[k][0] == n for k, n in want.items())
print(('ok' if ok else 'FAIL') + ' sample-histo small: the program\'s classes (100 sessions), byte[], String and HashMap$Node as jmap counts them'
      + ('' if ok else ': got %r, jmap %r' % (got, jmap)))
PY
fi
