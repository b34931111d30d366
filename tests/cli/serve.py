"""serve.py — hprofan serve, driven over HTTP on loopback and in headless
Chromium (cdp.py); run by serve.sh.  The server serves the small sample,
a dump with a hostile class name and, when there, a corpus dump, on port 0.
  - its first stdout line is the URL with a 128-bit token;
  - /api/COMMAND equals `hprofan COMMAND --json` of the same command line
    (no member dropped: none differs from run to run), usage errors are
    400 with the CLI's message, an unknown command 404, the options that
    name files or belong to the sessions 400;
  - POST /api/sql: a query over 8 KiB as the body equals the CLI's --json
    byte for byte; refused: a body over 1 MiB (413, before it is read), no
    token, a foreign Origin, a type but application/sql, no Content-Length;
    a body that stops half-way is dropped after its pause, one that trickles
    in after its time (2 and 6 s here, HPROFAN_SERVE_BODY_SECONDS; 10 and 30
    by default);
  - refusals: no token, a wrong one, a foreign Host, a body, POST, paths
    out of the table (../, %2e%2e, /static/../../etc/passwd), an
    over-long URL; no CORS header, a CSP without 'unsafe-inline', the
    cookie HttpOnly and SameSite=Strict;
  - a bounded load test: 50 clients at once, 4 requests each, all answered;
  - in Chromium: the histogram, a class's instances, an object, its paths;
    the diff of two dumps (a known class's row, sorted by a column, another
    dump picked; one dump served: the view says a diff needs two);
    three levels of the dominator tree, the treemap showing the level
    opened (by the tree, a tile or the breadcrumb); an SQL query, and one
    over 8 KiB;
    the hostile name shown as text, nothing run; no CSP violation; a screenshot not blank;
  - --bind: 0.0.0.0 said with a warning (asked on 127.0.0.1 only), ::1 and
    127.0.0.2 (loopback) without;
  - SIGTERM ends it, exit 0, nothing from the sanitizers.
"""
import base64, http.client, json, os, signal, subprocess, sys, threading, time

HPROFAN, REL, TMPD = os.environ["HPROFAN"], os.environ["REL"], os.environ["TMPD"]
SAMPLE, HOSTILE, CORPUS_DUMP = os.environ["SAMPLE"], os.environ["HOSTILE"], os.environ.get("CORPUS_DUMP", "")
BIG = os.environ["BIG"]
HELPER = os.environ["HELPER"]
sys.path.insert(0, HELPER)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pngcolours import colours  # noqa: E402

def ok(n): print("ok " + n, flush=True)
def fail(n, why): print("FAIL %s: %s" % (n, str(why)[:1500]), flush=True)
def skip(n, why): print("skip %s: %s" % (n, why), flush=True)
def check(n, cond, why=""):
    (ok if cond else lambda n: fail(n, why))(n)

files = [SAMPLE, HOSTILE, BIG] + ([CORPUS_DUMP] if CORPUS_DUMP else [])
err = open(os.path.join(TMPD, "serve.err"), "w+")
srv = subprocess.Popen([HPROFAN, "serve", "--port", "0", "--workers", "2", "--quiet"] + files,
                       stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                       env=dict(os.environ, HPROFAN_SERVE_BODY_SECONDS="2,6"))
timer = threading.Timer(120, srv.kill)   # bounded whatever happens
timer.start()
line = srv.stdout.readline().decode().strip()
import re  # noqa: E402
m = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})", line)
if not m:
    fail("serve: the first line is the URL with its token", repr(line))
    srv.kill(); timer.cancel(); sys.exit(0)
ok("serve: the first line is the URL with a 128-bit token")
PORT, TOKEN = int(m.group(1)), m.group(2)
HOST = "127.0.0.1:%d" % PORT


def get(path, headers=None, method="GET", body=None, host=HOST):
    c = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
    c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    if host is not None:
        c.putheader("Host", host)
    for k, v in (headers or {}).items():
        c.putheader(k, v)
    if body is not None:
        c.putheader("Content-Length", str(len(body)))
    c.endheaders(body)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data


def api(cmd, query):
    from urllib.parse import urlencode
    return get("/api/%s?%s" % (cmd, urlencode(query + [("token", TOKEN)])))


def cli(args):
    p = subprocess.run([REL] + args + ["--json", "--quiet"], capture_output=True)
    return p.returncode, p.stdout, p.stderr.decode()


