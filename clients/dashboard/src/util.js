// Formatting and DOM helpers.

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

export function duration(s) {
  if (s == null || !isFinite(s) || s < 0) return "—";
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

// Elapsed and estimated remaining seconds of a job (clock skew: the server's timestamps are
// compared with the browser clock, corrected by the offset measured from the Date header).
export function jobTimes(job, skew = 0) {
  const now = Date.now() + skew;
  const start = job.started_at ? Date.parse(job.started_at) : null;
  const end = job.finished_at ? Date.parse(job.finished_at) : null;
  const elapsed = start ? ((end || now) - start) / 1000 : null;
  const p = job.progress ? job.progress.percent : 0;
  let eta = null;
  if (job.state === "running" && elapsed != null && p > 0.5) eta = (elapsed * (100 - p)) / p;
  if (job.state !== "running" && job.state !== "queued") eta = 0;
  return { elapsed, eta };
}

export function progressBar(percent, state) {
  const p = Math.max(0, Math.min(100, percent || 0));
  return el("div", { class: `bar state-${state}`, role: "progressbar", "aria-valuenow": p.toFixed(1) },
    el("div", { class: "fill", style: `width:${p}%` }),
    el("span", { class: "label" }, `${p.toFixed(1)}%`));
}

export function stateBadge(state, cancelRequested) {
  return el("span", { class: `state state-${state}` }, state + (cancelRequested && state === "running" ? " (cancelling)" : ""));
}

// Where a finished job's time went, from its timings (the solver's phases, seconds); the linear
// solver's preconditioner setups are a part of it, shown beside it.
export function phaseTimes(t) {
  const pc = t.preconditioner_setup != null && isFinite(t.preconditioner_setup)
    ? ` (preconditioner setup ${fmtNum(t.preconditioner_setup)} s)` : "";
  const phases = [["setup", t.setup], ["assembly", t.assembly], ["stress", t.stress_update],
    ["linear solver", t.linear_solver, pc], ["loads", t.loads], ["output", t.output]];
  return phases.filter(([, v]) => v != null && isFinite(v)).map(([k, v, more]) => `${k} ${fmtNum(v)} s${more || ""}`).join(" · ");
}

export function fmtNum(v, digits = 3) {
  if (v == null || !isFinite(v)) return "—";
  const a = Math.abs(v);
  return a !== 0 && (a >= 1e5 || a < 1e-3) ? v.toExponential(digits - 1) : String(+v.toPrecision(digits + 1));
}
