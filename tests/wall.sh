#!/usr/bin/env bash
# The walls between the layers (docs/style.md).  `make wall` runs it alone,
# tests/run-all.sh as the first test; tests/cli/wall_plant.sh checks that it
# fails on what it is meant to catch.  Usage: tests/wall.sh [SRC] (default
# src/ of this repository).  Prints what breaks a wall and exits 1:
#
#  1. Only src/cli/ prints, exits or touches curses: the library layers
#     (base, parser, model, analysis, tools, session) and the browser's list
#     model (cli/browse_model.*, drawn by browse_draw.c) return a status.
#  2. Data flows one way: a folder includes the headers, and names the
#     functions, only of the folders below it in the table LAYERS.
#  3. No circles, at file level and at folder level:
#       - no header includes itself through the headers it includes;
#       - no two .c files use each other's functions, directly or through
#         others: file A uses file B when A names (calls, or takes the
#         address of) a function B defines and A does not.  A table of
#         descriptors (the command table) is data and is not counted;
#       - the folders' graph (includes and uses) has no circle.
cd "$(dirname "$0")/.." || exit 2
SRC=${1:-src}
[ -d "$SRC" ] || { echo "wall: no folder $SRC" >&2; exit 2; }
fail=0

# ---- 1. only cli prints -----------------------------------------------------
lib=()
for d in base parser model analysis tools session; do
  [ -d "$SRC/$d" ] && lib+=("$SRC/$d")
