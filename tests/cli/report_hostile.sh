#!/usr/bin/env bash
# hprofan report on hostile names: no name from the dump runs as script or
# shows as markup in the page.
#  - two dumps built byte by byte (tests/helper/mkhprof.py) whose class,
#    method and thread names are markup: a class named
#    x.<img src=x onerror=document.title='PWNED'>, <svg onload=...>,
#    quotes and entity text, </script> in method and thread names, <init>
#    and <clinit> frames, and random names from an alphabet of markup
#    characters, quotes, U+2028 and non-ASCII (REPORT_HOSTILE_SEED replays
#    a run; the seed is in the first check's name);
#  - the page's Content-Security-Policy: no 'unsafe-inline' for scripts or
#    styles, and the SHA-256 of each inline script and of the style element
#    (worked out here from the page as written) in it;
#  - headless Chromium driven through the DevTools protocol (tests/cli/cdp.py)
#    opens the page: for every data item of every chart (the treemap, each
#    cell it opens one level down, the sites icicle, the trend) a mouse
#    move at the item's centre and ECharts' showTip; each tooltip's text
#    holds the item's name literally ("com.acme.Main.<init>" with its
#    method name), each planted class in a treemap tooltip, each planted
#    frame in a sites tooltip; afterwards the title is unchanged, no element
#    but the page's own kinds (and none with an on* attribute) was added,
#    and there was no CSP violation (a name that became markup would be
#    one, even where the CSP stops it);
#  - the CSP itself, tried from DevTools: an inline event handler, an inline
#    script element and a style attribute put into the page do not run or
#    apply.
# Chromium checks skip where chromium is not installed.
. "$(dirname "$0")/../lib.sh"
command -v python3 >/dev/null 2>&1 || { skip report-hostile "python3 is absent"; exit 0; }
HERE=$(cd "$(dirname "$0")" && pwd)
HELPER=$(cd "$HERE/../helper" && pwd)
SEED=${REPORT_HOSTILE_SEED:-$RANDOM}
D=$TMPD/hostile
rm -rf "$D"; mkdir -p "$D"

# the dumps and, in names.json, the names planted
python3 - "$D" "$HELPER" "$SEED" <<'PY' || { fail report-hostile-dump "cannot write the dumps (seed $SEED)"; exit 0; }
import json, random, sys
sys.path.insert(0, sys.argv[2])
from mkhprof import *
rnd = random.Random(int(sys.argv[3]))
ALPHA = "<>&\"'` =;:(){}[]|\\!?#%*+-_$@~^,ab\u00e9\u65e5\u2028\u2029\U0001F600"
def rname(n):
    return "".join(rnd.choice(ALPHA) for _ in range(n))
# class names hold no "/" (the dump's separator, shown as ".")
classes = ["x.<img src=x onerror=document.title='PWNED'>", "q.\"'`<b>&amp;&lt;i&gt;",
           "<svg onload=document.title='PWNED'>", "p.<iframe srcdoc=\"<script>document.title='PWNED'\">"]
classes += ["r%d.%s" % (i, rname(10)) for i in range(5)]
methods = ["<init>", "<clinit>", "<img src=x onerror=document.title='PWNED'>",
           "</script><script>document.title='PWNED'</script>", "\"'&quot;<!--"]
methods += [rname(8) for _ in range(4)]
threads = ["</script><img src=x onerror=document.title='PWNED'>", rname(12)]
frames = ["com.acme.Main.main", "com.acme.Main.<init>"]
frames += ["%s.%s" % (c, methods[i % len(methods)]) for i, c in enumerate(classes)]

