#!/usr/bin/env bash
# --components FILE on hostile files, on a dump built byte by byte
# (tests/helper/mkhprof.py: classes com.app.Foo and com.lib.Bar, two
# objects each):
#  - a line is at most 65536 bytes: one of exactly that is read, a longer
#    one (also one with no end, /dev/zero) is an error naming the file, the
#    line and the byte offset where the line starts, exit 2, at once;
#    before, /dev/zero grew a buffer to gigabytes, and when memory ran out
#    (here: ulimit -v, on the release binary) that was read as the end of
#    the file: exit 0 and no component;
#  - a NUL byte in a line is an error with its line and offset (it cut the
#    line short, silently);
#  - a file that cannot be read (a directory) says why, exit 2;
#  - the check that no name comes twice is linear: 300,000 components and a
#    name again on the last line is found within 20 s (release binary; it
#    compared each name with every one before it: minutes);
#  - out of memory anywhere in reading the file (HPROFAN_FAIL_ALLOC=N for
#    every N of a small run) is exit 4 with "out of memory", never exit 0
#    with other output, never a sanitizer report; some N fail in the reader,
#    which says "--components FILE: out of memory".
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip components-hostile "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'PY' || { fail components-hostile-build "cannot write the test files"; exit 0; }
import sys
out = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
foo = d.load_class("com.app.Foo"); d.class_dump(foo, obj, fields=[("x", INT)])
bar = d.load_class("com.lib.Bar"); d.class_dump(bar, obj, fields=[("y", INT)])
for c in (foo, foo, bar, bar):
    d.root(d.instance(c, [1]))
d.write(out + "/c.hprof")
head = "# components\napp ^com\\.app\\.\n\n"
with open(out + "/max.txt", "w") as f:       # line 4: exactly 65536 bytes
    f.write(head + "lib" + " " * (65536 - 3 - 13) + "com\\.lib\\.Bar\n")
with open(out + "/long.txt", "w") as f:      # line 4: 65537 bytes
    f.write(head + "lib " + "x" * (65537 - 4) + "\nlater x\n")
with open(out + "/endless.txt", "w") as f:   # 1 MiB with no end of line
    f.write("lib " + "x" * (1 << 20))
with open(out + "/nul.txt", "wb") as f:
    f.write(b"app ^com\\.app\\.\nlib com\\.lib\0\\.Bar\n")
with open(out + "/dup.txt", "w") as f:       # 300,000 names, c0 again on the last line
    f.writelines("c%d com.x%d\n" % (i, i) for i in range(300000))
    f.write("c0 com.y\n")
with open(out + "/small.txt", "w") as f:
    f.write(head + "lib Bar$\nnone ^no\\.such\\.\n")
PY

# comps FILE: the components (NAME:CLASSES) of top --group=component --json;
# a component's classes: its own (Foo, Bar), and java.lang.Class for their
# class objects (other: class java.lang.Object's)
comps() { jget "$D/out" '" ".join(sorted("%s:%d" % (g["name"], g["classes"]) for g in d["groups"]))'; }
run_c() {   # HP FILE: top --group=component --fast with FILE, 20 s at most
  timeout 20 "$1" top "$D/c.hprof" --group=component --fast --components "$2" --json --quiet --no-index \
    >"$D/out" 2>"$D/err"
}

run_c "$HPROFAN" "$D/max.txt"
expect_eq "components-hostile: a line of 65536 bytes" "$?|$(comps)" "0|app:2 lib:2 other:1"
run_c "$HPROFAN" "$D/long.txt"
expect_eq "components-hostile: a line of 65537 bytes" "$?|$(cat "$D/err")" \
  "2|hprofan: $D/long.txt:4: a line longer than 65536 bytes (it starts at byte offset 30)"
run_c "$HPROFAN" "$D/endless.txt"
expect_eq "components-hostile: 1 MiB with no end of line" "$?|$(cat "$D/err")" \
  "2|hprofan: $D/endless.txt:1: a line longer than 65536 bytes (it starts at byte offset 0)"
# /dev/zero: the release binary under 1 GB of address space (the sanitized
# one needs more to start), which the old reader filled, then read its
# out of memory as the end of the file
if [ "$REL" = "$HPROFAN" ] && [[ $HPROFAN == */san/hprofan ]]; then
  skip "components-hostile: /dev/zero under ulimit -v" "no release binary beside $HPROFAN"
else
  (ulimit -v 1048576 && run_c "$REL" /dev/zero)
  expect_eq "components-hostile: /dev/zero under ulimit -v" "$?|$(cat "$D/err")" \
    "2|hprofan: /dev/zero:1: a line longer than 65536 bytes (it starts at byte offset 0)"
fi
run_c "$HPROFAN" "$D/nul.txt"
expect_eq "components-hostile: a NUL byte" "$?|$(cat "$D/err")" \
  "2|hprofan: $D/nul.txt:2: a NUL byte (the line starts at byte offset 16)"
run_c "$HPROFAN" "$D"
expect_eq "components-hostile: a directory" "$?|$(cat "$D/err")" \
  "2|hprofan: --components $D: Is a directory (at byte offset 0)"
run_c "$REL" "$D/dup.txt"
rc=$?
if [ $rc = 124 ]; then fail "components-hostile: 300,000 names, one twice" "more than 20 s"
else expect_eq "components-hostile: 300,000 names, one twice (within 20 s)" "$rc|$(cat "$D/err")" \
  "2|hprofan: $D/dup.txt:300001: component 'c0' named twice"; fi

# out of memory at every allocation of a small run
run_c "$HPROFAN" "$D/small.txt"
expect_eq "components-hostile: the small file" "$?|$(comps)" "0|app:2 lib:2 none:0 other:1"
cp "$D/out" "$D/want"
n=1 bad=0 inreader=0
while [ $n -lt 5000 ]; do
  HPROFAN_FAIL_ALLOC=$n run_c "$HPROFAN" "$D/small.txt"
  rc=$?
  if [ $rc = 0 ]; then
    cmp -s "$D/out" "$D/want" || { fail "components-hostile: HPROFAN_FAIL_ALLOC=$n" "exit 0 with other output"; bad=1; }
    break
  fi
  if [ $rc != 4 ] || ! grep -q 'out of memory' "$D/err" || grep -qvE '^hprofan: ' "$D/err"; then
    fail "components-hostile: HPROFAN_FAIL_ALLOC=$n" "exit $rc: $(head -c 300 "$D/err")"
    bad=1
    break
  fi
  grep -qx "hprofan: --components $D/small.txt: out of memory" "$D/err" && inreader=$((inreader + 1))
  n=$((n + 1))
done
[ $bad = 0 ] && expect_eq "components-hostile: out of memory at each of $((n - 1)) allocations, exit 4" \
  "$([ "$inreader" -gt 0 ] && echo "some in the reader")" "some in the reader"
