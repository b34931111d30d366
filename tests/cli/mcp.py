#!/usr/bin/env python3
"""tests/cli/mcp.py — an MCP session with `hprofan mcp`, scripted (mcp.sh
runs it): initialize (a current, an older and an unknown revision),
tools/list against the command tables, a tools/call per tool equal to the
CLI's --json run as a process of its own, bad arguments, an unknown tool
and method, bad frames followed by calls that work (a line over 16 MiB
too), a notification left unanswered, progress on an unindexed dump, a
cancellation (a call blocked on a FIFO nobody writes: not answered, its
worker gone, a call on another dump answered meanwhile, the server going
on), a worker killed (its call answered -32603), a session kept between
calls (a FIFO read once, asked twice), at most 4 workers for 6 sets of
options, -o, SIGTERM with a call blocked, and a clean end (exit 0, no
sanitizer report from the server or its workers).  Prints ok/FAIL/skip
lines."""
import json, os, select, shutil, subprocess, sys, time

H = os.environ["HPROFAN"]
REL = os.environ.get("REL", H)
TMPD = os.environ["TMPD"]
S = os.environ["SAMPLE"]
CORPUS = os.environ.get("CORPUS", "")

def ok(n): print("ok " + n, flush=True)
def fail(n, why): print("FAIL %s: %s" % (n, str(why)[:1500]), flush=True)
def skip(n, why): print("skip %s: %s" % (n, why), flush=True)
def check(n, cond, why=""):
    (ok(n) if cond else fail(n, why))
    return cond

TOOLS = ["top", "info", "dominators", "roots", "instances", "object", "path", "diff", "trend", "leaks",
         "waste", "threads", "sites", "components", "sql", "idom", "merge-paths", "group-by-value", "refs"]
NOT_TOOLS = ["browse", "redact", "bitmaps", "index", "report", "mcp"]
# the options no tool takes: always on or about the run, and those that do
# not go with --json (sites --collapsed by a rule, sql --csv in its code)
LEFT_OUT = {"--json", "--quiet", "--stats"}
LEFT_OUT_OF = {("sites", "--collapsed"), ("sql", "--csv")}


class Server:
    def __init__(self, name):
        self.err_path = os.path.join(TMPD, name + ".err")
        self.p = subprocess.Popen([H, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(self.err_path, "wb"))
        self.buf = b""
        self.seen = []          # every message, in order

    def send(self, m):
        b = m if isinstance(m, bytes) else json.dumps(m).encode()
        self.p.stdin.write(b + b"\n")
        self.p.stdin.flush()

    def recv(self, timeout=60):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            k = os.read(self.p.stdout.fileno(), 1 << 20)
            if not k:
                return None
            self.buf += k
        line, self.buf = self.buf.split(b"\n", 1)
        m = json.loads(line)
        self.seen.append(m)
        return m

    def wait_id(self, i, timeout=60):
        """the response to id i, and the messages before it"""
        before = []
        while True:
            m = self.recv(timeout)
            if m is None:
                return None, before
            if "id" in m and m["id"] == i and "method" not in m:
                return m, before
            before.append(m)

    def req(self, i, method, params=None, timeout=60):
        m = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            m["params"] = params
        self.send(m)
        return self.wait_id(i, timeout)[0]

    def call(self, i, name, args, timeout=60, meta=None):
        p = {"name": name, "arguments": args}
        if meta:
            p["_meta"] = meta
        return self.req(i, "tools/call", p, timeout)

    def children(self):
        try:
            with open("/proc/%d/task/%d/children" % (self.p.pid, self.p.pid)) as f:
                return [int(x) for x in f.read().split()]
        except OSError:
            pass
        kids = []          # (a kernel without that file: every process's parent)
        for d in os.listdir("/proc"):
            try:
                with open("/proc/%s/stat" % d) as f:
                    st = f.read()
                if int(st[st.rindex(")") + 2:].split()[1]) == self.p.pid and st[st.rindex(")") + 2] != "Z":
                    kids.append(int(d))
            except (OSError, ValueError):
                pass
        return kids

    def close(self, timeout=60):
        self.p.stdin.close()
        while self.recv(timeout) is not None:
            pass
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "killed after %ds" % timeout
        with open(self.err_path, errors="replace") as f:
            return rc, f.read()


def cli(args, binary=REL):
    r = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout.decode(), r.stderr.decode()


def batch(lines):
    """lines to a server at once, its stdin closed: the messages it wrote"""
    r = subprocess.run([H, "mcp"], input="".join(l + "\n" for l in lines).encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return [json.loads(l) for l in r.stdout.decode().splitlines()], r.returncode


# ---- initialize: the revision asked, else the current one -----------------
for ver, want in [("2025-06-18", "2025-06-18"), ("2025-03-26", "2025-03-26"), ("2024-11-05", "2024-11-05"),
                  ("1999-01-01", "2025-06-18")]:
    ms, rc = batch([json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": {"protocolVersion": ver, "capabilities": {},
                                           "clientInfo": {"name": "t", "version": "1"}}}),
                    json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})])
    r = ms[0].get("result", {}) if len(ms) == 1 else {}
    check("mcp-initialize-" + ver, rc == 0 and len(ms) == 1 and r.get("protocolVersion") == want and
          r.get("capabilities", {}).get("tools", {}).get("listChanged") is False and
          r.get("serverInfo", {}).get("name") == "hprofan", ms)

