// kubedra web page: cluster view, step-through of scheduling decisions, editor, charts.
// Plain JS, no dependencies. The page opens on the cluster as it is now (live) and replays the
// scheduler's decisions on demand. It learns of changes by asking /api/changes every second:
// short requests, never a stream held open, so that the page is complete as soon as its first
// answers are in (a headless `chromium --screenshot --virtual-time-budget=...` waits for every
// open request, and a stream never ends).
"use strict";

const $ = (sel) => document.querySelector(sel);
const PHASES = ["request", "candidates", "bound"];
const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
const ui = { data: null, cursor: 0, timer: null, selector: null, explainFor: null, manifestTouched: false };
const POLL_MS = 1000, POLL_HIDDEN_MS = 5000;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function fmt(value) {
  const n = Number(value);
  if (!isFinite(n)) return "0";
  const units = [["Ti", 2 ** 40], ["Gi", 2 ** 30], ["Mi", 2 ** 20], ["Ki", 2 ** 10]];
  for (const [u, size] of units) if (Math.abs(n) >= size) return `${+(n / size).toFixed(1)}${u}`;
  return `${+n.toFixed(2)}`;
}

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const resp = await fetch(path, opts);
  let json;
  try { json = await resp.json(); } catch (e) { json = { error: `HTTP ${resp.status}` }; }
  return { status: resp.status, ok: resp.ok, json };
}

// ---- the state at the cursor --------------------------------------------------------------

function total() { return ui.data ? ui.data.steps.length * PHASES.length + 1 : 0; }
function isLive() { return ui.cursor >= total(); }

function position() {
  if (ui.cursor === 0 || isLive()) return null;
  const c = ui.cursor - 1;
  return { index: Math.floor(c / PHASES.length), phase: PHASES[c % PHASES.length] };
}

function snapshot() {
  const d = ui.data;
  const pos = position();
  const pods = new Map(d.pods.map((p) => [p.key, { ...p }]));
  const claims = new Map(d.claims.map((c) => [c.key, { ...c }]));
  if (isLive()) return { pods, claims, pos };
  const decided = new Set(d.steps.flatMap((s) => s.claims.filter((c) => c.chosen.length).map((c) => c.key)));
  const stepPods = new Set(d.steps.map((s) => s.pod));
  for (const key of decided) if (claims.has(key)) claims.set(key, { ...claims.get(key), results: [], state: "pending", reservedFor: [] });
  for (const key of stepPods) if (pods.has(key)) pods.set(key, { ...pods.get(key), node: null, phase: "Pending", message: null, waiting: true });
  const done = pos === null ? 0 : pos.index + (pos.phase === "bound" ? 1 : 0);
  for (let i = 0; i < done; i++) {
    const s = d.steps[i];
    const pod = pods.get(s.pod);
    if (pod) {
      pod.waiting = false;
      if (s.result === "Scheduled") Object.assign(pod, { node: s.node, phase: "Scheduled", message: null });
      else Object.assign(pod, { node: null, phase: "Pending", message: s.message || s.result });
    }
    for (const c of s.claims) {
      if (!c.chosen.length || !claims.has(c.key)) continue;
      claims.set(c.key, { ...claims.get(c.key), results: c.chosen, state: "reserved", reservedFor: [`pods/${s.pod}`] });
    }
  }
  return { pods, claims, pos };
}

// ---- rendering -----------------------------------------------------------------------------

function deviceUse(claims) {
  const use = new Map();
  for (const c of claims.values()) for (const r of c.results || []) {
    if (!use.has(r.device)) use.set(r.device, []);
    use.get(r.device).push({ claim: c.key, consumed: r.consumed || {} });
  }
  return use;
}

function verdictsFor(pos) {
  if (!pos || pos.phase === "request") return null;
  const step = ui.data.steps[pos.index];
  const out = new Map();
  for (const c of step.claims) {
    for (const r of c.requests) {
      const keyOf = (i) => (ui.data.devices[i] || {}).key;
      for (const i of r.candidates) out.set(keyOf(i), { ok: true, why: `candidate for ${c.key} request ${r.name}` });
      for (const group of r.rejected) for (const key of group.devices.map(keyOf)) {
        if (!out.has(key)) out.set(key, { ok: false, why: `rejected for ${c.key} request ${r.name}: ${group.reason}` });
      }
    }
    if (pos.phase === "bound") for (const ch of c.chosen) out.set(ch.device, { ok: true, chosen: true, why: `chosen for ${c.key} request ${ch.request}` });
  }
  return out;
}

