// Inline SVG charts (no library): stacked bars, horizontal bars, a line over epochs and an
// interval. Each chart is role="img" with a text summary, and comes with a data table.

import { h } from "./dom.js";

const NS = "http://www.w3.org/2000/svg";
export const COLORS = { correct: "#2e8b57", wrong: "#c0504d", noAnswer: "#9aa3ae", accent: "#1f5fbf", grid: "#d8dce2" };

export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === "text") el.textContent = value;
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat()) if (child) el.append(child);
  return el;
}

function frame(width, height, label) {
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label, preserveAspectRatio: "xMinYMin meet" }, svg("title", { text: label }));
}

// Vertical stacked bars: buckets [{label, correct, wrong, noAnswer}].
export function stackedBars(buckets, label) {
  const width = 520;
  const height = 230;
  const left = 40;
  const bottom = 40;
  const top = 12;
  const plotH = height - bottom - top;
  const max = Math.max(1, ...buckets.map((b) => b.correct + b.wrong + b.noAnswer));
  const slot = (width - left - 10) / Math.max(1, buckets.length);
  const bar = Math.min(56, slot * 0.7);
  const chart = frame(width, height, label);
  for (const tick of ticks(max)) {
    const y = top + plotH - (tick / max) * plotH;
    chart.append(svg("line", { x1: left, x2: width - 10, y1: y, y2: y, class: "axis" }), svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", text: String(tick) }));
  }
  buckets.forEach((b, i) => {
    const x = left + i * slot + (slot - bar) / 2;
    let y = top + plotH;
    for (const key of ["correct", "wrong", "noAnswer"]) {
      const value = b[key] || 0;
      if (!value) continue;
      const hgt = (value / max) * plotH;
      y -= hgt;
      chart.append(svg("rect", { x, y, width: bar, height: hgt, fill: COLORS[key] }, svg("title", { text: `${b.label}: ${value} ${key === "noAnswer" ? "no answer" : key}` })));
    }
    const total = b.correct + b.wrong + b.noAnswer;
    chart.append(svg("text", { x: x + bar / 2, y: Math.max(top + 10, y - 4), "text-anchor": "middle", text: String(total) }));
    chart.append(svg("text", { x: x + bar / 2, y: height - bottom + 16, "text-anchor": "middle", text: b.label }));
    if (b.accuracy !== null && b.accuracy !== undefined) {
      chart.append(svg("text", { x: x + bar / 2, y: height - bottom + 30, "text-anchor": "middle", fill: "#5a6270", text: `${(b.accuracy * 100).toFixed(0)}%` }));
    }
  });
  return chart;
}

// Horizontal bars: rows [{label, value, note}], value in [0, max].
export function horizontalBars(rows, label, { max = null, format = (v) => String(v), color = COLORS.accent } = {}) {
  const width = 520;
  const rowH = 24;
  const left = 210;
  const height = rows.length * rowH + 10;
  const top = Math.max(1e-9, max ?? Math.max(...rows.map((r) => r.value), 1));
  const chart = frame(width, height, label);
  rows.forEach((r, i) => {
    const y = 5 + i * rowH;
    const w = Math.max(0, ((r.value || 0) / top) * (width - left - 70));
    chart.append(
      svg("text", { x: left - 8, y: y + 15, "text-anchor": "end", text: r.label }),
      svg("rect", { x: left, y: y + 4, width: w, height: rowH - 8, fill: r.color || color, rx: 2 }, svg("title", { text: `${r.label}: ${format(r.value)}${r.note ? ` (${r.note})` : ""}` })),
      svg("text", { x: left + w + 6, y: y + 15, text: `${format(r.value)}${r.note ? ` · ${r.note}` : ""}` }),
    );
  });
  return chart;
}

// A line over points [{label, value}] with values in [0, 1].
export function lineChart(points, label) {
  const width = 520;
  const height = 210;
  const left = 44;
  const bottom = 34;
  const top = 14;
  const plotW = width - left - 20;
  const plotH = height - bottom - top;
  const chart = frame(width, height, label);
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    const y = top + plotH - tick * plotH;
    chart.append(svg("line", { x1: left, x2: width - 20, y1: y, y2: y, class: "axis" }), svg("text", { x: left - 6, y: y + 4, "text-anchor": "end", text: `${tick * 100}%` }));
  }
  const step = points.length > 1 ? plotW / (points.length - 1) : 0;
  const xy = points.map((p, i) => [left + (points.length > 1 ? i * step : plotW / 2), top + plotH - (p.value ?? 0) * plotH]);
  if (xy.length > 1) chart.append(svg("polyline", { points: xy.map(([x, y]) => `${x},${y}`).join(" "), fill: "none", stroke: COLORS.accent, "stroke-width": 2 }));
  points.forEach((p, i) => {
    const [x, y] = xy[i];
    chart.append(
      svg("circle", { cx: x, cy: y, r: 4, fill: COLORS.accent }, svg("title", { text: `${p.label}: ${p.value === null ? "–" : `${(p.value * 100).toFixed(1)}%`}` })),
      svg("text", { x, y: height - bottom + 16, "text-anchor": "middle", text: p.label }),
      svg("text", { x, y: y - 8, "text-anchor": "middle", text: p.value === null ? "–" : `${(p.value * 100).toFixed(1)}%` }),
    );
  });
  return chart;
}

// Accuracy with its 95% interval on a 0–100% scale.
export function intervalChart(accuracy, lower, upper, label) {
  const width = 520;
  const height = 70;
  const left = 20;
  const plotW = width - 40;
  const x = (v) => left + v * plotW;
  const chart = frame(width, height, label);
  chart.append(svg("line", { x1: left, x2: left + plotW, y1: 30, y2: 30, class: "axis", "stroke-width": 2 }));
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    chart.append(svg("line", { x1: x(tick), x2: x(tick), y1: 25, y2: 35, class: "axis" }), svg("text", { x: x(tick), y: 55, "text-anchor": "middle", text: `${tick * 100}%` }));
  }
  if (lower !== null && upper !== null && lower !== undefined && upper !== undefined) {
    chart.append(svg("rect", { x: x(lower), y: 22, width: Math.max(1, x(upper) - x(lower)), height: 16, fill: COLORS.accent, opacity: 0.25 }));
  }
  if (accuracy !== null && accuracy !== undefined) {
    chart.append(svg("circle", { cx: x(accuracy), cy: 30, r: 6, fill: COLORS.accent }), svg("text", { x: x(accuracy), y: 14, "text-anchor": "middle", text: `${(accuracy * 100).toFixed(1)}%` }));
  }
  return chart;
}

export function legend(...keys) {
  const names = { correct: "Correct", wrong: "Wrong", noanswer: "No answer", accuracy: "Accuracy" };
  return h("div", { class: "legend", "aria-hidden": "true" }, keys.map((k) => h("span", { class: k, text: names[k] })));
}

// A small data table under a chart (the chart's numbers for screen readers and copying).
export function dataTable(caption, headers, rows) {
  return h(
    "details",
    {},
    h("summary", { text: "Data" }),
    h("table", {}, h("caption", { class: "visually-hidden", text: caption }),
      h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col", text: x })))),
      h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", { text: c === null || c === undefined ? "–" : String(c) })))))),
  );
}

function ticks(max) {
  const step = max <= 5 ? 1 : Math.ceil(max / 4 / 5) * 5;
  const out = [];
  for (let v = 0; v <= max; v += step) out.push(v);
  return out;
}
