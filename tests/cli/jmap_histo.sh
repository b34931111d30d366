#!/usr/bin/env bash
# hprofan's per-class sizes against the JVM's own class histograms
# (../shared/corpus/expected/jmap-histo/), checked exactly the way Eclipse MAT's
# TestInstanceSizes does it:
#   - a histogram line is "[rank:] count bytes name" (CRLF or LF); JVM names are
#     mapped to Java notation ([C -> char[], [Ljava.lang.String; ->
#     java.lang.String[], [[I -> int[][]); names starting with "<" (VM-internal
#     klasses) and java.lang.Class itself are skipped; so are classes without
#     instances in the dump ("Cannot find class" in MAT);
#   - a non-array class: jmap's bytes/count must equal hprofan's per-instance
#     size (shallow/instances, and every instance that size);
#   - an array class: only when the counts are equal, jmap's total bytes must
#     equal hprofan's shallow total.
# MAT expects exactly 1 mismatch on sun_jdk5_13_x32 and 0 on the other four
# pairs.  Every allowed mismatch is listed below with its reason; any other
# mismatch fails, and so does a listed one that no longer happens.
#
# One coverage difference from MAT: MAT also checks non-array classes that have
# no instance in the dump (it sizes them from the class definition); hprofan's
# --top has rows only for classes with instances, so those are skipped here.
#
# Counts are reported as separate checks: how many histogram classes have the
# dump's instance count.  Histogram and dump were not taken at the same instant,
# so counts differ; every difference is listed with its reason and an unlisted
# (or stale) one fails.  Sizes do not depend on when, counts do.
#
# The two sun_jdk6_31_hprofagent_* pairs are not in MAT's test: the hprof agent
# writes 4-byte serial numbers as ids, so neither the reference size nor the
# alignment can be inferred.  The options that match best (all 127 non-array
# classes with instances except the four Throwables below) are given per pair.
. "$(dirname "$0")/../lib.sh"
have_corpus jmap-histo || exit 0
command -v python3 >/dev/null 2>&1 || { skip jmap-histo "python3 is absent"; exit 0; }

H=$CORPUS/expected/jmap-histo
M=$CORPUS/eclipse-mat__mat

# label | histogram | dump | MAT's expected mismatch count (- = not in MAT) | hprofan options
PAIRS='
jdk5_13_x32|histogram_sun_jdk5_13_x32.txt|sun_jdk5_13_x32.hprof|1|
jdk6_18_x32|histogram_sun_jdk6_18_x32.txt|sun_jdk6_18_x32.hprof|0|
jdk6_18_x64|histogram_sun_jdk6_18_x64.txt|sun_jdk6_18_x64.hprof|0|
jdk6_30_x64_coops|sun_jdk6_30_x64_compressedOops.notes.txt|sun_jdk6_30_x64_compressedOops.hprof|0|
jdk6_30_x64_nocoops|sun_jdk6_30_x64_nocompressedOops.notes.txt|sun_jdk6_30_x64_nocompressedOops.hprof|0|
agent_coops|sun_jdk6_31_hprofagent_compressedOops.txt|sun_jdk6_31_hprofagent_compressedOops.hprof|-|--ref-size 4 --header-size 12 --align 8
agent_nocoops|sun_jdk6_31_hprofagent_nocompressedOops.txt|sun_jdk6_31_hprofagent_nocompressedOops.hprof|-|--ref-size 8 --header-size 16 --align 8
'

# all runs in parallel (two at a time would do; they are independent)
while IFS='|' read -r label hist dump mat opts; do
  [ -n "$label" ] || continue
  # shellcheck disable=SC2086  # opts is a word list
  ( run_hp "$TMPD/$label.json" "$TMPD/$label.err" "$M/$dump" --top 0 --json --quiet --fast $opts
    echo $? > "$TMPD/$label.rc" ) &
done <<< "$PAIRS"
wait