# a line over 16 MiB: answered -32700 and skipped; a CRLF line and a last
# line without its newline are frames
big = '{"jsonrpc":"2.0","id":1,"method":"ping","x":"' + "a" * (17 << 20) + '"}'
ms, rc = batch([big, '{"jsonrpc":"2.0","id":2,"method":"ping"}\r'])
r = subprocess.run([H, "mcp"], input=b'{"jsonrpc":"2.0","id":3,"method":"ping"}', stdout=subprocess.PIPE, timeout=60)
check("mcp-long-line", rc == 0 and len(ms) == 2 and ms[0].get("error", {}).get("code") == -32700 and
      ms[0].get("id", 0) is None and ms[1] == {"jsonrpc": "2.0", "id": 2, "result": {}} and
      json.loads(r.stdout) == {"jsonrpc": "2.0", "id": 3, "result": {}}, (ms, r.stdout))

srv = Server("mcp")
init = srv.req(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "mcp.py", "version": "1"}})
srv.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

# ---- tools/list against `hprofan completion options` ----------------------
tl = srv.req(1, "tools/list")
tools = {t["name"]: t for t in (tl or {}).get("result", {}).get("tools", [])}
check("mcp-tools-list", all(t in tools for t in TOOLS) and not any(t in tools for t in NOT_TOOLS),
      sorted(tools))
opts, cmds = {}, {}
for line in subprocess.run([H, "completion", "options"], stdout=subprocess.PIPE).stdout.decode().splitlines():
    f = line.split("\t")
    if f[0] == "command":
        cmds[f[1]] = f
    elif f[0] == "option":
        opts.setdefault(f[1], []).append(f)
bad = []
for t in TOOLS:
    sch = tools.get(t, {}).get("inputSchema", {})
    props = sch.get("properties", {})
    c = cmds[t]
    want = {}
    for f in opts.get(t, []):
        name, alias, kind, flags, words = f[2], f[3], f[4], f[6], f[7]
        if name in LEFT_OUT or (t, name) in LEFT_OUT_OF:
            continue
        prop = (alias if not name.startswith("--") and alias.startswith("--") else name).lstrip("-")
        want[prop] = (kind, flags, words)
    files = "files" if int(c[2]) >= 2 else "file"
    extra = {files}
    if c[4] != "-":
        extra |= {w.rstrip(".").lower().replace("|", "_or_") for w in c[4].split()}
    elif int(c[3]) > int(c[2]) and int(c[2]) < 2:
        extra.add(c[5].split()[-1].strip("[]").lower())
    if set(props) != set(want) | extra:
        bad.append("%s: properties %s, the table's %s" % (t, sorted(props), sorted(set(want) | extra)))
        continue
    if not set(sch.get("required", [])) == extra or sch.get("additionalProperties") is not False:
        bad.append("%s: required %s, additionalProperties %s" % (t, sch.get("required"),
                                                                  sch.get("additionalProperties")))
    for prop, (kind, flags, words) in want.items():
        p = props[prop]
        if "repeat" in flags.split(","):
            if p.get("type") != "array":
                bad.append("%s %s: not an array" % (t, prop))
            p = p.get("items", {})
        typ = p.get("type")
        if kind == "flag" and typ != "boolean":
            bad.append("%s %s: %s, a flag" % (t, prop, typ))
        if kind == "choice" and (typ != "string" or p.get("enum") != words.split()):
            bad.append("%s %s: enum %s, the choices %s" % (t, prop, p.get("enum"), words))
        if kind == "optnum" and typ != ["integer", "boolean"]:
            bad.append("%s %s: %s, an optional number" % (t, prop, typ))
        if kind == "value" and typ not in ("string", "integer"):
            bad.append("%s %s: %s" % (t, prop, typ))
