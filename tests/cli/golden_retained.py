#!/usr/bin/env python3
"""Helper of tests/cli/golden_retained.sh: compares hprofan's retained sizes
with VisualVM's and NetBeans' (see the header of the .sh for what and why).

    golden_retained.py log  CASE LOG INFO.json TOP.json DOM.json
    golden_retained.py vvm  CASE VVM.json INFO.json TOP.json DOM.json ROOTS.json
    golden_retained.py figs CASE DOM.json TOP.json INFO.json [KEY=VALUE ...]
    golden_retained.py toku CASE TOP.json CLASS=RETAINED ...

Prints one line per check: "ok NAME" or "FAIL NAME: why".  A check whose
result differs from the expected one fails, unless KNOWN lists that exact
difference (then it is "ok ... (known difference: why)"); a KNOWN entry whose
difference did not show up fails too, so the list stays true.
"""
import collections
import json
import re
import sys

sys.setrecursionlimit(20000)      # dominators --depth 1000 nests 2000 deep

# (case, check) -> (hprofan's value, the expected value, why they differ)
KNOWN = {}


def class_object_shallow_known(case, size):
    """VisualVM prints java.lang.Class's instance size as a class object's
    size but counts it in no total (its "Live bytes", per-class shallow and
    retained sizes leave class objects out, except in tree objects); hprofan's
    visualvm model gives class objects 0, which is what makes those totals
    match, so a class object's shallow differs wherever VisualVM prints one."""
    KNOWN[(case, 'top_retained: shallow of class objects')] = (
        0, size, "VisualVM shows java.lang.Class's instance size for a class object but counts "
        "it in no total; hprofan's visualvm model gives class objects 0 bytes")


seen_known = set()
results = []


def check(case, name, got, want):
    key = (case, name)
    label = '%s %s' % (case, name)
    if key in KNOWN:
        kgot, kwant, why = KNOWN[key]
        seen_known.add(key)
        if got == kgot and want == kwant:
            results.append('ok %s (known difference: %s)' % (label, why))
        elif got == want:
            results.append('FAIL %s: the known difference is gone (now %r both); '
                           'remove it from KNOWN' % (label, got))
        else:
            results.append('FAIL %s: got %r, want %r (KNOWN says hprofan gives %r)'
                           % (label, short(got), short(want), kgot))
        return
    if got == want:
        results.append('ok ' + label)
    else:
        results.append('FAIL %s: got %s, want %s' % (label, short(got), short(want)))


def short(v, n=600):
    s = repr(v)
    return s if len(s) <= n else s[:n] + '...'


def finish(case):
    for key in KNOWN:
        if key[0] == case and key not in seen_known:
            results.append('FAIL %s %s: listed as a known difference but not checked' % key)
    print('\n'.join(results))


def load(path):
    with open(path) as f:
        return json.load(f)


def tree(path):
    """dominators --json: {id: (class, class_object_of, shallow, retained, depth)}
    and whether it holds every reachable object"""
    d = load(path)
    out = {}
    stack = [(e, 1) for e in d['dominators']]
    while stack:
        e, depth = stack.pop()
        if 'id' in e:
            out[int(e['id'], 16)] = (e['class'], e.get('class_object_of'), e['shallow'],
                                     e['retained'], depth)
        stack.extend((c, depth + 1) for c in e.get('children', ()))
    return d, out, len(out) == d['total']['reachable_objects']


def by_class(top, field):
    c = collections.Counter()
    for row in top['classes']:
        c[row['class']] += row[field]
    return c


def diff_counters(got, want):
    return sorted((k, got[k], want[k]) for k in set(got) | set(want) if got[k] != want[k])


# ---- the golden logs -------------------------------------------------------

RX_CLASS = re.compile(r'^ Id (0x[0-9a-f]+) Class (.*) SuperClass .* Instance size (-?\d+) '
                      r'Instance count (\d+) All Instances Size (\d+)$')
RX_INST = re.compile(r'^  Instance Id (0x[0-9a-f]+) number \d+ retained size (-?\d+)$')


