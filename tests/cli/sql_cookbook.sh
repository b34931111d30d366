#!/usr/bin/env bash
# docs/sql.md's recipes, each run as the page writes it on the heap of
# testdata/java/sqlbook/Book.java (a JDK 17 dump taken when it says READY),
# and each answer checked against what the program printed it built
# (KEY=VALUE lines) or against the JVM's class histogram of the same moment
# (jcmd GC.class_histogram); a recipe the page has and this script does not
# check fails, and so does one it checks that the page lost.
# Skipped without a JDK (javac, java, jcmd) or python3.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip sql-cookbook "python3 is absent"; exit 0; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
D=$TMPD
jdk_heap sql-cookbook "$ROOT/testdata/java/sqlbook/Book.java" Book "$D" || exit 0
mv "$D/Book.hprof" "$D/book.hprof"
mv "$D/Book.histo" "$D/book.histo"
mv "$D/Book.out" "$D/book.out"

# each recipe's SQL, as the page has it, run with --csv: $D/N.csv
python3 - "$ROOT/docs/sql.md" "$D" <<'PY'
import re, sys
md, d = sys.argv[1:3]
n, sql, on = None, [], False
for line in open(md, encoding='utf-8'):
    m = re.match(r'^### (\d+)\. ', line)
    if m: n = m.group(1)
    elif line.startswith('```sql'): on, sql = True, []
    elif on and line.startswith('```'):
        on = False
        open('%s/%s.sql' % (d, n), 'w', encoding='utf-8').write(''.join(sql))
    elif on: sql.append(line)
