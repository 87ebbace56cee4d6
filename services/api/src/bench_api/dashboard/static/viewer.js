// One run: header (status, progress, config, actions, artifacts), the request viewer fed by
// GET /runs/{id}/events (every attempt as it starts, responses growing token by token,
// latency and reliability cards) and, for GPQA, the analytics charts.

import { renderAnalytics } from "./analytics.js";
import { ApiError, api, openArtifact } from "./api.js";
import { AttemptBook } from "./attempts.js";
import { $, ACTIVE, FINAL, clear, fmt, h, throttle, toast } from "./dom.js";
import { copyLink, durationOf, failureBlock, progressBlock, rowActions, statusBadge } from "./runs.js";
import { LiveStream } from "./sse.js";

const PAGE_SIZE = 50;
const LIVE_EVENTS = new Set(["request_attempt_progressed"]);
const CONFIG_KEYS = [
  ["benchmark", "Benchmark"], ["model", "Model"], ["baseUrl", "Base URL"], ["epochs", "Epochs"],
  ["concurrency", "Concurrency"], ["unordered", "Unordered"], ["limit", "Limit"], ["start", "Range start"],
  ["end", "Range end"], ["maxRetries", "Max retries"], ["temperature", "Temperature"], ["maxTokens", "Max tokens"],
  ["reasoningEffort", "Reasoning effort"], ["timeoutMs", "Connection timeout (ms)"],
  ["completionTimeoutMs", "Full-response timeout (ms)"], ["endpointId", "Endpoint id"], ["costTier", "Cost tier"],
  ["sort", "Provider sort"], ["providerOnly", "Providers"], ["allowFallbacks", "Fallbacks"],
  ["cloudflareVersion", "Cloudflare version"], ["costQualityTradeoff", "Cost-quality"], ["pinModel", "Pin model"],
  ["judgeModel", "Judge model"], ["triggeredByEmail", "Triggered by"],
];

export class RunDetail {
  constructor({ actions, onLiveState }) {
    this.actions = actions;
    this.onLiveState = onLiveState;
    this.section = $("run-view");
    this.stream = null;
    this.render = throttle(() => this.draw(), 250);
    setInterval(() => {
      if (this.run && ACTIVE.has(this.run.status)) this.render();
    }, 1000);
  }

  async show(runId) {
    this.close();
    this.runId = runId;
    this.run = { id: runId };
    this.book = new AttemptBook();
    this.samples = new Map();
    this.lastSeq = { events: 0, live: 0 };
    this.duplicates = 0;
    this.expanded = new Set();
    this.filter = "all";
    this.sample = "";
    this.page = 1;
    this.ready = false;
    this.analyticsFor = null;
    this.build();
    try {
      const record = await api(`/runs/${encodeURIComponent(runId)}`);
      if (this.runId !== runId) return;
      Object.assign(this.run, record);
      this.drawHeader();
    } catch (err) {
      $("run-error").textContent = err instanceof ApiError && err.status === 404 ? `Run ${runId} does not exist.` : `Could not load the run: ${err.message}`;
      if (err.status === 404) return;
    }
    this.stream = new LiveStream(`/runs/${encodeURIComponent(runId)}/events`, {
      onEvent: (name, data, id) => this.onEvent(name, data, id),
      onState: (state, detail) => this.onLiveState("run", state, detail),
      onFatal: (status, message) => {
        if (status !== 401) $("run-error").textContent = `Live updates stopped: ${message}`;
      },
    }).start();
    this.maybeLoadAnalytics();
  }

  close() {
    if (this.stream) this.stream.stop();
    this.stream = null;
    this.runId = null;
  }

  // The all-runs stream also reports this run (absolute state); keep the header current.
  applyLive(frame) {
    if (!this.run || frame.run.id !== this.runId) return;
    if (frame.seq <= (this.run._seq || 0)) return;
    const snapshot = Object.fromEntries(Object.entries(frame.run).filter(([k, v]) => v !== undefined && !(k === "status" && v === null)));
    Object.assign(this.run, snapshot, { _seq: frame.seq });
    this.drawHeader();
    this.render(); // a final status turns open attempts into abandoned ones
    this.maybeLoadAnalytics();
  }

