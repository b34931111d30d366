#!/usr/bin/env bash
# hprofan waste on a dump a JDK 17 writes of testdata/java/waste/WasteShapes.java
# (live objects only): "L-424242" (LATIN1, byte[8]) in exactly 1,001 Strings,
# each its own array: 1,000 x (24 + 24) = 48,000 bytes wasted; "\u00e9\u20ac-77"
# (UTF16, byte[10]) in 301: 300 x (24 + 32) = 16,800 (String 24 bytes, byte[n]
# 16 + n rounded to 8: compressed oops, the vm size model); no row for the
# 500 unique "Uniq-N".  Skipped without a JDK (javac, java, jcmd).
. "$(dirname "$0")/../lib.sh"
for t in javac java jcmd python3; do
  command -v "$t" >/dev/null 2>&1 || { skip waste-jdk "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/waste
D=$TMPD
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup

javac -d "$D/classes" "$SRC/WasteShapes.java" 2>"$D/javac.err" ||
  { fail waste-jdk-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
java -Xms64m -Xmx64m -XX:+UseSerialGC -cp "$D/classes" WasteShapes >"$D/out" 2>&1 &
PID=$!
said_ready "$D/out" "$PID" || { fail waste-jdk "the JVM never said READY: $(head -c 300 "$D/out")"; exit 0; }
jcmd "$PID" GC.heap_dump "$D/w.hprof" >"$D/jcmd" 2>&1 || { fail waste-jdk "jcmd: $(head -c 300 "$D/jcmd")"; exit 0; }
cleanup; PID=""

if ! run_hp "$D/w.json" "$D/w.err" waste "$D/w.hprof" --json --top 0 --quiet; then
  fail waste-jdk "exit $?: $(head -c 300 "$D/w.err")"; exit 0
fi
expect_eq "waste-jdk: LATIN1 duplicate (count, wasted)" \
  "$(jget "$D/w.json" '[(r["count"], r["wasted"]) for r in d["sections"][0]["rows"] if r["value"] == "L-424242"]')" "[(1001, 48000)]"
expect_eq "waste-jdk: UTF16 duplicate (count, wasted)" \
  "$(jget "$D/w.json" '[(r["count"], r["wasted"]) for r in d["sections"][0]["rows"] if r["value"] == "\u00e9\u20ac-77"]')" "[(301, 16800)]"
expect_eq "waste-jdk: no row for the unique values" \
  "$(jget "$D/w.json" 'len([r for r in d["sections"][0]["rows"] if (r["value"] or "").startswith("Uniq-")])')" 0
