"""cdp.py — headless Chromium driven through the DevTools protocol over a
pipe (--remote-debugging-pipe: commands on the browser's fd 3, answers and
events on its fd 4, each message JSON ended by a NUL), with the standard
library only: no websocket module, no port to find or to leave open.

    b = Browser(chromium, profile_dir)      # launches; network off
    b = Browser(chromium, profile_dir, loopback=True)   # 127.0.0.1 reachable (hprofan serve)
    page = b.open("file:///tmp/r.html", before="window.x = 1")
    page.eval("document.title")             # value, or raises on an exception
    b.close()

`before` runs in every document before the page's own scripts (DevTools
scripts are not subject to the page's Content-Security-Policy).
"""
import fcntl
import json
import os
import select
import subprocess
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         # no network: every request goes to a proxy nobody listens on
         "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
         "--remote-debugging-pipe", "about:blank"]


class CDPError(Exception):
    pass


class Browser:
    def __init__(self, chromium, profile, timeout=30, loopback=False):
        self.timeout = timeout
        self.next_id = 0
        self.events = []
        self.buf = b""
        cmd_r, cmd_w = os.pipe()
        ans_r, ans_w = os.pipe()
        # above the numbers the child gets, so that dup2() never lands on itself
        cr = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10)
        aw = fcntl.fcntl(ans_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(cmd_r)
        os.close(ans_w)

        def child():
            os.dup2(cr, 3)
            os.dup2(aw, 4)
        # loopback: the proxy's implicit bypass of loopback kept, all else still dead
        flags = [f for f in FLAGS if not (loopback and f.startswith("--proxy-bypass-list"))]
        self.proc = subprocess.Popen([chromium, "--user-data-dir=" + profile] + flags, preexec_fn=child,
                                     close_fds=False, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(cr)
        os.close(aw)
        self.w, self.r = cmd_w, ans_r

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("no answer from chromium in %d s" % self.timeout)
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 16)
                if not chunk:
                    raise CDPError("chromium closed the pipe (exit %s)" % self.proc.poll())
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.w, json.dumps(m).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            a = self._read(deadline)
            if a.get("id") == self.next_id:
                if "error" in a:
                    raise CDPError("%s: %s" % (method, a["error"]))
                return a.get("result", {})
            self.events.append(a)

    def wait_event(self, method, session=None, timeout=None):
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method and (session is None or e.get("sessionId") == session):
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def open(self, url, before=None):
        t = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = self.send("Target.attachToTarget", {"targetId": t, "flatten": True})["sessionId"]
        page = Page(self, s)
        self.send("Page.enable", session=s)
        if before:
            self.send("Page.addScriptToEvaluateOnNewDocument", {"source": before}, session=s)
        self.send("Page.navigate", {"url": url}, session=s)
        self.wait_event("Page.loadEventFired", session=s)
        return page

    def close(self):
        try:
            self.send("Browser.close")
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.w)
        os.close(self.r)


class Page:
    def __init__(self, browser, session):
        self.b, self.s = browser, session

    def eval(self, expr):
        """the value of expr (a promise is awaited); CDPError on an exception"""
        r = self.b.send("Runtime.evaluate", {"expression": expr, "awaitPromise": True, "returnByValue": True},
                        session=self.s)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise CDPError("page: " + (d.get("exception", {}).get("description") or d.get("text", "?")))
        return r["result"].get("value")
