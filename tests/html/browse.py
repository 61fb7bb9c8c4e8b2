#!/usr/bin/env python3
"""One headless Chromium for all of tests/html/render.sh's pages, driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: NUL-terminated JSON on the browser's fds 3 and 4, no network, standard library only).
A browser start cost more than the page it rendered: 18 starts were most of the test's time.

  browse.py CHROMIUM PROFILE_DIR     reads requests on stdin, one a line, fields separated by tabs:
    dom URL OUT LOG          the DOM after the load event (as chromium --dump-dom prints it) into OUT
    pdf URL OUT LOG          the page printed (print media, Letter, no header or footer, as --print-to-pdf) into OUT
    png URL OUT LOG W H      a screenshot of a W x H viewport (as --screenshot --window-size=W,H) into OUT
  and answers each with one line, "ok" or "error: why". Each page opens in a tab of its own, closed after it.
  LOG gets a line "CONSOLE: level: text" for each console message, "Uncaught: text" for each uncaught exception
  and "CONSOLE: level: text (source)" for each message of the browser's own (a blocked load, a CSP violation):
  what chromium --enable-logging=stderr printed as CONSOLE lines, every level, which render.sh looks for.
"""
import base64
import json
import os
import select
import subprocess
import sys
import time

TIMEOUT = 60  # seconds a request may take, as render.sh's `timeout 60` for each browser it started


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, chromium, profile):
        to_browser, self.commands = os.pipe()
        self.replies, from_browser = os.pipe()
        # The browser reads fd 3 and writes fd 4; the pipe ends are moved above them first so that the dup2 of
        # one cannot close the other.
        low = [os.dup2(to_browser, 100), os.dup2(from_browser, 101)]
        os.close(to_browser)
        os.close(from_browser)

        def fds():
            os.dup2(100, 3)
            os.dup2(101, 4)

        self.proc = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--user-data-dir=" + profile, "--remote-debugging-pipe", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, preexec_fn=fds, pass_fds=(3, 4))
        for fd in low:
            os.close(fd)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        return self.next_id

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from the browser in %d s" % TIMEOUT)
            ready, _, _ = select.select([self.replies], [], [], left)
            if ready:
                chunk = os.read(self.replies, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser exited (status %s)" % self.proc.poll())
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, deadline, method, params=None, session=None):
        wanted = self.send(method, params, session)
        while True:
            message = self.receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError("%s: %s" % (method, message["error"].get("message")))
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_event(self, deadline, method, session):
        for i, event in enumerate(self.events):
            if event["method"] == method and event.get("sessionId") == session:
                del self.events[i]
                return event
        while True:
            message = self.receive(deadline)
            if message.get("method") == method and message.get("sessionId") == session:
                return message
            if "method" in message:
                self.events.append(message)

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def console_lines(events, session):
    """What the page said on its console, one line each, in render.sh's words."""
    lines = []
    for event in events:
        if event.get("sessionId") != session:
            continue
        params = event["params"]
        if event["method"] == "Runtime.consoleAPICalled":
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params["args"])
            lines.append("CONSOLE: %s: %s" % (params["type"], text))
        elif event["method"] == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "")
            lines.append("Uncaught: %s (line %s)" % (text, details.get("lineNumber")))
        elif event["method"] == "Log.entryAdded":
            entry = params["entry"]
            lines.append("CONSOLE: %s: %s (%s)" % (entry["level"], entry["text"], entry["source"]))
    return lines


# the DOM as chromium --dump-dom prints it: the doctype, then the document element
DUMP_DOM = ("(document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '') + "
            "document.documentElement.outerHTML")


def page(browser, kind, url, out, log, width=None, height=None):
    deadline = time.monotonic() + TIMEOUT
    target = browser.call(deadline, "Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.call(deadline, "Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    try:
        for domain in ("Page", "Runtime", "Log"):
            browser.call(deadline, domain + ".enable", session=session)
        if kind == "png":
            browser.call(deadline, "Emulation.setDeviceMetricsOverride",
                         {"width": int(width), "height": int(height), "deviceScaleFactor": 1, "mobile": False},
                         session)
        browser.call(deadline, "Page.navigate", {"url": url}, session)
        browser.wait_event(deadline, "Page.loadEventFired", session)
        if kind == "dom":
            result = browser.call(deadline, "Runtime.evaluate", {"expression": DUMP_DOM, "returnByValue": True},
                                  session)
            data = (result["result"]["value"] + "\n").encode()
        elif kind == "pdf":
            # --print-to-pdf's settings: backgrounds printed, the page's own @page size, else the protocol's
            # default paper, US Letter, as --print-to-pdf printed it (612 x 792 pt)
            data = base64.b64decode(browser.call(deadline, "Page.printToPDF", {
                "displayHeaderFooter": False, "printBackground": True, "preferCSSPageSize": True}, session)["data"])
        else:
            data = base64.b64decode(browser.call(deadline, "Page.captureScreenshot", {"format": "png"},
                                                 session)["data"])
        with open(out, "wb") as f:
            f.write(data)
    finally:
        with open(log, "w") as f:
            f.writelines(line + "\n" for line in console_lines(browser.events, session))
        browser.events = [e for e in browser.events if e.get("sessionId") != session]
        browser.call(time.monotonic() + TIMEOUT, "Target.closeTarget", {"targetId": target})


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: browse.py CHROMIUM PROFILE_DIR  (requests on stdin)")
    browser = Browser(sys.argv[1], sys.argv[2])
    try:
        for line in sys.stdin:
            fields = line.rstrip("\n").split("\t")
            try:
                if fields[0] not in ("dom", "pdf", "png") or len(fields) != (6 if fields[0] == "png" else 4):
                    raise BrowserError("bad request: %r" % line)
                page(browser, *fields)
                reply = "ok"
            except (BrowserError, OSError, KeyError, ValueError) as e:
                reply = "error: %s" % str(e).replace("\n", " ")
            print(reply, flush=True)
    finally:
        browser.close()


if __name__ == "__main__":
    main()
