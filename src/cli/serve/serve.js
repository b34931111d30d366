// serve.js — the page of hprofan serve (docs/serve.md).  Every view asks
// /api/COMMAND?… for the JSON document the CLI writes with --json and draws
// it with DOM nodes: text from the dump goes in as text (textContent,
// createTextNode), never as markup, and no handler is written in a string.
// The view is the location's hash: #/VIEW?file=N&…; body's data-state is
// "busy", "ready" or "error" (the tests wait on it).
"use strict";

const $ = (id) => document.getElementById(id);
let files = [];

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "on") for (const [ev, f] of Object.entries(v)) e.addEventListener(ev, f);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined) e.append(k instanceof Node ? k : String(k));
  return e;
}

function bytes(n) {
  if (typeof n !== "number") return "";
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0, v = n;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) : String(v)) + " " + u[i];
}
const count = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : "");

function href(view, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== "") q.set(k, v);
  return "#/" + view + (q.toString() ? "?" + q : "");
}
function route() {
  const h = location.hash.replace(/^#\/?/, "");
  const [view, qs] = h.split("?");
  return { view: view || "overview", q: new URLSearchParams(qs || "") };
}
const fileOf = (q) => (q.has("file") ? q.get("file") : $("file").value || "0");

// GET /api/CMD?PARAMS; with body, POST it (only /api/sql takes one: the query)
async function api(cmd, params, body) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) v.forEach((x) => q.append(k, x));
    else if (v !== undefined && v !== null && v !== "") q.set(k, v);
  }
  const how = body === undefined ? { credentials: "same-origin" } : { credentials: "same-origin", method: "POST",
    headers: { "Content-Type": "application/sql; charset=utf-8" }, body };
  const r = await fetch("/api/" + cmd + "?" + q, how);
  const d = await r.json();
  if (!r.ok) throw new Error(d.error || "HTTP " + r.status);
  return d;
}

// an object: its id a link to its page, its class (and what a class object stands for)
function objLink(file, o) {
  if (!o || !o.id) return el("span", {}, o && o.class ? o.class : "");
  const label = (o.class_object_of ? "class " + o.class_object_of : o.class || "") + " ";
  return el("span", {}, label, el("a", { class: "id", href: href("object", { file, id: o.id }) }, "@" + o.id));
}
const isId = (v) => typeof v === "string" && /^0x[0-9a-f]+$/.test(v);

function table(cols, rows) {
  const t = el("table", {});
  t.append(el("tr", {}, ...cols.map((c) => el("th", { class: c.num ? "num" : "" }, c.title))));
  for (const r of rows) t.append(el("tr", {}, ...cols.map((c) => el("td", { class: c.num ? "num" : "" }, c.cell(r)))));
  return t;
}

// any document: arrays of objects as tables, objects as name/value rows,
// ids as links (leaks, threads, sites, waste, diff and the rest)
function generic(file, v, depth) {
  if (v === null || typeof v !== "object") return isId(v) ? objLink(file, { id: v, class: "" }) : el("span", {}, String(v));
  if (depth > 6) return el("span", { class: "note" }, "…");
  if (Array.isArray(v)) {
    if (v.length && v.every((x) => x && typeof x === "object" && !Array.isArray(x))) {
      const keys = [];
      for (const x of v.slice(0, 200)) for (const k of Object.keys(x)) if (!keys.includes(k)) keys.push(k);
      const rows = v.slice(0, 500);
      const t = table(keys.map((k) => ({ title: k, num: typeof rows[0][k] === "number",
        cell: (r) => (k === "id" && isId(r.id) ? objLink(file, r) : r[k] === undefined ? "" :
          typeof r[k] === "number" ? count(r[k]) : generic(file, r[k], depth + 1)) })), rows);
      return v.length > rows.length ? el("div", {}, t, el("p", { class: "note" }, (v.length - rows.length) + " more rows")) : t;
    }
    return el("span", {}, ...v.slice(0, 200).flatMap((x, i) => [i ? ", " : "", generic(file, x, depth + 1)]));
  }
  const t = el("table", { class: "kv" });
  for (const [k, x] of Object.entries(v)) {
    if (k === "size_model" || k === "schema") continue;
    t.append(el("tr", {}, el("td", {}, k), el("td", {}, generic(file, x, depth + 1))));
  }
  return t;
}