def build(path, k):
    # each class: a root instance holding a byte[] and an Object[] of k
    # instances of the next class (a group cell one level down), all
    # allocated at a trace whose top frame is the class's method, under
    # Main.<init> and Main.main
    d = Dump()
    obj = d.load_class("java.lang.Object"); d.class_dump(obj)
    oa = d.load_class("[Ljava.lang.Object;")
    d.load_class("[B")
    th = d.load_class("java.lang.Thread"); d.class_dump(th, obj, fields=[("name", OBJECT)])
    main = d.load_class("com.acme.Main"); d.class_dump(main, obj)
    cids = []
    for c in classes:
        cid = d.load_class(c); d.class_dump(cid, obj, fields=[("data", OBJECT), ("kids", OBJECT)]); cids.append(cid)
    fmain = d.stack_frame("main", "([Ljava/lang/String;)V", "Main.java", main, 3)
    finit = d.stack_frame("<init>", "()V", "Main.java", main, 7)
    for i, cid in enumerate(cids):
        f = d.stack_frame(methods[i % len(methods)], "()V", "K.java", cid, 10 + i)
        d.stack_trace(100 + i, 1, [f, finit, fmain])
    d.stack_trace(1, 1, [finit, fmain])
    for i, cid in enumerate(cids):
        kids = [d.instance(cids[(i + 1) % len(cids)], [d.prim_array(BYTE, bytes(40 + j), trace=100 + i), 0], trace=100 + i)
                for j in range(k)]
        arr = d.obj_array(oa, kids, trace=100 + i)
        d.root(d.instance(cid, [d.prim_array(BYTE, bytes(2000 + 300 * i), trace=100 + i), arr], trace=100 + i))
    for s, name in enumerate(threads, 1):
        t = d.instance(th, [0], trace=1)
        d.thread_root(t, s, trace=1)
        d.start_thread(s, t, 1, name)
    d.write(path)
build(sys.argv[1] + "/a.hprof", 1)
build(sys.argv[1] + "/b.hprof", 3)
json.dump({"classes": classes, "frames": frames, "threads": threads}, open(sys.argv[1] + "/names.json", "w"))
PY

if ! "$HPROFAN" report "$D/a.hprof" "$D/b.hprof" -o "$D/r.html" --quiet 2>"$D/err"; then
  fail "report-hostile writes the page (seed $SEED)" "exit $?: $(head -c 300 "$D/err")"; exit 0
fi
ok "report-hostile writes the page (seed $SEED)"

# the data carry the names as they are; the CSP names each inline script
python3 - "$D/r.html" "$D/names.json" <<'PY'
import base64, hashlib, json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
names = json.load(open(sys.argv[2]))
m = re.search(r'<script type="application/json" id="hprofan-data">(.*?)</script>', page, re.S)
data = json.loads(m.group(1))
last = data["dumps"][-1]
def check(name, good, why):
    print(("ok %s" % name) if good else ("FAIL %s: %s" % (name, why)))
got = set(r["class"] for r in last["top"]["classes"])
check("report-hostile: the data carry every class name", all(c in got for c in names["classes"]),
      [c for c in names["classes"] if c not in got])
got = set(f["class"] + "." + f["method"] for s in last["sites"]["sites"] for f in s["frames"])
check("report-hostile: the data carry every frame", all(f in got for f in names["frames"]),
      [f for f in names["frames"] if f not in got])
csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page).group(1)
dirs = dict((d.strip().split(" ", 1) + [""])[:2] for d in csp.split(";") if d.strip())
check("report-hostile: the CSP allows no inline script or style but its own",
      "unsafe" not in dirs.get("script-src", "unsafe") and "unsafe" not in dirs.get("style-src", "unsafe") and
      dirs.get("default-src") == "'none'", csp)
def h(s):
    return "'sha256-%s'" % base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
scripts = [s for a, s in re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S) if "type=" not in a]
styles = re.findall(r"<style>(.*?)</style>", page, re.S)
check("report-hostile: the CSP holds the hash of each inline script and style",
      len(scripts) == 2 and len(styles) == 1 and all(h(s) in dirs["script-src"].split() for s in scripts) and
      h(styles[0]) in dirs["style-src"].split(), "%d scripts, %d styles, CSP %s" % (len(scripts), len(styles), csp))
PY

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then skip report-hostile-chromium "chromium not installed"; exit 0; fi
timeout 120 python3 - "$HERE" "$CHROMIUM" "$D" "$SEED" <<'PY' || fail "report-hostile-chromium" "the driver failed (seed $SEED)"
import json, sys, time
sys.path.insert(0, sys.argv[1])
from cdp import Browser, CDPError
chromium, D, seed = sys.argv[2], sys.argv[3], sys.argv[4]
names = json.load(open(D + "/names.json"))