// What is left of each shared counter once the allocated devices took theirs, by
// "driver|pool|counterSet|counter": a partition that needs more than is left is not free.
function countersLeft(use) {
  const left = new Map();
  for (const s of ui.data.counterSets) for (const [name, cap] of Object.entries(s.counters)) {
    left.set(`${s.driver}|${s.pool}|${s.name}|${name}`, cap);
  }
  for (const dev of ui.data.devices) {
    if (!use.has(dev.key)) continue;
    for (const [set, counters] of Object.entries(dev.consumesCounters)) for (const [name, value] of Object.entries(counters)) {
      const key = `${dev.driver}|${dev.pool}|${set}|${name}`;
      if (left.has(key)) left.set(key, left.get(key) - value);
    }
  }
  return left;
}

// Why a device that nobody holds cannot be allocated now (null: it can): its partitions'
// shared counters are used up by the devices allocated from the same counter set.
function blockedBy(dev, left) {
  for (const [set, counters] of Object.entries(dev.consumesCounters)) for (const [name, value] of Object.entries(counters)) {
    const remaining = left.get(`${dev.driver}|${dev.pool}|${set}|${name}`);
    if (remaining !== undefined && value > remaining + 1e-9) {
      return `counter ${set}/${name}: needs ${fmt(value)}, ${fmt(Math.max(0, remaining))} left`;
    }
  }
  return null;
}

function slot(dev, use, verdicts, left) {
  const users = use.get(dev.key) || [];
  const v = verdicts ? verdicts.get(dev.key) : null;
  const classes = ["slot"];
  let label = "free";
  const blocked = users.length ? null : blockedBy(dev, left);
  if (blocked) { classes.push("exhausted"); label = "unavailable"; }
  if (users.length) { classes.push("bound"); label = dev.multiAllocatable ? `shared by ${users.length}` : "bound"; }
  if (v) {
    if (v.chosen) { classes.push("chosen"); label = "chosen"; }
    else if (v.ok) { classes.push("candidate"); label = users.length ? "candidate (in use)" : "candidate"; }
    else { classes.push("rejected"); label = "rejected"; }
  }
  if (ui.selector && ui.selector.has(dev.key)) classes.push("match");
  const title = [
    `${dev.driver} / pool ${dev.pool} / ${dev.name}`,
    ...Object.entries(dev.attributes).map(([k, a]) => `${k}: ${a}`),
    ...Object.entries(dev.capacity).map(([k, c]) => `capacity ${k}: ${c}`),
    users.length ? `allocated to ${users.map((u) => u.claim).join(", ")}` : "not allocated",
    blocked ? `unavailable: ${blocked}` : null,
    v ? v.why : null,
  ].filter(Boolean).join("\n");
  const bars = [];
  if (dev.multiAllocatable) {
    for (const [name, cap] of Object.entries(dev.capacityNumbers)) {
      const used = users.reduce((sum, u) => sum + (u.consumed[name] || 0), 0);
      bars.push(gauge(`${name} shared`, used, cap, "shared"));
    }
  }
  return el("div", { class: classes.join(" "), "data-device": dev.name, "data-key": dev.key, title, tabindex: 0 },
    el("div", { class: "slot-head" }, el("strong", { text: dev.name }), el("span", { class: "badge", text: label })),
    el("div", { class: "meta", text: `${dev.driver} · ${dev.pool}` }),
    el("dl", {}, Object.entries(dev.keyAttributes).map(([k, a]) => [el("dt", { text: k }), el("dd", { text: a })]),
      Object.entries(dev.capacity).map(([k, c]) => [el("dt", { text: k }), el("dd", { class: "cap", text: c })])),
    users.length ? el("div", { class: "owner", text: `→ ${users.map((u) => u.claim.split("/")[1]).join(", ")}` }) : null,
    bars,
    blocked && !(v && !v.ok) ? el("div", { class: "why", text: blocked }) : null,
    v && !v.ok ? el("div", { class: "why", text: v.why.replace(/^rejected for [^:]*: /, "") }) : null);
}

