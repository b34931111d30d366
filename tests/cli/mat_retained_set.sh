#!/usr/bin/env bash
# Eclipse MAT's OQLTest: on sun_jdk5_64bit.hprof the retained set of all
# java.lang.String objects holds 963 objects (MAT's conventions: every
# reference followed, thread locals held by their thread).  MAT counts 492
# Strings because it drops unreachable objects; hprofan keeps all 602, and
# unreachable objects are never part of a retained set, so the figure agrees.
. "$(dirname "$0")/../lib.sh"
have_corpus "MAT retained set of all Strings" || exit 0
f=$CORPUS/eclipse-mat__mat/sun_jdk5_64bit.hprof
if run_hp "$TMPD/o.json" "$TMPD/e" "$f" --filter '^java\.lang\.String$' --retained-set --json --quiet; then
  expect_eq "MAT: retained set of all Strings has 963 objects" "$(jget "$TMPD/o.json" 'd["retained_set"]["objects"]')" 963
  expect_eq "the set is the 602 String objects" "$(jget "$TMPD/o.json" 'd["retained_set"]["objects_in_set"]')" 602
else
  fail "MAT retained set of all Strings" "exit $?: $(head -c 300 "$TMPD/e")"
fi
# --retained-set needs retained sizes
if run_hp "$TMPD/o2" "$TMPD/e2" "$f" --fast --retained-set --quiet; then
  fail "--retained-set with --fast is refused" "exit 0"
else
  expect_eq "--retained-set with --fast is a usage error" "$?" 2
fi
