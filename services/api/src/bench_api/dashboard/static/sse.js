// Server-sent events read with fetch (EventSource cannot send the Authorization header).
// Reconnects on its own and sends Last-Event-ID, so the server resumes exactly after the last
// event this page received: nothing is missed, nothing is repeated.

import { auth } from "./api.js";

const STALL_MS = 45_000; // the server sends a keepalive every 15 s
const MAX_BACKOFF_MS = 30_000;

export class LiveStream {
  // onEvent(name, data, id); onState("connecting" | "live" | "offline", detail)
  constructor(url, { onEvent, onState = () => {}, onFatal = () => {} }) {
    this.url = url;
    this.onEvent = onEvent;
    this.onState = onState;
    this.onFatal = onFatal;
    this.lastEventId = null;
    this.retryMs = 2000;
    this.failures = 0;
    this.connections = 0;
    this.received = 0;
    this.stopped = false;
    this.controller = null;
  }

  start() {
    this.stopped = false;
    this.loop();
    return this;
  }

  stop() {
    this.stopped = true;
    if (this.controller) this.controller.abort();
  }

  // Drop the connection now and reconnect (used by tests and after the network returns).
  reconnect() {
    if (this.controller) this.controller.abort();
  }

  async loop() {
    while (!this.stopped) {
      const outcome = await this.connectOnce();
      if (this.stopped || outcome === "fatal") return;
      this.onState("connecting", "reconnecting");
      const backoff = Math.min(MAX_BACKOFF_MS, this.retryMs * 2 ** Math.min(this.failures, 4));
      await new Promise((resolve) => setTimeout(resolve, backoff * (0.8 + Math.random() * 0.4)));
    }
  }

  async connectOnce() {
    const token = auth.get();
    if (!token) {
      this.onFatal(401, "no token");
      return "fatal";
    }
    const controller = new AbortController();
    this.controller = controller;
    const headers = { Authorization: `Bearer ${token}`, Accept: "text/event-stream" };
    if (this.lastEventId !== null) headers["Last-Event-ID"] = this.lastEventId;
    let watchdog = null;
    const arm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => controller.abort(), STALL_MS);
    };
    this.onState("connecting", this.connections ? "reconnecting" : "connecting");
    try {
      arm();
      const response = await fetch(this.url, { headers, signal: controller.signal, cache: "no-store" });
      if (response.status === 401) {
        auth.refused();
        this.onFatal(401, "unauthorized");
        return "fatal";
      }
      if (response.status === 404 || response.status === 400) {
        let message = `HTTP ${response.status}`;
        try {
          message = (await response.json()).error || message;
        } catch {
          /* keep the status */
        }
        this.onFatal(response.status, message);
        return "fatal";
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      this.connections += 1;
      this.onState("live", "");
      await this.read(response.body, arm);
      this.failures = 0;
      return "ended";
    } catch (err) {
      this.failures += 1;
      return "failed";
    } finally {
      clearTimeout(watchdog);
    }
  }

  async read(body, arm) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let event = "";
    let data = [];
    let id = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      arm();
      buffer += value;
      let start = 0;
      for (;;) {
        const newline = buffer.indexOf("\n", start);
        if (newline < 0) break;
        let line = buffer.slice(start, newline);
        start = newline + 1;
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if (line === "") {
          if (id !== null) this.lastEventId = id;
          if (data.length) {
            this.received += 1;
            this.dispatch(event || "message", data.join("\n"), this.lastEventId);
          }
          event = "";
          data = [];
          id = null;
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let text = colon < 0 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "event") event = text;
        else if (field === "data") data.push(text);
        else if (field === "id" && !text.includes("\0")) id = text;
        else if (field === "retry" && /^\d+$/.test(text)) this.retryMs = Number(text);
      }
      buffer = buffer.slice(start);
    }
  }

  dispatch(name, text, id) {
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    try {
      this.onEvent(name, parsed, id);
    } catch (err) {
      console.error("live event handler failed", name, err);
    }
  }
}
