// GPQA analytics from GET /runs/{id}/gpqa-report (`analytics`): accuracy with its 95%
// interval, latency vs correctness, epoch consistency, response-quality diagnostics, response
// and reasoning length buckets, the 20 hardest questions and per-epoch trends.

import { COLORS, dataTable, horizontalBars, intervalChart, legend, lineChart, stackedBars } from "./charts.js";
import { clear, fmt, h } from "./dom.js";

function chartCard(title, ...content) {
  return h("figure", { class: "chart" }, h("h4", { text: title }), ...content);
}

function bucketTable(caption, buckets) {
  return dataTable(caption, ["Bucket", "Evaluations", "Correct", "Wrong", "No answer", "Accuracy"],
    buckets.map((b) => [b.label, b.count, b.correct, b.wrong, b.noAnswer, fmt.pct(b.accuracy)]));
}

export function renderAnalytics(container, report) {
  clear(container);
  const a = report.analytics || {};
  const interval = report.accuracyInterval95;
  const summary = `Accuracy ${fmt.pct(report.accuracy)}${interval ? ` (95% interval ${fmt.pct(interval.lower)}–${fmt.pct(interval.upper)}, ${interval.method})` : ""} over ${fmt.num(report.totalQuestions)} questions, ${fmt.num(report.evaluations)} evaluations`;
  container.append(
    chartCard("Accuracy with 95% interval",
      intervalChart(report.accuracy, interval?.lower, interval?.upper, summary),
      h("p", { class: "hint", text: summary })),
  );

  const latency = (a.latencyBuckets || []).filter((b) => b.count > 0);
  if (latency.length) {
    container.append(chartCard("Latency vs correctness",
      stackedBars(latency, "Scored evaluations by model latency, split by outcome"), legend("correct", "wrong", "noanswer"),
      bucketTable("Latency buckets", latency)));
  }

  const c = a.epochConsistency;
  if (c) {
    const rows = [
      { label: "Consistently correct", value: c.consistentlyCorrect, color: COLORS.correct },
      { label: "Consistently incorrect", value: c.consistentlyIncorrect, color: COLORS.wrong },
      { label: "Mixed or incomplete", value: c.mixedOrIncomplete },
      { label: "All skipped", value: c.allSkipped, color: COLORS.noAnswer },
      { label: "Single observation", value: c.singleObservation, color: COLORS.noAnswer },
    ];
    container.append(chartCard(`Epoch consistency (${fmt.num(c.questions)} questions)`,
      horizontalBars(rows, `How each question's epochs agree, ${c.questions} questions`, { max: Math.max(1, c.questions) }),
      dataTable("Epoch consistency", ["Category", "Questions"], rows.map((r) => [r.label, r.value]))));
  }

  const q = a.responseQuality;
  if (q) {
    const rows = Object.values(q.checks || {}).map((check) => ({ label: check.label, value: check.rate ?? 0, note: `${check.count}` }));
    container.append(chartCard(`Response-quality diagnostics (${fmt.num(q.evaluations)} scored)`,
      horizontalBars(rows, "Share of scored evaluations showing each response problem", { max: 1, format: (v) => fmt.pct(v), color: COLORS.wrong }),
      dataTable("Response quality", ["Check", "Evaluations", "Rate", "Examples"],
        Object.values(q.checks || {}).map((check) => [check.label, check.count, fmt.pct(check.rate), (check.examples || []).map((e) => `${e.sampleId}#${e.epoch}`).join(", ")]))));
  }

  for (const [key, title] of [["responseLengthBuckets", "Response length (characters)"], ["reasoningLengthBuckets", "Reasoning length (characters)"]]) {
    const buckets = a[key] || [];
    if (buckets.some((b) => b.count > 0)) {
      container.append(chartCard(title, stackedBars(buckets, `${title} by outcome`), legend("correct", "wrong", "noanswer"), bucketTable(title, buckets)));
    }
  }

  const trends = a.epochTrends || [];
  if (trends.length) {
    container.append(chartCard("Per-epoch trends",
      lineChart(trends.map((t) => ({ label: t.name, value: t.accuracy })), "Accuracy per epoch"), legend("accuracy"),
      dataTable("Per-epoch trends", ["Epoch", "Accuracy", "Scored", "Skipped", "No answer", "Avg latency", "Avg response chars", "Avg reasoning chars"],
        trends.map((t) => [t.name, fmt.pct(t.accuracy), t.scored, t.skipped, t.noAnswer, fmt.ms(t.averageLatencyMs),
          t.averageResponseChars === null ? null : Math.round(t.averageResponseChars), t.averageReasoningChars === null ? null : Math.round(t.averageReasoningChars)]))));
  }

  const hardest = a.hardestQuestions || [];
  if (hardest.length) {
    const rows = hardest.map((x) => ({ label: String(x.sampleId).slice(0, 28), value: x.accuracy ?? 0, note: `${x.correct}/${x.observations}` }));
    container.append(chartCard(`The ${hardest.length} hardest questions`,
      horizontalBars(rows, "Accuracy of the hardest questions", { max: 1, format: (v) => fmt.pct(v, 0) }),
      dataTable("Hardest questions", ["Sample", "Subdomain", "Accuracy", "Correct", "Wrong", "No answer", "Skipped", "Avg latency", "Answer", "Answers given", "Question"],
        hardest.map((x) => [x.sampleId, x.subdomain, fmt.pct(x.accuracy), x.correct, x.wrong, x.noAnswer, x.skipped, fmt.ms(x.averageLatencyMs),
          x.correctAnswer, Object.entries(x.answerDistribution || {}).map(([k, v]) => `${k}:${v}`).join(" "), (x.question || "").slice(0, 200)]))));
  }
}