// ---- views ----------------------------------------------------------------

const views = {};

views.overview = async (q, main) => {
  const file = fileOf(q);
  const [info, top] = await Promise.all([api("info", { file }), api("top", { file, top: 10 })]);
  main.append(el("h1", {}, info.file));
  const o = info.objects || {};
  main.append(table([{ title: "", cell: (r) => r[0] }, { title: "", num: true, cell: (r) => r[1] }], [
    ["objects", count(o.total)], ["shallow bytes", bytes(o.shallow)], ["classes", count(o.classes)],
    ["GC roots", count(info.gc_roots && info.gc_roots.total)], ["threads", count(info.threads)],
    ["reachable", bytes(top.total.reachable_shallow)], ["unreachable", bytes(top.total.unreachable_shallow)],
    ["format", info.format], ["JVM", info.jdk ? info.jdk.java_vm_version || "" : ""]]));
  main.append(el("h2", {}, "Largest classes by retained size"));
  main.append(histoTable(file, top.classes));
  main.append(el("p", {}, el("a", { href: href("top", { file }) }, "the whole histogram")));
};

function histoTable(file, rows, sort, onSort) {
  const col = (key, title, num, cell) => ({ key, title, num, cell });
  const cols = [
    col("name", "class", false, (r) => el("a", { href: href("instances", { file, class: r.class }) }, r.class)),
    col("count", "instances", true, (r) => count(r.instances)),
    col("shallow", "shallow", true, (r) => bytes(r.shallow)),
    col("retained", "retained", true, (r) => (r.retained === undefined ? "" : bytes(r.retained))),
    col(null, "% heap", true, (r) => (r.percent === undefined ? "" : r.percent.toFixed(2)))];
  const t = table(cols, rows);
  if (onSort)
    t.querySelectorAll("th").forEach((th, i) => {
      const k = cols[i].key;
      if (!k) return;
      th.classList.add("sort");
      if (k === sort) th.classList.add("sorted");
      th.addEventListener("click", () => onSort(k));
    });
  return t;
}

views.top = async (q, main) => {
  const file = fileOf(q), sort = q.get("sort") || "retained", filter = q.get("filter") || "";
  const d = await api("top", { file, top: q.get("top") || 200, sort, filter });
  main.append(el("h1", {}, "Class histogram"));
  const input = el("input", { id: "filter", type: "search", placeholder: "filter: a regular expression", value: filter });
  const go = (p) => { location.hash = href("top", Object.assign({ file, sort, filter: input.value }, p)); };
  input.addEventListener("change", () => go({}));
  main.append(el("div", { class: "bar" }, input,
    el("span", { class: "note" }, count(d.shown) + " of " + count(d.total.classes) + " classes; click a column to sort")));
  main.append(histoTable(file, d.classes, sort, (k) => go({ sort: k })));
};

views.instances = async (q, main) => {
  const file = fileOf(q), cls = q.get("class");
  const d = await api("instances", { file, class: cls, top: q.get("top") || 100 });
  main.append(el("h1", {}, "Instances of ", el("span", { id: "cls" }, d.class)));
  main.append(el("p", { class: "note" }, count(d.total.instances) + " instances, " + bytes(d.total.shallow) +
    " shallow, " + bytes(d.total.retained) + " retained"));
  main.append(table([
    { title: "object", cell: (r) => objLink(file, r) },
    { title: "shallow", num: true, cell: (r) => bytes(r.shallow) },
    { title: "retained", num: true, cell: (r) => bytes(r.retained) },
    { title: "value", cell: (r) => (r.value === undefined ? "" : r.value) }], d.instances));
};