check("mcp-tools-schemas", not bad, "; ".join(bad))

# ---- a call per tool equals the CLI's JSON -----------------------------------
# (no field differs from run to run: none is dropped)
ID = "0xfd5bfa98"   # the dominator tree's first row in the sample (class LeakyCache)
S2 = os.path.join(TMPD, "copy.hprof.gz")
shutil.copy(S, S2)
calls = {
    "top": ({"file": S, "top": 5, "sort": "shallow"}, [S, "--top", "5", "--sort=shallow"]),
    "info": ({"file": S}, [S]),
    "dominators": ({"file": S}, [S]),
    "roots": ({"file": S}, [S]),
    "instances": ({"file": S, "class": "LeakyCache$Session", "top": 3}, [S, "LeakyCache$Session", "--top", "3"]),
    "object": ({"file": S, "id": ID}, [S, ID]),
    "path": ({"file": S, "id": ID}, [S, ID]),
    "diff": ({"files": [S, S2]}, [S, S2]),
    "trend": ({"files": [S, S2]}, [S, S2]),
    "leaks": ({"file": S}, [S]),
    "waste": ({"file": S}, [S]),
    "threads": ({"file": S}, [S]),
    "sites": ({"file": S}, [S]),
    "components": ({"file": S}, [S]),
    "sql": ({"file": S, "query": "SELECT count(*) AS n FROM classes"}, [S, "SELECT count(*) AS n FROM classes"]),
    "idom": ({"file": S, "class_or_id": ["LeakyCache$Session"]}, [S, "LeakyCache$Session"]),
    "merge-paths": ({"file": S, "class_or_id": ["LeakyCache$Session"]}, [S, "LeakyCache$Session"]),
    "group-by-value": ({"file": S, "class": "java.lang.String", "field": "coder"}, [S, "java.lang.String", "coder"]),
    "refs": ({"file": S}, [S]),
}
n = 100
for t in TOOLS:
    n += 1
    args, argv = calls[t]
    r = srv.call(n, t, args)
    rc, out, err = cli([t] + argv + ["--json", "--quiet"])
    res = (r or {}).get("result", {})
    if rc in (0, 5):
        doc = json.loads(out)
        text = res.get("content", [{}])[0].get("text", "")
        check("mcp-call-" + t, res.get("isError") is False and res.get("structuredContent") == doc and
              json.loads(text or "null") == doc, r if not res.get("structuredContent") else
              [k for k in doc if doc[k] != res["structuredContent"].get(k)])
    else:
        check("mcp-call-" + t, res.get("isError") is True and
              res.get("content", [{}])[0].get("text") == err.rstrip("\n"), (rc, err, r))

# ---- a dump of the corpus, read in place -----------------------------------
C = os.path.join(CORPUS, "agourlay__hprof-slurp", "hprof-32.bin")
if CORPUS and os.path.exists(C):
    for t in ["top", "leaks"]:
        n += 1
        r = srv.call(n, t, {"file": C})
        rc, out, err = cli([t, C, "--json", "--quiet"])
        check("mcp-corpus-" + t, rc == 0 and (r or {}).get("result", {}).get("structuredContent") == json.loads(out),
              (rc, err, r))
else:
    skip("mcp-corpus", "the corpus is absent")

# ---- bad arguments, unknown tools and methods --------------------------------
r = srv.call(200, "top", {"file": S, "sort": "bogus"})
rc, out, err = cli(["top", S, "--sort=bogus", "--json", "--quiet"])
check("mcp-bad-value", rc == 2 and (r or {}).get("error", {}).get("code") == -32602 and
      r["error"]["message"] == err.splitlines()[0][len("hprofan: "):], (r, err))