# ---- the API is the CLI's JSON ----------------------------------------------------
top = json.loads(cli(["top", SAMPLE])[1])
obj = json.loads(cli(["dominators", SAMPLE, "--top", "1"])[1])["dominators"][0]["id"]
session = json.loads(cli(["instances", SAMPLE, "LeakyCache$Session", "--top", "1"])[1])["instances"][0]["id"]
cases = [
    ("top", [("file", "0")], ["top", SAMPLE]),
    ("top", [("file", "0"), ("top", "5"), ("sort", "shallow"), ("filter", "java\\.util")],
     ["top", SAMPLE, "--top", "5", "--sort=shallow", "--filter", "java\\.util"]),
    ("info", [("file", "0")], ["info", SAMPLE]),
    ("dominators", [("file", "0"), ("top", "3"), ("depth", "2")], ["dominators", SAMPLE, "--top", "3", "--depth", "2"]),
    ("dominators", [("file", "0"), ("root", obj)], ["dominators", SAMPLE, "--root", obj]),
    ("roots", [("file", "0")], ["roots", SAMPLE]),
    ("instances", [("file", "0"), ("class", "java.lang.String"), ("top", "7")], ["instances", SAMPLE, "java.lang.String", "--top", "7"]),
    ("object", [("file", "0"), ("id", session)], ["object", SAMPLE, session]),
    ("path", [("file", "0"), ("id", session), ("top", "2")], ["path", SAMPLE, session, "--top", "2"]),
    ("leaks", [("file", "0")], ["leaks", SAMPLE]),
    ("threads", [("file", "0"), ("locals", "")], ["threads", SAMPLE, "--locals"]),
    ("sites", [("file", "0")], ["sites", SAMPLE]),
    ("waste", [("file", "0")], ["waste", SAMPLE]),
    ("sql", [("file", "0"), ("query", "SELECT class, count(*) AS n FROM objects GROUP BY class ORDER BY n DESC LIMIT 5")],
     ["sql", SAMPLE, "SELECT class, count(*) AS n FROM objects GROUP BY class ORDER BY n DESC LIMIT 5"]),
    ("idom", [("file", "0"), ("class_or_id", "LeakyCache$Session")], ["idom", SAMPLE, "LeakyCache$Session"]),
    ("refs", [("file", "0")], ["refs", SAMPLE]),
    ("diff", [("file", "0"), ("file", "1")], ["diff", SAMPLE, HOSTILE]),
    ("diff", [("file", "0"), ("file", "2")], ["diff", SAMPLE, BIG]),
    ("diff", [("file", "0"), ("file", "2"), ("top", "0")], ["diff", SAMPLE, BIG, "--top", "0"]),
    ("diff", [("file", "2"), ("file", "0"), ("top", "0")], ["diff", BIG, SAMPLE, "--top", "0"]),
]
if CORPUS_DUMP:
    cases += [("top", [("file", "3")], ["top", CORPUS_DUMP]), ("dominators", [("file", "3")], ["dominators", CORPUS_DUMP])]
for cmd, q, args in cases:
    name = "api: %s %s equals the CLI's --json" % (cmd, " ".join(a for a in args[2:])[:60])
    st, h, body = api(cmd, q)
    rc, out, e = cli(args)
    try:
        same = st == 200 and rc == 0 and json.loads(body) == json.loads(out)
    except ValueError as x:
        same = False
        e = str(x)
    check(name, same, "status %d, CLI exit %d: %s / %s" % (st, rc, body[:300], e[:300]))
    if cmd == "top" and q == [("file", "0")]:
        check("api: answers application/json", h.get("content-type") == "application/json", h)

# errors
st, _, body = api("top", [("file", "0"), ("sort", "zz")])
_, _, e = cli(["top", SAMPLE, "--sort=zz"])
d = json.loads(body)
check("api: a bad value is 400 with the CLI's message", st == 400 and d["error"] == e.strip() and d["exit_code"] == 2,
      "%d %s / %s" % (st, body, e))
st, _, body = api("object", [("file", "0"), ("id", "0x10")])
check("api: no such object: 422 with the CLI's message", st == 422 and "no object 0x10" in json.loads(body)["error"], body)
for q, what in [([("file", "0"), ("bogus", "1")], "unknown argument"), ([("file", "9")], "'file' is the number"),
                ([("file", "0"), ("output", "/tmp/x")], "names a file"), ([("file", "0"), ("components", "/etc/passwd")], "names a file"),
                ([("file", "0"), ("size-model", "raw")], "is the server's"), ([], "missing argument 'file'"),
                ([("file", "0"), ("file", "0")], "one 'file' only")]:
    st, _, body = api("top", q)
    check("api: refused: %s" % what, st == 400 and what in json.loads(body).get("error", ""), "%d %s" % (st, body))