function pathSteps(file, steps) {
  const ol = el("ol", { class: "path" });
  for (const s of steps) {
    const via = s.via ? " via " + (s.via.kind === "element" ? "[" + s.via.index + "]" : s.via.name || s.via.kind) : "";
    const root = s.gc_root ? " (GC root: " + s.gc_root.join(", ") + ")" : "";
    ol.append(el("li", {}, objLink(file, s), via + root));
  }
  return ol;
}

views.object = async (q, main) => {
  const file = fileOf(q), id = q.get("id");
  const d = await api("object", { file, id, top: 50 });
  const o = d.object;
  main.append(el("h1", {}, objLink(file, o)));
  main.append(el("p", {}, o.kind + ", " + bytes(o.shallow) + " shallow, " + bytes(o.retained) + " retained" +
    (o.reachable ? "" : ", unreachable") + " · ", el("a", { id: "paths", href: href("path", { file, id: o.id }) },
    "shortest paths to GC roots"), " · ", el("a", { href: href("dominators", { file, root: o.id }) }, "what it dominates")));
  if (o.fields && o.fields.length) {
    main.append(el("h2", {}, "Fields"));
    main.append(table([{ title: "field", cell: (r) => r.name }, { title: "type", cell: (r) => r.type },
      { title: "value", cell: (r) => (r.value && typeof r.value === "object" ? objLink(file, r.value) :
        isId(r.value) ? objLink(file, { id: r.value }) : r.value === null ? "null" : String(r.value)) }], o.fields));
  }
  if (o.elements && o.elements.length) {
    main.append(el("h2", {}, "Elements"));
    main.append(generic(file, o.elements, 0));
  }
  main.append(el("h2", {}, "Referrers (" + count(d.referrers_total) + ")"));
  main.append(table([{ title: "object", cell: (r) => objLink(file, r) },
    { title: "via", cell: (r) => (r.via ? r.via.name || (r.via.index !== undefined ? "[" + r.via.index + "]" : r.via.kind) : "") },
    { title: "retained", num: true, cell: (r) => bytes(r.retained) }], d.referrers || []));
  main.append(el("h2", {}, "Dominator chain"));
  main.append(table([{ title: "dominator", cell: (r) => objLink(file, r) },
    { title: "retained", num: true, cell: (r) => bytes(r.retained) }], d.dominators || []));
  main.append(el("h2", {}, "Shortest path to a GC root"));
  main.append(d.path && d.path.steps ? pathSteps(file, d.path.steps) : el("p", { class: "note" }, "no path: unreachable"));
};

views.path = async (q, main) => {
  const file = fileOf(q), id = q.get("id");
  const d = await api("path", { file, id, top: 5 });
  main.append(el("h1", {}, "Paths from GC roots to ", objLink(file, d.target)));
  if (!d.paths.length) main.append(el("p", { class: "note" }, "no path: unreachable"));
  d.paths.forEach((p, i) => { main.append(el("h2", {}, "Path " + (i + 1) + " (" + p.length + " steps)")); main.append(pathSteps(file, p.steps)); });
};

// the dominator tree: a level is asked for when it is opened (dominators
// --root ID).  Each node shown is { row, parent, rows (its children's rows,
// once asked for), kids (id → node), open() }; the treemap draws one node's
// rows, the level last opened, and the breadcrumb above it goes back up.
function treeRows(file, rows, ul, level, parent, draw) {
  for (const r of rows) {
    const li = el("li", { "data-level": level });
    const kids = el("ul", {});
    const tw = el("button", { class: "tw", type: "button", "aria-label": "open" }, "+");
    const node = { row: r, parent, rows: null, kids: new Map() };
    let open = false;
    const show = (yes) => { open = yes; tw.textContent = open ? "−" : "+"; kids.hidden = !open; };
    // opens it (asking for its level the first time) and draws its level
    node.open = async () => {
      show(true);
      document.body.dataset.state = "busy";
      if (!node.rows) {
        try {
          const d = await api("dominators", { file, root: r.id, top: 25 });
          node.rows = d.dominators;
          treeRows(file, d.dominators, kids, level + 1, node, draw);
          if (!d.dominators.length) kids.append(el("li", { class: "note" }, "(dominates nothing)"));
        } catch (e) {
          kids.append(el("li", { class: "error" }, e.message));
          document.body.dataset.state = "error";
          return;
        }
      }
      draw(node);
      document.body.dataset.state = "ready";
    };
    tw.addEventListener("click", () => {
      if (!open) { node.open(); return; }
      show(false);
      draw(null, node);   // (the treemap goes up when it showed this node or one below it)
    });
    if (r.id) parent.kids.set(r.id, node);
    li.append(r.id ? tw : el("span", { class: "tw" }, " "), el("span", { class: "sz" }, bytes(r.retained)),
      r.id ? objLink(file, r) : el("span", {}, (r.count ? r.count + " × " : "") + (r.group || r.class || "")));
    li.append(kids);
    ul.append(li);
  }
}