# before the page's scripts: what was added to the DOM once armed, and
# every CSP violation
MONITOR = r"""
window.__hp = { armed: false, added: [], violations: [] };
document.addEventListener("securitypolicyviolation", function (e) {
  __hp.violations.push((__hp.armed ? "" : "at load: ") + e.violatedDirective + " " + (e.blockedURI || "") + " " + (e.sample || ""));
}, true);
(function () {
  var own = { DIV: 1, SPAN: 1, BR: 1, B: 1, A: 1, TR: 1, TD: 1, TH: 1, TABLE: 1, P: 1 };
  function look(n) {
    if (n.nodeType !== 1) return;
    var on = Array.prototype.some.call(n.attributes, function (a) { return /^on/i.test(a.name); });
    if (!own[n.tagName] || on) __hp.added.push(n.outerHTML.slice(0, 160));
    Array.prototype.forEach.call(n.children, look);
  }
  new MutationObserver(function (ms) {
    if (__hp.armed) ms.forEach(function (m) { Array.prototype.forEach.call(m.addedNodes, look); });
  }).observe(document, { childList: true, subtree: true });
})();
"""

# every data item of every chart: a mouse move at its centre, then
# showTip; the tooltip's text each time
HOVER = r"""
(async function () {
  var out = [];
  function tipEl(div, root) {
    var kids = Array.prototype.filter.call(div.children, function (e) { return e !== root && !e.contains(root); });
    return kids[kids.length - 1];
  }
  function tipOf(div, root) {
    var t = tipEl(div, root);
    return t && t.textContent ? t.textContent : null;
  }
  function clear(div, root) {   /* so that a tooltip not shown is not read as the last one */
    var t = tipEl(div, root);
    if (t) t.textContent = "";
  }
  function frame() { return new Promise(function (r) { requestAnimationFrame(function () { setTimeout(r, 0); }); }); }
  function hoverAll(div, tag) {
    var c = echarts.getInstanceByDom(div);
    if (!c) return;
    var root = c.getZr().painter.getViewportRoot(), box = root.getBoundingClientRect();
    c.getModel().getSeries().forEach(function (s) {
      var data = s.getData(), si = s.seriesIndex;
      for (var i = 0; i < data.count(); i++) {
        var want = s.subType === "treemap" ? data.getName(i) : s.subType === "custom" ? data.getRawDataItem(i)[3] : s.name;
        var it = { chart: div.id, at: tag, i: i, want: want, mouse: null, tip: null, seen: false };
        var el = data.getItemGraphicEl(i), p = null;
        if (el) {
          var r = el.getBoundingRect().clone(), m = el.getComputedTransform();
          if (m) r.applyTransform(m);
          if (r.width > 0 && r.height > 0) p = [r.x + r.width / 2, r.y + r.height / 2];
        }
        it.seen = !!p;
        if (!p && s.coordinateSystem && s.coordinateSystem.type === "cartesian2d")
          p = c.convertToPixel({ seriesIndex: si }, [i, data.get(data.mapDimension("y"), i)]);
        /* the root of a treemap is under its cells but for the gaps */
        if (p && !(s.subType === "treemap" && data.tree.getNodeByDataIndex(i).depth === 0)) {
          clear(div, root);
          ["pointermove", "mousemove"].forEach(function (type) {
            var Ev = type === "pointermove" && window.PointerEvent ? PointerEvent : MouseEvent;
            root.dispatchEvent(new Ev(type, { bubbles: true, cancelable: true, clientX: box.left + p[0], clientY: box.top + p[1],
                                              pointerType: "mouse", isPrimary: true }));
          });
          it.mouse = tipOf(div, root);
        }
        c.dispatchAction({ type: "hideTip" });
        clear(div, root);
        c.dispatchAction({ type: "showTip", seriesIndex: si, dataIndex: i });
        it.tip = tipOf(div, root);
        c.dispatchAction({ type: "hideTip" });
        out.push(it);
      }
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll(".chart"), function (div) { hoverAll(div, "top"); });
  /* one level down: each treemap cell the page can open */
  var T = window.hprofanTest, tm = document.getElementById("treemap-chart");
  if (T && T.treemapCells && T.clickCell && tm) {
    var n = T.treemapCells().length;
    for (var k = 0; k < n; k++) {
      try { if (!T.clickCell(k)) continue; } catch (e) { continue; }   /* a cell not laid out */
      await frame();
      if (T.breadcrumb().length > 1) { hoverAll(tm, "cell " + k); T.up(); await frame(); }
    }
  }
  return out;
})()
"""

def check(name, good, why=""):
    print(("ok %s" % name) if good else ("FAIL %s: %s (seed %s)" % (name, why, seed)))

