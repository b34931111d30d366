#!/usr/bin/env bash
# Text from a dump someone else wrote, and paths that are not plain files:
#  - no control character from the dump (ESC sequences, OSC 52, BEL, the C1
#    controls U+0080..U+009F) reaches the terminal, on stdout or stderr, in
#    tables, warnings and errors, with every command;
#  - --json is valid UTF-8 JSON whatever the dump's names, strings and heap
#    names hold, and whatever bytes the FILE path has;
#  - a FIFO, /dev/stdin and <(...) are read once, like -: what needs a second
#    read says so instead of blocking on a second open;
#  - -o writes through a symbolic link to its target, into a FIFO as it is,
#    and creates files with the umask's mode;
#  - a pattern that hits PCRE2's limits is a usage error naming it, never
#    "no match"; an id written 010000 is decimal.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip hostile-text "python3 is absent"; exit 0; }
H=$(cd "$(dirname "$0")/../helper" && pwd)
D=$TMPD

python3 - "$D" "$H" <<'EOF'
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
D = sys.argv[1]
evil = b"x\x1b]52;c;aGVsbG8=\x07\x1b[2J\xc2\x9b31m\xff\xfe\x80y"
for android in (False, True):
    d = Dump(android=android)
    obj = d.load_class("java.lang.Object")
    cls = d.load_class(b"Evil" + evil)
    strc = d.load_class("java.lang.String")
    arr = d.load_class("[C")
    gone = d.load_class(b"Gone" + evil)      # instances without a CLASS DUMP: a warning names it
    if android:
        d.heap_info(1, b"heap" + evil)
    d.class_dump(obj)
    d.class_dump(cls, super_id=obj, fields=[(b"f" + evil, OBJECT), ("n", INT)],
                 statics=[(b"s" + evil, INT, 7)])
    d.class_dump(strc, super_id=obj, fields=[("value", OBJECT), ("hash", INT)])
    chars = "ab\x1b[2J\u009b\u2028".encode("utf-16-be")
    v = d.prim_array(CHAR, chars)
    s = d.instance(strc, [v, 0])
    e = d.instance(cls, [s, 1])
    d.instance(gone)
    d.root(e)
    d.write("%s/%s.hprof" % (D, "android" if android else "hotspot"))
    if not android:
        with open("%s/id.txt" % D, "w") as f:
            f.write("0x%x %d" % (e, e))
# names that make a backtracking pattern explode
d = Dump()
obj = d.load_class("java.lang.Object")
d.class_dump(obj)
for k in range(3):
    c = d.load_class("a" * 40 + str(k))
    d.class_dump(c, super_id=obj)
    d.root(d.instance(c))
d.write("%s/aaa.hprof" % D)
# an unsupported format whose header holds an escape sequence
with open("%s/badfmt.hprof" % D, "wb") as f:
    f.write(b"JAVA PROFILE \x1b[2J\x07\0" + b"\0" * 12)
EOF
[ -f "$D/hotspot.hprof" ] || { fail hostile-text-dumps "the generator wrote nothing"; exit 0; }
read -r ID IDDEC <"$D/id.txt"

# clean NAME FILE...: no ESC, BEL or C1 control in the files
clean() {
  local n=$1; shift
  if python3 - "$@" <<'EOF'; then ok "$n: no control characters"; else fail "$n: no control characters" "$(cat "$D/why")"; fi
import sys, re, os
bad = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
for p in sys.argv[1:]:
    b = open(p, "rb").read()
    m = bad.search(b)
    if m:
        open(os.path.join(os.path.dirname(p), "why"), "w").write("%s: %r near %r" % (p, m.group(), b[max(0, m.start() - 20):m.end() + 20]))
        sys.exit(1)
EOF
}
# json NAME FILE: valid UTF-8 JSON
json() {
  if python3 -c 'import json, sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))' "$2" 2>"$D/jerr"
  then ok "$1: valid JSON"; else fail "$1: valid JSON" "$(head -c 300 "$D/jerr")"; fi
}

