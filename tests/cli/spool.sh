#!/usr/bin/env bash
# gzip and pipes read once: the pass that reads the
# objects of a gzip dump or a pipe copies the bytes into an unlinked file
# (the spool, in TMPDIR) that later passes map.  Checks:
#  - retained sizes of a pipe (plain and gzip) and of a gzip file are those
#    of the plain file, and, on a corpus dump, those VisualVM printed
#    (expected/*.vvm.json: every class's instances and retained bytes);
#  - commands that read objects again (object, dominators) work from a pipe;
#  - no place for the spool (TMPDIR missing) or a spool the disk cannot hold
#    (ulimit -f: File too large): one warning saying why, and gzip gives the
#    same answers, inflated again; a pipe gives shallow sizes as before;
#  - the spool is unlinked while hprofan runs (its descriptor names a
#    deleted file) and nothing is left in TMPDIR, after a failed run too.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip spool "python3 is absent"; exit 0; }

SP=$TMPD/spool            # the spool's directory: stays empty
mkdir -p "$SP"
export TMPDIR=$SP HPROFAN_NO_INDEX=1

# same_json LABEL A B: identical apart from "file"
same_json() {
  if python3 - "$2" "$3" <<'PY'; then ok "$1"; else fail "$1" "$(diff "$2" "$3" | head -4 | tr '\n' ' ')"; fi
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d.pop('file', None)
sys.exit(0 if a == b and a.get('retained_sizes', True) else 1)
PY
}
empty_spool() {
  if [ -z "$(ls -A "$SP")" ]; then ok "$1: nothing left in TMPDIR"
  else fail "$1: nothing left in TMPDIR" "$(ls -A "$SP" | head -3 | tr '\n' ' ')"; fi
}

# 1. the project's sample: plain, gzip file, gzip and plain through a pipe
G=$TESTDATA/hprof/leakycache.hprof.gz
P=$TMPD/leakycache.hprof
gzip -dc "$G" >"$P"
top() { "$HPROFAN" "$@" --top 0 --json --quiet; }
top "$P" >"$TMPD/t.plain" 2>"$TMPD/t.plain.err"
top "$G" >"$TMPD/t.gz" 2>"$TMPD/t.gz.err"
cat "$G" | top - >"$TMPD/t.gzpipe" 2>"$TMPD/t.gzpipe.err"
cat "$P" | top - >"$TMPD/t.pipe" 2>"$TMPD/t.pipe.err"
same_json "gzip file: retained sizes as the plain file" "$TMPD/t.plain" "$TMPD/t.gz"
same_json "gzip through a pipe: retained sizes as the plain file" "$TMPD/t.plain" "$TMPD/t.gzpipe"
same_json "plain through a pipe: retained sizes as the plain file" "$TMPD/t.plain" "$TMPD/t.pipe"
expect_eq "no warning on the way" "$(cat "$TMPD"/t.*.err)" ""
empty_spool "top from gzip and pipes"

# object and dominators read objects again: from a pipe as from the file
id=$("$HPROFAN" dominators "$P" --top 1 --json --quiet |
     python3 -c 'import json,sys; print(json.load(sys.stdin)["dominators"][0]["id"])' 2>/dev/null)
if [ -n "$id" ]; then
  "$HPROFAN" object "$P" "$id" >"$TMPD/o.plain" 2>&1
  cat "$G" | "$HPROFAN" object - "$id" >"$TMPD/o.pipe" 2>&1
  expect_eq "object $id from a gzip pipe: as from the file" "$(cmp -s "$TMPD/o.plain" "$TMPD/o.pipe"; echo $?)|$(grep -c . "$TMPD/o.plain")" \
    "0|$(grep -c . "$TMPD/o.plain")"
else
  fail "object from a pipe" "no object id from dominators --json"