function gauge(label, used, cap, kind) {
  const pct = cap > 0 ? Math.min(100, (100 * used) / cap) : 0;
  return el("div", { class: `gauge ${kind}`, role: "meter", "aria-valuenow": Math.round(pct), "aria-valuemin": 0, "aria-valuemax": 100, "aria-label": label },
    el("div", { class: "gauge-label", text: `${label}: ${fmt(used)} of ${fmt(cap)} used` }),
    el("div", { class: "gauge-track" }, el("div", { class: "gauge-fill", style: `width:${pct}%` })));
}

function counterGauges(pool, driver, use) {
  const sets = ui.data.counterSets.filter((s) => s.pool === pool && s.driver === driver);
  return sets.flatMap((s) => Object.entries(s.counters).map(([name, cap]) => {
    let used = 0;
    for (const dev of ui.data.devices) {
      if (dev.pool !== pool || dev.driver !== driver || !use.has(dev.key)) continue;
      used += (dev.consumesCounters[s.name] || {})[name] || 0;
    }
    return gauge(`counter ${s.name}/${name}`, used, cap, "counter");
  }));
}

function podChip(pod, snap) {
  const state = pod.node ? (pod.phase === "Running" ? "running" : "scheduled") : (pod.waiting ? "waiting" : "pending");
  const text = { running: "Running", scheduled: "Scheduled", waiting: "Queued", pending: "Pending" }[state];
  const current = snap.pos && ui.data.steps[snap.pos.index].pod === pod.key;
  return el("button", {
    class: `pod ${state}${current ? " current" : ""}`, "data-pod": pod.key, "data-state": state,
    title: pod.message || `${pod.key}: ${text}${pod.node ? " on " + pod.node : ""}`,
    onclick: () => showExplain(pod.key),
  }, el("span", { class: "pod-name", text: pod.name }), el("span", { class: "badge", text: text }),
  pod.claims.length ? el("span", { class: "pod-claims", text: pod.claims.map((c) => c.split("/")[1]).join(", ") }) : null);
}

function claimChip(claim, snap) {
  const text = { pending: "Pending", allocated: "Allocated", reserved: "Reserved" }[claim.state] || claim.state;
  const current = snap.pos && ui.data.steps[snap.pos.index].claims.some((c) => c.key === claim.key);
  const devices = (claim.results || []).map((r) => r.device.split("/").pop());
  const wants = claim.requests.map((r) => `${r.count || 1}× ${r.deviceClassName || r.firstAvailable.join(" | ")}`).join(", ");
  return el("div", {
    class: `claim ${claim.state}${current ? " current" : ""}`, "data-claim": claim.key, "data-state": claim.state,
    title: [`${claim.key}: ${text}`, ...claim.requests.flatMap((r) => r.selectors)].join("\n"),
  }, el("span", { class: "pod-name", text: claim.name }), el("span", { class: "badge", text: text }),
  el("span", { class: "pod-claims", text: devices.length ? `→ ${devices.join(", ")}` : wants }));
}

function renderPools(devs, use, verdicts, left) {
  const pools = new Map();
  for (const d of devs) {
    const key = `${d.driver}|${d.pool}`;
    if (!pools.has(key)) pools.set(key, []);
    pools.get(key).push(d);
  }
  return [...pools.entries()].map(([key, list]) => {
    const [driver, pool] = key.split("|");
    return el("div", { class: "pool", "data-pool": pool },
      el("div", { class: "pool-head", text: `pool ${pool} · ${driver}` }),
      counterGauges(pool, driver, use),
      el("div", { class: "slots" }, list.map((d) => slot(d, use, verdicts, left))));
  });
}

function render() {
  const d = ui.data;
  if (!d) return;
  const before = reduced.matches ? null : rects();
  const snap = snapshot();
  const use = deviceUse(snap.claims);
  const verdicts = verdictsFor(snap.pos);
  const left = countersLeft(use);
  const pods = [...snap.pods.values()];
  $("#pending").replaceChildren(...pods.filter((p) => !p.node).map((p) => podChip(p, snap)));
  $("#pending-lane").classList.toggle("empty", !pods.some((p) => !p.node));
  const claims = [...snap.claims.values()];
  $("#claims").replaceChildren(...claims.map((c) => claimChip(c, snap)));
  $("#claims-lane").classList.toggle("empty", !claims.length);
  $("#nodes").replaceChildren(...d.nodes.map((n) => {
    const devs = d.devices.filter((x) => x.node === n.name);
    const here = pods.filter((p) => p.node === n.name);
    return el("section", { class: "node", "data-node": n.name },
      el("h3", {}, n.name, el("span", { class: "meta", text: ` ${n.labels["topology.kubernetes.io/zone"] || ""} · cpu ${n.capacity.cpu || "?"} · mem ${n.capacity.memory || "?"}` })),
      devs.length ? renderPools(devs, use, verdicts, left) : el("div", { class: "muted", text: "no devices" }),
      el("div", { class: "pods" }, here.map((p) => podChip(p, snap))));
  }));
  const net = d.devices.filter((x) => x.networkAttached);
  $("#network").replaceChildren(...(net.length ? [el("section", { class: "node network", "data-node": "" },
    el("h3", { text: "Network-attached pools" }), renderPools(net, use, verdicts, left))] : []));
  renderDecision(snap.pos);
  renderCharts(use);
  renderInfo(snap.pos);
  if (before) animate(before);
}