r = srv.call(201, "top", {"file": S, "bogus": 1})
check("mcp-unknown-argument", (r or {}).get("error", {}).get("code") == -32602 and "bogus" in r["error"]["message"], r)
r = srv.call(202, "top", {"file": S, "top": "many"})
check("mcp-bad-type", (r or {}).get("error", {}).get("code") == -32602, r)
r = srv.call(203, "object", {"file": S})
check("mcp-missing-argument", (r or {}).get("error", {}).get("code") == -32602 and "id" in r["error"]["message"], r)
r = srv.call(204, "no-such-tool", {"file": S})
check("mcp-unknown-tool", (r or {}).get("error", {}).get("code") == -32602 and "Unknown tool" in r["error"]["message"], r)
r = srv.call(205, "browse", {"file": S})
check("mcp-not-a-tool", (r or {}).get("error", {}).get("code") == -32602, r)
r = srv.req(206, "resources/list")
check("mcp-unknown-method", (r or {}).get("error", {}).get("code") == -32601, r)
r = srv.req(207, "ping")
check("mcp-ping", r is not None and r.get("result") == {}, r)

# ---- bad frames: answered, and the server goes on ------------------------------
for k, (name, frame, code) in enumerate([
        ("parse", b'{"jsonrpc": "2.0", "id": 390, "method": "ping"', -32700),
        ("garbage", b"\x00\xffnot json at all", -32700),
        ("batch", b'[{"jsonrpc": "2.0", "id": 391, "method": "ping"}]', -32600),
        ("scalar", b'"ping"', -32600),
        ("no-version", b'{"id": 392, "method": "ping"}', -32600),
        ("bad-id", b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600)]):
    srv.send(frame)
    m = srv.recv()
    r = srv.call(300 + k, "info", {"file": S})
    check("mcp-bad-frame-" + name, m is not None and m.get("error", {}).get("code") == code and
          (code != -32700 or m.get("id", 0) is None) and (r or {}).get("result", {}).get("isError") is False, (m, r))

# ---- a notification is not answered ----------------------------------------------
srv.send({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}})
srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 12345}})
srv.send({"jsonrpc": "2.0", "id": 400, "method": "ping"})
m = srv.recv()
check("mcp-notification-unanswered", m is not None and m.get("id") == 400 and "result" in m, m)

# ---- progress on an unindexed dump --------------------------------------------------
F = os.path.join(TMPD, "fresh.hprof.gz")
shutil.copy(S, F)
srv.send({"jsonrpc": "2.0", "id": 500, "method": "tools/call",
          "params": {"name": "top", "arguments": {"file": F}, "_meta": {"progressToken": "tok-500"}}})
r, before = srv.wait_id(500)
pr = [m["params"] for m in before if m.get("method") == "notifications/progress"]
check("mcp-progress", r is not None and "result" in r and pr and all(p["progressToken"] == "tok-500" for p in pr)
      and all(a["progress"] < b["progress"] for a, b in zip(pr, pr[1:])) and
      all(isinstance(p.get("message"), str) for p in pr), (pr, r))
F2 = os.path.join(TMPD, "fresh2.hprof.gz")
shutil.copy(S, F2)
srv.send({"jsonrpc": "2.0", "id": 501, "method": "tools/call", "params": {"name": "top", "arguments": {"file": F2}}})
r, before = srv.wait_id(501)
check("mcp-no-progress-without-token", r is not None and not before, before)

# ---- cancellation: a call blocked on a FIFO nobody writes ----------------------
never = os.path.join(TMPD, "never.fifo")
os.mkfifo(never)
before = set(srv.children())
srv.send({"jsonrpc": "2.0", "id": 600, "method": "tools/call",
          "params": {"name": "top", "arguments": {"file": never}}})
new = set()
end = time.time() + 30
while not new and time.time() < end:
    time.sleep(0.02)
    new = set(srv.children()) - before