fi
"$HPROFAN" dominators "$P" --depth 3 >"$TMPD/d.plain" 2>&1
cat "$P" | "$HPROFAN" dominators - --depth 3 >"$TMPD/d.pipe" 2>&1
expect_eq "dominators from a pipe: as from the file" "$(cmp -s "$TMPD/d.plain" "$TMPD/d.pipe"; echo $?)" 0

# 2. no place for the spool: a warning, and the answers of before
TMPDIR=$TMPD/none top "$G" >"$TMPD/n.gz" 2>"$TMPD/n.gz.err"
TMPDIR=$TMPD/none "$HPROFAN" "$G" --top 0 --json >/dev/null 2>"$TMPD/n.gz.err2"
same_json "gzip, no place for a copy: the same retained sizes" "$TMPD/t.plain" "$TMPD/n.gz"
expect_eq "gzip, no place for a copy: one warning saying why (not with --quiet)" \
  "$(cat "$TMPD/n.gz.err2")|$(cat "$TMPD/n.gz.err")" \
  "hprofan: warning: $G: no copy of the inflated dump is kept (cannot create a file in $TMPD/none: No such file or directory), so each pass inflates it again|"
cat "$G" | TMPDIR=$TMPD/none "$HPROFAN" - --top 0 --json >"$TMPD/n.pipe" 2>"$TMPD/n.pipe.err"
"$HPROFAN" "$P" --top 0 --json --fast --quiet >"$TMPD/t.fast"
expect_eq "pipe, no place for a copy: exit 0, why, and shallow sizes only" \
  "$?|$(head -1 "$TMPD/n.pipe.err")|$(grep -c 'shallow sizes only' "$TMPD/n.pipe.err")|$(jget "$TMPD/n.pipe" 'd["retained_sizes"]')" \
  "0|hprofan: warning: -: no copy of the input is kept (cannot create a file in $TMPD/none: No such file or directory), so it cannot be read again|1|false"
if python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); [d.pop("file") for d in (a,b)]; sys.exit(a != b)' \
     "$TMPD/t.fast" "$TMPD/n.pipe"; then ok "pipe, no place for a copy: the histogram of --fast on the file"
else fail "pipe, no place for a copy: the histogram of --fast on the file" "the JSON differs"; fi

# 3. a spool the disk cannot hold: its write fails half way (the file size
#    limit, SIGXFSZ ignored so that write() says EFBIG)
( trap '' XFSZ; ulimit -f 200; top "$G" >"$TMPD/f.gz" 2>/dev/null
  "$HPROFAN" "$G" --top 0 --json 2>"$TMPD/f.gz.err" >/dev/null
  cat "$P" | "$HPROFAN" - --top 0 --json >"$TMPD/f.pipe" 2>"$TMPD/f.pipe.err" )
same_json "gzip, the spool cut short: the same retained sizes" "$TMPD/t.plain" "$TMPD/f.gz"
expect_eq "gzip, the spool cut short: the warning says why" "$(cat "$TMPD/f.gz.err")" \
  "hprofan: warning: $G: no copy of the inflated dump is kept (cannot write to $SP: File too large), so each pass inflates it again"
expect_eq "pipe, the spool cut short: why, and shallow sizes" \
  "$(head -1 "$TMPD/f.pipe.err")|$(jget "$TMPD/f.pipe" 'd["retained_sizes"]')" \
  "hprofan: warning: -: no copy of the input is kept (cannot write to $SP: File too large), so it cannot be read again|false"
empty_spool "spools cut short"

# 4. unlinked while it runs: a pipe that does not end keeps hprofan reading
mkfifo "$TMPD/fifo"
( exec 3>"$TMPD/fifo"; cat "$P" >&3; sleep 60 ) &
writer=$!
"$HPROFAN" dominators - --quiet <"$TMPD/fifo" >/dev/null 2>&1 &
hp=$!
held=""
for _ in $(seq 1 300); do   # up to 30 s: the machine may be busy
  held=$(ls -l "/proc/$hp/fd" 2>/dev/null | grep -c "$SP/hprofan-spool.* (deleted)")
  [ "$held" = 1 ] && break
  sleep 0.1
