#!/usr/bin/env bash
# hprofan's default sizes (--size-model=vm) against the JVM's own class
# histogram, taken by `jcmd PID GC.class_histogram` right before
# `jcmd PID GC.heap_dump` of the same idle JVM (JDK 17 on this machine), under
# six configurations: the defaults (G1), -XX:-UseCompressedOops,
# -XX:-UseCompressedClassPointers, -XX:ObjectAlignmentInBytes=16,
# -XX:+UseSerialGC and -XX:+UseParallelGC.  The program builds a small heap
# of classes that the JDK 15+ field layout packs differently from the older
# rule (fields filling the super class's holes), records, lambdas, method
# handles, a direct buffer, threads (@Contended fields) and arrays of every
# kind and many lengths.
#
# For every class whose instance count in the dump equals the histogram's
# (the JVM may allocate between the two commands: those classes cannot be
# compared), the bytes must be equal; at least 99.5% of them per
# configuration, and every miss is printed with the per-instance sizes.  The
# java.lang.Class row counts class objects plus the primitive-type mirrors,
# each class object sized as its mirror: java.lang.Class's fields and its
# statics.  info --json must also say what the configuration is, and that the
# JDK 15+ layout rule alone sized every class (no class needed its gaps).
# Skipped without a JDK 17 (java, javac, jcmd) or python3.  About 10 s on two
# cores.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip jvm-sizes "python3 is absent"; exit 0; }
# a JDK 17: the one on PATH, else one under /usr/lib/jvm
major() { "$1/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1; }
JB=$(dirname "$(command -v java 2>/dev/null || echo /nonexistent/java)")
if [ "$(major "$JB")" != 17 ]; then
  JB=
  for d in /usr/lib/jvm/*17*/bin; do
    [ -x "$d/java" ] && [ "$(major "$d")" = 17 ] && { JB=$d; break; }
  done
fi
[ -n "$JB" ] || { skip jvm-sizes "no JDK 17 (java on PATH or under /usr/lib/jvm)"; exit 0; }
for t in java javac jcmd; do
  [ -x "$JB/$t" ] || { skip jvm-sizes "$JB/$t is absent"; exit 0; }
done

J=$TMPD/jvm
mkdir -p "$J"
cat > "$J/Shapes.java" <<'EOF'
import java.util.*;
import java.util.concurrent.*;
import java.lang.invoke.*;

public class Shapes {
    static class A { byte b; }
    static class B extends A { long l; int i; }          // long at 16, int fills 12 (JDK 15+)
    static class C extends B { Object o; short s; }     // both fill A's hole after b
    static class D { long a; Object b; byte c; }
    static class E extends D { int x; boolean y; }
    static class F { double d; }
    static class G extends F { char c; byte b; boolean z; float f; }
    record P(int x, long y, String z) {}
    static final List<Object> keep = new ArrayList<>();
    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 50; i++) {
            keep.add(new A()); keep.add(new B()); keep.add(new C()); keep.add(new D());
            keep.add(new E()); keep.add(new F()); keep.add(new G());
            keep.add(new P(i, i, "p" + i));
            keep.add(new byte[i]); keep.add(new int[i]); keep.add(new long[i]); keep.add(new Object[i]);
            keep.add(new char[i]); keep.add(new short[i]); keep.add(new boolean[i]); keep.add(new double[i]);
            keep.add(new float[i]); keep.add(new String[i % 7]); keep.add(new int[i % 3][]);
        }
        Map<String, Object> m = new ConcurrentHashMap<>();
        for (int i = 0; i < 100; i++) m.put("k" + i, new TreeMap<>(Map.of(i, "v")));
        keep.add(m);
        keep.add(new LinkedList<>(List.of(1, 2, 3)));
        Runnable r = () -> {};
        keep.add(r);
        keep.add(MethodHandles.lookup().findStatic(Shapes.class, "main",
                 MethodType.methodType(void.class, String[].class)));
        keep.add(Shapes.class.getDeclaredConstructors()[0]);
        keep.add(java.nio.ByteBuffer.allocateDirect(16));
        keep.add(new Thread(() -> {}));
        keep.add(new java.util.concurrent.atomic.LongAdder());
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(300_000);
    }
}
EOF
if ! "$JB/javac" -d "$J" "$J/Shapes.java" 2> "$J/javac.err"; then
  fail jvm-sizes "javac failed: $(head -c 300 "$J/javac.err")"
  exit 0
fi

# name | JVM flags | what info must infer: header ref align
CONFIGS='
default||12 4 8
nocoops|-XX:-UseCompressedOops|12 8 8
noccp|-XX:-UseCompressedClassPointers|16 4 8
align16|-XX:ObjectAlignmentInBytes=16|12 4 16
serial|-XX:+UseSerialGC|12 4 8
parallel|-XX:+UseParallelGC|12 4 8
'