const objName = (r) => (r.class_object_of ? "class " + r.class_object_of : r.class || "") + " @" + r.id;

views.dominators = async (q, main) => {
  const file = fileOf(q), root = q.get("root");
  const d = await api("dominators", { file, top: 25, root });
  main.append(el("h1", {}, "Dominator tree", root && d.root ? el("span", {}, " below ", objLink(file, d.root)) : ""));
  const crumbs = el("div", { id: "crumbs", class: "bar" });
  const box = el("div", { id: "treemap" });
  main.append(crumbs, box);
  const top = { row: root && d.root ? d.root : null, parent: null, rows: d.dominators, kids: new Map() };
  const chart = window.echarts ? echarts.init(box) : null;
  let shown = top;
  // the treemap of node n's rows, the breadcrumb the chain down to it;
  // draw(null, closed): up to closed's parent when closed is n or above it
  const draw = (n, closed) => {
    if (!n) {
      let k = shown;
      while (k && k !== closed) k = k.parent;
      if (!k) return;
      n = closed.parent;
    }
    shown = n;
    const chain = [];
    for (let k = n; k; k = k.parent) chain.unshift(k);
    crumbs.replaceChildren(...chain.flatMap((k, i) => {
      const name = k.row ? objName(k.row) : "all roots";
      const item = k === n ? el("span", { class: "here" }, name) :
        el("a", { href: "#", on: { click: (e) => { e.preventDefault(); draw(k); } } }, name);
      return i ? [" › ", item] : [item];
    }));
    if (n.row && n.row.id) crumbs.append(el("a", { href: href("object", { file, id: n.row.id }) }, "(its object)"));
    const tiles = (n.rows || []).filter((r) => r.id);
    if (!tiles.length) crumbs.append(el("span", { class: "note" }, "dominates nothing"));
    box.dataset.root = n.row && n.row.id ? n.row.id : "";
    if (chart)
      chart.setOption({ series: [{ type: "treemap", roam: false, nodeClick: false, breadcrumb: { show: false },
        left: 0, top: 0, right: 0, bottom: 0, label: { formatter: (p) => p.name },
        data: tiles.map((r) => ({ name: objName(r), value: r.retained, id: r.id })) }],
        tooltip: { formatter: (p) => echarts.format.encodeHTML(p.name) + "<br>" + bytes(p.value) } }, true);
  };
  const ul = el("ul", {});
  main.append(el("div", { class: "tree" }, ul));
  treeRows(file, d.dominators, ul, 1, top, draw);
  if (d.more) ul.append(el("li", { class: "note" }, "… " + count(d.more.rows) + " more, " + bytes(d.more.retained)));
  draw(top);
  // a tile opens its node: the tree opens it too, and the treemap goes down to its level
  if (chart) chart.on("click", (p) => { const k = p.data && shown.kids.get(p.data.id); if (k) k.open(); });
};