done
expect_eq "while it runs: the spool is open and already unlinked" "$held|$(ls -A "$SP" | wc -l)" "1|0"
kill "$hp" "$writer" 2>/dev/null
wait "$hp" "$writer" 2>/dev/null
empty_spool "a run killed"

# an error while the pipe stays open: hprofan stops at once (the thread
# reading ahead waits in read(), and is cancelled)
gzip -dc "$G" | head -c 3000000 >"$TMPD/part"
printf '\167\000\000\000\000\000\000\000\020' >>"$TMPD/part"
( cat "$TMPD/part"; sleep 30 ) >"$TMPD/fifo" &
writer=$!
timeout 10 "$HPROFAN" - --top 3 --quiet <"$TMPD/fifo" >/dev/null 2>"$TMPD/open.err"
rc=$?
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null
expect_eq "an error while the pipe stays open: exit 1 at once, not when the pipe ends" \
  "$rc|$(grep -c 'unknown heap-dump sub-record tag' "$TMPD/open.err")" "1|1"
rm -f "$TMPD/part"

# 5. a failed run: a gzip cut short, without --salvage
head -c 20000 "$G" >"$TMPD/cut.gz"
"$HPROFAN" "$TMPD/cut.gz" --top 3 --quiet >/dev/null 2>"$TMPD/cut.err"
rc=$?
cat "$TMPD/cut.gz" | "$HPROFAN" dominators - --quiet >/dev/null 2>>"$TMPD/cut.err"
expect_eq "a gzip cut short: exit 3 from the file and the pipe" "$rc|$?" "3|3"
empty_spool "failed runs"

# 6. corpus: VisualVM's retained sizes from a gzip pipe, and a gzip dump of
#    the corpus (file, pipe) against its inflated copy
if have_corpus spool-corpus; then
  D=$CORPUS/eclipse-mat__mat/oracle_jdk8_05_x64.hprof
  E=$CORPUS/expected/eclipse-mat__mat_oracle_jdk8_05_x64.hprof.vvm.json
  gzip -c "$D" | "$HPROFAN" - --top 0 --json --size-model=visualvm --weak=skip --roots=all --quiet >"$TMPD/v.json"
  # java.lang.Class: VisualVM counts the class objects apart (golden_retained.py)
  expect_eq "oracle_jdk8_05_x64 gzip through a pipe: every class's instances and retained bytes as VisualVM's" \
    "$(python3 - "$TMPD/v.json" "$E" <<'PY'
import json, sys
d, e = (json.load(open(f)) for f in sys.argv[1:3])
ours = {c["class"]: c for c in d["classes"]}
n = bad = 0
for c in e["classes"]:
    if c["instances"] == 0 or c["name"] == "java.lang.Class":
        continue
    n += 1
    o = ours.get(c["name"])
    bad += not o or (o["instances"], o["retained"]) != (c["instances"], c["retained_bytes"])
print(d["retained_sizes"], n, bad)
PY
)" "True 269 0"
  Z=$CORPUS/eclipse-mat__mat/openjdk_jdk11_04_x64.hprof.gz
  gzip -dc "$Z" >"$TMPD/jdk11.hprof"
  top "$TMPD/jdk11.hprof" >"$TMPD/z.plain"
  top "$Z" >"$TMPD/z.gz"
  cat "$Z" | top - >"$TMPD/z.pipe"
  same_json "openjdk_jdk11_04_x64.hprof.gz: retained sizes as its inflated copy" "$TMPD/z.plain" "$TMPD/z.gz"
  same_json "openjdk_jdk11_04_x64.hprof.gz through a pipe: retained sizes as its inflated copy" "$TMPD/z.plain" "$TMPD/z.pipe"
  rm -f "$TMPD/jdk11.hprof"
  empty_spool "corpus"
fi
rm -f "$P"
