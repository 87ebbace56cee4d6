// The runs list: summary cards, every filter of GET /runs?view=page, pages, and rows patched
// live from the all-runs stream (status, completion, counts, quality, failure, upload).

import { api } from "./api.js";
import { $, ACTIVE, FINAL, clear, debounce, fmt, h, toast } from "./dom.js";

const LIST_CHANGING = new Set(["run_requested", "run_started", "run_finished", "run_rejected", "run_disabled"]);
const FILTERS = [
  ["benchmark", "f-benchmark"], ["model", "f-model"], ["modelExact", "f-model-exact"],
  ["status", "f-status"], ["durationGt", "f-duration"], ["triggeredBy", "f-triggered"],
  ["qualityLt", "f-quality"], ["hideCanary", "f-hide-canary"], ["canaryOnly", "f-canary-only"],
  ["fullSuiteOnly", "f-full-suite"], ["showDisabled", "f-show-disabled"], ["pageSize", "f-page-size"],
];

export function statusBadge(run) {
  const status = run.status || "queued";
  const badge = h("span", { class: `badge ${status}`, text: status });
  const parts = [badge];
  if (run.disabled) parts.push(" ", h("span", { class: "badge disabled", text: "disabled" }));
  if (run.uploadStatus === "failed") {
    const why = `Upload of the run's artifacts failed${run.uploadError ? `: ${run.uploadError}` : ""}`;
    parts.push(h("span", { class: "upload-warning", title: why, role: "img", "aria-label": why, text: "⚠" }));
  }
  if (run.cancelRequestedAt && !FINAL.has(status)) parts.push(h("span", { class: "sub", text: "cancel requested" }));
  return parts;
}

export function failureBlock(run) {
  if (!run.failureReason) return null;
  const first = run.failureReason.split("\n")[0].slice(0, 160);
  return h(
    "details",
    { class: "failure" },
    h("summary", {}, h("span", { class: "visually-hidden", text: "Failure reason: " }), first),
    h("pre", { text: run.failureReason }),
  );
}

export function progressBlock(run) {
  const total = run.totalEvaluations || 0;
  const done = run.completedEvaluations || 0;
  const skipped = run.skippedEvaluations || 0;
  const pct = run.completionPercentage ?? (total ? ((done + skipped) / total) * 100 : 0);
  const label = `${Number(pct).toFixed(1)}% complete`;
  return h(
    "div",
    {},
    h(
      "div",
      { class: "progress-line" },
      h("progress", { max: 100, value: Math.min(100, pct), "aria-label": label }),
      h("span", { class: "pct", text: `${Number(pct).toFixed(1)}%` }),
    ),
    h("span", { class: "sub counts", text: `${fmt.num(done)} done · ${fmt.num(skipped)} skipped / ${total ? fmt.num(total) : "?"}` }),
  );
}

export function durationOf(run) {
  if (!run.startedAt && !run.createdAt) return null;
  const start = new Date(run.startedAt || run.createdAt).getTime();
  const end = run.finishedAt ? new Date(run.finishedAt).getTime() : Date.now();
  return end - start;
}

export class RunsView {
  constructor({ open, actions, showHistory }) {
    this.open = open; // (runId) => void
    this.showHistory = showHistory; // (run, button) => void: the "Model history" drawer
    this.actions = actions; // {cancel(run), toggleDisabled(run), retry(run)}
    this.page = 1;
    this.totalPages = 1;
    this.rows = new Map(); // id -> run record on this page
    this.order = [];
    this.loading = null;
    // The list and its counts come from MySQL, which trails the stream by a moment: load
    // soon after a list-changing event, and once more a little later.
    const again = debounce(() => this.load(), 2500);
    this.refreshSoon = debounce(() => {
      this.load();
      again();
    }, 400);
    const onFilter = debounce(() => {
      this.page = 1;
      this.load();
    }, 300);
    $("filters").addEventListener("input", onFilter);
    $("filters").addEventListener("change", onFilter);
    $("filters").addEventListener("submit", (e) => e.preventDefault());
    $("filters").addEventListener("reset", () => setTimeout(onFilter, 0));
    $("prev-page").addEventListener("click", () => this.go(this.page - 1));
    $("next-page").addEventListener("click", () => this.go(this.page + 1));
    setInterval(() => this.tick(), 1000);
  }

  setBenchmarks(benchmarks) {
    const select = $("f-benchmark");
    for (const b of benchmarks) select.append(h("option", { value: b.id, text: b.name }));
    this.names = Object.fromEntries(benchmarks.map((b) => [b.id, b.name]));
  }

  query() {
    const params = new URLSearchParams({ view: "page", page: String(this.page) });
    for (const [name, id] of FILTERS) {
      const el = $(id);
      if (el.type === "checkbox") {
        if (el.checked) params.set(name, "1");
      } else if (el.value.trim() !== "") {
        params.set(name, el.value.trim());
      }
    }
    return params;
  }

  go(page) {
    if (page < 1 || page > this.totalPages) return;
    this.page = page;
    this.load();
  }

