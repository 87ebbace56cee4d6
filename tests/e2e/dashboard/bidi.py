"""Debian's Firefox (`firefox-esr`) driven over WebDriver BiDi, for the dashboard's Firefox test.

Why not Playwright: its own Firefox build cannot be downloaded here, and its driver for a stock
Firefox (channel `moz-firefox`, over BiDi) sends `emulation.setMediaFeaturesOverride` when it
opens any context, a command Firefox ESR 153 does not have ("unknown command"): no page can
be opened. This speaks the few BiDi commands the test needs, over aiohttp's websocket.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import aiohttp

FIREFOX = "/usr/bin/firefox-esr"
_LISTENING = re.compile(r"WebDriver BiDi listening on (ws://\S+)")
# No first-run pages, updates, telemetry or background connections in the test's profile.
PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "extensions.update.enabled": False,
}


class BidiError(RuntimeError):
    """A BiDi command failed, or Firefox did not start."""


class Firefox:
    """One headless Firefox with a fresh profile and a BiDi session on its first tab.

    Attributes:
        context: the tab's browsing-context id.
        log: `log.entryAdded` events (console messages and script errors) seen so far.
    """

    def __init__(self, *, executable: str = FIREFOX) -> None:
        self._executable = executable
        self._profile = Path(tempfile.mkdtemp(prefix="bidi-firefox-"))
        self._proc: asyncio.subprocess.Process | None = None
        self._http: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._ids = 0
        self.context = ""
        self.log: list[dict[str, Any]] = []

    async def start(self) -> Firefox:
        """Launch Firefox (port 0: it picks one and says which), open the session."""
        prefs = "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in PREFS.items())
        (self._profile / "user.js").write_text(prefs)
        self._proc = await asyncio.create_subprocess_exec(
            self._executable, "--headless", "--no-remote", "--profile", str(self._profile),
            "--remote-debugging-port", "0", "about:blank",
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        url = await self._endpoint()
        self._http = aiohttp.ClientSession()
        self._ws = await self._http.ws_connect(f"{url}/session", max_msg_size=0)
        await self.send("session.new", {"capabilities": {}})
        tree = await self.send("browsingContext.getTree", {})
        self.context = tree["contexts"][0]["context"]
        await self.send("session.subscribe", {"events": ["log.entryAdded"]})
        return self

    async def _endpoint(self) -> str:
        assert self._proc is not None and self._proc.stderr is not None
        seen: list[str] = []
        async with asyncio.timeout(60):
            while line := (await self._proc.stderr.readline()).decode():
                seen.append(line.strip())
                match = _LISTENING.search(line)
                if match:
                    # Keep draining stderr, or a chatty Firefox would block on a full pipe.
                    asyncio.get_running_loop().create_task(self._drain())
                    return match.group(1)
        raise BidiError("Firefox exited before its BiDi server listened: " + " | ".join(seen))

    async def _drain(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        while await self._proc.stderr.readline():
            pass

    async def send(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """One command; its result (events that arrive meanwhile go to `log`)."""
        assert self._ws is not None
        self._ids += 1
        mine = self._ids
        await self._ws.send_json({"id": mine, "method": method, "params": params})
        while True:
            frame = await self._ws.receive(timeout=60)
            if frame.type != aiohttp.WSMsgType.TEXT:
                raise BidiError(f"{method}: the BiDi connection closed ({frame.type})")
            message = json.loads(frame.data)
            if message.get("id") == mine:
                if message.get("type") == "error":
                    raise BidiError(f"{method}: {message.get('error')}: {message.get('message')}")
                result: dict[str, Any] = message["result"]
                return result
            if message.get("method") == "log.entryAdded":
                self.log.append(message["params"])

    async def goto(self, url: str) -> None:
        """Navigate the tab and wait for the page's load event."""
        params = {"context": self.context, "url": url, "wait": "complete"}
        await self.send("browsingContext.navigate", params)

    async def evaluate(self, expression: str) -> Any:
        """The value of a script in the page (awaited if it is a promise), as plain JSON."""
        params = {"expression": expression, "target": {"context": self.context},
                  "awaitPromise": True, "resultOwnership": "none"}  # fmt: skip
        answer = await self.send("script.evaluate", params)
        if answer.get("type") == "exception":
            details = answer.get("exceptionDetails", {})
            raise BidiError(f"script failed: {details.get('text')}")
        return _plain(answer["result"])

    async def press(self, key: str) -> None:
        """Press and release one key (a WebDriver key code, e.g. "\\ue00c" for Escape)."""
        actions = [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]
        params = {"context": self.context, "actions": [{"type": "key", "id": "keyboard",
                                                        "actions": actions}]}  # fmt: skip
        await self.send("input.performActions", params)

    async def screenshot(self, path: Path) -> Path:
        """Save the tab's viewport as a PNG."""
        shot = await self.send("browsingContext.captureScreenshot", {"context": self.context})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def errors(self) -> list[str]:
        """Script errors and `console.error` messages seen so far."""
        return [str(e.get("text")) for e in self.log if e.get("level") == "error"]

    async def close(self) -> None:
        """End the session and Firefox; remove the profile."""
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.send("session.end", {}), 5)
            await self._ws.close()
        if self._http is not None:
            await self._http.close()
        if self._proc is not None and self._proc.returncode is None:
            self._proc.kill()
            await self._proc.wait()
        shutil.rmtree(self._profile, ignore_errors=True)


def _plain(value: dict[str, Any]) -> Any:
    """A BiDi remote value as Python (primitives, arrays and plain objects)."""
    kind = value.get("type")
    if kind in ("undefined", "null"):
        return None
    if kind in ("string", "boolean"):
        return value["value"]
    if kind == "number":
        number = value["value"]
        return float("nan") if number == "NaN" else number
    if kind == "array":
        return [_plain(v) for v in value.get("value", [])]
    if kind == "object":
        return {k: _plain(v) for k, v in value.get("value", [])}
    return f"<{kind}>"
