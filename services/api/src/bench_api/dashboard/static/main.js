// The dashboard's entry point: sign-in, routing (the list, or one run with ?runId=), the
// all-runs live stream, and the actions shared by the list and the run view.

import { api, auth } from "./api.js";
import { $, toast } from "./dom.js";
import { ModelHistory } from "./history.js";
import { RunsView } from "./runs.js";
import { LiveStream } from "./sse.js";
import { StartDialog } from "./start.js";
import { RunDetail } from "./viewer.js";

const states = { runs: "offline", run: null };
let started = false;
let runsStream = null;
let runsView = null;
let detail = null;
let startDialog = null;
let modelHistory = null;
let rememberedSecret = "";

function showLogin(message = "") {
  if (runsStream) runsStream.stop();
  if (detail) detail.close();
  if ($("history-dialog").open) $("history-dialog").close();
  started = false;
  for (const id of ["runs-view", "run-view", "start-run", "sign-out"]) $(id).hidden = true;
  $("login").hidden = false;
  $("login-error").textContent = message;
  setLive("runs", "offline");
  $("token-input").focus();
}

function setLive(which, state) {
  states[which] = state;
  const all = [states.runs, states.run].filter(Boolean);
  const overall = all.every((s) => s === "live") ? "live" : all.includes("offline") ? "offline" : "connecting";
  const el = $("live-status");
  el.dataset.state = overall;
  el.textContent = { live: "Live", connecting: "Connecting…", offline: "Not connected" }[overall];
}

const actions = {
  home() {
    history.pushState({}, "", "/gpqa-benchmarks");
    route();
  },
  cancel(run) {
    $("cancel-text").textContent = `Stop run ${run.id} (${run.model || ""})? Evaluations in flight are abandoned.`;
    $("cancel-error").textContent = "";
    $("cancel-secret").value = rememberedSecret;
    const dialog = $("cancel-dialog");
    dialog.dataset.runId = run.id;
    dialog.showModal();
    $("cancel-secret").focus();
  },
  async toggleDisabled(run) {
    const disabled = !run.disabled;
    try {
      await api(`/runs/${encodeURIComponent(run.id)}/disable`, { method: "POST", body: { disabled } });
      run.disabled = disabled;
      toast(disabled ? "Run disabled (hidden from the default list)" : "Run enabled");
      runsView.refreshSoon();
      if (detail.runId === run.id) {
        detail.run.disabled = disabled;
        detail.drawHeader();
      }
    } catch (err) {
      toast(`Could not change it: ${err.message}`);
    }
  },
  async retry(run) {
    try {
      const record = await api(`/runs/${encodeURIComponent(run.id)}`);
      startDialog.open(record);
    } catch (err) {
      toast(`Could not load the run: ${err.message}`);
    }
  },
};

async function confirmCancel(event) {
  event.preventDefault();
  const dialog = $("cancel-dialog");
  const secret = $("cancel-secret").value;
  if (!secret) {
    $("cancel-error").textContent = "Type the run secret.";
    $("cancel-secret").focus();
    return;
  }
  try {
    await api(`/runs/${encodeURIComponent(dialog.dataset.runId)}/cancel`, { method: "POST", secret });
    rememberedSecret = secret; // this page only, never stored
    dialog.close();
    toast("Cancel requested");
  } catch (err) {
    $("cancel-error").textContent = `The run was not cancelled: ${err.message}`;
  }
}

function openRun(runId) {
  history.pushState({}, "", `/gpqa-benchmarks?runId=${encodeURIComponent(runId)}`);
  route();
}

function route() {
  const runId = new URLSearchParams(window.location.search).get("runId");
  if (runId) {
    $("runs-view").hidden = true;
    detail.show(runId);
    $("main").focus();
  } else {
    detail.close();
    setLive("run", null);
    $("run-view").hidden = true;
    $("runs-view").hidden = false;
    runsView.load();
  }
}

function onRunsEvent(name, data) {
  if (name !== "run") return;
  runsView.applyLive(data);
  detail.applyLive(data);
  modelHistory.applyLive(data);
}

async function start() {
  if (started) return;
  let config;
  try {
    config = await api("/dashboard/config");
  } catch (err) {
    if (err.status !== 401) showLogin(`The API did not answer: ${err.message}`);
    return;
  }
  started = true;
  $("login").hidden = true;
  $("start-run").hidden = false;
  $("sign-out").hidden = false;
  if (!runsView) {
    runsView = new RunsView({ open: openRun, actions, showHistory: (run, button) => modelHistory.show(run, button) });
    runsView.setBenchmarks(config.benchmarks);
    modelHistory = new ModelHistory({ open: openRun, benchmarkName: (id) => runsView.names?.[id] || id });
    detail = new RunDetail({ actions, onLiveState: (which, state) => setLive(which, state) });
    startDialog = new StartDialog({
      config,
      onStarted: (run) => {
        toast(`Run ${run.id.slice(0, 8)} started`);
        openRun(run.id);
      },
    });
  }
  runsStream = new LiveStream("/runs/events", {
    onEvent: onRunsEvent,
    onState: (state) => setLive("runs", state),
    onFatal: (status, message) => {
      if (status !== 401) toast(`Live updates stopped: ${message}`);
    },
  }).start();
  window.__bench = { runsStream, detail: () => detail, runsView, modelHistory };
  route();
}

function init() {
  auth.onUnauthorized(() => showLogin("The API token was refused; type it again."));
  $("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const token = $("token-input").value.trim();
    if (!token) {
      $("login-error").textContent = "Type the API token.";
      return;
    }
    auth.set(token);
    $("token-input").value = "";
    start();
  });
  $("sign-out").addEventListener("click", () => {
    auth.clear();
    showLogin();
  });
  $("start-run").addEventListener("click", () => startDialog.open());
  $("cancel-form").addEventListener("submit", confirmCancel);
  $("cancel-close").addEventListener("click", () => $("cancel-dialog").close());
  $("home-link").addEventListener("click", (event) => {
    if (!started) return;
    event.preventDefault();
    actions.home();
  });
  window.addEventListener("popstate", () => started && route());
  if (auth.get()) start();
  else showLogin();
}

init();