cat > "$TMPD/cmp.py" <<'PY'
import json, re, sys
hist, js, allowf, label, mat = sys.argv[1:6]
PRIM = {'Z': 'boolean', 'C': 'char', 'F': 'float', 'D': 'double',
        'B': 'byte', 'S': 'short', 'I': 'int', 'J': 'long'}
def java_name(n):                       # MAT's fixArrayName
    m = re.match(r'^(\[+)L(.*);$', n)
    if m:
        return m.group(2) + '[]' * len(m.group(1))
    m = re.match(r'^(\[+)(.)$', n)
    if m:
        return PRIM.get(m.group(2), 'unknown') + '[]' * len(m.group(1))
    return n
rows = {}
for c in json.load(open(js))['classes']:
    r = rows.setdefault(c['class'], {'n': 0, 'b': 0, 'max': 0})
    r['n'] += c['instances']; r['b'] += c['shallow']; r['max'] = max(r['max'], c['largest'])
allow_size, allow_count, reason = {}, {}, '?'
for line in open(allowf):
    line = line.strip()
    if not line or line.startswith('#'):
        continue
    if line.startswith('reason:'):
        reason = line[7:].strip(); continue
    kind, name, a, b = line.split()
    (allow_size if kind == 'size' else allow_count)[name] = (int(a), int(b), reason)
per = arr = 0
bad, seen_size, skipped = [], {}, []
eq, ndiff, bad_count, seen_count = 0, 0, [], {}
for line in open(hist, newline=None):
    t = line.split()
    if not t:
        continue
    if ':' in t[0]:
        t = t[1:]
    n, b, name = int(t[0]), int(t[1]), java_name(t[2])
    if name.startswith('<'):
        continue
    r = rows.get(name)
    got_n = r['n'] if r else 0
    if got_n == n:
        eq += 1
    else:
        ndiff += 1
        want = allow_count.get(name)
        if want and want[:2] == (n, got_n):
            seen_count[name] = 1
        else:
            bad_count.append('%s jmap %d dump %d' % (name, n, got_n))
    if name == 'java.lang.Class':
        continue
    if not r:
        skipped.append(name); continue
    if name.endswith('[]'):
        if n != r['n']:
            continue
        arr += 1
        exp, got = b, r['b']
    else:
        per += 1
        exp = b // n
        got = r['b'] // r['n'] if r['b'] % r['n'] == 0 and r['max'] * r['n'] == r['b'] else -r['max']
    if exp != got:
        want = allow_size.get(name)
        if want and want[:2] == (exp, got):
            seen_size[name] = want
        else:
            bad.append('%s jmap %d hprofan %d' % (name, exp, got))
stale = [k for k in allow_size if k not in seen_size]
nmis = len(seen_size) + len(bad)
msg = '%d per-instance + %d array-total comparisons, %d mismatches' % (per, arr, nmis)
if mat != '-':
    msg += ' (MAT expects %s)' % mat
by_reason = {}
for k, v in seen_size.items():
    by_reason.setdefault(v[2], []).append('%s %d/%d' % (k, v[0], v[1]))
for why, items in by_reason.items():
    msg += '; allowed, jmap/hprofan (%s): %s' % (why, ', '.join(items))
if skipped:
    msg += '; skipped (no instance in the dump): ' + ', '.join(skipped)
if bad or stale or (mat != '-' and nmis != int(mat)):
    print('FAIL %s sizes: unexpected: %s; listed but not seen: %s; %s'
          % (label, ', '.join(bad) or '-', ', '.join(stale) or '-', msg))
else:
    print('ok %s sizes: %s' % (label, msg))
stale_c = [k for k in allow_count if k not in seen_count]
cmsg = '%d of %d histogram classes have the dump\'s instance count, %d listed differences' % (eq, eq + ndiff, len(seen_count))
if bad_count or stale_c:
    print('FAIL %s counts: unlisted: %s; listed but not seen: %s; %s'
          % (label, ', '.join(bad_count) or '-', ', '.join(stale_c) or '-', cmsg))