# while it is blocked, a call on another dump is answered (its own worker)
r = srv.call("side-by-side", "info", {"file": S})
check("mcp-side-by-side", (r or {}).get("result", {}).get("isError") is False, r)
srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 600, "reason": "test"}})
r = srv.req(601, "ping")
gone = new and all(not os.path.exists("/proc/%d" % p) for p in new)
check("mcp-cancel-worker-gone", len(new) == 1 and gone and r is not None and "result" in r, (new, r))
r = srv.call(602, "top", {"file": S, "top": 1})
check("mcp-after-cancel", (r or {}).get("result", {}).get("isError") is False, r)
# a call blocked again, cancelled while a call for it waits: that one is answered
srv.send({"jsonrpc": "2.0", "id": 603, "method": "tools/call", "params": {"name": "top", "arguments": {"file": never}}})
srv.send({"jsonrpc": "2.0", "id": 604, "method": "tools/call", "params": {"name": "info", "arguments": {"file": never}}})
srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 604}})
srv.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 603}})
r = srv.req(605, "ping")
check("mcp-cancel-queued", r is not None and "result" in r, r)

# ---- a worker that dies (killed here, as a crash would end it): its call is
# answered -32603 and the server goes on
before = set(srv.children())
srv.send({"jsonrpc": "2.0", "id": 650, "method": "tools/call", "params": {"name": "top", "arguments": {"file": never}}})
new = set()
end = time.time() + 30
while not new and time.time() < end:
    time.sleep(0.02)
    new = set(srv.children()) - before
for k in new:
    os.kill(k, 9)
r = srv.wait_id(650, 30)[0]
r2 = srv.call(651, "info", {"file": S})
check("mcp-worker-died", len(new) == 1 and (r or {}).get("error", {}).get("code") == -32603 and
      (r2 or {}).get("result", {}).get("isError") is False, (new, r, r2))

# ---- a session kept between calls: a FIFO read once, asked twice --------------------
once = os.path.join(TMPD, "once.fifo")
os.mkfifo(once)
cat = subprocess.Popen(["sh", "-c", 'cat "$1" > "$2"', "sh", S, once])
r1 = srv.call(700, "top", {"file": once, "top": 3}, timeout=60)
cat.wait(30)
r2 = srv.call(701, "top", {"file": once, "top": 3}, timeout=30)
d1 = (r1 or {}).get("result", {}).get("structuredContent")
d2 = (r2 or {}).get("result", {}).get("structuredContent")
check("mcp-session-kept", d1 and d1 == d2, (r1, r2))
if r2 is None:
    srv.p.kill()

# ---- five sets of options: four workers at most, every call answered --------------
rs = [srv.call(900 + k, "info", {"file": S, "size-model": m})
      for k, m in enumerate(["mat", "ahat", "raw", "visualvm", "netbeans", "mat"])]
check("mcp-workers-bounded", all((r or {}).get("result", {}).get("isError") is False for r in rs) and
      len(srv.children()) <= 4 and rs[0]["result"]["structuredContent"] == rs[5]["result"]["structuredContent"],
      (srv.children(), rs))

# ---- -o: the call names an output ----------------------------------------------------
out = os.path.join(TMPD, "out.json")
r = srv.call(800, "top", {"file": S, "top": 2, "output": out})
rc, o, e = cli(["top", S, "--top", "2", "--json"])
check("mcp-output", (r or {}).get("result", {}).get("isError") is False and os.path.exists(out) and
      json.load(open(out)) == json.loads(o) and "structuredContent" not in r["result"], r)

# ---- SIGTERM: the server ends at once, a blocked worker with it --------------------
t = Server("mcp-term")
t.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "top", "arguments": {"file": never}}})
kids = []
end = time.time() + 30
while not kids and time.time() < end:
    time.sleep(0.02)
    kids = t.children()
t.p.terminate()
try:
    trc = t.p.wait(30)
except subprocess.TimeoutExpired:
    t.p.kill()
    trc = "hung"
check("mcp-sigterm", kids and trc == 0 and all(not os.path.exists("/proc/%d" % k) for k in kids), (kids, trc))

# ---- the end: every request answered once, the cancelled never; exit 0, clean -----------
rc, err = srv.close()
ids = [m["id"] for m in srv.seen if "id" in m and "method" not in m]
dup = sorted({i for i in ids if ids.count(i) > 1 and i is not None})
check("mcp-cancelled-unanswered", 600 not in ids and 603 not in ids and 604 not in ids and not dup, (dup, ids))
check("mcp-exit", rc == 0 and "Sanitizer" not in err and "runtime error" not in err, (rc, err[-3000:]))