function renderInfo(pos) {
  const n = ui.data.steps.length;
  let text;
  if (isLive()) text = n ? `live · ${n} decision${n === 1 ? "" : "s"} to replay` : "live · no decisions yet";
  else if (!pos) text = `before decision 1 of ${n}`;
  else {
    const s = ui.data.steps[pos.index];
    text = `decision ${pos.index + 1} of ${n} · ${s.pod} · ${pos.phase}`;
  }
  $("#stepinfo").textContent = text;
  $("#live").classList.toggle("on", isLive());
}

function renderDecision(pos) {
  const body = $("#decision-body");
  if (!pos) {
    body.replaceChildren(el("p", { class: "muted", text: isLive() ? "The cluster as it is now. Step or Play replays the scheduler's decisions from the start." : "Press Step or Play to walk through the scheduler's decisions." }));
    return;
  }
  const s = ui.data.steps[pos.index];
  const asks = s.claims.some((c) => c.requests.length);
  const parts = [el("p", {}, el("strong", { text: s.pod }), asks ? " asks for:" : " asks for no devices (node resources only)")];
  for (const c of s.claims) for (const r of c.requests) {
    const cands = r.candidates.length;
    parts.push(el("div", { class: "request" },
      el("div", {}, el("code", { text: `${c.key.split("/")[1]} · ${r.name}` }), ` ${r.count || 1}× ${r.deviceClassName || ""}`),
      r.selectors.map((x) => el("code", { class: "sel", text: x })),
      pos.phase !== "request" ? el("div", { class: "muted", text: `${cands} candidate device${cands === 1 ? "" : "s"} of ${r.devices}` }) : null));
  }
  if (pos.phase !== "request") {
    const rejected = Object.entries(s.filterReasons);
    if (rejected.length) parts.push(el("ul", { class: "reasons" }, rejected.map(([n, why]) => el("li", {}, el("strong", { text: n }), `: ${why}`))));
  }
  if (pos.phase === "bound") {
    const chosen = s.claims.flatMap((c) => c.chosen.map((ch) => `${ch.device.split("/").pop()} → ${c.key.split("/")[1]}`));
    parts.push(el("p", { class: `result ${s.result}` }, s.result === "Scheduled" ? `bound to ${s.node}` : s.result,
      chosen.length ? ` · ${chosen.join(", ")}` : "", s.message ? el("div", { class: "muted", text: s.message }) : null));
    if (s.result !== "Scheduled" && ui.explainFor !== s.pod) showExplain(s.pod);
  }
  // an open Explain panel follows the pod of the decision in view
  if (!$("#explain").hidden && ui.explainFor !== s.pod) showExplain(s.pod);
  body.replaceChildren(...parts);
}

function rects() {
  const out = new Map();
  document.querySelectorAll(".pod[data-pod]").forEach((p) => out.set(p.dataset.pod, p.getBoundingClientRect()));
  return out;
}

function animate(before) {
  document.querySelectorAll(".pod[data-pod]").forEach((p) => {
    const old = before.get(p.dataset.pod);
    if (!old) return;
    const now = p.getBoundingClientRect();
    const dx = old.left - now.left, dy = old.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
    p.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: 450, easing: "ease-in-out" });
  });
}

// ---- charts (SVG, drawn here) ---------------------------------------------------------------

// Drawn at the width of its box in CSS pixels (never scaled), so that its text is the page's
// size at every window width; redrawn when the box changes width.
const measure = document.createElement("canvas").getContext("2d");