else:
    print('ok %s counts: %s' % (label, cmsg))
PY

allow() { cat > "$TMPD/$1.allow"; }

# ---- sun_jdk5_13_x32: MAT's one expected mismatch -------------------------
allow jdk5_13_x32 <<'EOF'
reason: timing: jmap and the dump were not taken at the same instant (MAT's one expected failure)
size  byte[]  43536  43544
reason: timing: jmap and the dump were not taken at the same instant
count char[]                            171 161
count java.lang.String                  175 165
count int[]                               9   8
count java.lang.reflect.Field            12   0
count java.lang.reflect.Field[]           2   0
count java.lang.reflect.Constructor[]     3   0
count sun.nio.cs.MS1252$Decoder           1   0
count java.lang.StringCoding$CharsetSD    1   0
reason: HotSpot's dumper hides the JNI deleted-handle sentinel, a java.lang.Object
count java.lang.Object                   15  14
reason: jmap's [[I are the VM's system object arrays, which HotSpot's dumper never writes
count int[][]                            26   0
reason: JDK 5's jmap counts 47 mirrors; the dump has 336 CLASS DUMPs + 9 primitive-type mirrors (MAT skips java.lang.Class too)
count java.lang.Class                    47 345
EOF

# ---- sun_jdk6_18_x32 / x64: the histograms are of an earlier moment --------
# (5 threads and 37 classes in the x32 histogram, 13 threads and 1,260 classes
# in the dump); sizes still all agree, counts mostly do not.
allow jdk6_18_x32 <<'EOF'
reason: jmap's [[I are the VM's system object arrays, which HotSpot's dumper never writes
count int[][] 26 0
reason: timing: the histogram was taken at an earlier moment than the dump (5 vs 13 threads)
count char[] 298 1621
count byte[] 11 646
count java.lang.Object[] 311 681
count java.lang.String 304 1849
count java.lang.reflect.Method 76 408
count java.lang.Class 37 1260
count java.lang.reflect.Field 32 34
count java.lang.Class[] 98 360
count java.lang.String[] 50 260
count java.util.Hashtable$Entry 58 194
count java.util.HashMap$Entry[] 17 304
count int[] 6 890
count short[] 9 752
count java.util.Hashtable$Entry[] 7 81
count java.net.URL 11 26
count java.util.HashMap 15 296
count java.lang.Thread 5 13
count java.util.concurrent.ConcurrentHashMap$Segment 16 176
count java.util.concurrent.ConcurrentHashMap$HashEntry 19 124
count java.util.LinkedHashMap$Entry 14 173
count java.util.concurrent.ConcurrentHashMap$HashEntry[] 16 176
count java.util.HashMap$Entry 16 507
count java.lang.reflect.Constructor 6 157
count java.util.concurrent.locks.ReentrantLock$NonfairSync 16 187
count java.lang.reflect.Method[] 2 7
count java.io.ObjectStreamField 10 66
count java.lang.ref.SoftReference 10 425
count java.lang.ref.Finalizer 9 20
count java.io.ExpiringCache$Entry 12 28
count java.util.Hashtable 6 75
count java.security.AccessControlContext 9 21
count sun.misc.URLClassPath$JarLoader 5 11
count java.io.FileDescriptor 8 11
count java.lang.reflect.Field[] 4 0
count java.io.ObjectStreamField[] 8 34
count java.util.Vector 6 134
count sun.nio.cs.MS1252$Encoder 2 3
count java.io.File 8 14
count java.util.ArrayList 5 52
count java.nio.HeapByteBuffer 2 3
count sun.nio.cs.StreamEncoder 2 3
count java.lang.Object 12 87
count java.io.FileInputStream 6 2
count java.lang.ThreadGroup 2 3
count java.util.concurrent.ConcurrentHashMap$Segment[] 1 11
count java.lang.ThreadLocal$ThreadLocalMap$Entry[] 1 17
count sun.misc.MetaIndex 5 11
count java.util.Stack 3 4
count java.lang.RuntimePermission 3 13
count sun.reflect.NativeConstructorAccessorImpl 3 53
count java.lang.Thread[] 2 3
count sun.misc.URLClassPath 2 3
count java.lang.ref.ReferenceQueue 2 35
count long[] 1 19
count sun.reflect.DelegatingConstructorAccessorImpl 3 54
count java.security.Permissions 2 3
count java.io.OutputStreamWriter 2 3
count java.io.BufferedOutputStream 2 5
count java.lang.reflect.Constructor[] 3 12
count java.util.Properties 1 4
count java.lang.ThreadLocal 3 5
count sun.nio.cs.Surrogate$Parser 2 3
count java.lang.ref.WeakReference 2 100
count java.util.concurrent.ConcurrentHashMap 1 11
count sun.nio.cs.MS1252$Decoder 1 0
count java.lang.ClassLoader$NativeLibrary 1 5
count java.lang.Boolean 2 3
count java.lang.ref.ReferenceQueue$Lock 4 37
count java.lang.Integer 2 287
count java.security.ProtectionDomain 1 2
count java.util.concurrent.atomic.AtomicReferenceFieldUpdater$AtomicReferenceFieldUpdaterImpl 1 4
count java.lang.ThreadLocal$ThreadLocalMap$Entry 1 25
count java.util.Collections$SynchronizedMap 1 6
count java.io.BufferedInputStream 1 4
count java.util.HashSet 2 69
count java.lang.ThreadLocal$ThreadLocalMap 1 17
count java.lang.StringCoding$StringDecoder 1 0
count java.util.BitSet 1 6
count java.util.concurrent.atomic.AtomicInteger 1 4
count java.lang.StackTraceElement[] 1 2
count sun.net.www.protocol.jar.Handler 2 3
count java.security.cert.Certificate[] 1 3
count java.security.Principal[] 1 2
EOF

allow jdk6_18_x64 <<'EOF'
reason: jmap's [[I are the VM's system object arrays, which HotSpot's dumper never writes
count int[][] 482 0
reason: timing: the histogram was taken at an earlier moment than the dump (6 vs 15 threads)
count char[] 840 4643
count byte[] 372 1382
count java.lang.Class 376 1271
count java.lang.String 845 4832
count short[] 446 1689
count java.lang.Object[] 311 714
count int[] 376 1347
count java.lang.reflect.Method 76 1214
count java.lang.reflect.Field 32 594
count java.lang.Class[] 99 1334
count java.lang.String[] 48 415
count java.util.Hashtable$Entry 58 194
count java.util.HashMap$Entry[] 17 310
count java.util.Hashtable$Entry[] 7 84
count java.lang.Thread 6 15
count java.util.HashMap 15 300
count java.util.concurrent.ConcurrentHashMap$HashEntry 19 115
count java.util.LinkedHashMap$Entry 12 738
count java.util.concurrent.locks.ReentrantLock$NonfairSync 16 204
count java.util.concurrent.ConcurrentHashMap$Segment 16 192
count java.net.URL 7 22
count java.lang.reflect.Constructor 6 203
count java.util.concurrent.ConcurrentHashMap$HashEntry[] 16 192
count java.lang.reflect.Method[] 2 132
count java.lang.ref.Finalizer 9 20
count java.util.HashMap$Entry 12 497
count java.lang.ref.SoftReference 10 402
count java.io.ObjectStreamField 10 168
count java.security.AccessControlContext 10 23
count java.util.Hashtable 6 78
count java.lang.reflect.Field[] 4 77
count java.io.ExpiringCache$Entry 10 26
count java.io.ObjectStreamField[] 8 74
count java.io.FileDescriptor 8 11
count java.util.Vector 6 140
count sun.nio.cs.MS1252$Encoder 2 3
count sun.misc.URLClassPath$JarLoader 3 9
count java.lang.Object 13 86
count java.util.ArrayList 5 55
count sun.nio.cs.StreamEncoder 2 3
count java.io.File 6 12
count java.io.FileInputStream 6 1
count java.lang.ThreadLocal$ThreadLocalMap$Entry[] 1 19
count java.util.concurrent.ConcurrentHashMap$Segment[] 1 12
count java.lang.ThreadGroup 2 3
count sun.reflect.NativeConstructorAccessorImpl 3 33
count java.lang.RuntimePermission 3 13
count java.util.Stack 3 4
count sun.misc.URLClassPath 2 3
count java.lang.Thread[] 2 3
count java.nio.HeapByteBuffer 2 3
count java.lang.reflect.Constructor[] 3 104
count java.io.OutputStreamWriter 2 3
count java.lang.ref.WeakReference 2 100
count sun.misc.MetaIndex 3 9
count java.security.Permissions 2 3
count java.io.BufferedOutputStream 2 8
count java.lang.ref.ReferenceQueue 2 35
count java.util.concurrent.ConcurrentHashMap 1 12
count java.lang.ThreadLocal 3 5
count sun.reflect.DelegatingConstructorAccessorImpl 3 34
count java.util.Properties 1 4
count java.lang.ref.ReferenceQueue$Lock 4 37
count sun.nio.cs.Surrogate$Parser 2 3
count long[] 1 39
count java.security.ProtectionDomain 1 2
count java.lang.ThreadLocal$ThreadLocalMap$Entry 1 28
count java.util.Collections$SynchronizedMap 1 6
count java.lang.ClassLoader$NativeLibrary 1 5
count java.lang.Integer 2 287
count java.util.concurrent.atomic.AtomicReferenceFieldUpdater$AtomicReferenceFieldUpdaterImpl 1 2
count java.lang.Boolean 2 3
count java.io.BufferedInputStream 1 7
count java.util.HashSet 2 72
count java.lang.StringCoding$StringDecoder 1 2
count java.lang.ThreadLocal$ThreadLocalMap 1 19
count sun.net.www.protocol.jar.Handler 2 3
count java.util.BitSet 1 6
count java.security.cert.Certificate[] 1 3
count java.lang.StackTraceElement[] 1 2
count java.util.concurrent.atomic.AtomicInteger 1 4
count java.security.Principal[] 1 2
EOF

# ---- sun_jdk6_30_x64 with and without compressed oops: same counts ---------
for l in jdk6_30_x64_coops jdk6_30_x64_nocoops; do
allow $l <<'EOF'
reason: jmap's [[I are the VM's system object arrays, which HotSpot's dumper never writes
count int[][]            508   0
reason: HotSpot's dumper hides the JNI deleted-handle sentinel, a java.lang.Object
count java.lang.Object    16  15
reason: jmap counts 13 mirrors more than the dump's 376 CLASS DUMPs + 9 primitive-type mirrors (MAT skips java.lang.Class)
count java.lang.Class    398 385
EOF
done

# ---- the hprof agent (JVMTI), JDK 6u31, not in MAT's test ------------------
# Best options: compressed oops = --ref-size 4 --header-size 12, without =
# --ref-size 8 --header-size 16 (the defaults, ref 4 / header 8 from the 4-byte
# ids, miss 76 and 131 classes).  What no option can fix:
#  - object arrays: the agent builds them from JVMTI's reference callbacks and
#    writes only up to the last non-null element (none of the file's 848 object
#    arrays ends in null; 85 of 434 do in the HotSpot-written sun_jdk6_30), so
#    arrays with trailing nulls are shorter in the file than in the VM;
#  - Throwables: JVMTI hides the VM-injected field Throwable.backtrace, so the
#    agent's CLASS DUMP of java.lang.Throwable has 3 instance fields, not 4
#    (one reference less per instance);
#  - counts: JVMTI's heap walk does not report the VM's permanent-generation
#    arrays (constant-pool tags byte[], field and inner-class short[], method
#    ordering int[], system object arrays [[I, method/interface Object[] and
#    Class[]) that jmap counts, nor unreachable objects; and the agent wrote
#    its dump later than jmap ran (16 more FileInputStream/FileDescriptor/
#    Finalizer/AtomicInteger, 2 more threads).  The file holds a second heap
#    dump (--dump 1), written later still: it matches the histogram less well
#    (133 equal counts instead of 135), so the default dump 0 is compared.
for l in agent_coops agent_nocoops; do
  case $l in
    agent_coops) s='java.lang.String[] 1904 1800
