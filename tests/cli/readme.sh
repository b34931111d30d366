#!/usr/bin/env bash
# The outputs the README and docs/*.md show are what the binary prints:
#  (a) scripts/snapshot-outputs --check runs every marked block's commands
#      with $HPROFAN and finds each block as it is in the file (the blocks on
#      corpus dumps are skipped without the corpus);
#  (b) the check can fail: a block edited by hand, and a binary whose output
#      changed (a wrapper that alters one figure), are each named as stale,
#      exit status 1; a block whose command fails is exit status 2;
#  (c) the README stays a README: at most 500 lines, `make demo` and
#      `make check` in its first lines, every console block generated (a
#      marker before it), every docs/ page it links to present.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
S=$root/scripts/snapshot-outputs
R=$root/README.md

# ---- (a) every block is current -------------------------------------------
if "$S" --check --bin "$HPROFAN" >"$TMPD/check.out" 2>"$TMPD/check.err"; then
  ok "readme: every output block is what $(basename "$HPROFAN") prints ($(tail -n 1 "$TMPD/check.err" | sed 's/^snapshot-outputs: //'))"
else
  fail "readme: every output block is what the binary prints" \
    "$(head -c 1500 "$TMPD/check.err"); make readme rewrites them"
fi
if grep -q 'skipped (the corpus is absent' "$TMPD/check.err"; then
  skip "readme: the blocks on corpus dumps" "the corpus is absent"
fi

# ---- (b) the check fails when it should -----------------------------------
D=$TMPD/neg
mkdir -p "$D"
cat >"$D/t.md" <<'EOF'
# t
<!-- snapshot: hprofan testdata/hprof/leakycache.hprof.gz --fast --top 2 -->
```console
```
EOF
if ! "$S" --bin "$HPROFAN" "$D/t.md" 2>"$D/gen.err"; then
  fail "readme: a block is written" "$(head -c 300 "$D/gen.err")"
elif ! grep -q '^ rank ' "$D/t.md" || ! grep -qxF '$ hprofan testdata/hprof/leakycache.hprof.gz --fast --top 2' "$D/t.md"; then
  fail "readme: a block is written" "no table after the command line: $(head -c 300 "$D/t.md")"
else
  ok "readme: a block is written"
  "$S" --check --bin "$HPROFAN" "$D/t.md" 2>"$D/same.err"
  expect_eq "readme: a block just written is current" "$?" 0
  # a figure edited by hand
  sed '0,/^    1 /s/^\(    1  *\)\([0-9]\)/\1\2\2/' "$D/t.md" >"$D/edited.md"
  if cmp -s "$D/t.md" "$D/edited.md"; then
    fail "readme: an edited block is stale" "the edit changed nothing"
  else
    "$S" --check --bin "$HPROFAN" "$D/edited.md" 2>"$D/edited.err"
    rc=$?
    if [ $rc = 1 ] && grep -q 'edited.md:2: stale block' "$D/edited.err"; then
      ok "readme: an edited block is stale, named by its line"
    else
      fail "readme: an edited block is stale" "exit $rc: $(head -c 300 "$D/edited.err")"
    fi
  fi
  # a binary whose output changed
  cat >"$D/changed" <<EOF
#!/bin/sh
"$HPROFAN" "\$@" | sed 's/byte\[\]/byte []/'
EOF
  chmod +x "$D/changed"
  "$S" --check --bin "$D/changed" "$D/t.md" 2>"$D/changed.err"
  rc=$?
  if [ $rc = 1 ] && grep -q 't.md:2: stale block' "$D/changed.err" && grep -q '^+.*byte \[\]' "$D/changed.err"; then
    ok "readme: a changed output makes the block stale, with the diff"
  else
    fail "readme: a changed output makes the block stale" "exit $rc: $(head -c 300 "$D/changed.err")"
  fi
  # a command that fails
  printf '<!-- snapshot: hprofan no-such.hprof -->\n```console\n```\n' >"$D/bad.md"
  "$S" --check --bin "$HPROFAN" "$D/bad.md" 2>"$D/bad.err"
  rc=$?
  if [ $rc = 2 ] && grep -q 'exited 1' "$D/bad.err"; then
    ok "readme: a failing command is an error, exit 2"
  else
    fail "readme: a failing command is an error" "exit $rc: $(head -c 300 "$D/bad.err")"
  fi
fi

# ---- (c) the README's shape -----------------------------------------------
n=$(wc -l <"$R")
if [ "$n" -le 500 ]; then ok "readme: $n lines (at most 500)"; else fail "readme: at most 500 lines" "$n lines"; fi
if head -n 8 "$R" | grep -qx 'make demo' && head -n 8 "$R" | grep -qx 'make check'; then
  ok "readme: make demo and make check open it"
else
  fail "readme: make demo and make check open it" "not in its first 8 lines"
fi
marked=$(grep -c '^<!-- snapshot: ' "$R")
if [ "$marked" -ge 5 ]; then ok "readme: its tour shows $marked generated blocks"; else fail "readme: its tour shows generated blocks" "$marked snapshot markers (at least 5)"; fi
unmarked=$(awk '/^```console$/ && prev !~ /^<!-- snapshot: .* -->$/ { print NR } { prev = $0 }' "$R" | paste -sd' ')
if [ -z "$unmarked" ]; then
  ok "readme: every console block is generated"
else
  fail "readme: every console block is generated" "no snapshot marker before the blocks at lines $unmarked"
fi
missing=
for l in $(grep -oE '\]\((docs/[^)#]+|man/[^)#]+)' "$R" | sed 's/^](//' | sort -u); do
  [ -e "$root/$l" ] || missing="$missing $l"
done
if [ -z "$missing" ]; then ok "readme: the pages it links to exist"; else fail "readme: the pages it links to exist" "missing:$missing"; fi
