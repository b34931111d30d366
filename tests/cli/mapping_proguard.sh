#!/usr/bin/env bash
# hprofan --mapping with a mapping.txt a real obfuscator wrote: ProGuard
# (Debian's proguard-cli; R8 needs the Android SDK, which is not packaged)
# renames testdata/java/mapping/Shop.java but its main(), a JDK 17 runs it,
# jcmd dumps the heap and takes the class histogram.  Independent answers:
# the histogram's counts of the obfuscated names mapping.txt gives for
# Shop$Cart and Shop$Item (and the source's 7 and 21), the fields the source
# declares, the lines of the source's WAIT-LINE and CALL-LINE markers.
# Skipped without javac, jar, java, jcmd or proguard.
. "$(dirname "$0")/../lib.sh"
for t in javac jar java jcmd proguard python3; do
  command -v "$t" >/dev/null 2>&1 || { skip mapping-proguard "$t is absent"; exit 0; }
done
SRC=$(cd "$(dirname "$0")/../.." && pwd)/testdata/java/mapping/Shop.java
D=$TMPD
PID=""
cleanup() { [ -n "$PID" ] && { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }; }
at_exit cleanup

javac --release 8 -d "$D/classes" "$SRC" 2>"$D/javac.err" || { fail mapping-proguard-javac "$(head -c 300 "$D/javac.err")"; exit 0; }
(cd "$D/classes" && jar cf "$D/in.jar" .) || { fail mapping-proguard-jar "cannot make the jar"; exit 0; }
# ProGuard 6 cannot read JDK 17's class files, so no library jars: it warns
# about the JDK's classes and renames the program's all the same
cat >"$D/shop.pro" <<PRO
-injars $D/in.jar
-outjars $D/out.jar
-keep public class Shop { public static void main(java.lang.String[]); }
-keepattributes SourceFile,LineNumberTable
-renamesourcefileattribute SourceFile
-dontoptimize
-dontwarn
-ignorewarnings
-printmapping $D/mapping.txt
PRO
proguard @"$D/shop.pro" >"$D/pg.log" 2>&1 || { fail mapping-proguard "proguard: $(tail -c 300 "$D/pg.log")"; exit 0; }

java -Xms32m -Xmx32m -XX:+UseSerialGC -cp "$D/out.jar" Shop >"$D/out" 2>&1 &
PID=$!
said_ready "$D/out" "$PID" || { fail mapping-proguard "the JVM never said READY: $(head -c 300 "$D/out")"; exit 0; }
jcmd "$PID" GC.heap_dump "$D/s.hprof" >"$D/jcmd" 2>&1 || { fail mapping-proguard "jcmd: $(head -c 300 "$D/jcmd")"; exit 0; }
jcmd "$PID" GC.class_histogram >"$D/histo" 2>&1 || { fail mapping-proguard "jcmd: $(head -c 300 "$D/histo")"; exit 0; }
cleanup; PID=""

# the obfuscated name of a class (mapping.txt) and its count (the histogram)
obf() { awk -v c="$1" '$1 == c && $2 == "->" { sub(/:$/, "", $3); print $3 }' "$D/mapping.txt"; }
histo() { awk -v c="$1" '$NF == c { print $2 }' "$D/histo"; }
CART=$(obf 'Shop$Cart'); ITEM=$(obf 'Shop$Item')
if [ -z "$CART" ] || [ -z "$ITEM" ] || [ "$CART" = 'Shop$Cart' ]; then
  fail mapping-proguard "ProGuard did not rename the classes: $(head -c 300 "$D/mapping.txt")"; exit 0
fi
expect_eq "mapping-proguard: the histogram's counts" "$(histo "$CART") $(histo "$ITEM")" "7 21"

run_hp "$D/top.json" "$D/top.err" top "$D/s.hprof" --top 0 --json --quiet --mapping "$D/mapping.txt"
expect_eq "mapping-proguard: top counts by the original names" \
  "$(jget "$D/top.json" '" ".join(str(r["instances"]) for n in ("Shop$Cart", "Shop$Item") for r in d["classes"] if r["class"] == n)')" \
  "$(histo "$CART") $(histo "$ITEM")"
expect_eq "mapping-proguard: the obfuscated names are gone" "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(len([r for r in d["classes"] if r["class"] in sys.argv[2:]]))' "$D/top.json" "$CART" "$ITEM")" 0
expect_eq "mapping-proguard: the array class" \
  "$(jget "$D/top.json" '[r["instances"] for r in d["classes"] if r["class"] == "Shop$Cart[]"]')" "[1]"

run_hp "$D/i.json" "$D/e" instances "$D/s.hprof" 'Shop$Cart' --json --quiet --mapping "$D/mapping.txt"
run_hp "$D/o.json" "$D/e" object "$D/s.hprof" "$(jget "$D/i.json" 'd["instances"][0]["id"]')" --json --quiet --mapping "$D/mapping.txt"
expect_eq "mapping-proguard: a Cart's fields" \
  "$(jget "$D/o.json" '" ".join(sorted(f["name"] for f in d["object"]["fields"]))')" "items owner total"

run_hp "$D/th" "$D/e" threads "$D/s.hprof" --quiet --mapping "$D/mapping.txt"
W=$(grep -n 'WAIT-LINE' "$SRC" | cut -d: -f1); C=$(grep -n 'CALL-LINE' "$SRC" | cut -d: -f1)
expect_eq "mapping-proguard: main's frames" "$(grep -E '^ +at Shop\.' "$D/th" | sed 's/^ *//' | paste -sd'|')" \
  "at Shop.waitHere(Shop.java:$W)|at Shop.main(Shop.java:$C)"