for dump in hotspot android; do
  f=$D/$dump.hprof
  i=0
  while IFS= read -r args; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    "$HPROFAN" $args >"$D/o.$i" 2>"$D/e.$i"
    rc=$?
    case $rc in 0|1|2) ;; *) fail "$dump: hprofan $args" "exit $rc: $(head -c 300 "$D/e.$i")" ;; esac
    clean "$dump: hprofan ${args#"$D/"}" "$D/o.$i" "$D/e.$i"
    case $args in *--json*) [ $rc = 0 ] && json "$dump: hprofan ${args#"$D/"}" "$D/o.$i" ;; esac
  done <<EOF
$f --top 0
$f --top 0 --fast
$f --top 0 --json
$f --heap nosuch
$f --heap default --json
info $f
info $f --json
dominators $f --depth 5
dominators $f --depth 5 --json
roots $f
roots $f --json
object $f $ID
object $f $ID --json
path $f $ID
path $f $ID --json
leaks $f --threshold 1
leaks $f --threshold 1 --json
EOF
done
"$HPROFAN" "$D/badfmt.hprof" >"$D/o.fmt" 2>"$D/e.fmt"
expect_eq "an unsupported format is an error" "$?" 1
clean "the unsupported format's message" "$D/e.fmt"

# a FILE whose name is not UTF-8
bad=$D/$(printf 'dump\377\033[2J.hprof')
cp "$D/hotspot.hprof" "$bad"
"$HPROFAN" "$bad" --json --quiet >"$D/o.name" 2>"$D/e.name"
json "a FILE named with invalid UTF-8" "$D/o.name"
"$HPROFAN" "$bad" --heap nosuch >"$D/o.name2" 2>"$D/e.name2"
clean "a FILE named with an escape sequence, in messages" "$D/e.name2"
"$HPROFAN" info "$bad" >"$D/o.name3" 2>"$D/e.name3"
clean "a FILE named with an escape sequence, in info" "$D/o.name3"

# ---- FIFOs, /dev/stdin, <(...) ---------------------------------------------------
S=$D/hotspot.hprof
# read once, into a copy (the spool) that later passes read: as the file;
# without a place for the copy (TMPDIR missing), as before: shallow sizes,
# or a refusal before anything is read
"$HPROFAN" "$S" --top 3 >"$D/o.want" 2>/dev/null
"$HPROFAN" dominators "$S" >"$D/o.want2" 2>/dev/null
mkfifo "$D/fifo"
(cat "$S" >"$D/fifo" &)
timeout 20 "$HPROFAN" "$D/fifo" --top 3 >"$D/o.fifo" 2>"$D/e.fifo"
rc=$?
expect_eq "a FIFO: --top reads it once, retained sizes as from the file, exit 0" "$rc|$(cmp -s "$D/o.fifo" "$D/o.want"; echo $?)" "0|0"
(cat "$S" >"$D/fifo" &)
TMPDIR=$D/none timeout 20 "$HPROFAN" "$D/fifo" --top 3 >"$D/o.fifo" 2>"$D/e.fifo"
rc=$?
expect_eq "a FIFO, no place for its copy: --top reads it once (shallow sizes), exit 0" "$rc|$(grep -c 'shallow sizes only' "$D/e.fifo")" "0|1"
TMPDIR=$D/none timeout 20 "$HPROFAN" dominators "$D/fifo" >"$D/o.fifo2" 2>"$D/e.fifo2"
expect_eq "a FIFO, no place for its copy: dominators says a pipe cannot be read twice, exit 2, without opening it" \
  "$?|$(grep -c 'which a pipe cannot do' "$D/e.fifo2")" "2|1"
