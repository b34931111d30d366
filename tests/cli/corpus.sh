#!/usr/bin/env bash
# Every dump in ../shared/corpus is read completely (info and --top exit 0),
# except the two corrupt files, which stop at the offset where framing breaks
# (before their heap dump: --salvage has nothing for --top).
. "$(dirname "$0")/../lib.sh"
have_corpus corpus-read-all || exit 0
tail -n +2 "$CORPUS/MANIFEST.tsv" | cut -f1 | while read -r f; do
  path=$CORPUS/$f
  [ -f "$path" ] || { skip "read $f" "missing"; continue; }
  case $f in
    *CORRUPT-spelling-amount.bin) want=1057481 ;;
    *CORRUPT-spelling-amount-attrs.bin) want=304376 ;;
    *) want= ;;
  esac
  if [ -z "$want" ]; then
    if run_hp "$TMPD/o" "$TMPD/e" info "$path" --quiet; then ok "info $f"
    else fail "info $f" "exit $?: $(head -c 300 "$TMPD/e")"; fi
  else
    run_hp "$TMPD/o" "$TMPD/e" info "$path" --quiet; rc=$?
    if [ $rc = 1 ] && grep -q "offset $want " "$TMPD/e" && [ "$(wc -l < "$TMPD/e")" -le 2 ]; then ok "corrupt $f stops at $want"
    else fail "corrupt $f" "exit $rc: $(head -c 300 "$TMPD/e")"; fi
    # the break comes before the heap dump (at 1,812,683): info salvages
    # the records, --top has nothing to salvage
    if run_hp "$TMPD/o" "$TMPD/e" info "$path" --salvage --json --quiet &&
       [ "$(jget "$TMPD/o" 'd["partial"]')" = true ]; then ok "salvage info $f"
    else fail "salvage info $f" "$(head -c 300 "$TMPD/e")"; fi
    run_hp "$TMPD/o" "$TMPD/e" "$path" --top 5 --salvage --quiet --fast; rc=$?
    if [ $rc = 1 ] && [ ! -s "$TMPD/o" ] && grep -q 'nothing to salvage' "$TMPD/e"; then ok "salvage $f: nothing to salvage (exit 1)"
    else fail "salvage $f: nothing to salvage (exit 1)" "exit $rc: $(head -c 300 "$TMPD/e")"; fi
  fi
done
