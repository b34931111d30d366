#!/usr/bin/env bash
# hprofan serve: the server on port 0 driven over HTTP on loopback and in
# headless Chromium by serve.py (its header lists the checks): the small
# sample, a dump with a hostile class name, a larger dump of the sample's
# program (the diff) and a corpus dump read in place.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip serve "python3 is absent"; exit 0; }
SAMPLE=$TESTDATA/hprof/leakycache-small.hprof.gz
[ -f "$SAMPLE" ] || { skip serve "no $SAMPLE"; exit 0; }
HELPER=$(cd "$(dirname "$0")/../helper" && pwd)
# a class named as markup that would run: shown as text or not at all
H=$TMPD/hostile.hprof
# (and a second one, with more of them, to replace it while it is served)
mkdump() { python3 - "$1" "$HELPER" "$2" <<'PY' || fail serve-hostile-dump "cannot write the dump"
import sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
d = Dump()
obj = d.load_class("java.lang.Object"); d.class_dump(obj)
c = d.load_class("<img src=x onerror=window.__xss=1>"); d.class_dump(c, obj, fields=[("v", INT)])
for i in range(int(sys.argv[3])): d.root(d.instance(c, [i]))
d.write(sys.argv[1])
PY
}
mkdump "$H" 3
mkdump "$TMPD/hostile-5.hprof" 5
C=
[ -f "$CORPUS/agourlay__hprof-slurp/hprof-32.bin" ] && C=$CORPUS/agourlay__hprof-slurp/hprof-32.bin
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
BIG=$TESTDATA/hprof/leakycache.hprof.gz   # (the sample's program later: a diff with the sample)
HPROFAN=$HPROFAN REL=$REL TMPD=$TMPD SAMPLE=$SAMPLE BIG=$BIG HOSTILE=$H CORPUS_DUMP=$C HELPER=$HELPER CHROMIUM=$CHROMIUM \
  timeout 150 python3 "$(dirname "$0")/serve.py" || fail serve-driver "serve.py ended with status $?"