done
lib+=($(ls "$SRC"/cli/browse_model.[ch] 2>/dev/null))
hits=$(grep -rnE '\b(printf|fprintf|puts|fputs|exit|abort)\s*\(|ncurses|curses\.h' \
       "${lib[@]}" --include='*.c' --include='*.h' 2>/dev/null |
       grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)' | grep -vE 'v?snprintf\(' || true)
if [ -n "$hits" ]; then
  echo "wall: the library layers print or exit:"
  echo "$hits" | head -20
  fail=1
fi

# ---- 2 and 3: layers and circles --------------------------------------------
# folder: the folders it may use (include and name functions of), besides itself.
# tools/ holds programs over a dump that ask the model nothing (redact, a
# rewriter from the parser's raw stream to the writer): beside analysis/,
# over parser/ and model/, used by cli/ only.
LAYERS='
base:
parser:    base
model:     base parser
analysis:  base parser model
tools:     base parser model
session:   base parser model analysis
cli:       base parser model analysis tools session
'
LAYERS="$LAYERS" perl -e '
use strict; use warnings;
my $src = shift;
my %may;
for (split /\n/, $ENV{LAYERS}) {
	next unless /^(\w+):\s*(.*)$/;
	$may{$1} = { map { $_ => 1 } split " ", $2 };
	$may{$1}{$1} = 1;
}
my @files = sort split /\n/, `find "$src" -name "*.[ch]" -type f`;
my (%inc, %defs, %exported, %names, $bad);
my %kw = map { $_ => 1 } qw(if for while switch return sizeof do else case
	_Alignof _Static_assert _Generic __attribute__ __typeof__ typeof defined);
for my $f (@files) {
	open my $fh, "<", $f or die "$f: $!";
	local $/; my $t = <$fh>; close $fh;
	(my $rel = $f) =~ s{^\Q$src\E/}{};
	while ($t =~ /^\s*#\s*include\s*"([^"]+)"/mg) { push @{$inc{$rel}}, $1; }
	next unless $rel =~ /\.c$/;
	# comments, strings and character constants blanked (newlines kept)
	$t =~ s{/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\x27(?:\\.|[^\x27\\\n])*\x27}
	       { my $m = $&; $m =~ tr/\n//cd; $m =~ /^"/ ? "\"\"" : $m =~ /^\x27/ ? "0" : $m }gse;
	# preprocessor lines (with their continuations): names only
	my $pp = "";
	$t =~ s{^[ \t]*#(?:[^\n\\]|\\.)*}{ $pp .= "$& "; my $m = $&; $m =~ tr/\n//cd; $m }gme;
	$pp =~ s/#\s*define\s+\w+//g;
	# function definitions: "...name(...) {" at brace depth 0
	my ($depth, $decl) = (0, "");
	for my $tok ($t =~ /[{};]|[^{};]+/g) {
		if ($tok eq "{") {
			if ($depth == 0) {
				(my $d = $decl) =~ s/__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)//g;
				if ($d !~ /=/ && $d =~ /(\w+)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$/s && !$kw{$1}) {
					$defs{$rel}{$1} = 1;
					$exported{$1} = $rel unless $d =~ /\bstatic\b/;
				}
			}
			$depth++;
			$decl = "";
		} elsif ($tok eq "}") {
			$depth-- if $depth > 0;
			$decl = "";
		} elsif ($tok eq ";") {
			$decl = "";
		} else {
			$decl .= $tok if $depth == 0;
		}
	}
	$names{$rel}{$_} = 1 for ("$t $pp" =~ /\b([A-Za-z_]\w*)\b/g);
}
sub folder { my $f = shift; return $f =~ m{^([^/]+)/} ? $1 : "."; }
my (%fedge, %why, %dedge);
# includes: the header must exist (a system header is <...>)
for my $f (sort keys %inc) {
	for my $h (@{$inc{$f}}) {
		my $to = -f "$src/$h" ? $h : undef;
		if (!defined $to) {
			print "wall: $src/$f includes \"$h\", which is not a file of $src\n"; $bad = 1; next;
		}
		$fedge{inc}{$f}{$to} = 1;
		$dedge{folder($f)}{folder($to)}{"$f includes $h"} = 1;
	}
}
# uses: A names a function B exports
for my $a (sort keys %names) {
	for my $n (sort keys %{$names{$a}}) {
		my $b = $exported{$n};
		next if !defined $b || $b eq $a || $defs{$a}{$n};
		$fedge{use}{$a}{$b} = 1;
		push @{$why{"$a $b"}}, $n;
		$dedge{folder($a)}{folder($b)}{"$a uses $n() of $b"} = 1;
	}
}
# the layers
for my $d (sort keys %dedge) {
	if (!$may{$d}) {
		print "wall: folder $d is not in the table of layers (tests/wall.sh)\n"; $bad = 1; next;
	}
	for my $e (sort keys %{$dedge{$d}}) {
		next if $may{$d}{$e};
		my @w = sort keys %{$dedge{$d}{$e}};
		print "wall: $d/ may not use $e/: $w[0]", (@w > 1 ? " (and " . (@w - 1) . " more)" : ""), "\n";
		$bad = 1;
	}
}
# circles: strongly connected components (Tarjan) of more than one node
sub sccs {
	my $g = shift;
	my ($i, %idx, %low, %on, @st, @out) = (0);
	my $visit; $visit = sub {
		my $v = shift;
		$idx{$v} = $low{$v} = $i++; push @st, $v; $on{$v} = 1;
		for my $w (sort keys %{$g->{$v} || {}}) {
			if (!defined $idx{$w}) { $visit->($w); $low{$v} = $low{$w} if $low{$w} < $low{$v}; }
			elsif ($on{$w} && $idx{$w} < $low{$v}) { $low{$v} = $idx{$w}; }
		}
		if ($low{$v} == $idx{$v}) {
			my @c; my $w;
			do { $w = pop @st; $on{$w} = 0; push @c, $w; } while ($w ne $v);
			push @out, [sort @c] if @c > 1;
		}
	};
	for my $v (sort keys %$g) { $visit->($v) unless defined $idx{$v}; }
	return @out;
}
for my $c (sccs($fedge{inc} || {})) {
	print "wall: headers include each other: ", join(", ", @$c), "\n"; $bad = 1;
}
for my $c (sccs($fedge{use} || {})) {
	my %in = map { $_ => 1 } @$c;
	print "wall: a circle of files that use each other: ", join(", ", @$c), "\n";
	for my $a (@$c) {
		for my $b (sort keys %{$fedge{use}{$a}}) {
			next unless $in{$b};
			my @n = @{$why{"$a $b"}};
			print "  $a -> $b: ", join(", ", @n[0 .. ($#n < 4 ? $#n : 4)]), (@n > 5 ? ", ..." : ""), "\n";
		}
	}
	$bad = 1;
}
my %dg = map { my $d = $_; $d => { map { $_ => 1 } grep { $_ ne $d } keys %{$dedge{$d}} } } keys %dedge;
for my $c (sccs(\%dg)) {
	print "wall: a circle of folders: ", join(", ", @$c), "\n"; $bad = 1;
}
exit($bad ? 1 : 0);
' "$SRC" || fail=1
exit $fail