  async load() {
    const params = this.query();
    const ticket = {};
    this.loading = ticket;
    try {
      const data = await api(`/runs?${params}`);
      if (this.loading !== ticket) return; // a newer request won
      $("runs-error").textContent = "";
      this.totalPages = Math.max(1, data.totalPages || 1);
      if (this.page > this.totalPages) {
        this.page = this.totalPages;
        return this.load();
      }
      this.pageSize = data.pageSize;
      this.rows = new Map(data.runs.map((r) => [r.id, r]));
      this.order = data.runs.map((r) => r.id);
      $("sum-total").textContent = fmt.num(data.summary.total);
      $("sum-running").textContent = fmt.num(data.summary.running);
      $("sum-failed").textContent = fmt.num(data.summary.failed);
      $("page-info").textContent = `Page ${data.page} of ${this.totalPages} · ${fmt.num(data.total)} runs`;
      $("prev-page").disabled = this.page <= 1;
      $("next-page").disabled = this.page >= this.totalPages;
      this.render();
    } catch (err) {
      if (this.loading === ticket) $("runs-error").textContent = `Could not load the runs: ${err.message}`;
    }
  }

  // A frame of /runs/events: patch the row in place; list-changing events refresh the page.
  applyLive(frame) {
    const run = this.rows.get(frame.run.id);
    if (run) {
      const seen = run._seq || 0;
      if (frame.seq > seen) {
        Object.assign(run, withoutNulls(frame.run), { _seq: frame.seq });
        this.renderRow(run);
      }
    }
    if (LIST_CHANGING.has(frame.event)) this.refreshSoon();
  }

  render() {
    const body = clear($("runs-body"));
    $("runs-empty").hidden = this.order.length > 0;
    const offset = (this.page - 1) * (this.pageSize || 50);
    this.order.forEach((id, i) => {
      const tr = h("tr", { dataset: { runId: id } });
      body.append(tr);
      this.rows.get(id)._index = offset + i + 1;
      this.renderRow(this.rows.get(id), tr);
    });
  }

  renderRow(run, existing) {
    const tr = existing || $("runs-body").querySelector(`tr[data-run-id="${CSS.escape(run.id)}"]`);
    if (!tr) return;
    clear(tr);
    tr.dataset.status = run.status || "";
    const link = h("a", { href: `?runId=${encodeURIComponent(run.id)}`, title: run.id, class: "mono", text: fmt.shortId(run.id),
      "aria-label": `Open run ${run.id}`, onclick: (e) => { e.preventDefault(); this.open(run.id); } });
    const copy = h("button", { type: "button", class: "link small", "aria-label": `Copy link to run ${run.id}`, text: "copy link",
      onclick: () => copyLink(run.id) });
    const duration = durationOf(run);
    tr.append(
      h("td", { class: "num", text: String(run._index || "") }),
      h("td", {}, link, h("span", { class: "sub" }, copy)),
      h("td", {}, fmt.date(run.startedAt || run.createdAt),
        h("span", { class: "sub duration", dataset: { live: ACTIVE.has(run.status) ? "1" : "" }, text: duration === null ? "" : fmt.duration(duration) })),
      h("td", {}, this.modelButton(run),
        h("span", { class: "sub", text: `${this.names?.[run.benchmark] || run.benchmark || ""} · ${fmt.host(run.baseUrl)}` }),
        run.triggeredByEmail ? h("span", { class: "sub", text: run.triggeredByEmail }) : null),
      h("td", { class: "status-cell" }, statusBadge(run), failureBlock(run)),
      h("td", {}, progressBlock(run)),
      h("td", { class: "num quality", text: run.qualityScore === null || run.qualityScore === undefined ? "–" : fmt.pct(run.qualityScore) }),
      h("td", {}, rowActions(run, this.actions, this.open)),
    );
  }

  modelButton(run) {
    if (!run.model) return h("span", { class: "mono", text: "–" });
    const benchmark = this.names?.[run.benchmark] || run.benchmark || "";
    return h("button", { type: "button", class: "link mono model-history", text: run.model,
      title: `Model history of ${run.model} on ${benchmark}`, "aria-label": `Model history: ${run.model} on ${benchmark}`,
      "aria-haspopup": "dialog", onclick: (e) => this.showHistory(run, e.currentTarget) });
  }

  tick() {
    for (const tr of $("runs-body").querySelectorAll("tr")) {
      const run = this.rows.get(tr.dataset.runId);
      const cell = tr.querySelector(".duration");
      if (run && cell && ACTIVE.has(run.status)) cell.textContent = fmt.duration(durationOf(run));
    }
  }
}

export function rowActions(run, actions, open) {
  const wrap = h("div", { class: "actions" });
  if (open) wrap.append(h("button", { type: "button", class: "small", text: "Open", "aria-label": `Open run ${run.id}`, onclick: () => open(run.id) }));
  if (ACTIVE.has(run.status) && !run.cancelRequestedAt) {
    wrap.append(h("button", { type: "button", class: "small danger", text: "Cancel", "aria-label": `Cancel run ${run.id}`, onclick: () => actions.cancel(run) }));
  }
  wrap.append(
    h("button", { type: "button", class: "small", text: run.disabled ? "Enable" : "Disable",
      "aria-label": `${run.disabled ? "Enable" : "Disable"} run ${run.id}`, onclick: () => actions.toggleDisabled(run) }),
    h("button", { type: "button", class: "small", text: "Retry run", "aria-label": `Retry run ${run.id}`, onclick: () => actions.retry(run) }),
  );
  return wrap;
}

function withoutNulls(snapshot) {
  // The stream's nulls are real values (no quality yet, no failure), except an unknown status
  // (a run whose request the stream has not seen), which must not blank the REST value.
  return Object.fromEntries(Object.entries(snapshot).filter(([k, v]) => v !== undefined && !(k === "status" && v === null)));
}

export async function copyLink(runId) {
  const url = new URL(window.location.href);
  url.search = `?runId=${encodeURIComponent(runId)}`;
  url.hash = "";
  try {
    await navigator.clipboard.writeText(url.toString());
    toast("Link copied");
  } catch {
    toast(url.toString());
  }
}