// Text width in the charts' label font, to size the label and value columns to their text.
function textWidth(text) {
  measure.font = `11px ${getComputedStyle(document.body).fontFamily}`;
  return measure.measureText(text).width;
}

// The label cut with an ellipsis to fit ``room`` pixels (the whole text stays in its tooltip).
function fitted(label, room) {
  if (textWidth(label) <= room) return label;
  let cut = label;
  while (cut.length > 1 && textWidth(cut + "…") > room) cut = cut.slice(0, -1);
  return cut + "…";
}

// Labels that fit beside their bars go there; when one would not, every label goes on a line
// of its own above its bar, so that none is cut.
function barChart(title, rows, width, empty, labelMin = 0) {
  const w = Math.max(260, Math.floor(width || 320));
  const values = rows.map((r) => r.text || `${r.used}/${r.total}`);
  const valueW = Math.ceil(Math.max(24, ...values.map(textWidth))) + 10;
  const widest = Math.max(40, labelMin, ...rows.map((r) => textWidth(r.label))) + 10;
  const stacked = widest > w * 0.42;
  const labelW = stacked ? 0 : Math.ceil(widest);
  const rowH = stacked ? 34 : 22, top = stacked ? 14 : 0;
  const h = Math.max(1, rows.length) * rowH + 24;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("width", w);
  svg.setAttribute("height", h);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  const add = (tag, attrs, text) => {
    const n = document.createElementNS(svg.namespaceURI, tag);
    for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
    if (text !== undefined) n.textContent = text;
    svg.append(n);
    return n;
  };
  add("text", { x: 0, y: 14, class: "chart-title" }, title);
  if (!rows.length) add("text", { x: 0, y: 36, class: "chart-label" }, empty || "nothing to show");
  rows.forEach((r, i) => {
    const y = 22 + i * rowH, bw = w - labelW - valueW;
    const frac = r.total > 0 ? Math.min(1, r.used / r.total) : 0;
    const label = add("text", { x: 0, y: y + 14, class: "chart-label" }, fitted(r.label, stacked ? w : labelW - 8));
    label.append(Object.assign(document.createElementNS(svg.namespaceURI, "title"), { textContent: r.label }));
    add("rect", { x: labelW, y: y + top + 3, width: bw, height: 14, class: "chart-free", rx: 3 });
    add("rect", { x: labelW, y: y + top + 3, width: Math.max(0, bw * frac), height: 14, class: "chart-used", rx: 3 });
    add("text", { x: labelW + bw + 6, y: y + top + 14, class: "chart-value" }, values[i]);
  });
  return svg;
}

function renderCharts(use) {
  const d = ui.data;
  const byNode = d.nodes.map((n) => {
    const devs = d.devices.filter((x) => x.node === n.name);
    return { label: n.name, used: devs.filter((x) => use.has(x.key)).length, total: devs.length };
  }).filter((row) => row.total > 0); // a node without devices of its own has nothing to show
  const net = d.devices.filter((x) => x.networkAttached);
  if (net.length) byNode.push({ label: "network", used: net.filter((x) => use.has(x.key)).length, total: net.length });
  const byClass = d.deviceClasses.map((c) => {
    const devs = d.devices.filter((x) => x.classes.includes(c));
    return { label: c, used: devs.filter((x) => use.has(x.key)).length, total: devs.length };
  });
  const caps = new Map();
  // Partitions share their physical device's counters: count those once, not each partition.
  const left = countersLeft(use);
  for (const s of d.counterSets) for (const [name, cap] of Object.entries(s.counters)) {
    const free = Math.max(0, left.get(`${s.driver}|${s.pool}|${s.name}|${name}`));
    const where = s.node ? "" : ", network";
    const label = `${name} (${s.name}${where})`;
    caps.set(`counter|${s.driver}|${s.pool}|${s.name}|${name}`, { label, used: cap - free, total: cap });
  }
  // Capacity per name, network-attached pools on rows of their own (no node holds them).
  for (const dev of d.devices) for (const [name, cap] of Object.entries(dev.capacityNumbers)) {
    if (Object.keys(dev.consumesCounters).length) continue;
    const users = use.get(dev.key) || [];
    const used = dev.multiAllocatable ? users.reduce((s, u) => s + (u.consumed[name] || 0), 0) : (users.length ? cap : 0);
    const key = `${dev.networkAttached ? "network" : "node"}|${name}`;
    const row = caps.get(key) || { label: name + (dev.networkAttached ? " (network)" : ""), used: 0, total: 0 };
    row.used += Math.min(used, cap); row.total += cap; caps.set(key, row);
  }
  const capRows = [...caps.values()].map((r) => ({ ...r, text: `${fmt(r.used)} used · ${fmt(Math.max(0, r.total - r.used))} free` }));
  const pools = poolStatusRows(d.poolStatus || []);
  const width = $("#charts").clientWidth - 26; // the card's padding and border
  ui.chartWidth = width;
  // one label column for the charts whose labels fit beside their bars, so that bars line up
  const side = [byNode, byClass, capRows, pools.parts, pools.shares].flatMap((rows) => rows.map((r) => textWidth(r.label))).filter((x) => x + 10 <= width * 0.42);
  const labelMin = Math.max(0, ...side);
  $("#chart-nodes").replaceChildren(barChart("Devices in use per node", byNode, width, "no node has devices of its own", labelMin));
  $("#chart-classes").replaceChildren(barChart("Devices in use per device class", byClass, width, undefined, labelMin));
  $("#chart-capacity").replaceChildren(barChart("Capacity used vs free", capRows, width, "no device declares capacity", labelMin));
  // What a ResourcePoolStatusRequest reports is computed by the server at the live state only,
  // so the titles say so while the step-through shows an earlier step.
  const when = isLive() ? "" : " (live state)";
  const poolCharts = [];
  if (pools.parts.length) poolCharts.push(barChart(`Partitions not allocatable per type${when}`, pools.parts, width, undefined, labelMin));
  if (pools.shares.length) poolCharts.push(barChart(`Shareable capacity consumed${when}`, pools.shares, width, undefined, labelMin));
  $("#chart-pools").replaceChildren(...poolCharts, ...pools.notes);
}

