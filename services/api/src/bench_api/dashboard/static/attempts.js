// One run's request attempts, folded from its live stream: started, streaming deltas,
// completed. Pure state and statistics (the figures of the latency and reliability cards).

export class AttemptBook {
  constructor() {
    this.byId = new Map();
    this.version = 0;
  }

  get(requestId) {
    return this.byId.get(requestId);
  }

  ensure(record) {
    let attempt = this.byId.get(record.requestId);
    if (!attempt) {
      attempt = {
        requestId: record.requestId,
        callId: record.callId,
        attempt: record.attempt,
        previousRequestId: record.previousRequestId,
        sampleId: record.sampleId,
        epoch: record.epoch,
        model: record.model,
        url: record.url,
        startedAt: Date.parse(record.startedAt),
        request: null,
        requestBody: null,
        content: "",
        reasoning: "",
        toolDeltas: [],
        bytes: 0,
        ttfo: null,
        elapsedMs: 0,
        completed: null,
      };
      this.byId.set(record.requestId, attempt);
    }
    return attempt;
  }

  started(record) {
    const attempt = this.ensure(record);
    attempt.request = record.request;
    attempt.requestBody = record.requestBody;
    this.version += 1;
  }

  progressed(record) {
    const attempt = this.ensure(record);
    if (attempt.completed) return; // the completed record holds the whole text already
    attempt.content += record.contentDelta || "";
    attempt.reasoning += record.reasoningDelta || "";
    if (record.toolCallDeltas?.length) attempt.toolDeltas.push(...record.toolCallDeltas);
    attempt.bytes = Math.max(attempt.bytes, record.receivedBytes || 0);
    attempt.ttfo = attempt.ttfo ?? record.timeToFirstOutputMs ?? null;
    attempt.elapsedMs = Math.max(attempt.elapsedMs, record.elapsedMs || 0);
    attempt.status = record.status ?? attempt.status;
    this.version += 1;
  }

  completed(record) {
    const attempt = this.ensure(record);
    if (attempt.completed) return;
    attempt.completed = record;
    if (record.responseContent !== null && record.responseContent !== undefined) attempt.content = record.responseContent;
    if (record.reasoning !== null && record.reasoning !== undefined) attempt.reasoning = record.reasoning;
    attempt.bytes = record.receivedBytes ?? attempt.bytes;
    attempt.ttfo = record.timeToFirstOutputMs ?? attempt.ttfo;
    attempt.elapsedMs = record.durationMs ?? attempt.elapsedMs;
    attempt.status = record.status ?? attempt.status;
    this.version += 1;
  }

  all() {
    return [...this.byId.values()];
  }

  // Newest first; `filter` is all | pending | completed | errors; `sample` a substring.
  list(filter = "all", sample = "") {
    const needle = sample.trim().toLowerCase();
    return this.all()
      .filter((a) => {
        if (filter === "none") return false;
        if (filter === "pending" && a.completed) return false;
        if (filter === "completed" && !a.completed) return false;
        if (filter === "errors" && !(a.completed && !a.completed.ok)) return false;
        return !needle || String(a.sampleId || "").toLowerCase().includes(needle);
      })
      .sort((x, y) => y.startedAt - x.startedAt || (y.requestId < x.requestId ? -1 : 1));
  }

  // `ended`: the run is over, so attempts without a completion were abandoned (a cancel
  // stops in-flight requests without recording them), not pending.
  stats(now = Date.now(), ended = false) {
    const attempts = this.all();
    const done = attempts.filter((a) => a.completed);
    const open = attempts.length - done.length;
    const pending = ended ? 0 : open;
    const durations = done.map((a) => a.completed.durationMs).filter((v) => typeof v === "number").sort((a, b) => a - b);
    const ttfo = done.map((a) => a.completed.timeToFirstOutputMs).filter((v) => typeof v === "number").sort((a, b) => a - b);
    const ok = done.filter((a) => a.completed.ok).length;
    const failed = done.length - ok;
    const statuses = {};
    for (const a of done) {
      if (a.completed.ok) continue;
      const key = a.completed.status === null || a.completed.status === undefined ? "no status" : String(a.completed.status);
      statuses[key] = (statuses[key] || 0) + 1;
    }
    const postProcessing = done.filter((a) => a.completed.failureStage === "response_processing").length;
    const retries = attempts.filter((a) => a.attempt > 1).length;
    const starts = attempts.map((a) => a.startedAt).filter(Number.isFinite);
    const ends = done.map((a) => Date.parse(a.completed.finishedAt)).filter(Number.isFinite);
    const windowStart = starts.length ? Math.min(...starts) : null;
    const windowEnd = pending ? now : ends.length ? Math.max(...ends) : now;
    const abandoned = ended ? open : 0;
    const windowMs = windowStart === null ? 0 : Math.max(1, windowEnd - windowStart);
    const outputTokens = done.reduce((sum, a) => sum + (a.completed.usage?.outputTokens || 0), 0);
    return {
      attempts: attempts.length,
      completed: done.length,
      pending,
      abandoned,
      ok,
      failed,
      latency: {
        p50: quantile(durations, 0.5), p75: quantile(durations, 0.75), p90: quantile(durations, 0.9),
        p95: quantile(durations, 0.95), max: durations.length ? durations[durations.length - 1] : null,
        mean: durations.length ? durations.reduce((s, v) => s + v, 0) / durations.length : null,
      },
      ttfoP50: quantile(ttfo, 0.5),
      inFlight: pending,
      peakInFlight: peakInFlight(ended ? done : attempts, now),
      throughputPerMin: windowMs ? (done.length / windowMs) * 60_000 : null,
      tokensPerSecond: windowMs && outputTokens ? outputTokens / (windowMs / 1000) : null,
      successRate: done.length ? ok / done.length : null,
      errorRate: done.length ? failed / done.length : null,
      retryRate: attempts.length ? retries / attempts.length : null,
      postProcessing,
      statuses,
    };
  }
}

// Nearest-rank quantile of a sorted array.
export function quantile(sorted, q) {
  if (!sorted.length) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1];
}

function peakInFlight(attempts, now) {
  const points = [];
  for (const a of attempts) {
    if (!Number.isFinite(a.startedAt)) continue;
    const end = a.completed ? Date.parse(a.completed.finishedAt) : now;
    points.push([a.startedAt, 1], [Number.isFinite(end) ? end : now, -1]);
  }
  points.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let current = 0;
  let peak = 0;
  for (const [, delta] of points) {
    current += delta;
    peak = Math.max(peak, current);
  }
  return peak;
}
