#!/usr/bin/env bash
# The wall between the layers (docs/style.md): only src/cli/ prints, exits
# or touches curses.  Prints the offending lines and exits 1 when the
# parser, model or analysis layers do; `make wall` runs it alone, and
# tests/run-all.sh as the first test.
cd "$(dirname "$0")/.." || exit 2
hits=$(grep -rnE '\b(printf|fprintf|puts|fputs|exit|abort)\s*\(|ncurses|curses\.h' \
       src/parser src/model src/analysis --include='*.c' --include='*.h' 2>/dev/null |
       grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)' | grep -vE 'v?snprintf\(' || true)
if [ -n "$hits" ]; then
  echo "wall: the library layers print or exit:"
  echo "$hits" | head -20
  exit 1
fi
exit 0