// What a ResourcePoolStatusRequest reports per pool (KEP-5677), as chart rows: partitions not
// allocatable per type, shareable capacity consumed, and the pools' validation errors.
function poolStatusRows(statuses) {
  const parts = [], shares = [], notes = [];
  for (const s of statuses) {
    const pool = s.poolName;
    for (const p of s.partitionSummary || []) {
      parts.push({ label: `${pool} ${p.type}`, used: p.total - p.allocatable, total: p.total, text: `${p.allocatable}/${p.total} left` });
    }
    for (const c of (s.shareableSummary || {}).capacity || []) {
      shares.push({ label: `${pool} ${c.name}`, used: c.consumedNumber, total: c.totalNumber, text: `${c.consumed} / ${c.total}` });
    }
    if (s.validationError) notes.push(el("p", { class: "muted pool-status-error", text: `${s.driver}/${pool}: ${s.validationError}` }));
  }
  return { parts, shares, notes };
}

new ResizeObserver(() => {
  if (ui.data && Math.abs(($("#charts").clientWidth - 26) - (ui.chartWidth || 0)) >= 1) render();
}).observe($("#charts"));

// ---- step-through ---------------------------------------------------------------------------

function go(cursor) { ui.cursor = Math.max(0, Math.min(total(), cursor)); render(); }
function stop() { if (ui.timer) clearInterval(ui.timer); ui.timer = null; $("#play").textContent = "▶ Play"; $("#play").setAttribute("aria-pressed", "false"); }
function play() {
  if (isLive()) go(0);
  $("#play").textContent = "❚❚ Pause"; $("#play").setAttribute("aria-pressed", "true");
  ui.timer = setInterval(() => { go(ui.cursor + 1); if (isLive()) stop(); }, reduced.matches ? 250 : 800);
}

$("#reset").onclick = () => { stop(); go(0); };
$("#step").onclick = () => { stop(); go(isLive() ? 1 : ui.cursor + 1); }; // from live: replay from the start
$("#live").onclick = () => { stop(); go(total()); };
$("#play").onclick = () => (ui.timer ? stop() : play());

// ---- explain --------------------------------------------------------------------------------

