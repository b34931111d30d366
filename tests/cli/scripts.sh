#!/usr/bin/env bash
# Every shell script of the project parses (bash -n): the bench, the CI
# entry, the set-up scripts and the tests themselves.  A script nothing else
# runs in `make check` (bench/run.sh) would otherwise break unseen.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
n=0
for f in "$root"/bench/*.sh "$root"/scripts/* "$root"/.ci/run "$root"/tests/*.sh "$root"/tests/cli/*.sh; do
  [ -f "$f" ] || continue
  case $(head -n 1 "$f") in
    '#!'*bash*|'#!'*/sh*) ;;
    *) case $f in *.sh) ;; *) continue ;; esac ;;
  esac
  n=$((n + 1))
  if out=$(bash -n "$f" 2>&1); then
    ok "scripts: ${f#"$root"/} parses"
  else
    fail "scripts: ${f#"$root"/} parses" "$(printf '%s' "$out" | head -c 300)"
  fi
done
[ "$n" -gt 5 ] && ok "scripts: $n scripts checked" || fail "scripts" "only $n scripts found"