java.util.HashMap$Entry[] 1664 824
java.util.Hashtable$Entry[] 720 576
java.util.concurrent.ConcurrentHashMap$HashEntry[] 416 384
java.lang.ThreadLocal$ThreadLocalMap$Entry[] 160 120
java.lang.Thread[] 64 56
java.lang.ThreadGroup[] 32 24
java.lang.OutOfMemoryError 32 24
java.lang.VirtualMachineError 32 24
java.lang.ArithmeticException 32 24
java.lang.NullPointerException 32 24' ;;
    agent_nocoops) s='java.lang.String[] 3296 3088
java.util.HashMap$Entry[] 3168 1448
java.util.Hashtable$Entry[] 1344 1088
java.util.concurrent.ConcurrentHashMap$HashEntry[] 704 584
java.lang.ThreadLocal$ThreadLocalMap$Entry[] 304 216
java.lang.Thread[] 112 88
java.lang.ThreadGroup[] 56 32
java.lang.OutOfMemoryError 48 40
java.lang.VirtualMachineError 48 40
java.lang.ArithmeticException 48 40
java.lang.NullPointerException 48 40' ;;
  esac
  {
    echo 'reason: the hprof agent drops trailing null elements of object arrays'
    printf '%s\n' "$s" | grep '\[\]' | sed 's/^/size /'
    echo 'reason: JVMTI hides the injected field Throwable.backtrace from the agent'
    printf '%s\n' "$s" | grep -v '\[\]' | sed 's/^/size /'
    cat <<'EOF'
reason: VM permanent-generation arrays that jmap counts and a JVMTI heap walk never reports
count byte[]                 395  19
count short[]                492   2
count int[]                  360   4
count int[][]                509   0
count java.lang.Object[]     311 305
count java.lang.Class[]       12   7
reason: jmap counts 399 mirrors; the agent writes 377 CLASS DUMPs + 10 java.lang.Class instances
count java.lang.Class        399 387
reason: fewer in the dump: jmap -histo also counts unreachable objects, the agent only what JVMTI reaches from the roots
count char[]                                  744 737
count java.lang.String                        750 744
count java.lang.ref.SoftReference              12   3
count java.lang.reflect.Method                  5   4
count java.lang.reflect.Constructor             6   0
count java.security.AccessControlContext       11   8
count sun.reflect.NativeConstructorAccessorImpl 3   0
count sun.reflect.DelegatingConstructorAccessorImpl 3 0
count java.lang.ref.Reference                   1   0
reason: more in the dump: timing, the agent wrote its dump later than jmap ran
count java.lang.Thread                          7   9
count java.lang.Object                         17  32
count java.lang.ref.Finalizer                   4  20
count java.util.ArrayList                       5   6
count java.io.FileDescriptor                    3  19
count java.io.FileInputStream                   1  17
count java.util.concurrent.atomic.AtomicInteger 4  20
EOF
  } | allow $l
done

while IFS='|' read -r label hist dump mat opts; do
  [ -n "$label" ] || continue
  rc=$(cat "$TMPD/$label.rc" 2>/dev/null || echo '?')
  if [ "$rc" != 0 ]; then
    fail "$label sizes" "hprofan $dump $opts exited $rc: $(head -c 300 "$TMPD/$label.err")"
    continue
  fi
  python3 "$TMPD/cmp.py" "$H/$hist" "$TMPD/$label.json" "$TMPD/$label.allow" "$label" "$mat"
done <<< "$PAIRS"