async function showExplain(key) {
  const [ns, name] = key.split("/");
  ui.explainFor = key;
  const box = $("#explain-body");
  $("#explain").hidden = false;
  $("#explain").dataset.pod = key;
  box.replaceChildren(el("p", {}, el("strong", { text: key })), el("p", { class: "muted", text: "asking the scheduler..." }));
  const r = await api(`/api/explain/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`);
  if (ui.explainFor !== key) return; // another pod was chosen meanwhile: its answer wins
  if (!r.ok) { box.replaceChildren(el("p", {}, el("strong", { text: key })), el("p", { class: "error", text: r.json.error })); return; }
  box.replaceChildren(el("p", {}, el("strong", { text: key })), el("ul", {}, (r.json.summary || []).map((s) => el("li", { text: s }))));
}
$("#explain-close").onclick = () => { $("#explain").hidden = true; ui.explainFor = null; };

// ---- editor ---------------------------------------------------------------------------------

function showProblems(target, json, okText) {
  if (json.ok) { target.replaceChildren(el("p", { class: "ok", text: okText })); return; }
  const errs = json.errors && json.errors.length ? json.errors : [{ message: json.error }];
  target.replaceChildren(el("ul", { class: "errors", role: "alert" }, errs.map((e) => el("li", {},
    e.object ? el("strong", { text: e.object + " " }) : null, e.field ? el("code", { text: e.field }) : null,
    e.field ? ": " : "", e.message))));
}

let validateTimer = null;
$("#manifest").addEventListener("input", () => {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(checkManifest, 400);
});
async function checkManifest() {
  const r = await api("/api/validate", { manifest: $("#manifest").value });
  showProblems($("#editor-result"), r.json, `valid: ${(r.json.objects || []).join(", ")}`);
}
$("#validate").onclick = checkManifest;
$("#apply").onclick = async () => {
  const from = ui.data ? ui.data.steps.length : 0;
  const r = await api("/api/apply", { manifest: $("#manifest").value });
  showProblems($("#editor-result"), r.json, `created: ${(r.json.created || []).join(", ")}`);
  if (r.ok) await refresh(from);
};

let selTimer = null;
$("#selector").addEventListener("input", () => { clearTimeout(selTimer); selTimer = setTimeout(checkSelector, 200); });
async function checkSelector() {
  const expr = $("#selector").value;
  const errBox = $("#selector-error");
  if (!expr.trim()) { ui.selector = null; errBox.hidden = true; $("#selector-info").textContent = ""; render(); return; }
  const r = await api("/api/selector", { expression: expr });
  if (expr !== $("#selector").value) return;
  if (!r.ok || !r.json.ok) {
    ui.selector = new Set();
    errBox.hidden = false;
    showSelectorError(errBox, expr, r.json);
    $("#selector-info").textContent = "";
  } else {
    ui.selector = new Set(r.json.matches);
    errBox.hidden = true;
    const n = r.json.matches.length;
    $("#selector-info").textContent = `${n} device${n === 1 ? "" : "s"} match` + (Object.keys(r.json.errors).length ? `, ${Object.keys(r.json.errors).length} with evaluation errors` : "");
  }
  render();
}

// The line of the expression the error is on, kept on one line (the box scrolls sideways
// rather than wrapping, so the caret stays under its column), the character marked as well.
function showSelectorError(box, expr, j) {
  if (!j.column) { box.replaceChildren(el("code", { text: j.error || "invalid selector" })); return; }
  const lines = expr.split("\n");
  const lineNo = Math.min(Math.max(1, j.line || 1), lines.length);
  const line = lines[lineNo - 1];
  const at = Math.min(j.column - 1, line.length);
  const where = lines.length > 1 ? `line ${lineNo}, column ${j.column}` : `column ${j.column}`;
  box.replaceChildren(
    el("div", { class: "cel-line" }, line.slice(0, at), el("mark", { class: "cel-at", text: line.slice(at, at + 1) || " " }), line.slice(at + 1)),
    el("div", { class: "cel-line" }, " ".repeat(at) + "^ " + where),
    // CEL's own message echoes the expression and a caret (" | ..." lines): drawn above instead
    el("div", { class: "cel-message", text: (j.error || "").split("\n").filter((l) => !l.startsWith(" | ")).join("\n") }));
  const mark = box.querySelector(".cel-at");
  box.scrollLeft = Math.max(0, mark.offsetLeft - box.clientWidth / 2);
}