  onEvent(name, data, id) {
    if (name === "ready") {
      this.ready = true;
      this.section.dataset.ready = "1";
      this.render();
      return;
    }
    const stream = LIVE_EVENTS.has(name) ? "live" : "events";
    if (typeof data.seq === "number") {
      if (data.seq <= this.lastSeq[stream]) {
        this.duplicates += 1; // the server never sends these; counted so tests can tell
        return;
      }
      this.lastSeq[stream] = data.seq;
    }
    this.section.dataset.events = String(this.stream ? this.stream.received : 0);
    this.section.dataset.lastEventId = id || "";
    this.section.dataset.duplicates = String(this.duplicates);
    switch (name) {
      case "request_attempt_started": this.book.started(data); break;
      case "request_attempt_progressed": this.book.progressed(data); break;
      case "request_attempt_completed": this.book.completed(data); break;
      case "sample_completed": {
        const key = `${data.record.sampleId}#${data.record.epoch}`;
        if (!this.samples.has(key)) this.samples.set(key, data.record);
        break;
      }
      case "run_started":
        this.run.totalEvaluations = this.run.totalEvaluations || data.totalEvaluations;
        break;
      default:
        break;
    }
    if (this.ready || this.book.version % 200 === 0) this.render();
  }

  build() {
    const s = clear(this.section);
    s.hidden = false;
    delete s.dataset.ready;
    s.append(
      h("p", {}, h("a", { href: "/gpqa-benchmarks", id: "back-to-runs", text: "← All runs" })),
      h("p", { id: "run-error", class: "error", role: "alert" }),
      h("div", { class: "panel", id: "run-header" }),
      h("section", { class: "panel", "aria-labelledby": "requests-title" },
        h("div", { class: "section-title" }, h("h3", { id: "requests-title", text: "Requests" }), h("span", { id: "requests-note", class: "hint", "aria-live": "polite" })),
        h("div", { class: "cards", id: "latency-cards", "aria-label": "Latency" }),
        h("div", { class: "cards", id: "reliability-cards", "aria-label": "Reliability" }),
        h("div", { class: "toolbar" },
          h("div", { class: "field" }, h("label", { for: "req-filter", text: "Show" }),
            h("select", { id: "req-filter", onchange: (e) => { this.filter = e.target.value; this.page = 1; this.draw(); } },
              h("option", { value: "all", text: "All attempts" }), h("option", { value: "pending", text: "Pending" }),
              h("option", { value: "completed", text: "Completed" }), h("option", { value: "errors", text: "Errors only" }))),
          h("div", { class: "field" }, h("label", { for: "req-sample", text: "Sample id contains" }),
            h("input", { id: "req-sample", type: "search", autocomplete: "off", oninput: (e) => { this.sample = e.target.value; this.page = 1; this.draw(); } })),
          h("div", { class: "pager" },
            h("button", { type: "button", id: "req-prev", text: "Newer", onclick: () => { this.page -= 1; this.draw(); } }),
            h("span", { id: "req-page", "aria-live": "polite" }),
            h("button", { type: "button", id: "req-next", text: "Older", onclick: () => { this.page += 1; this.draw(); } }))),
        h("div", { class: "table-wrap" },
          h("table", { class: "attempts", id: "attempts-table" },
            h("caption", { class: "visually-hidden", text: "Request attempts, newest first" }),
            h("thead", {}, h("tr", {}, ["", "Started", "Sample", "Attempt", "Status", "Duration", "First output", "Bytes", "Output tokens", "Provider"].map((t, i) =>
              h("th", { scope: "col", class: i >= 5 && i <= 8 ? "num" : null }, t || h("span", { class: "visually-hidden", text: "Details" }))))),
            h("tbody", { id: "attempts-body" })))),
      h("section", { class: "panel", id: "analytics-section", "aria-labelledby": "analytics-title", hidden: true },
        h("div", { class: "section-title" }, h("h3", { id: "analytics-title", text: "GPQA analytics" }),
          h("button", { type: "button", id: "analytics-refresh", text: "Refresh analytics", onclick: () => this.loadAnalytics() })),
        h("p", { id: "analytics-note", class: "hint", "aria-live": "polite" }),
        h("div", { class: "charts", id: "analytics" })),
    );
    $("back-to-runs").addEventListener("click", (e) => {
      e.preventDefault();
      this.actions.home();
    });
    this.drawHeader();
    this.draw();
  }