def parse_log(path):
    head, classes, inst = {}, [], {}
    cur = None
    with open(path, encoding='latin-1') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith(' Id '):
                m = RX_CLASS.match(line)
                if not m:
                    raise SystemExit('FAIL log %s: cannot read %r' % (path, line[:120]))
                cur = m.group(2)
                classes.append(dict(name=cur, size=int(m.group(3)), count=int(m.group(4)),
                                    all=int(m.group(5))))
            elif line.startswith('  Instance Id '):
                m = RX_INST.match(line)
                if not m:
                    raise SystemExit('FAIL log %s: cannot read %r' % (path, line[:120]))
                inst[int(m.group(1), 16)] = (cur, int(m.group(2)))
            elif cur is None:
                for k in ('Live instances', 'Live bytes', 'Classes size'):
                    if line.startswith(k + ' '):
                        head[k] = int(line[len(k) + 1:])
    return head, classes, inst


def case_log(case, logf, infof, topf, domf):
    head, classes, inst = parse_log(logf)
    info, top = load(infof), load(topf)
    _, t, complete = tree(domf)
    o = info['objects']
    check(case, 'Classes size', info['classes']['dumped'], head['Classes size'])
    check(case, 'Live instances (objects but class objects)', o['total'] - o['classes'],
          head['Live instances'])
    check(case, 'Live bytes', o['shallow'], head['Live bytes'])
    want_count, want_all, want_size = collections.Counter(), collections.Counter(), {}
    for c in classes:
        want_count[c['name']] += c['count']
        want_all[c['name']] += c['all']
        if c['count'] and c['size'] >= 0:
            want_size[c['name']] = c['size']
    got_count = by_class(top, 'instances')
    got_count['java.lang.Class'] -= info['classes']['dumped']   # hprofan's row holds class objects
    check(case, 'Instance count of every class', diff_counters(+got_count, +want_count), [])
    check(case, 'All Instances Size of every class', diff_counters(+by_class(top, 'shallow'), +want_all), [])
    got_size = {r['class']: r['largest'] for r in top['classes'] if r['class'] in want_size}
    check(case, 'Instance size of every class with instances',
          sorted((k, got_size.get(k), v) for k, v in want_size.items() if got_size.get(k) != v), [])
    check(case, 'the tree holds every reachable object', complete, True)
    bad = []
    for i, (cls, ret) in sorted(inst.items()):
        g = t.get(i)
        got = g[3] if g else 0
        if g and g[0] != cls:
            bad.append(('0x%x' % i, 'class', g[0], cls))
        if got != ret:
            bad.append(('0x%x' % i, cls, got, ret))
    check(case, 'retained size of each of the %d instances and arrays' % len(inst), bad, [])
    finish(case)


# ---- VisualVM 2.1.5's answers (expected/*.vvm.json) ------------------------

