// "Model history": a drawer with the runs of one model on one benchmark, full suite only,
// the canary's runs only unless the toggle says otherwise (as in the original), newest first,
// each with its quality change against the previous run. Opened from a run's model in the
// runs list; read from GET /runs?view=page with the list's own filters.

import { api } from "./api.js";
import { $, clear, debounce, fmt, h } from "./dom.js";
import { statusBadge } from "./runs.js";

const PAGE_SIZE = 100; // the API's largest page
const RELOADING = new Set(["run_requested", "run_finished", "run_rejected", "run_disabled"]);

// Runs newest first -> [{run, quality, previous, delta}]: `previous` is the closest older run
// that has a quality score (failed and cancelled runs have none), `delta` the change in
// quality (0..1 scale) against it; null when either side has no score.
export function withDeltas(runs) {
  const rows = new Array(runs.length);
  let older = null;
  for (let i = runs.length - 1; i >= 0; i -= 1) {
    const run = runs[i];
    const quality = typeof run.qualityScore === "number" ? run.qualityScore : null;
    const delta = quality !== null && older ? quality - older.qualityScore : null;
    rows[i] = { run, quality, previous: older, delta };
    if (quality !== null) older = run;
  }
  return rows;
}

// A change in quality as percentage points: "+2.5 pp", "−1.0 pp", "±0.0 pp".
export function formatDelta(delta) {
  if (delta === null || delta === undefined) return "–";
  const points = Math.round(delta * 1000) / 10;
  if (points === 0) return "±0.0 pp";
  return `${points > 0 ? "+" : "−"}${Math.abs(points).toFixed(1)} pp`;
}

export class ModelHistory {
  constructor({ open, benchmarkName }) {
    this.open = open; // (runId) => void
    this.benchmarkName = benchmarkName; // (id) => display name
    this.dialog = $("history-dialog");
    this.runs = [];
    this.ticket = null;
    this.reloadSoon = debounce(() => this.load(), 1500);
    $("history-close").addEventListener("click", () => this.dialog.close());
    $("history-canary-only").addEventListener("change", () => this.load());
    $("history-more").addEventListener("click", () => this.load({ more: true }));
    // Escape closes a modal <dialog> by itself; either way the focus goes back to the model
    // button that opened it (re-found by run id: live updates redraw the row's cells).
    this.dialog.addEventListener("close", () => this.restoreFocus());
  }

  get isOpen() {
    return this.dialog.open;
  }

  show(run, opener) {
    this.model = run.model;
    this.benchmark = run.benchmark;
    this.openerRunId = run.id;
    this.opener = opener;
    $("history-subtitle").textContent = `${run.model} on ${this.benchmarkName(run.benchmark)} · full-suite runs, newest first`;
    $("history-canary-only").checked = true; // the original's default
    this.runs = [];
    clear($("history-body"));
    if (!this.dialog.open) this.dialog.showModal();
    $("history-close").focus();
    return this.load();
  }

  query(page) {
    const params = new URLSearchParams({
      view: "page", page: String(page), pageSize: String(PAGE_SIZE),
      benchmark: this.benchmark, model: this.model, modelExact: "1", fullSuiteOnly: "1",
    });
    if ($("history-canary-only").checked) params.set("canaryOnly", "1");
    return params;
  }

  async load({ more = false } = {}) {
    const page = more ? this.page + 1 : 1;
    const ticket = {};
    this.ticket = ticket;
    $("history-status").textContent = "Loading…";
    $("history-error").textContent = "";
    try {
      const data = await api(`/runs?${this.query(page)}`);
      if (this.ticket !== ticket) return; // a newer request (the toggle, say) won
      this.page = data.page;
      this.totalPages = Math.max(1, data.totalPages || 1);
      this.total = data.total;
      this.runs = more ? [...this.runs, ...data.runs] : data.runs;
      this.render();
    } catch (err) {
      if (this.ticket !== ticket) return;
      $("history-status").textContent = "";
      $("history-error").textContent = `Could not load the model history: ${err.message}`;
    }
  }

  render() {
    const body = clear($("history-body"));
    const kind = $("history-canary-only").checked ? "canary runs" : "runs";
    const shown = this.runs.length;
    $("history-status").textContent = shown === 0
      ? `No full-suite ${kind} of this model on this benchmark.`
      : `${fmt.num(shown)} of ${fmt.num(this.total)} full-suite ${kind}.`;
    $("history-table").hidden = shown === 0;
    $("history-more").hidden = this.page >= this.totalPages;
    for (const { run, quality, previous, delta } of withDeltas(this.runs)) {
      const link = h("a", { href: `?runId=${encodeURIComponent(run.id)}`, class: "mono", text: fmt.shortId(run.id),
        title: run.id, "aria-label": `Open run ${run.id}`,
        onclick: (e) => { e.preventDefault(); this.dialog.close(); this.open(run.id); } });
      const direction = delta === null ? "" : delta > 0 ? "up" : delta < 0 ? "down" : "same";
      const against = previous ? `against run ${fmt.shortId(previous.id)}` : "no earlier run with a quality score";
      body.append(h("tr", { dataset: { runId: run.id } },
        h("td", {}, link, run.isCanary ? h("span", { class: "sub", text: "canary" }) : null),
        h("td", { text: fmt.date(run.startedAt || run.createdAt) }),
        h("td", {}, statusBadge(run)),
        h("td", { class: "num quality", text: quality === null ? "–" : fmt.pct(quality) }),
        h("td", { class: `num delta ${direction}`, title: against },
          formatDelta(delta), h("span", { class: "visually-hidden", text: ` (${against})` })),
      ));
    }
  }

  // A frame of /runs/events while the drawer is open: patch a row it shows; runs that appear,
  // finish or are disabled may change the list (the frame does not say which model), so load
  // it again shortly.
  applyLive(frame) {
    if (!this.dialog.open) return;
    const run = this.runs.find((r) => r.id === frame.run.id);
    if (run && frame.run.status) {
      Object.assign(run, { status: frame.run.status, qualityScore: frame.run.qualityScore });
      this.render();
    }
    if (RELOADING.has(frame.event)) this.reloadSoon();
  }

  restoreFocus() {
    this.ticket = null;
    if ($("runs-view").hidden) return; // closed to open a run: the run view has the focus
    const row = document.querySelector(`#runs-body tr[data-run-id="${CSS.escape(this.openerRunId || "")}"]`);
    const target = this.opener && this.opener.isConnected ? this.opener : row && row.querySelector("button.model-history");
    if (target) target.focus();
  }
}