# one configuration: start, wait for "ready", histogram, dump, stop
take() {
  local name=$1 flags=$2 pid i
  # shellcheck disable=SC2086  # flags is a word list
  "$JB/java" -Xmx64m -Xss512k $flags -cp "$J" Shapes > "$J/$name.out" 2>&1 &
  pid=$!
  if said_ready "$J/$name.out" "$pid" ready; then
    "$JB/jcmd" $pid GC.class_histogram > "$J/$name.histo" 2> "$J/$name.jerr" &&
      "$JB/jcmd" $pid GC.heap_dump "$J/$name.hprof" >> "$J/$name.jerr" 2>&1
  fi
  kill $pid 2>/dev/null
  wait $pid 2>/dev/null
  if [ -s "$J/$name.hprof" ]; then
    run_hp "$J/$name.json" "$J/$name.err" "$J/$name.hprof" --top 0 --json --quiet --fast
    echo $? > "$J/$name.rc"
    run_hp "$J/$name.info" "$J/$name.ierr" info "$J/$name.hprof" --json --quiet
    echo $? > "$J/$name.irc"
  fi
}

n=0
while IFS='|' read -r name flags want; do
  [ -n "$name" ] || continue
  take "$name" "$flags" &
  n=$((n + 1))
  [ $((n % 2)) = 0 ] && wait
done <<< "$CONFIGS"
wait

cat > "$J/cmp.py" <<'PY'
import json, re, sys
name, hist, js, info, want = sys.argv[1:6]
PRIM = {'Z': 'boolean', 'C': 'char', 'F': 'float', 'D': 'double',
        'B': 'byte', 'S': 'short', 'I': 'int', 'J': 'long'}
def java_name(n):
    m = re.match(r'^(\[+)L(.*);$', n)
    if m:
        return m.group(2) + '[]' * len(m.group(1))
    m = re.match(r'^(\[+)(.)$', n)
    if m:
        return PRIM.get(m.group(2), 'unknown') + '[]' * len(m.group(1))
    return n
doc = json.load(open(js))
rows = {}
for c in doc['classes']:
    r = rows.setdefault(c['class'], [0, 0])
    r[0] += c['instances']; r[1] += c['shallow']
eq = same = 0
miss = []
for line in open(hist):
    t = line.split()
    if len(t) < 4 or not t[0].endswith(':'):
        continue
    n, b, cls = int(t[1]), int(t[2]), java_name(t[3])
    r = rows.get(cls)
    if not r or r[0] != n:
        continue
    eq += 1
    if r[1] == b:
        same += 1
        continue
    if cls == 'java.lang.Class':
        why = 'class objects: the mirrors (java.lang.Class fields + statics) differ by %d bytes in all' % (r[1] - b)
    elif cls.endswith('[]'):
        why = 'array total differs by %d bytes (header, element size or alignment)' % (r[1] - b)
    else:
        why = 'instance size: JVM %g, hprofan %g (a field the dump does not list, or the layout rule)' % (b / n, r[1] / n)
    miss.append('%s (%d): JVM %d bytes, hprofan %d: %s' % (cls, n, b, r[1], why))
model = doc['size_model']['name']
pct = 100.0 * same / eq if eq else 0.0
msg = '%s: %d of %d classes with the JVM\'s count have its exact bytes (%.2f%%), model %s' % (
    name, same, eq, pct, model)
if miss:
    msg += '; misses: ' + '; '.join(miss)
print(('ok ' if eq >= 100 and pct >= 99.5 and model == 'vm' else 'FAIL ') + 'jvm-sizes ' + msg)
v = json.load(open(info))['vm_layout']
sm = json.load(open(info))['size_model']
got = '%d %d %d' % (sm['header'], sm['ref_size'], sm['align'])
print(('ok ' if got == want and v['allowed'] else 'FAIL ') +
      'jvm-sizes %s: info infers header, reference size, alignment %s (want %s; %s of %s instance gaps agree)'
      % (name, got, want, v['gaps_agree_sizes'], v['instance_gaps']))
# the JDK 15+ rule alone, injected and @Contended fields included, must size
# every class: none needed its gaps (they would hide a wrong rule)
print(('ok ' if v['field_layout'] == 'jdk15' and v['classes_by_gaps'] == 0 else 'FAIL ') +
      'jvm-sizes %s: the JDK 15+ layout rule sizes all %d classes with instances (%d confirmed by gaps; by gaps: %d; rule %s)'
      % (name, v['classes_by_rule'], v['classes_confirmed'], v['classes_by_gaps'], v['field_layout']))
PY

while IFS='|' read -r name flags want; do
  [ -n "$name" ] || continue
  if [ ! -s "$J/$name.hprof" ]; then
    fail "jvm-sizes $name" "no dump: $(head -c 300 "$J/$name.out" "$J/$name.jerr" 2>/dev/null | tr '\n' ' ')"
    continue
  fi
  if [ "$(cat "$J/$name.rc")" != 0 ] || [ "$(cat "$J/$name.irc")" != 0 ]; then
    fail "jvm-sizes $name" "hprofan failed: $(head -c 300 "$J/$name.err" "$J/$name.ierr")"
    continue
  fi
  python3 "$J/cmp.py" "$name" "$J/$name.histo" "$J/$name.json" "$J/$name.info" "$want"
done <<< "$CONFIGS"
