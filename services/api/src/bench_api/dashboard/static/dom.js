// Small DOM and formatting helpers. Text always goes in as text (never as HTML), so run
// data (model names, failure reasons, responses) cannot inject markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function $(id) {
  return document.getElementById(id);
}

export function debounce(fn, ms) {
  let timer = null;
  const wrapped = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  wrapped.cancel = () => clearTimeout(timer);
  return wrapped;
}

// Run `fn` at most once per `ms`, always once more after the last call.
export function throttle(fn, ms) {
  let timer = null;
  let pending = false;
  return () => {
    pending = true;
    if (timer) return;
    timer = setTimeout(function tick() {
      timer = null;
      if (!pending) return;
      pending = false;
      fn();
      timer = setTimeout(tick, ms);
    }, 0);
  };
}

export const fmt = {
  pct(value, digits = 1) {
    return value === null || value === undefined || Number.isNaN(value) ? "–" : `${(value * 100).toFixed(digits)}%`;
  },
  num(value) {
    return value === null || value === undefined ? "–" : Number(value).toLocaleString("en-US");
  },
  ms(value) {
    if (value === null || value === undefined || Number.isNaN(value)) return "–";
    if (value < 1000) return `${Math.round(value)} ms`;
    if (value < 60_000) return `${(value / 1000).toFixed(value < 10_000 ? 2 : 1)} s`;
    return fmt.duration(value);
  },
  duration(ms) {
    if (ms === null || ms === undefined || ms < 0) return "–";
    const s = Math.floor(ms / 1000);
    const hours = Math.floor(s / 3600);
    const minutes = Math.floor((s % 3600) / 60);
    const seconds = s % 60;
    if (hours) return `${hours}h ${String(minutes).padStart(2, "0")}m`;
    if (minutes) return `${minutes}m ${String(seconds).padStart(2, "0")}s`;
    return `${seconds}s`;
  },
  bytes(value) {
    if (value === null || value === undefined) return "–";
    if (value < 1024) return `${value} B`;
    if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KiB`;
    return `${(value / 1024 / 1024).toFixed(1)} MiB`;
  },
  date(iso) {
    if (!iso) return "–";
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return "–";
    return d.toLocaleString("en-GB", { year: "numeric", month: "short", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
  },
  time(iso) {
    if (!iso) return "–";
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? "–" : d.toLocaleTimeString("en-GB");
  },
  shortId(id) {
    return id ? String(id).slice(0, 8) : "–";
  },
  host(url) {
    try {
      return new URL(url).host;
    } catch {
      return url || "–";
    }
  },
};

let toastTimer = null;
export function toast(message) {
  const el = $("toast");
  el.textContent = message;
  el.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("show"), 3500);
}

export const FINAL = new Set(["succeeded", "failed", "cancelled"]);
export const ACTIVE = new Set(["queued", "running"]);
