#!/usr/bin/env bash
# hprofan mcp: a Model Context Protocol session scripted by mcp.py (its
# header lists the checks) on the small sample (testdata/) and a corpus
# dump read in place; the CLI's --json of each command, run on its own,
# is what each tool must answer.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip mcp "python3 is absent"; exit 0; }
SAMPLE=$TESTDATA/hprof/leakycache-small.hprof.gz
[ -f "$SAMPLE" ] || { skip mcp "no $SAMPLE"; exit 0; }
[ -d "$CORPUS" ] || CORPUS=
HPROFAN=$HPROFAN REL=$REL TMPD=$TMPD SAMPLE=$SAMPLE CORPUS=$CORPUS \
  python3 "$(dirname "$0")/mcp.py" || fail mcp-driver "mcp.py ended with status $?"