def case_vvm(case, vvmf, infof, topf, domf, rootsf):
    vv, info, top = load(vvmf), load(infof), load(topf)
    d, t, complete = tree(domf)
    sm, m = vv['size_model'], top['size_model']
    check(case, 'size model (name, ref, header, align)', (m['name'], m['ref_size'], m['header'], m['align']),
          ('visualvm', sm['oop_size'], sm['minimum_instance_size'], sm['object_alignment']))
    o = info['objects']
    check(case, 'total_instances', o['total'] - o['classes'], vv['total_instances'])
    check(case, 'total_shallow_bytes', o['shallow'], vv['total_shallow_bytes'])
    sc = vv['scan']
    tot = d['total']
    # VisualVM's scan walks the file range that holds the instance dumps; where
    # a dump interleaves CLASS DUMPs with them (hprof-conv's output), it meets
    # those class objects too and counts each at java.lang.Class's instance
    # size, as reachable (dialer: 43,687 = 40,116 instances + 3,571 classes)
    extra = sc['instances'] - vv['total_instances']
    cos = vv['class_object_size']
    check(case, 'scan.shallow_bytes', o['shallow'] + extra * cos, sc['shallow_bytes'])
    check(case, 'scan.reachable_shallow_bytes', tot['reachable_shallow'] + extra * cos,
          sc['reachable_shallow_bytes'])
    check(case, 'scan.unreachable_shallow_bytes', tot['unreachable_shallow'], sc['unreachable_shallow_bytes'])
    reach_inst = sum(1 for v in t.values() if v[1] is None)
    if complete:
        check(case, 'scan.unreachable_instances', vv['total_instances'] - reach_inst,
              sc['unreachable_instances'])
    want_sh, want_ret, want_size = collections.Counter(), collections.Counter(), {}
    for c in vv['classes']:
        want_sh[c['name']] += c['shallow_bytes']
        want_ret[c['name']] += c['retained_bytes']
        if c['instances'] and c['instance_size'] >= 0:
            want_size[c['name']] = c['instance_size']
    check(case, 'shallow_bytes of every class', diff_counters(+by_class(top, 'shallow'), +want_sh), [])
    check(case, 'retained_bytes of every class', diff_counters(+by_class(top, 'retained'), +want_ret), [])
    got_size = {r['class']: r['largest'] for r in top['classes'] if r['class'] in want_size}
    check(case, 'instance_size of every class with instances',
          sorted((k, got_size.get(k), v) for k, v in want_size.items() if got_size.get(k) != v), [])
    # the 50 objects with the largest retained size
    bad, cls_shallow = [], set()
    for e in vv['top_retained']:
        g = t.get(int(e['id'], 16))
        if not g:
            bad.append((e['rank'], e['id'], 'not in the tree'))
            continue
        if (g[0], g[1], g[3]) != (e['class'], e.get('class_object_of'), e['retained']):
            bad.append((e['rank'], e['id'], (g[0], g[1], g[3]),
                        (e['class'], e.get('class_object_of'), e['retained'])))
        if e['kind'] == 'class':
            cls_shallow.add((g[2], e['shallow']))
        elif g[2] != e['shallow']:
            bad.append((e['rank'], e['id'], 'shallow', g[2], e['shallow']))
    check(case, 'top_retained: class and retained size of each of the %d' % len(vv['top_retained']), bad, [])
    if cls_shallow:
        class_object_shallow_known(case, vv.get('class_object_size'))
        got = sorted({g for g, _ in cls_shallow})
        want = sorted({w for _, w in cls_shallow})
        check(case, 'top_retained: shallow of class objects',
              got[0] if len(got) == 1 else got, want[0] if len(want) == 1 else want)
    # and no other object retains more than the last of them
    last = vv['top_retained'][-1]['retained']
    want_ids = sorted(int(e['id'], 16) for e in vv['top_retained'] if e['retained'] > last)
    got_ids = sorted(i for i, v in t.items() if v[3] > last)
    check(case, 'top_retained: the objects retaining more than %d%s' % (
        last, '' if complete else ' (among the %d shown: the 50 largest children of each, '
        '1000 levels)' % len(t)), got_ids, want_ids)
    # the threads (GC roots: `roots` lists every one)
    roots = {int(r['id'], 16): (r['shallow'], r['retained']) for r in load(rootsf)['roots']}
    bad = []
    for th in vv.get('threads', ()):
        g = roots.get(int(th['id'], 16))
        if g != (th['shallow'], th['retained']):
            bad.append((th['id'], g, (th['shallow'], th['retained'])))
    if vv.get('threads'):
        check(case, 'threads: shallow and retained of each of the %d' % len(vv['threads']), bad, [])
    finish(case)


# ---- figures other projects' tests assert (corpus README) ------------------

def case_figs(case, domf, topf, infof, *pairs):
    d, t, complete = tree(domf)
    top, info = load(topf), load(infof)
    o = info['objects']
    rets = sorted((v[3] for v in t.values()), reverse=True)
    cls_ret = by_class(top, 'retained')
    for p in pairs:
        k, v = p.split('=', 1)
        if k == 'live_objects':
            check(case, k, o['total'] - o['classes'], int(v))
        elif k == 'live_bytes':
            check(case, k, o['shallow'], int(v))
        elif k == 'top_retained':
            want = [int(x) for x in v.split(',')]
            check(case, 'the %d largest retained sizes' % len(want), rets[:len(want)], want)
        else:
            check(case, 'retained by %s' % k, cls_ret[k], int(v))
    finish(case)


def case_toku(case, topf, *pairs):
    top = load(topf)
    rows = {r['class']: r for r in top['classes']}
    for p in pairs:
        k, v = p.split('=', 1)
        r = rows.get(k)
        check(case, 'retained size of the one %s' % k,
              (r['instances'], r['retained']) if r else None, (1, int(v)))
    finish(case)


if __name__ == '__main__':
    what, case, *args = sys.argv[1:]
    {'log': case_log, 'vvm': case_vvm, 'figs': case_figs, 'toku': case_toku}[what](case, *args)