views.sql = async (q, main) => {
  const file = fileOf(q), query = q.get("query") || "";
  main.append(el("h1", {}, "SQL"));
  const ta = el("textarea", { id: "query", spellcheck: "false" });
  ta.value = query || "SELECT class, count(*) AS n, sum(shallow) AS bytes FROM objects GROUP BY class ORDER BY bytes DESC LIMIT 20";
  const run = el("button", { id: "run", type: "button" }, "Run");
  run.addEventListener("click", () => { location.hash = href("sql", { file, query: ta.value }); });
  main.append(ta, el("div", { class: "bar" }, run, el("span", { class: "note" }, "the tables: hprofan help sql")));
  if (!query) return;
  const d = await api("sql", { file }, query);   // (POST: a query may be longer than a URL holds)
  main.append(el("table", { id: "result" }, el("tr", {}, ...d.columns.map((c) => el("th", {}, c))),
    ...d.rows.map((r) => el("tr", {}, ...r.map((v) => el("td", { class: typeof v === "number" ? "num" : "" },
      isId(v) ? objLink(file, { id: v }) : v === null ? "NULL" : String(v)))))));
};

for (const cmd of ["leaks", "threads", "sites", "waste"])
  views[cmd] = async (q, main) => {
    const file = fileOf(q);
    const d = await api(cmd, { file });
    main.append(el("h1", {}, cmd[0].toUpperCase() + cmd.slice(1)));
    main.append(generic(file, d, 0));
  };

// a signed difference: "+1.2 MiB", "−300 B", "0"
function signed(n, fmt) {
  if (typeof n !== "number") return "";
  return (n > 0 ? "+" : n < 0 ? "−" : "") + fmt(Math.abs(n));
}

// diff A B: two dumps picked, their classes as a table sorted by a click on a column
views.diff = async (q, main) => {
  main.append(el("h1", {}, "Diff"));
  if (files.length < 2) {
    main.append(el("p", { class: "note", id: "diff-note" }, "A diff needs two dumps: serve two or more " +
      "(hprofan serve BASE.hprof NEW.hprof)."));
    return;
  }
  const picked = q.getAll("file");
  const [fa, fb] = picked.length === 2 ? picked : ["0", "1"];
  const sort = q.get("sort") || "", rev = q.has("rev");
  // the hash with p's changes: a, b (the dumps), sort, rev
  const go = (p) => {
    const u = new URLSearchParams();
    u.append("file", p.a !== undefined ? p.a : fa);
    u.append("file", p.b !== undefined ? p.b : fb);
    const k = "sort" in p ? p.sort : sort;
    if (k) u.set("sort", k);
    if ("sort" in p ? p.rev : rev) u.set("rev", "1");
    location.hash = "#/diff?" + u;
  };
  const pick = (id, v, which) => {
    const s = el("select", { id, "aria-label": which });
    files.forEach((f, i) => s.append(el("option", { value: String(i) }, f)));
    s.value = v;
    s.addEventListener("change", () => go(which === "base" ? { a: s.value } : { b: s.value }));
    return s;
  };
  main.append(el("div", { class: "bar" }, "base ", pick("diff-a", fa, "base"), " → new ", pick("diff-b", fb, "new")));
  const d = await api("diff", { file: [fa, fb], top: 0 });
  const ret = d.retained_sizes;
  main.append(table([{ title: "", cell: (r) => r[0] }, { title: "base", num: true, cell: (r) => r[1] },
    { title: "new", num: true, cell: (r) => r[2] }, { title: "change", num: true, cell: (r) => r[3] }], [
    ["objects", count(d.base.objects), count(d.new.objects), signed(d.delta.objects, count)],
    ["shallow", bytes(d.base.shallow), bytes(d.new.shallow), signed(d.delta.shallow, bytes)],
    ["reachable", bytes(d.base.reachable_shallow), bytes(d.new.reachable_shallow), signed(d.delta.reachable_shallow, bytes)]]));
  const cc = d.class_counts || {};
  main.append(el("h2", {}, "Classes"));
  main.append(el("p", { class: "note" }, count(cc.changed) + " changed, " + count(cc.new) + " new, " + count(cc.gone) +
    " gone; click a column to sort by it (again: the other way)"));
  // the columns: each a key to sort by and the value it sorts on
  const col = (key, title, num, val, cell) => ({ key, title, num, val, cell });
  const trio = (part, fmt) => [
    col(part + "_base", part + " (base)", true, (r) => r.base[part], (r) => fmt(r.base[part])),
    col(part + "_new", part + " (new)", true, (r) => r.new[part], (r) => fmt(r.new[part])),
    col(part + "_delta", "Δ " + part, true, (r) => r.delta[part], (r) => el("span", {
      class: r.delta[part] > 0 ? "grew" : r.delta[part] < 0 ? "shrank" : "" }, signed(r.delta[part], fmt)))];
  const cols = [
    col("class", "class", false, (r) => r.class, (r) => {
      const where = r.status === "gone" ? fa : fb;
      const a = el("a", { href: href("instances", { file: where, class: r.class }) }, r.class);
      return r.status === "changed" ? el("span", {}, a, " ", el("a", { class: "note", href: href("instances", { file: fa, class: r.class }),
        title: "its instances in the base dump" }, "(base)")) : a;
    }),
    col("status", "status", false, (r) => r.status, (r) => r.status),
    ...trio("instances", count), ...trio("shallow", bytes), ...(ret ? trio("retained", bytes) : [])];
  const by = cols.find((c) => c.key === sort);
  const rows = d.classes.slice();
  // numbers the largest first, names from A; rev the other way; then by class
  const cmp = (x, y) => {
    const u = by.val(x), v = by.val(y);
    return typeof u === "number" ? v - u : u < v ? -1 : u > v ? 1 : 0;
  };
  if (by) rows.sort((x, y) => cmp(x, y) * (rev ? -1 : 1) || (x.class < y.class ? -1 : x.class > y.class ? 1 : 0));
  const shown = rows.slice(0, 500);
  const t = table(cols, shown);
  t.id = "diff-classes";
  t.querySelectorAll("th").forEach((th, i) => {
    const k = cols[i].key;
    th.classList.add("sort");
    if (k === sort) th.classList.add("sorted");
    th.addEventListener("click", () => go({ sort: k, rev: k === sort ? !rev : false }));
  });
  main.append(t);
  if (rows.length > shown.length) main.append(el("p", { class: "note" }, (rows.length - shown.length) + " more rows"));
  const rest = {};
  for (const k of ["root_kinds", "holders", "object_ids"]) if (d[k] !== undefined) rest[k] = d[k];
  main.append(el("h2", {}, "Roots, holders, object ids"));
  main.append(generic(fb, rest, 0));
};