  drawHeader() {
    const el = $("run-header");
    if (!el) return;
    const run = this.run;
    clear(el);
    const duration = durationOf(run);
    const config = h("dl", { class: "kv" }, CONFIG_KEYS.filter(([k]) => run[k] !== null && run[k] !== undefined && run[k] !== "")
      .map(([k, label]) => [h("dt", { text: label }), h("dd", { class: k === "model" || k === "baseUrl" ? "mono" : null, text: Array.isArray(run[k]) ? run[k].join(", ") : String(run[k]) })]));
    const artifacts = h("div", { class: "actions" }, this.artifactButtons(run));
    el.append(
      h("div", { class: "run-header" },
        h("div", {},
          h("h2", { id: "run-title" }, "Run ", h("span", { class: "mono", text: run.id })),
          h("p", {}, statusBadge(run), " ", h("span", { class: "mono", text: run.model || "" }), " · ", run.benchmark || "",
            h("button", { type: "button", class: "link small", text: "copy link", "aria-label": `Copy link to run ${run.id}`, onclick: () => copyLink(run.id) })),
          failureBlock(run),
          h("div", { id: "run-progress" }, progressBlock(run)),
          h("p", { class: "hint" }, `Started ${fmt.date(run.startedAt || run.createdAt)} · ${duration === null ? "" : fmt.duration(duration)}`,
            run.qualityScore !== null && run.qualityScore !== undefined ? ` · quality ${fmt.pct(run.qualityScore)}` : "",
            run.uploadStatus ? ` · upload ${run.uploadStatus}` : "")),
        rowActions(run, this.actions, null)),
      h("details", {}, h("summary", { text: "Configuration" }), config),
      h("div", { class: "toolbar" }, h("span", { class: "hint", text: "Artifacts:" }), artifacts),
    );
  }

  artifactButtons(run) {
    const base = `/runs/${encodeURIComponent(run.id)}`;
    const items = [["Run log", `${base}/logs`, "logs"], ["Request records", `${base}/request-records`, "requests"], ["Run state", `${base}/state`, "state"], ["Summary", `${base}/summary`, "summary"]];
    if (run.benchmark === "gpqa_diamond") items.push(["GPQA report", `${base}/gpqa-report`, "gpqa-report"]);
    const buttons = [];
    for (const [label, path, slug] of items) {
      buttons.push(h("button", { type: "button", class: "small", text: `View ${label.toLowerCase()}`, onclick: () => this.artifact(path, false, `${slug}-${run.id}`) }));
      if (slug !== "summary") buttons.push(h("button", { type: "button", class: "small", text: `Download ${label.toLowerCase()}`, onclick: () => this.artifact(path, true, `${slug}-${run.id}`) }));
    }
    buttons.push(h("button", { type: "button", class: "small", text: "Download Parquet", onclick: () => this.artifact(`${base}/parquet`, true, `${run.id}.parquet`) }));
    return buttons;
  }

  async artifact(path, download, filename) {
    try {
      await openArtifact(path, { download, filename });
    } catch (err) {
      toast(`Could not open it: ${err.message}`);
    }
  }