st, _, body = api("sql", [("file", "0"), ("timeout", "0.5"),
                           ("query", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c")])
check("api: an SQL statement past its timeout: 400, the CLI's message", st == 400 and "ran past --timeout" in json.loads(body)["error"],
      "%d %s" % (st, body[:300]))
st, _, body = api("report", [("file", "0")])
check("api: a command that writes files is not served (404)", st == 404, "%d %s" % (st, body))
st, _, body = api("nope", [("file", "0")])
check("api: an unknown command is 404", st == 404, "%d %s" % (st, body))
st, _, body = get("/api/files?token=" + TOKEN)
check("api/files: the dumps served", st == 200 and [f["name"] for f in json.loads(body)["files"]] == files, body[:300])

# ---- answers kept, a dump replaced, a worker gone ------------------------------------
st1, _, a1 = api("top", [("file", "1")])
st2, _, a2 = api("top", [("file", "1")])
check("api: the same request twice, the same answer", st1 == st2 == 200 and a1 == a2, (st1, st2))
time.sleep(0.05)
os.replace(os.path.join(TMPD, "hostile-5.hprof"), HOSTILE)
st, _, body = api("top", [("file", "1")])
rc, out, e = cli(["top", HOSTILE])
check("api: a dump replaced on disk is read again (no answer kept from before)",
      st == 200 and json.loads(body) == json.loads(out) and body != a1, "%d %s" % (st, body[:200]))


def children(pid):
    task = "/proc/%d/task" % pid
    return sorted(int(c) for t in os.listdir(task) for c in open("%s/%s/children" % (task, t)).read().split())


zygote = children(srv.pid)
workers = children(zygote[0]) if len(zygote) == 1 else []
check("one process forking the workers, two workers, as --workers 2 says", len(workers) == 2, (zygote, workers))
for w in workers:
    os.kill(w, signal.SIGKILL)
time.sleep(0.2)
answers = [api("info", [("file", "0")])[0] for _ in range(3)]
check("workers killed: every call still answered (sent again to a new worker)", answers == [200] * 3, answers)
st, _, body = api("roots", [("file", "0")])
check("... and new workers answer the CLI's document", st == 200 and json.loads(body) == json.loads(cli(["roots", SAMPLE])[1]), st)

# ---- refusals ------------------------------------------------------------------
st, _, body = get("/api/top?file=0")
check("no token: 403", st == 403 and b"no token" in body, "%d %s" % (st, body))
st, _, _ = get("/api/top?file=0&token=" + "0" * 32)
check("a wrong token: 403", st == 403, st)
st, _, _ = get("/api/top?file=0&token=" + TOKEN[:-1])
check("a token one character short: 403", st == 403, st)
st, _, _ = get("/api/top?file=0&token=" + TOKEN, host="evil.example:%d" % PORT)
check("a foreign Host header (DNS rebinding): 421", st == 421, st)
st, _, _ = get("/api/top?file=0&token=" + TOKEN, host="127.0.0.1:%d" % (PORT + 1))
check("a Host with another port: 421", st == 421, st)
st, _, _ = get("/api/top?file=0&token=" + TOKEN, host=None)
check("no Host header: refused", st in (400, 421), st)
st, _, _ = get("/api/files?token=" + TOKEN, host="localhost:%d" % PORT)
check("Host localhost:PORT is served", st == 200, st)
for p in ["/../../../../etc/passwd", "/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
          "/%2e%2e/%2e%2e/etc/passwd", "/static/..%2f..%2fetc%2fpasswd", "/static//etc/passwd", "/api/../../etc/passwd"]:
    st, _, body = get(p + ("&" if "?" in p else "?") + "token=" + TOKEN)
    check("path traversal %s: 404, nothing read" % p, st == 404 and b"root:" not in body, "%d %s" % (st, body[:100]))
st, _, _ = get("/api/top?file=0&token=%s&filter=%s" % (TOKEN, "a" * 20000))
check("an over-long URL is refused (414 or 431)", st in (414, 431), st)
st, _, _ = get("/api/top?file=0&token=%s&filter=%s" % (TOKEN, "a" * 9000))
check("a query over 8 KiB is refused (414)", st == 414, st)
st, _, _ = get("/api/top?file=0&token=" + TOKEN, method="POST", body=b"x=1")
check("POST is refused (405)", st == 405, st)
st, _, _ = get("/api/top?file=0&token=" + TOKEN, body=b"abcde")
check("a request body is refused (413)", st == 413, st)

# ---- POST /api/sql: the query as the body --------------------------------------------
SQLT = {"Content-Type": "application/sql; charset=utf-8"}
long_q = ("SELECT class, count(*) AS n, sum(shallow) AS bytes FROM objects WHERE "
          + " OR ".join("class = 'no.such.Class%d'" % i for i in range(400))
          + " OR class = 'java.lang.String' OR class = 'LeakyCache$Session' GROUP BY class ORDER BY class")
st, h, body = get("/api/sql?file=0&token=" + TOKEN, headers=dict(SQLT, Origin="http://" + HOST), method="POST",
                  body=long_q.encode())
rc, out, e = cli(["sql", SAMPLE, long_q])
check("POST /api/sql: a %d-byte query (over the URL's 8 KiB) answers the CLI's --json, byte for byte" % len(long_q),
      len(long_q) > 8192 and st == 200 and rc == 0 and body == out and json.loads(body)["rows"] == json.loads(out)["rows"],
      "status %d: %s / %s" % (st, body[:300], e[:300]))
st, _, body = get("/api/sql?file=0&token=" + TOKEN, headers=dict(SQLT, **{"Content-Length": str((1 << 20) + 1)}),
                  method="POST")
check("POST /api/sql: a body over 1 MiB is refused before it is read (413, one line)",
      st == 413 and b"\n" not in body and "1 MiB" in json.loads(body)["error"], "%d %s" % (st, body))
st, _, body = get("/api/sql?file=0", headers=SQLT, method="POST", body=b"SELECT 1")
check("POST /api/sql without the token: 403", st == 403 and b"no token" in body, "%d %s" % (st, body))
st, _, body = get("/api/sql?file=0&token=" + TOKEN, headers=dict(SQLT, Origin="http://evil.example"), method="POST",
                  body=b"SELECT 1")
check("POST /api/sql from a foreign Origin (CSRF): 403", st == 403 and b"Origin" in body, "%d %s" % (st, body))
st, _, body = get("/api/sql?file=0&token=" + TOKEN, headers=dict(SQLT, Origin="http://127.0.0.1:%d" % (PORT + 1)),
                  method="POST", body=b"SELECT 1")
check("POST /api/sql from another port's Origin: 403", st == 403, "%d %s" % (st, body))
for t in ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data", None]:
    st, _, body = get("/api/sql?file=0&token=" + TOKEN, headers={"Content-Type": t} if t else {}, method="POST",
                      body=b"SELECT 1")
    check("POST /api/sql as %s: refused (415)" % (t or "no Content-Type"), st == 415, "%d %s" % (st, body))
st, _, body = get("/api/sql?file=0&token=" + TOKEN, headers=dict(SQLT, **{"Transfer-Encoding": "chunked"}), method="POST")
check("POST /api/sql without a Content-Length (chunked): refused (411)", st == 411, "%d %s" % (st, body))
st, _, body = get("/api/sql?file=0&query=x&token=" + TOKEN, headers=SQLT, method="POST", body=b"SELECT 1")
check("POST /api/sql with a query in the URL too: 400", st == 400 and "given twice" in json.loads(body)["error"],
      "%d %s" % (st, body))
st, _, body = get("/api/sql?file=0&token=" + TOKEN, headers=SQLT, method="POST", body=b"SELECT 1\0; SELECT 2")
check("POST /api/sql with a NUL in the query: 400", st == 400, "%d %s" % (st, body))
st, _, body = get("/api/sql?file=0&token=" + TOKEN, headers={"Cookie": "hprofan-%d=%s" % (PORT, TOKEN), **SQLT},
                  method="POST", body=b"SELECT count(*) AS n FROM classes")
check("POST /api/sql with the cookie as its token", st == 200 and json.loads(body)["command"] == "sql", "%d %s" % (st, body[:200]))
st, h, _ = get("/api/top?file=0&token=" + TOKEN, headers={"Origin": "http://evil.example"})
check("no CORS header", st == 200 and not any(k.startswith("access-control") for k in h), h)
csp = h.get("content-security-policy", "")
check("a CSP of 'self' without 'unsafe-inline'", "default-src 'self'" in csp and "unsafe" not in csp, csp)
check("nosniff, no-referrer, DENY", h.get("x-content-type-options") == "nosniff" and h.get("referrer-policy") == "no-referrer"
      and h.get("x-frame-options") == "DENY", h)
st, h, _ = get("/?token=" + TOKEN)
cookie = h.get("set-cookie", "")
check("the token becomes a cookie, HttpOnly and SameSite=Strict, and leaves the address bar (303 to /)",
      st == 303 and h.get("location") == "/" and cookie.startswith("hprofan-%d=%s;" % (PORT, TOKEN)) and "HttpOnly" in cookie
      and "SameSite=Strict" in cookie, "%d %s" % (st, h))
st, _, _ = get("/api/files", headers={"Cookie": "hprofan-%d=%s" % (PORT, TOKEN)})
check("the cookie alone is a token", st == 200, st)
st, _, _ = get("/api/files", headers={"Cookie": "hprofan-%d=%s" % (PORT + 1, TOKEN)})
check("another port's cookie is not", st == 403, st)
st, h, body = get("/static/serve.js?token=" + TOKEN)
check("the page's script is a file of its own, no innerHTML", st == 200 and h["content-type"].startswith("text/javascript")
      and b"innerHTML" not in body and b"insertAdjacentHTML" not in body, st)
st, h, body = get("/?x", headers={"Cookie": "hprofan-%d=%s" % (PORT, TOKEN)})
check("the page holds no inline script or style", st == 200 and b"<script>" not in body and b"style=" not in body
      and b"<style" not in body and body.count(b"<script src=") == 2, body[:300])

def post_head(length, timeout, first=""):
    """a connection with POST /api/sql's headers sent, saying LENGTH bytes of body, and FIRST of them"""
    import socket
    sk = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    sk.sendall(("POST /api/sql?file=0&token=%s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/sql\r\n"
                "Content-Length: %d\r\n\r\n%s" % (TOKEN, HOST, length, first)).encode())
    return sk


# a body that stops arriving: the connection closed after 2 s of silence (in the background;
# 10 s unless HPROFAN_SERVE_BODY_SECONDS says less, as the server's environment does here)
slow = {}


def slow_body():
    t = time.monotonic()
    try:
        sk = post_head(100, 40, "SELECT")
        slow["got"] = sk.recv(1000)
        sk.close()
    except OSError as x:
        slow["got"] = x
    slow["after"] = time.monotonic() - t


# and one that comes a byte a second: closed once 6 s have gone by (30 s by default)
drip = {}


def drip_body():
    import select
    t = time.monotonic()
    try:
        sk = post_head(1000, 60)
        while time.monotonic() - t < 50:
            if select.select([sk], [], [], 1)[0]:
                drip["got"] = sk.recv(1000)
                break
            sk.send(b"S")
        sk.close()
    except OSError as x:
        drip["got"] = x
    drip["after"] = time.monotonic() - t


slow_th = [threading.Thread(target=slow_body), threading.Thread(target=drip_body)]
[t.start() for t in slow_th]

# ---- a bounded load test on loopback ----------------------------------------------
N, EACH = 50, 4
times, bad, lock = [], [], threading.Lock()
paths = ["/api/top?file=0&top=5", "/api/object?file=0&id=" + session, "/api/dominators?file=0&root=" + obj,
         "/api/instances?file=0&class=java.lang.String&top=3"]


def client(i):
    for k in range(EACH):
        t = time.monotonic()
        # (the first of each client's a command line of its own: run, not an answer kept)
        path = "/api/instances?file=0&class=java.lang.String&top=%d" % (i + 1) if k == 0 else paths[(i + k) % len(paths)]
        try:
            st, _, _ = get(path + "&token=" + TOKEN)
        except OSError as x:
            st = str(x)
        with lock:
            times.append(time.monotonic() - t)
            if st != 200:
                bad.append(st)


t0 = time.monotonic()
ths = [threading.Thread(target=client, args=(i,)) for i in range(N)]
[t.start() for t in ths]
[t.join(timeout=90) for t in ths]
times.sort()
check("load: %d clients at once x %d requests, all answered 200 (p95 %.0f ms, %.1f s in all)"
      % (N, EACH, 1000 * times[int(len(times) * 0.95) - 1] if times else -1, time.monotonic() - t0),
      len(times) == N * EACH and not bad, "%d answers, not 200: %s" % (len(times), bad[:10]))

# ---- Chromium ----------------------------------------------------------------------
chromium = os.environ.get("CHROMIUM", "")
if not chromium:
    skip("serve-chromium", "chromium not installed")
else:
    from cdp import Browser, CDPError
    b = Browser(chromium, os.path.join(TMPD, "chromium-profile"), loopback=True)
    before = ("window.__csp = []; document.addEventListener('securitypolicyviolation',"
              " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")
    try:
        page = b.open("http://%s/?token=%s" % (HOST, TOKEN), before=before)

        def wait(what):
            for _ in range(300):
                s = page.eval("document.body.dataset.state || ''")
                if s in ("ready", "error"):
                    if s == "error":
                        raise CDPError(what + ": " + page.eval("(document.getElementById('error')||{}).textContent"))
                    return
                time.sleep(0.05)
            raise CDPError(what + ": not ready in 15 s")

        def go(hash_, what):
            page.eval("document.body.dataset.state = 'busy'; location.hash = %s" % json.dumps(hash_))
            wait(what)

        def click(sel, what):
            page.eval("document.body.dataset.state = 'busy'; document.querySelector(%s).click()" % json.dumps(sel))
            wait(what)

        wait("overview")
        check("chromium: the page loads with the cookie, the token gone from the address",
              page.eval("location.pathname + location.search") == "/" and page.eval("document.querySelector('h1').textContent") == SAMPLE,
              page.eval("location.href"))
        go("#/top?file=0&top=400", "histogram")
        first = page.eval("[...document.querySelectorAll('main table tr td:first-child')].slice(0, 3).map(t => t.textContent)")
        check("chromium: histogram rows are top's", first == [c["class"] for c in top["classes"][:3]], first)
        click("main th.sort:nth-child(3)", "sort by shallow")
        byshallow = json.loads(cli(["top", SAMPLE, "--sort=shallow", "--top", "1"])[1])["classes"][0]["class"]
        check("chromium: a click on a column sorts by it", page.eval("document.querySelector('main table tr td').textContent") == byshallow
              and "sort=shallow" in page.eval("location.hash"), page.eval("location.hash"))
        page.eval("document.getElementById('filter').value = 'Session$'; document.getElementById('filter').dispatchEvent(new Event('change'))")
        time.sleep(0.1)
        wait("filter")
        names = page.eval("[...document.querySelectorAll('main table tr td:first-child')].map(t => t.textContent)")
        check("chromium: the filter goes to top --filter", names == ["LeakyCache$Session"], names)
        click("main table a[href*='instances']", "instances")
        n = page.eval("document.querySelectorAll('main table tr').length - 1")
        want = json.loads(cli(["instances", SAMPLE, "LeakyCache$Session", "--top", "100"])[1])
        check("chromium: a class's link opens its instances", page.eval("document.getElementById('cls').textContent") == "LeakyCache$Session"
              and n == len(want["instances"]), n)
        oid = want["instances"][0]["id"]
        click("main table a.id", "object")
        check("chromium: an instance's id opens its object page", oid in page.eval("location.hash")
              and page.eval("document.querySelector('h1').textContent").endswith("@" + oid)
              and page.eval("document.querySelectorAll('main h2').length") >= 4, page.eval("location.hash"))
        click("#paths", "paths")
        steps = page.eval("[...document.querySelector('ol.path').querySelectorAll('li a.id')].map(a => a.textContent)")
        p = json.loads(cli(["path", SAMPLE, oid, "--top", "5"])[1])["paths"][0]["steps"]
        check("chromium: its path to a GC root, each step a link", steps == ["@" + s["id"] for s in p], steps)
        def level(root=None):
            """the ids of the rows of `dominators --top 25 [--root ROOT]` (those with an id: the treemap's tiles)"""
            return [r["id"] for r in json.loads(cli(["dominators", SAMPLE, "--top", "25"] + (["--root", root] if root else []))[1])
                    ["dominators"] if r.get("id")]

        tiles = "echarts.getInstanceByDom(document.getElementById('treemap')).getOption().series[0].data.map(d => d.id)"
        crumbs = "[...document.getElementById('crumbs').querySelectorAll('a, span.here')].map(e => e.textContent)"
        go("#/dominators?file=0", "dominators")
        top1 = level()
        check("chromium: the treemap shows the first level", page.eval(tiles) == top1, (page.eval(tiles), top1))
        click(".tree li[data-level='1'] button.tw", "level 2")
        d1 = json.loads(cli(["dominators", SAMPLE, "--top", "25"])[1])["dominators"][0]["id"]
        check("chromium: a node opened, the treemap shows its children", page.eval(tiles) == level(d1), page.eval(tiles))
        click(".tree li[data-level='2'] button.tw", "level 3")
        l3 = page.eval("document.querySelectorAll(\".tree li[data-level='3']\").length")
        d2 = json.loads(cli(["dominators", SAMPLE, "--top", "25", "--root", d1])[1])["dominators"][0]["id"]
        d3 = json.loads(cli(["dominators", SAMPLE, "--top", "25", "--root", d2])[1])["dominators"]
        check("chromium: three levels of the dominator tree, opened one at a time", l3 == len(d3) and l3 > 0, (l3, len(d3)))
        check("chromium: two levels down, the treemap's tiles are the second level's children",
              page.eval(tiles) == [r["id"] for r in d3 if r.get("id")] and page.eval(tiles), page.eval(tiles))
        cr = page.eval(crumbs)
        check("chromium: ... and the breadcrumb names the way down (all roots > level 1 > level 2, then the object)",
              len(cr) == 4 and cr[0] == "all roots" and cr[1].endswith("@" + d1) and cr[2].endswith("@" + d2), cr)
        check("chromium: a treemap of the visible level", page.eval("!!document.querySelector('#treemap canvas')"))
        page.eval("[...document.querySelectorAll('#crumbs a')][1].click()")
        check("chromium: the breadcrumb goes back up a level", page.eval(tiles) == level(d1), page.eval(tiles))
        page.eval("window.__drawn = false; echarts.getInstanceByDom(document.getElementById('treemap'))"
                  ".on('finished', () => { window.__drawn = true; }); document.querySelector('#crumbs a').click()")
        check("chromium: ... and to the first", page.eval(tiles) == top1, page.eval(tiles))
        # a click on the second tile (by its layout: the series fills the box) opens it, once
        # the tiles are where their layout says (the animation over)
        for _ in range(100):
            if page.eval("window.__drawn"):
                break
            time.sleep(0.05)
        page.eval("document.getElementById('treemap').scrollIntoView()")
        at = page.eval("(() => { const box = document.getElementById('treemap'), r = box.getBoundingClientRect();"
                       " const t = echarts.getInstanceByDom(box).getModel().getSeriesByIndex(0).getData().tree;"
                       " const k = t.root.children[1], l = k.getLayout();"
                       " return [r.left + l.x + l.width / 2, r.top + l.y + l.height / 2, k.getModel().get('id')]; })()")
        page.eval("document.body.dataset.state = 'busy'")
        for ev in ("mouseMoved", "mousePressed", "mouseReleased"):
            b.send("Input.dispatchMouseEvent", {"type": ev, "x": at[0], "y": at[1], "button": "left", "clickCount": 1},
                   session=page.s)
        wait("a tile clicked")
        check("chromium: a tile clicked opens its node: the treemap shows its children", at[2] == top1[1]
              and page.eval(tiles) == level(top1[1]), (at, page.eval(tiles)))
        check("chromium: ... and the tree opened it too",
              page.eval("document.querySelectorAll(\".tree > ul > li\")[1].querySelectorAll(\"li[data-level='2']\").length")
              == len(json.loads(cli(["dominators", SAMPLE, "--top", "25", "--root", top1[1]])[1])["dominators"]))
        page.eval("document.querySelectorAll('.tree > ul > li > button.tw')[1].click()")
        check("chromium: the node closed in the tree, the treemap goes back up", page.eval(tiles) == top1, page.eval(tiles))
        go("#/sql?file=0", "sql")
        q = "SELECT class, count(*) AS n FROM objects GROUP BY class ORDER BY n DESC, class LIMIT 4"
        page.eval("document.getElementById('query').value = %s" % json.dumps(q))
        click("#run", "sql query")
        rows = page.eval("[...document.querySelectorAll('#result tr')].slice(1).map(r => [...r.children].map(c => c.textContent))")
        want = [[str(v) for v in r] for r in json.loads(cli(["sql", SAMPLE, q])[1])["rows"]]
        check("chromium: an SQL query's rows", rows == want, (rows, want))
        page.eval("document.getElementById('query').value = %s" % json.dumps(long_q))
        click("#run", "a long sql query")
        rows = page.eval("[...document.querySelectorAll('#result tr')].slice(1).map(r => [...r.children].map(c => c.textContent))")
        want = [[str(v) for v in r] for r in json.loads(cli(["sql", SAMPLE, long_q])[1])["rows"]]
        check("chromium: a query over 8 KiB runs (the console POSTs it)", rows == want and len(want) == 2, (rows, want))
        # the diff view: the sample, then its program later
        go("#/diff?file=0&file=2", "diff")
        want = json.loads(cli(["diff", SAMPLE, BIG, "--top", "0"])[1])["classes"]
        cells = "[...document.querySelectorAll('#diff-classes tr')].slice(1).map(r => [...r.children].map(c => c.textContent))"
        rows = page.eval(cells)
        sess = [r for r in rows if r[0].startswith("LeakyCache$Session")]
        w = next(c for c in want if c["class"] == "LeakyCache$Session")
        check("chromium: the diff view, a row per class of diff --top 0", len(rows) == len(want), (len(rows), len(want)))
        check("chromium: ... LeakyCache$Session's row: instances 100 -> 2,000 (+1,900)", len(sess) == 1
              and sess[0][1:5] == [w["status"], "100", "2,000", "+1,900"] and w["delta"]["instances"] == 1900, sess)
        link = page.eval("[...document.querySelectorAll('#diff-classes a')].find(a => a.textContent === 'LeakyCache$Session').getAttribute('href')")
        check("chromium: ... its name links to its instances in the new dump", link == "#/instances?file=2&class=LeakyCache%24Session", link)
        click("#diff-classes th:nth-child(5)", "diff sorted by the change of instances")
        first = page.eval(cells)[0][0]
        most = sorted(want, key=lambda c: (-c["delta"]["instances"], c["class"]))[0]["class"]
        check("chromium: a click on a diff column sorts by it (the most grown first)", first.startswith(most)
              and "sort=instances_delta" in page.eval("location.hash"), (first, most))
        click("#diff-classes th:nth-child(5)", "diff sorted the other way")
        first = page.eval(cells)[0][0]
        least = sorted(want, key=lambda c: (c["delta"]["instances"], c["class"]))[0]["class"]
        check("chromium: ... again, the other way", first.startswith(least) and "rev=1" in page.eval("location.hash"), (first, least))
        page.eval("document.body.dataset.state = 'busy'; const s = document.getElementById('diff-b'); s.value = '1';"
                  " s.dispatchEvent(new Event('change'))")
        wait("diff with another dump picked")
        n = len(json.loads(cli(["diff", SAMPLE, HOSTILE, "--top", "0"])[1])["classes"])
        check("chromium: another dump picked, its diff", "file=0&file=1" in page.eval("location.hash")
              and len(page.eval(cells)) == n, (page.eval("location.hash"), n))
        go("#/top?file=1&top=0", "hostile histogram")
        cells = page.eval("[...document.querySelectorAll('main table td')].map(t => t.textContent)")
        check("chromium: a hostile class name is shown as text", "<img src=x onerror=window.__xss=1>" in cells, cells[:10])
        check("chromium: ... and nothing of it runs or becomes markup",
              page.eval("window.__xss === undefined && document.querySelectorAll('main img').length === 0"))
        shown = []
        for v in ["leaks?file=0", "threads?file=0", "sites?file=0", "waste?file=0", "diff?file=0&file=1", "overview?file=1"]:
            go("#/" + v, v)
            shown.append(page.eval("document.querySelectorAll('main table').length"))
        check("chromium: leaks, threads, sites, waste, a diff and a second dump's overview as tables", all(shown), shown)
        b.send("Emulation.setDeviceMetricsOverride", {"width": 1100, "height": 720, "deviceScaleFactor": 1,
                                                        "mobile": False}, session=page.s)
        go("#/dominators?file=0", "dominators again")
        click(".tree li[data-level='1'] button.tw", "dominators again, a level down")
        time.sleep(1.0)   # (the treemap's animation)
        shot = base64.b64decode(b.send("Page.captureScreenshot", {"format": "png"}, session=page.s)["data"])
        open(os.path.join(TMPD, "serve.png"), "wb").write(shot)
        n = colours(shot, 50)
        check("chromium: a screenshot is not blank (%d colours)" % n, n >= 50, n)
        csp = page.eval("window.__csp")
        check("chromium: no Content-Security-Policy violation", csp == [], csp)
    except CDPError as x:
        fail("serve-chromium", x)
    finally:
        b.close()

[t.join(timeout=60) for t in slow_th]
check("POST /api/sql: a body that stops half-way is dropped after its 2 s pause (%.1f s)" % slow.get("after", -1),
      slow.get("got") in (b"",) or isinstance(slow.get("got"), (ConnectionResetError, BrokenPipeError)), slow)
check("... not before", 1.8 <= slow.get("after", 0) < 8, slow)
check("POST /api/sql: a body that comes a byte a second is dropped once its 6 s have gone by (%.1f s)" % drip.get("after", -1),
      (drip.get("got") == b"" or isinstance(drip.get("got"), (ConnectionResetError, BrokenPipeError))) and 5.8 <= drip.get("after", 0) < 12, drip)

# ---- the rate limit (last: the client's bucket is empty after it) ---------------------
sent, limited, t0 = [0], [0], time.monotonic()


def flood():
    while not limited[0] and time.monotonic() - t0 < 20 and sent[0] < 20000:
        st, _, _ = get("/static/serve.css?token=" + TOKEN)
        with lock:
            sent[0] += 1
            if st == 429:
                limited[0] = sent[0]


fl = [threading.Thread(target=flood) for _ in range(8)]
[t.start() for t in fl]
[t.join() for t in fl]
check("rate: a client over 200 requests a second is refused (429) once its 600 are spent",
      limited[0] > 600, "429 after %d requests in %.1f s" % (limited[0], time.monotonic() - t0))

def stop(proc, guard):
    """SIGTERM, then its exit status (or how it was killed after 30 s)"""
    proc.send_signal(signal.SIGTERM)
    try:
        rc = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "killed after 30 s"
    guard.cancel()
    return rc


# ---- another server: IPv6 loopback, --open, --max-memory ------------------------------
fake = os.path.join(TMPD, "bin")
os.makedirs(fake, exist_ok=True)
with open(os.path.join(fake, "xdg-open"), "w") as f:
    f.write("#!/bin/sh\nprintf '%%s\\n' \"$1\" >%s/opened.txt\n" % TMPD)
os.chmod(os.path.join(fake, "xdg-open"), 0o755)
env = dict(os.environ, PATH=fake + ":" + os.environ["PATH"])
s6 = subprocess.Popen([HPROFAN, "serve", SAMPLE, "--bind", "::1", "--open", "--workers", "1", "--quiet"],
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
t6 = threading.Timer(60, s6.kill)
t6.start()
url6 = s6.stdout.readline().decode().strip()
m6 = re.fullmatch(r"http://\[::1\]:(\d+)/\?token=([0-9a-f]{32})", url6)
if not m6:
    fail("serve --bind ::1: the URL names [::1]", repr(url6))
else:
    ok("serve --bind ::1: the URL names [::1]")
    try:
        c = http.client.HTTPConnection("::1", int(m6.group(1)), timeout=30)
        c.request("GET", "/api/files?token=" + m6.group(2), headers={"Host": "[::1]:" + m6.group(1)})
        r = c.getresponse()
        check("serve --bind ::1: answers over IPv6", r.status == 200 and json.loads(r.read())["files"][0]["name"] == SAMPLE, r.status)
        c.close()
    except OSError as x:
        fail("serve --bind ::1: answers over IPv6", x)
    if chromium:   # one dump served: the diff view says it needs two
        b6 = Browser(chromium, os.path.join(TMPD, "chromium-profile-6"), loopback=True)
        try:
            p6 = b6.open("http://[::1]:%s/?token=%s#/diff" % (m6.group(1), m6.group(2)))
            for _ in range(300):
                if p6.eval("document.body.dataset.state || ''") in ("ready", "error"):
                    break
                time.sleep(0.05)
            note = p6.eval("(document.getElementById('diff-note') || {}).textContent || ''")
            check("chromium: one dump served, the diff view says a diff needs two", "needs two dumps" in note
                  and p6.eval("document.querySelectorAll('#diff-classes').length") == 0, note)
        except CDPError as x:
            fail("chromium: one dump served, the diff view says a diff needs two", x)
        finally:
            b6.close()
    for _ in range(50):
        if os.path.exists(os.path.join(TMPD, "opened.txt")):
            break
        time.sleep(0.1)
    opened = open(os.path.join(TMPD, "opened.txt")).read().strip() if os.path.exists(os.path.join(TMPD, "opened.txt")) else ""
    check("serve --open: xdg-open gets the URL", opened == url6, (opened, url6))
rc6 = stop(s6, t6)
e6 = s6.stderr.read().decode()
check("serve --bind ::1: SIGTERM ends it (exit 0, nothing from the sanitizers)", rc6 == 0 and "Sanitizer" not in e6, (rc6, e6[-500:]))
check("serve --bind ::1: loopback, no warning", "warning" not in e6, e6[-300:])


def bound(addr, hosts=()):
    """serve --bind ADDR --port 0 on the sample: its URL line and its standard error so far, then a
    request to 127.0.0.1 (only: the address is loopback's or all of them), and one for each
    (address, Host name) in hosts (loopback addresses), then SIGTERM"""
    errf = open(os.path.join(TMPD, "bind.err"), "w+")
    sb = subprocess.Popen([HPROFAN, "serve", SAMPLE, "--bind", addr, "--port", "0", "--workers", "1", "--quiet"],
                          stdout=subprocess.PIPE, stderr=errf, stdin=subprocess.DEVNULL)
    tb = threading.Timer(60, sb.kill)
    tb.start()
    url = sb.stdout.readline().decode().strip()
    errf.seek(0)
    said = errf.read()
    st = None
    mb = re.fullmatch(r"http://[^/]*:(\d+)/\?token=([0-9a-f]{32})", url)
    if mb:
        try:
            c = http.client.HTTPConnection("127.0.0.1" if addr != "127.0.0.2" else addr, int(mb.group(1)), timeout=30)
            c.request("GET", "/api/files?token=" + mb.group(2), headers={"Host": "127.0.0.1:" + mb.group(1)})
            st = c.getresponse().status
            c.close()
            for a, h in hosts:
                c = http.client.HTTPConnection(a, int(mb.group(1)), timeout=30)
                c.request("GET", "/api/files?token=" + mb.group(2), headers={"Host": h + ":" + mb.group(1)})
                st = (st, c.getresponse().status) if not isinstance(st, tuple) else st + (c.getresponse().status,)
                c.close()
        except OSError as x:
            st = str(x)
    rc = stop(sb, tb)
    errf.seek(0)
    return url, said, st, rc, errf.read()


url, said, st, rc, e = bound("0.0.0.0", [("127.0.0.2", "127.0.0.2"), ("127.0.0.2", "rebound.example"),
                                         ("127.0.0.2", "127.0.0.3")])
check("serve --bind 0.0.0.0: a warning that it is not loopback, before the URL line (even with --quiet)",
      "hprofan: warning: serve: listening on 0.0.0.0, not loopback" in said and said.count("\n") == 1, said)
check("serve --bind 0.0.0.0: the URL names 0.0.0.0, and 127.0.0.1 is answered", url.startswith("http://0.0.0.0:")
      and isinstance(st, tuple) and st[0] == 200, (url, st))
# (a machine bound to all its addresses is reached by one of them: the one
# a connection came to is a Host it answers; a name is not, nor another address)
check("serve --bind 0.0.0.0: Host naming the address the connection came to is answered; a name or another address is not",
      isinstance(st, tuple) and st[1:] == (200, 421, 421), st)
check("serve --bind 0.0.0.0: SIGTERM ends it (exit 0)", rc == 0 and "Sanitizer" not in e, (rc, e[-300:]))
url, said, st, rc, e = bound("127.0.0.2")
check("serve --bind 127.0.0.2: loopback (127/8), no warning, answered", url.startswith("http://127.0.0.2:") and said == ""
      and "warning" not in e and st == 200 and rc == 0, (url, said, st, rc, e[-300:]))
p = subprocess.run([HPROFAN, "serve", SAMPLE, "--max-memory", "64K", "--quiet"], capture_output=True, timeout=60)
check("serve --max-memory 64K: refused before serving (exit 4, no URL)", p.returncode == 4 and not p.stdout
      and b"max-memory" in p.stderr, (p.returncode, p.stdout[:100], p.stderr[-300:]))
p = subprocess.run([HPROFAN, "serve", SAMPLE, "--bind", "localhost"], capture_output=True, timeout=60)
check("serve --bind NAME: an address is wanted (exit 2)", p.returncode == 2 and b"not an IPv4 or IPv6 address" in p.stderr, p.stderr)

# ---- the end --------------------------------------------------------------------
rc = stop(srv, timer)
err.seek(0)
e = err.read()
check("SIGTERM ends it cleanly (exit 0, nothing from the sanitizers)", rc == 0 and "Sanitizer" not in e and "ERROR" not in e,
      "%s: %s" % (rc, e[-1500:]))