function yamlString(s) { return JSON.stringify(s); }
$("#f-fill").onclick = () => {
  const n = (ui.data ? ui.data.pods.length : 0) + 1;
  const cls = $("#f-class").value || "my-device-class", count = $("#f-count").value || "1", sel = $("#selector").value.trim();
  const ns = ui.data ? ui.data.namespace : "default";
  $("#manifest").value = [
    "apiVersion: resource.k8s.io/v1", "kind: ResourceClaim", "metadata:", `  name: my-claim-${n}`, `  namespace: ${ns}`,
    "spec:", "  devices:", "    requests:", "    - name: dev", "      exactly:", `        deviceClassName: ${cls}`, `        count: ${count}`,
    ...(sel ? ["        selectors:", "        - cel:", `            expression: ${yamlString(sel)}`] : []),
    "---", "apiVersion: v1", "kind: Pod", "metadata:", `  name: my-pod-${n}`, `  namespace: ${ns}`, "spec:",
    "  resourceClaims:", "  - name: dev", `    resourceClaimName: my-claim-${n}`, "  containers:", "  - name: app",
    "    image: registry.example.com/app:1.0", "    resources:", "      claims:", "      - name: dev", "",
  ].join("\n");
  checkManifest();
};

// ---- data and live updates ------------------------------------------------------------------

// The editor's first text: a claim of this cluster's first DeviceClass with a mistake to fix.
function starterManifest(cls) {
  return [
    "# A claim with a mistake: request names are lowercase. Press Check, fix it, then Create.",
    "apiVersion: resource.k8s.io/v1", "kind: ResourceClaim", "metadata:", "  name: extra-device", "spec:", "  devices:",
    "    requests:", "    - name: Big_Device", "      exactly:", `        deviceClassName: ${cls || "my-device-class"}`, "",
  ].join("\n");
}

// A selector example that fits this cluster: a capacity of its first device, else its driver.
function selectorExample() {
  const dev = ui.data.devices[0];
  if (!dev) return 'device.driver == "example.com"';
  const [name, value] = Object.entries(dev.capacity)[0] || [];
  if (name) return `device.capacity[${JSON.stringify(dev.driver)}].${name}.compareTo(quantity(${JSON.stringify(value)})) >= 0`;
  return `device.driver == ${JSON.stringify(dev.driver)}`;
}

function showClasses(old) {
  const classes = $("#f-class");
  if (old && old.deviceClasses.join() === ui.data.deviceClasses.join()) return;
  const chosen = classes.value;
  classes.replaceChildren(...ui.data.deviceClasses.map((c) => el("option", { value: c, text: c })));
  if (!ui.data.deviceClasses.length) classes.append(el("option", { value: "", text: "(no DeviceClass in this cluster)" }));
  if (ui.data.deviceClasses.includes(chosen)) classes.value = chosen;
  if (!old) {
    $("#selector").placeholder = selectorExample();
    if (!ui.manifestTouched) $("#manifest").value = starterManifest(ui.data.deviceClasses[0]);
  }
}

async function refresh(animateFrom) {
  const wasLive = !ui.data || isLive();
  const r = await api("/api/state");
  if (!r.ok) { setConn(false, r.json.error); return; }
  const old = ui.data;
  ui.data = r.json;
  ui.version = r.json.resourceVersion;
  showClasses(old);
  if (!old) { ui.cursor = total(); render(); return; } // open on the cluster as it is now
  if (animateFrom !== undefined || wasLive) {
    const from = animateFrom !== undefined ? animateFrom : old.steps.length;
    if (from < ui.data.steps.length) { stop(); ui.cursor = from * PHASES.length; render(); play(); return; }
    ui.cursor = total();
  }
  render();
}

function setConn(up, why) {
  $("#conn").textContent = up ? "● live" : `reconnecting${why ? ": " + why : ""}`;
  $("#conn").className = `conn ${up ? "up" : "down"}`;
}

// Ask for the cluster's resourceVersion; refresh when it moved (not during Play: then after).
async function poll() {
  try {
    const resp = await fetch("/api/changes", { cache: "no-store" });
    if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
    const j = await resp.json();
    setConn(true);
    if (ui.data && j.resourceVersion !== ui.version) {
      if (!ui.timer) await refresh(); else ui.pendingRefresh = true;
    }
  } catch (e) {
    setConn(false);
  }
  setTimeout(poll, document.hidden ? POLL_HIDDEN_MS : POLL_MS);
}

setInterval(() => { if (ui.pendingRefresh && !ui.timer) { ui.pendingRefresh = false; refresh(); } }, 300);
$("#k8s-url").textContent = `${location.origin}/k8s`;
$("#manifest").addEventListener("input", () => { ui.manifestTouched = true; });
refresh().then(poll);