PY
for f in "$D"/*.sql; do
  n=$(basename "$f" .sql)
  "$HPROFAN" sql "$D/book.hprof" --csv --quiet "$(cat "$f")" >"$D/$n.csv" 2>"$D/$n.err" || echo "$?" >"$D/$n.rc"
done

HELPER="$(cd "$(dirname "$0")/../helper" && pwd)" python3 - "$D" "$HPROFAN" <<'PY'
import csv, glob, os, re, sys
sys.path.insert(0, os.environ["HELPER"])      # tests/helper: histo.py
from histo import read_histo
d, hp = sys.argv[1:3]
facts = dict(l.strip().split('=', 1) for l in open(d + '/book.out') if '=' in l)
# hidden classes: jcmd's Foo$$Lambda$14/0x..., HPROF's Foo$$Lambda$14+0x...
H = {k.replace('/', '+'): v for k, v in read_histo(d + '/book.histo').items()}
def rows(n):
    if os.path.exists('%s/%s.rc' % (d, n)):
        raise RuntimeError('exit %s: %s' % (open('%s/%s.rc' % (d, n)).read().strip(), open('%s/%s.err' % (d, n)).read()[:300]))
    return list(csv.reader(open('%s/%s.csv' % (d, n), newline='', encoding='utf-8')))[1:]
def region(k): return [int(x) for x in facts['REGION_' + k].split(',')]
per_order = H['Book$Order'][1] // H['Book$Order'][0]
checks = {}
def check(n, what):
    def deco(f):
        checks[n] = (what, f)
        return f
    return deco
@check('1', "the 10 largest classes' instances and bytes are the JVM histogram's")
def _(r): return [x for x in r if H.get(x[0]) != (int(x[1]), int(x[2]))] == [] and len(r) == 10
@check('2', "500 orders (the program), their bytes the histogram's")
def _(r): return r == [[facts['STATUS_NEW'] and '500', str(H['Book$Order'][1])]]
@check('3', 'Cat 5, Dog 7 (the program)')
def _(r): return r == [['Book$Cat', facts['CATS']], ['Book$Dog', facts['DOGS']]]
@check('4', 'sessions per region (the program)')
def _(r): return r == [[k, str(region(k)[0])] for k in ('eu', 'us', 'ap')]
@check('5', "orders per status (the program), shallow = orders x the histogram's size, retained >= shallow")
def _(r): return [x[:3] for x in r] == [[k, facts['STATUS_' + k], str(int(facts['STATUS_' + k]) * per_order)] for k in ('NEW', 'PAID', 'SHIPPED')] and all(int(x[3]) >= int(x[2]) for x in r)
@check('6', 'orders over 200 (the program)')
def _(r): return r == [[facts['ORDERS_OVER_200']]]
@check('7', 'the one map of 1,500 entries (the program)')
def _(r): return [x[1:3] for x in r] == [['java.util.HashMap', facts['BIG_MAP']]]
@check('8', 'five empty maps (the program)')
def _(r): return r == [[facts['EMPTY_MAPS']]]
@check('9', 'two strings of 12,000 characters, held by the Root field and the list (the program)')
def _(r): return sorted((x[1], x[2]) for x in r) == [('12000', 'Book$Root'), ('12000', 'java.lang.Object[]'), ('12000', 'java.lang.Object[]')] and len({x[0] for x in r}) == 2
@check('10', 'dup-value 137 + the literal, dup-other 42 + the literal (the program)')
def _(r):
    got = {x[0]: int(x[1]) for x in r}
    return all(got.get(v) == int(c) + 1 for v, c in (p.split(',') for p in facts['DUPS'].split(';')))
@check('11', "the worker's long[12345] local (the program)")
def _(r): return ['long[]', facts['WORKER_LOCAL'], '1'] in r
@check('12', 'retained = the shallow sizes of the dominator subtree')
def _(r): return len(r) == 1 and r[0][0] == r[0][1] and int(r[0][0]) > 0
@check('13', 'the big map is referred to by Root alone (the program)')
def _(r): return r == [['Book$Root', '1']]
@check('14', "Root's references: its class, 5 lists, a map, 2 map arrays, a String, a Node (the program)")
def _(r): return sorted(map(tuple, r)) == sorted([('Book$Node', '1'), ('java.lang.Class', '1'), ('java.lang.String', '1'), ('java.util.ArrayList', '5'), ('java.util.HashMap', '1'), ('java.util.HashMap[]', '2')])
@check('15', 'the orders are kept by one array (the program: one ArrayList)')
def _(r): return r == [['java.lang.Object[]', '500']]
@check('16', 'one long[12345] (the program)')
def _(r): return r == [['long[]', '1']]
@check('17', "the chain's 1,000 nodes and their arrays (the program)")
def _(r): return r == [[str(2 * int(facts['CHAIN']))]]
@check('18', "instances by package are the JVM histogram's (java.lang.*, where the attach mechanism's objects come and go between dump and histogram, aside)")
def _(r):
    want = {}
    for k, (c, b) in H.items():
        if k.endswith(']') or k == 'java.lang.Class': continue   # arrays, class objects
        w = want.setdefault(k[:k.rfind('.') + 1], [0, 0]); w[0] += c; w[1] += b
    bad = [x for x in r if not x[0].startswith('java.lang.') and want.get(x[0]) != [int(x[1]), int(x[2])]]
    if bad: print('# 18:', bad, [want.get(x[0]) for x in bad])
    return not bad and len(r) == 10 and any(x[0] == '' for x in r)
@check('19', "the program's classes, defined by the application class loader")
def _(r): return r == [[c, 'jdk.internal.loader.ClassLoaders$AppClassLoader'] for c in ('Book$Animal', 'Book$Cat', 'Book$Dog', 'Book$Node', 'Book$Order', 'Book$Root', 'Book$Session')]
@check('20', "the worker's local is a Java frame root (the program)")
def _(r): return r == [['long[]', 'Java frame']]
@check('21', 'payload bytes per region (the program)')
def _(r): return r == [[k, str(region(k)[1])] for k in ('ap', 'eu', 'us')]
@check('22', 'each of the 60 sessions has one header (the program)')
def _(r): return r == [['1', str(sum(region(k)[0] for k in ('eu', 'us', 'ap')))]]
@check('23', "the program's classes' instances and bytes are the histogram's")
def _(r): return len(r) == 6 and all(H.get(x[0]) == (int(x[1]), int(x[2])) for x in r)
@check('24', "the chain's retained set: its 1,000 nodes and their arrays (the program), their bytes the head's retained size")
def _(r):
    return r[0][0] == str(2 * int(facts['CHAIN'])) and r[0][1] == head_retained()
def head_retained():
    import subprocess
    return subprocess.run([hp, 'sql', d + '/book.hprof', '--csv', '--quiet',
        "SELECT retained FROM objects WHERE id = (SELECT field(id, 'chain') FROM objects WHERE class = 'Book$Root')"],
        capture_output=True, text=True).stdout.split()[-1]
@check('25', "book-worker's stack: Object.wait above the program's lambda; a daemon, WAITING (the program)")
def _(r):
    at = [(x[1], x[2]) for x in r]
    return (('java.lang.Object', 'wait') in at and any(c == 'Book' and m.startswith('lambda$main$') for c, m in at) and
            at.index(('java.lang.Object', 'wait')) < [i for i, (c, m) in enumerate(at) if c == 'Book'][0] and
            all(x[3] == 'WAITING' and x[4] == '1' for x in r) and [x[0] for x in r] == [str(i) for i in range(len(r))])
@check('26', 'sessions per X-Region header (the program)')
def _(r): return r == [[k, str(region(k)[0])] for k in ('eu', 'us', 'ap')]
@check('27', "the big map's get(1234) and containsKey(1500) (the program)")
def _(r):
    v, has = facts['BIG_1234'].split(',')
    return r == [[v, '1' if has == 'true' else '0']]
@check('28', "the orders list's get(0), get(300), get(450) and its size (the program)")
def _(r): return [':'.join(x if x else 'NULL' for x in row) for row in r] == facts['ORDER_AT'].split(';')
@check('29', "longText's path: Root (main's local r, a Java frame root) .longText (the program)")
def _(r):
    return len(r) == 1 and re.fullmatch(r'Book\$Root @0x[0-9a-f]+ \[[^]]*Java frame[^]]*\] \.longText -> java\.lang\.String @0x[0-9a-f]+', r[0][0]) is not None
@check('30', 'one header, X-Region, in all 60 sessions, with the three regions (the program)')
def _(r): return r == [['X-Region', str(sum(region(k)[0] for k in ('eu', 'us', 'ap'))), '3']]
have = sorted(os.path.basename(f)[:-4] for f in glob.glob(d + '/*.sql'))
for n in sorted(set(have) | set(checks), key=int):
    name = 'sql-cookbook %s' % n
    if n not in checks:
        print('FAIL %s: docs/sql.md has recipe %s and this script does not check it' % (name, n)); continue
    what, f = checks[n]
    if n not in have:
        print('FAIL %s: %s: docs/sql.md has no recipe %s' % (name, what, n)); continue
    try:
        r = rows(n)
        good = f(r)
    except Exception as e:
        print('FAIL %s: %s: %s' % (name, what, e)); continue
    print(('ok %s: %s' if good else 'FAIL %s: %s: got ' + repr(r[:6])) % (name, what))
PY