(cat "$S" >"$D/fifo" &)
timeout 20 "$HPROFAN" dominators "$D/fifo" >"$D/o.fifo2" 2>"$D/e.fifo2"
expect_eq "a FIFO: dominators as from the file" "$?|$(cmp -s "$D/o.fifo2" "$D/o.want2"; echo $?)" "0|0"
timeout 20 "$HPROFAN" dominators /dev/stdin <"$S" >"$D/o.stdin" 2>"$D/e.stdin"
expect_eq "/dev/stdin redirected from a file: read again like a file" "$?" 0
cat "$S" | TMPDIR=$D/none timeout 20 "$HPROFAN" dominators /dev/stdin >"$D/o.stdin2" 2>"$D/e.stdin2"
expect_eq "/dev/stdin from a pipe, no place for its copy: refused like -, not 'empty file'" "$?|$(grep -c 'which a pipe cannot do' "$D/e.stdin2")" "2|1"
cat "$S" | timeout 20 "$HPROFAN" dominators /dev/stdin >"$D/o.stdin2" 2>"$D/e.stdin2"
expect_eq "/dev/stdin from a pipe: as the file" "$?|$(cmp -s "$D/o.stdin2" "$D/o.want2"; echo $?)" "0|0"
TMPDIR=$D/none timeout 20 "$HPROFAN" <(cat "$S") --top 3 >"$D/o.proc" 2>"$D/e.proc"
expect_eq "<(...), no place for its copy: read once, shallow sizes" "$?|$(grep -c 'shallow sizes only' "$D/e.proc")" "0|1"
timeout 20 "$HPROFAN" <(cat "$S") --top 3 >"$D/o.proc" 2>"$D/e.proc"
expect_eq "<(...): read once, retained sizes as from the file" "$?|$(cmp -s "$D/o.proc" "$D/o.want"; echo $?)" "0|0"

# ---- -o ------------------------------------------------------------------------------
"$HPROFAN" "$S" --top 3 --quiet >"$D/want.txt"
: >"$D/target.txt"
ln -s target.txt "$D/link.txt"
"$HPROFAN" "$S" --top 3 --quiet -o "$D/link.txt"
expect_eq "-o through a symbolic link: the link stays" "$([ -L "$D/link.txt" ] && echo link)" link
expect_eq "-o through a symbolic link: its target gets the output" "$(cmp -s "$D/target.txt" "$D/want.txt" && echo same)" same
mkfifo "$D/outfifo"
# the reader ends when hprofan closes the FIFO (waited for: a fixed pause
# lost the race on a busy machine); bounded, should hprofan never open it
timeout 60 cat "$D/outfifo" >"$D/fromfifo" &
reader=$!
"$HPROFAN" "$S" --top 3 --quiet -o "$D/outfifo"
wait "$reader"
expect_eq "-o into a FIFO: still a FIFO" "$([ -p "$D/outfifo" ] && echo fifo)" fifo
expect_eq "-o into a FIFO: the reader gets the output" "$(cmp -s "$D/fromfifo" "$D/want.txt" && echo same)" same
(umask 077 && "$HPROFAN" "$S" --top 3 --quiet -o "$D/private.txt")
expect_eq "-o with umask 077: mode 600" "$(stat -c %a "$D/private.txt")" 600
(umask 022 && "$HPROFAN" "$S" --top 3 --quiet -o "$D/public.txt")
expect_eq "-o with umask 022: mode 644" "$(stat -c %a "$D/public.txt")" 644
chmod 640 "$D/public.txt"
"$HPROFAN" "$S" --top 2 --quiet -o "$D/public.txt"
expect_eq "-o over a file: its mode stays" "$(stat -c %a "$D/public.txt")" 640

# ---- patterns and ids -----------------------------------------------------------------
for o in --filter --exclude; do
  timeout 60 "$HPROFAN" "$D/aaa.hprof" --fast "$o" '(a+)+c|b' >"$D/o.re" 2>"$D/e.re"
  expect_eq "$o '(a+)+c|b' over long names: a usage error naming the pattern" \
    "$?|$(grep -cF -- "$o '(a+)+c|b'" "$D/e.re")" "2|1"
done
timeout 60 "$HPROFAN" dominators "$D/aaa.hprof" --filter '(a+)+$' >"$D/o.re2" 2>"$D/e.re2"
expect_eq "dominators --filter '(a+)+\$': a usage error" "$?" 2
"$HPROFAN" object "$S" "0$IDDEC" >"$D/o.oct" 2>"$D/e.oct"
expect_eq "an id with a leading 0 is decimal" "$?|$(head -n 1 "$D/o.oct" | grep -c "$ID")" "0|1"