  draw() {
    if (!this.book || !$("attempts-body")) return;
    if (this.run && ACTIVE.has(this.run.status)) {
      const progress = $("run-progress");
      if (progress) clear(progress).append(progressBlock(this.run));
    }
    this.drawCards();
    const rows = this.book.list(this.filter === "pending" && this.ended() ? "none" : this.filter, this.sample);
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
    this.page = Math.min(Math.max(1, this.page), pages);
    $("req-prev").disabled = this.page <= 1;
    $("req-next").disabled = this.page >= pages;
    $("req-page").textContent = `Page ${this.page} of ${pages} · ${fmt.num(rows.length)} attempts`;
    $("requests-note").textContent = this.ready ? "" : "Loading the run's history…";
    const body = $("attempts-body");
    // Rows are rebuilt; keep the keyboard focus and the scroll of growing responses.
    const active = document.activeElement;
    const focusKey = body.contains(active) ? `${active.dataset.requestId || ""}|${active.dataset.role || ""}` : null;
    const scrolls = new Map([...body.querySelectorAll("pre[data-role]")].map((p) => [`${p.dataset.requestId}|${p.dataset.role}`, p.scrollTop]));
    clear(body);
    for (const attempt of rows.slice((this.page - 1) * PAGE_SIZE, this.page * PAGE_SIZE)) {
      body.append(this.attemptRow(attempt));
      if (this.expanded.has(attempt.requestId)) body.append(this.detailRow(attempt));
    }
    for (const pre of body.querySelectorAll("pre[data-role]")) {
      const top = scrolls.get(`${pre.dataset.requestId}|${pre.dataset.role}`);
      if (top) pre.scrollTop = top;
    }
    if (focusKey) {
      const [requestId, role] = focusKey.split("|");
      const selector = role ? `pre[data-request-id="${CSS.escape(requestId)}"][data-role="${CSS.escape(role)}"]` : `button[data-request-id="${CSS.escape(requestId)}"]`;
      body.querySelector(selector)?.focus();
    }
  }

  ended() {
    return Boolean(this.run && FINAL.has(this.run.status));
  }

  attemptRow(a) {
    const done = a.completed;
    const abandoned = !done && this.ended();
    const pending = !done && !abandoned;
    const open = this.expanded.has(a.requestId);
    const elapsed = done ? done.durationMs : abandoned ? null : Math.max(a.elapsedMs, Date.now() - a.startedAt);
    let status;
    if (pending) status = h("span", {}, h("span", { class: "spinner", "aria-hidden": "true" }), " pending");
    else if (abandoned) status = "abandoned (the run ended)";
    else status = done.ok ? String(done.status ?? "ok") : `${done.status ?? "error"} ${done.errorClass || ""}`.trim();
    const rowClass = pending ? "pending" : abandoned ? "abandoned" : done.ok ? "ok" : "failed";
    return h("tr", { class: rowClass, dataset: { requestId: a.requestId } },
      h("td", {}, h("button", { type: "button", class: "small", "aria-expanded": open ? "true" : "false", "aria-controls": `detail-${a.requestId}`,
        dataset: { requestId: a.requestId }, "aria-label": `${open ? "Hide" : "Show"} attempt ${a.attempt} of ${a.sampleId ?? "call"} epoch ${a.epoch ?? ""}`,
        text: open ? "Hide" : "Show", onclick: () => this.toggle(a.requestId) })),
      h("td", { text: fmt.time(new Date(a.startedAt).toISOString()) }),
      h("td", { class: "mono", text: `${a.sampleId ?? "–"}${a.epoch !== null && a.epoch !== undefined ? ` · e${a.epoch}` : ""}` }),
      h("td", { class: "num", text: String(a.attempt) }),
      h("td", {}, status),
      h("td", { class: "num", text: fmt.ms(elapsed) }),
      h("td", { class: "num", text: fmt.ms(a.ttfo) }),
      h("td", { class: "num", text: fmt.bytes(a.bytes) }),
      h("td", { class: "num", text: done?.usage ? fmt.num(done.usage.outputTokens) : "–" }),
      h("td", { text: done?.providerName || "" }),
    );
  }

