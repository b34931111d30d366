#!/usr/bin/env python3
"""serve_load.py — latency of `hprofan serve`'s API under concurrent clients,
measured from outside, on loopback only.

    bench/serve_load.py path/to/hprofan DUMP [CLIENTS [REQUESTS]]

Starts `hprofan serve DUMP --port 0 --quiet` (the dump's index makes the
start quick: the model is mapped, the retained sizes and paths read or made
once), times how long until its URL line, picks the ids the requests need
from its own API (the largest top-level dominator, an instance of the
largest class).  Then: each call of a fixed mix once, one at a time (top
--top 20, dominators --top 20, dominators --root ID, object ID, instances
CLASS --top 20, path ID --top 1, roots: the time a worker takes to run it);
CLIENTS threads (default 50) at once, each with a command line of its own
(instances CLASS --top 1000+i: nothing kept, every one run); then CLIENTS
threads each sending REQUESTS requests (default 10) over the mix, whose
answers the server keeps.  Each request's wall time is its latency (connect
to last byte).  Prints a line per call (count, median, p95, max), the overall line

    serve: p95 X ms, median Y ms, max Z ms over N requests by C clients (target p95 <= 200 ms)

and the memory: the server's and its workers' proportional set size (PSS,
/proc/PID/smaps_rollup: shared pages counted once over the processes) and
their RSS summed (shared pages counted in each), after the load.  Ends the
server with SIGTERM.  Everything is bounded: a request times out after 60 s,
the whole run after 15 minutes."""
import http.client, json, os, signal, subprocess, sys, threading, time
from urllib.parse import quote

BIN, DUMP = sys.argv[1], sys.argv[2]
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 50
EACH = int(sys.argv[4]) if len(sys.argv) > 4 else 10

t0 = time.monotonic()
srv = subprocess.Popen([BIN, "serve", DUMP, "--port", "0", "--quiet"], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
guard = threading.Timer(900, srv.kill)
guard.start()
line = srv.stdout.readline().decode().strip()
if not line.startswith("http://127.0.0.1:"):
    print("serve: no URL line (%r)" % line)
    srv.kill()
    sys.exit(1)
start = time.monotonic() - t0
port = int(line.split(":")[2].split("/")[0])
token = line.split("token=")[1]


def get(path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", path + ("&" if "?" in path else "?") + "token=" + token)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body


_, b = get("/api/dominators?file=0&top=1")
dom = json.loads(b)["dominators"][0]["id"]
_, b = get("/api/top?file=0&top=1")
cls = json.loads(b)["classes"][0]["class"]
_, b = get("/api/instances?file=0&top=1&class=" + quote(cls))
inst = json.loads(b)["instances"][0]["id"]
mix = [("top", "/api/top?file=0&top=20"), ("dominators", "/api/dominators?file=0&top=20"),
       ("dominators --root", "/api/dominators?file=0&top=20&root=" + dom), ("object", "/api/object?file=0&id=" + inst),
       ("instances", "/api/instances?file=0&top=20&class=" + quote(cls)), ("path", "/api/path?file=0&top=1&id=" + inst),
       ("roots", "/api/roots?file=0")]
lat, bad, lock = {}, [], threading.Lock()


def client(i):
    for k in range(EACH):
        name, path = mix[(i + k) % len(mix)]
        t = time.monotonic()
        try:
            st, _ = get(path)
        except OSError as x:
            st = str(x)
        with lock:
            lat.setdefault(name, []).append(time.monotonic() - t)
            if st != 200:
                bad.append((name, st))


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] * 1000


print("serve: started in %.2f s (URL line) on %s" % (start, DUMP))
# the first run of each call, one at a time: the CLI's code path in a worker
for name, path in mix:
    t = time.monotonic()
    get(path)
    print("serve: first %-18s %7.0f ms (run in a worker, one at a time)" % (name, (time.monotonic() - t) * 1000))
# every client a command line of its own at once: none kept
cold, cbad = [], []


def distinct(i):
    t = time.monotonic()
    st, _ = get("/api/instances?file=0&class=%s&top=%d" % (quote(cls), 1000 + i))
    with lock:
        cold.append(time.monotonic() - t)
        if st != 200:
            cbad.append(st)


ths = [threading.Thread(target=distinct, args=(i,)) for i in range(CLIENTS)]
[t.start() for t in ths]
[t.join() for t in ths]
print("serve: %d clients at once, each its own command line (instances --top N, nothing kept): p95 %.0f ms, median %.0f ms, max %.0f ms%s"
      % (CLIENTS, pct(cold, 0.95), pct(cold, 0.5), max(cold) * 1000, " (%d not 200)" % len(cbad) if cbad else ""))
# the mix, again and again: the answers kept
t1 = time.monotonic()
ths = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
[t.start() for t in ths]
[t.join() for t in ths]
wall = time.monotonic() - t1
print("%-18s %6s %9s %9s %9s" % ("call", "count", "median", "p95", "max"))
for name, _ in mix:
    v = lat.get(name, [])
    if v:
        print("%-18s %6d %7.0f ms %6.0f ms %6.0f ms" % (name, len(v), pct(v, 0.5), pct(v, 0.95), max(v) * 1000))
every = [x for v in lat.values() for x in v]
print("serve: p95 %.0f ms, median %.0f ms, max %.0f ms over %d requests by %d clients in %.1f s, the mix's answers kept (target p95 <= 200 ms)"
      % (pct(every, 0.95), pct(every, 0.5), max(every) * 1000, len(every), CLIENTS, wall))
if bad:
    print("serve: %d requests not answered 200: %s" % (len(bad), bad[:5]))


def procs(pid):
    """pid and its descendants (the zygote, the workers it forked)"""
    out = [pid]
    task = "/proc/%d/task" % pid
    try:
        for t in os.listdir(task):
            for c in open("%s/%s/children" % (task, t)).read().split():
                out += procs(int(c))
    except OSError:
        pass
    return out


pss = rss = 0
for p in procs(srv.pid):
    try:
        for ln in open("/proc/%d/smaps_rollup" % p):
            if ln.startswith("Pss:"):
                pss += int(ln.split()[1])
            elif ln.startswith("Rss:"):
                rss += int(ln.split()[1])
    except OSError:
        pass
print("serve: memory after the load: PSS %.0f MiB over the server, its zygote and its workers (%d processes; RSS summed %.0f MiB)"
      % (pss / 1024, len(procs(srv.pid)), rss / 1024))
srv.send_signal(signal.SIGTERM)
try:
    srv.wait(timeout=60)
except subprocess.TimeoutExpired:
    srv.kill()
guard.cancel()
sys.exit(1 if bad else 0)