b = Browser(chromium, D + "/profile")
try:
    t0 = time.monotonic()
    p = b.open("file://" + D + "/r.html", before=MONITOR)
    title = p.eval("document.title")
    p.eval("__hp.armed = true")
    items = p.eval(HOVER)
    p.eval("new Promise(function (r) { setTimeout(r, 300); })")   # image errors, handlers
    after = p.eval("({ title: document.title, added: __hp.added, violations: __hp.violations, "
                   "threads: Array.prototype.map.call(document.querySelectorAll('#threads-table summary'), "
                   "function (e) { return e.textContent; }) })")
    by = {}
    for it in items:
        by.setdefault(it["chart"], []).append(it)
    check("report-hostile: every chart hovered", sorted(by) == ["sites-chart", "treemap-chart", "trend-chart"] and
          len(set(it["at"] for it in by["treemap-chart"])) > 1,
          "%s; treemap levels %s" % ({k: len(v) for k, v in by.items()}, sorted(set(it["at"] for it in by.get("treemap-chart", [])))))
    # an item too small to be drawn shows no tooltip (nor can it be hovered)
    bad = [it for it in items if (it["seen"] or it["tip"] is not None) and (it["tip"] is None or it["want"] not in it["tip"])]
    seen = sum(1 for it in items if it["seen"])
    check("report-hostile: each tooltip (showTip) shows its item's name as text (%d items, %d drawn)" % (len(items), seen),
          seen > len(items) / 2 and not bad, json.dumps(bad[:3], ensure_ascii=False))
    # under the mouse: the tooltip of the item hit (a cell's child, the root in a gap)
    bad = [it for it in items if it["mouse"] is not None and
           not any(o["tip"] == it["mouse"] for o in by[it["chart"]] if o["at"] == it["at"])]
    moved = sum(1 for it in items if it["mouse"] is not None)
    check("report-hostile: each tooltip under the mouse shows a name as text (%d moves)" % moved, moved and not bad,
          json.dumps(bad[:3], ensure_ascii=False))
    tips = [it["tip"] or "" for it in by.get("treemap-chart", [])]
    miss = [c for c in names["classes"] if not any(c in t for t in tips)]
    check("report-hostile: every planted class in a treemap tooltip", not miss, json.dumps(miss, ensure_ascii=False))
    tips = [it["tip"] or "" for it in by.get("sites-chart", [])]
    miss = [f for f in names["frames"] if not any(t.startswith(f) for t in tips)]
    check("report-hostile: every planted frame in a sites tooltip, <init> included", not miss, json.dumps(miss, ensure_ascii=False))
    check("report-hostile: thread names shown as text", sorted(after["threads"]) == sorted(names["threads"]),
          json.dumps(after["threads"], ensure_ascii=False))
    check("report-hostile: no handler ran (title unchanged)", after["title"] == title and "PWNED" not in after["title"],
          "title %r, was %r" % (after["title"], title))
    check("report-hostile: no element injected", not after["added"], json.dumps(after["added"][:3], ensure_ascii=False))
    check("report-hostile: no CSP violation", not after["violations"], json.dumps(after["violations"][:3], ensure_ascii=False))

    # the CSP on its own: what a name turned into markup could do
    p.eval("""(function () {
      var d = document.createElement("div");
      d.innerHTML = '<img src="x" onerror="document.title=\\'PROBE-ATTR\\'"><span id="hp-probe-style" style="color: rgb(255, 0, 0)">x</span>';
      document.body.appendChild(d);
      var s = document.createElement("script");
      s.textContent = "document.title = 'PROBE-SCRIPT'";
      document.body.appendChild(s);
    })()""")
    p.eval("new Promise(function (r) { setTimeout(r, 300); })")
    pr = p.eval("({ title: document.title, colour: getComputedStyle(document.getElementById('hp-probe-style')).color, "
                "violations: __hp.violations })")
    check("report-hostile: the CSP stops an inline handler and an inline script", pr["title"] == title,
          "title %r; violations %s" % (pr["title"], pr["violations"]))
    check("report-hostile: the CSP stops a style attribute", pr["colour"] != "rgb(255, 0, 0)", pr["colour"])
    check("report-hostile: in a few seconds", time.monotonic() - t0 < 30, "%.1f s" % (time.monotonic() - t0))
except CDPError as e:
    check("report-hostile-chromium", False, str(e))
finally:
    b.close()
PY