  detailRow(a) {
    const done = a.completed;
    const empty = done ? "(none)" : "(none yet)";
    const block = (title, text, role) => h("div", {}, h("h4", { text: title }),
      h("pre", { dataset: { role, requestId: a.requestId }, tabindex: "0", "aria-label": `${title} of attempt ${a.requestId}`, text: text || empty }));
    const meta = [
      `request ${a.requestId}`, `call ${a.callId}`, a.previousRequestId ? `retry of ${a.previousRequestId}` : null,
      `model ${a.model}`, `url ${a.url}`, `bytes ${fmt.bytes(a.bytes)}`, `first output ${fmt.ms(a.ttfo)}`,
      done?.generationId ? `generation ${done.generationId}` : null, done?.xRequestId ? `x-request-id ${done.xRequestId}` : null,
      done?.usage ? `tokens in ${done.usage.inputTokens} / out ${done.usage.outputTokens} / reasoning ${done.usage.reasoningTokens}` : null,
    ].filter(Boolean).join("\n");
    const blocks = [
      block("Response", a.content, "response"),
      block("Reasoning", a.reasoning, "reasoning"),
      block("Request (sanitised)", JSON.stringify({ ...(a.request || {}), body: a.requestBody }, null, 2), "request"),
      block("Details", meta, "meta"),
    ];
    if (a.toolDeltas.length || done?.toolCalls?.length) {
      blocks.splice(2, 0, block("Tool calls", JSON.stringify(done?.toolCalls?.length ? done.toolCalls : a.toolDeltas, null, 2), "tools"));
    }
    if (done && !done.ok) {
      blocks.unshift(block("Error", [done.error, done.failureStage ? `stage: ${done.failureStage}` : null, done.retryable !== null && done.retryable !== undefined ? `retryable: ${done.retryable}` : null, done.response].filter(Boolean).join("\n"), "error"));
    }
    return h("tr", { class: "attempt-detail", id: `detail-${a.requestId}` }, h("td", { colspan: 10 }, h("div", { class: "blocks" }, blocks)));
  }

  toggle(requestId) {
    if (this.expanded.has(requestId)) this.expanded.delete(requestId);
    else this.expanded.add(requestId);
    this.draw();
  }

  drawCards() {
    const s = this.book.stats(Date.now(), this.ended());
    const card = (label, value, sub) => h("div", { class: "card" }, h("span", { class: "card-label", text: label }), h("span", { class: "card-value", text: value }), sub ? h("span", { class: "card-sub", text: sub }) : null);
    clear($("latency-cards")).append(
      card("Latency p50", fmt.ms(s.latency.p50), `p75 ${fmt.ms(s.latency.p75)}`),
      card("Latency p90", fmt.ms(s.latency.p90), `p95 ${fmt.ms(s.latency.p95)}`),
      card("Latency max", fmt.ms(s.latency.max), `mean ${fmt.ms(s.latency.mean)}`),
      card("In flight", fmt.num(s.inFlight), `peak ${fmt.num(s.peakInFlight)}`),
      card("Throughput", s.throughputPerMin === null ? "–" : `${s.throughputPerMin.toFixed(1)}/min`, `first output p50 ${fmt.ms(s.ttfoP50)}`),
      card("Output tokens/s", s.tokensPerSecond === null ? "–" : s.tokensPerSecond.toFixed(1)),
    );
    const statuses = Object.entries(s.statuses).map(([k, v]) => `${k}: ${v}`).join(", ");
    clear($("reliability-cards")).append(
      card("Attempts", fmt.num(s.attempts), `${fmt.num(s.completed)} done · ${s.abandoned ? `${fmt.num(s.abandoned)} abandoned` : `${fmt.num(s.pending)} pending`}`),
      card("Success rate", fmt.pct(s.successRate), `${fmt.num(s.ok)} ok`),
      card("Error rate", fmt.pct(s.errorRate), `${fmt.num(s.failed)} failed`),
      card("Retry rate", fmt.pct(s.retryRate), `post-processing failures ${fmt.num(s.postProcessing)}`),
      card("Error statuses", statuses || "none"),
    );
  }

  maybeLoadAnalytics() {
    const run = this.run;
    const section = $("analytics-section");
    if (!section || run.benchmark !== "gpqa_diamond") return;
    section.hidden = false;
    if (FINAL.has(run.status) && this.analyticsFor !== `${run.id}:${run.status}`) {
      this.analyticsFor = `${run.id}:${run.status}`;
      this.loadAnalytics();
    } else if (!FINAL.has(run.status) && !this.analyticsFor) {
      $("analytics-note").textContent = "Charts appear when the run finishes; refresh to see them so far.";
    }
  }

  async loadAnalytics() {
    const runId = this.runId;
    $("analytics-note").textContent = "Loading the GPQA report…";
    try {
      const report = await api(`/runs/${encodeURIComponent(runId)}/gpqa-report`);
      if (runId !== this.runId) return;
      $("analytics-note").textContent = `Computed from ${fmt.num(report.evaluations)} evaluations.`;
      renderAnalytics($("analytics"), report);
    } catch (err) {
      if (runId === this.runId) $("analytics-note").textContent = `No analytics yet: ${err.message}`;
    }
  }
}