// ---- the frame -------------------------------------------------------------

async function show() {
  const { view, q } = route();
  const main = $("main");
  main.replaceChildren();
  document.body.dataset.state = "busy";
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("on", a.dataset.view === view);
  try {
    if (!views[view]) throw new Error("no view " + view);
    if (q.getAll("file").length === 1) $("file").value = q.get("file");
    await views[view](q, main);
    document.body.dataset.state = "ready";
  } catch (e) {
    main.append(el("p", { class: "error", id: "error" }, e.message));
    document.body.dataset.state = "error";
  }
}

async function start() {
  const d = await (await fetch("/api/files", { credentials: "same-origin" })).json();
  files = d.files.map((f) => f.name);
  const sel = $("file");
  for (const f of d.files) sel.append(el("option", { value: String(f.file) }, f.name));
  sel.addEventListener("change", () => { const { view } = route(); location.hash = href(view === "object" || view === "path" || view === "instances" ? "overview" : view, { file: sel.value }); });
  const nav = $("nav");
  const names = [["overview", "Overview"], ["top", "Histogram"], ["dominators", "Dominators"], ["leaks", "Leaks"],
    ["threads", "Threads"], ["sites", "Sites"], ["waste", "Waste"], ["sql", "SQL"], ["diff", "Diff"]];
  for (const [v, t] of names) {
    const a = el("a", { href: "#/" + v }, t);
    a.dataset.view = v;
    a.addEventListener("click", (e) => { e.preventDefault(); location.hash = href(v, { file: sel.value }); });
    nav.append(a);
  }
  window.addEventListener("hashchange", show);
  show();
}
start();
