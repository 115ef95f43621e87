// The job page: status and progress, cancel, downloads, convergence plot (residual per Newton
// iteration, log scale, with PCG iterations), load–displacement history, 3D deformed mesh
// coloured by von Mises stress or PEEQ (played frame by frame), and the event log. Live from the
// event stream. An explicit job (explicit.progress events, frames with energy) shows its time and
// time steps, and an energy plot in place of the convergence plot (explicit.js).
import { api, bytes, download, followEvents, text } from "./api.js";
import { EnergyHistory, explicitFacts, logExplicit, logFrame } from "./explicit.js";
import { drawPlot } from "./plot.js";
import { el, duration, fmtNum, jobTimes, phaseTimes, progressBar, stateBadge } from "./util.js";
import { colormap, MeshView, parseVtu } from "./view3d.js";

const ACTIVE = new Set(["queued", "running"]);
const FIELD_LABEL = { MISES: "von Mises stress", PEEQ: "equivalent plastic strain", "|U|": "displacement magnitude" };

function parseCsv(t) {
  const lines = t.split("\n").filter((l) => l.trim());
  if (!lines.length) return { names: [], cols: {} };
  const names = lines[0].split(",");
  const cols = Object.fromEntries(names.map((n) => [n, []]));
  for (const l of lines.slice(1)) l.split(",").forEach((v, i) => cols[names[i]] && cols[names[i]].push(v === "" ? NaN : +v));
  return { names, cols };
}

function throttle(fn, ms) {
  let t = null;
  let again = false;
  const run = () => {
    t = null;
    fn();
    if (again) { again = false; t = setTimeout(run, ms); }
  };
  return () => { if (t) again = true; else t = setTimeout(run, 0); };
}

export function jobPage(root, ctx, id) {
  const abort = new AbortController();
  const s = { job: null, conv: { x: [], res: [], pcg: [], gaps: [] }, incKey: "", k: 0, hist: null, incs: [], vtuN: null, follow: true, events: 0,
    explicit: false, xp: null, energy: new EnergyHistory(), playing: false };
  const $ = {};
  const msg = el("p", { id: "job-message", class: "muted" });
  $.state = el("span", { id: "job-state" });
  $.bar = el("div", { class: "job-progress" });
  $.facts = el("dl", { class: "facts" });
  $.cancel = el("button", { id: "cancel-btn", class: "danger", onclick: cancel }, "Cancel job");
  $.csv = el("button", { id: "download-csv", onclick: () => dl(`/v1/jobs/${id}/results/history.csv`, `${id}-history.csv`) }, "history.csv");
  $.summary = el("button", { id: "download-summary", onclick: () => dl(`/v1/jobs/${id}/results`, `${id}-summary.json`) }, "summary.json");
  $.vtu = el("button", { id: "download-vtu", onclick: () => s.vtuN && dl(`/v1/jobs/${id}/results/increments/${s.vtuN}/vtu`, `${id}-increment_${String(s.vtuN).padStart(4, "0")}.vtu`) }, "VTU");
  $.energyCsv = el("button", { id: "download-energy", hidden: true, onclick: () => dl(`/v1/jobs/${id}/results/energy.csv`, `${id}-energy.csv`) }, "energy.csv");
  $.conv = el("canvas", { id: "conv-plot", class: "plot" });
  $.energy = el("canvas", { id: "energy-plot", class: "plot" });
  $.energyNote = el("p", { id: "energy-note", class: "muted small" }, s.energy.note());
  $.ld = el("canvas", { id: "ld-plot", class: "plot" });
  $.ldx = el("select", { id: "ld-x", onchange: drawLd });
  $.ldy = el("select", { id: "ld-y", onchange: drawLd });
  $.ldAbs = el("input", { id: "ld-abs", type: "checkbox", checked: true, onchange: drawLd });
  $.view = el("div", { id: "view3d", class: "view3d" });
  $.field = el("select", { id: "field-select", onchange: () => { view.setField($.field.value); legend(); } });
  $.scale = el("input", { id: "scale-slider", type: "range", min: 0, max: 100, value: 20, oninput: scaleChanged });
  $.scaleLabel = el("span", { class: "mono", id: "scale-label" }, "");
  $.inc = el("input", { id: "increment-slider", type: "range", min: 1, max: 1, value: 1, oninput: incChanged });
  $.play = el("button", { id: "play-btn", onclick: play, title: "show the written increments one after the other" }, "▶ Play");
  $.incLabel = el("span", { class: "mono", id: "increment-label" }, "—");
  $.legend = el("div", { class: "legend", id: "legend" });
  $.viewMsg = el("div", { class: "overlay muted", id: "view3d-message" }, "waiting for the first converged increment…");
  $.log = el("ol", { id: "event-log", class: "log" });
  $.title = el("h1", {}, id);
  $.convCard = el("section", { class: "card" }, el("h2", {}, "Convergence"),
    el("p", { class: "muted small" }, "Residual per Newton iteration (log scale) and PCG iterations; one sawtooth per increment."), $.conv);
  $.energyCard = el("section", { class: "card", id: "energy-card", hidden: true }, el("h2", {}, "Energy"), $.energyNote, $.energy);

  root.replaceChildren(
    el("section", { class: "card head" },
      el("div", { class: "row" }, el("a", { href: "#/" }, "← Jobs"), $.title, $.state),
      $.bar, $.facts,
      el("div", { class: "row actions" }, $.cancel, el("span", { class: "muted" }, "Downloads:"), $.csv, $.energyCsv, $.vtu, $.summary),
      msg),
    el("div", { class: "grid" },
      $.convCard, $.energyCard,
      el("section", { class: "card view-card" },
        el("div", { class: "row" }, el("h2", {}, "Deformed mesh"), el("label", {}, "Colour ", $.field)),
        el("div", { class: "view-wrap" }, $.view, $.viewMsg, $.legend),
        el("div", { class: "row controls" },
          el("label", {}, "Deformation ×", $.scaleLabel, $.scale),
          el("label", {}, "Increment ", $.incLabel, $.inc), $.play)),
      el("section", { class: "card" },
        el("div", { class: "row" }, el("h2", {}, "Load–displacement"), el("label", {}, "x ", $.ldx), el("label", {}, "y ", $.ldy), el("label", {}, $.ldAbs, " |x|, |y|")), $.ld),
      el("section", { class: "card" }, el("h2", {}, "Events"), $.log)));

  const view = new MeshView($.view);
  let autoScale = 1;
  const drawConvT = throttle(drawConv, 250);
  const drawEnergyT = throttle(drawEnergy, 250);
  const refreshResultsT = throttle(refreshResults, 500);
  const refreshJobT = throttle(refreshJob, 300);
  const onResize = () => { drawConv(); drawLd(); drawEnergy(); };
  window.addEventListener("resize", onResize);

  function say(t, isError = false) {
    msg.textContent = t;
    msg.classList.toggle("error", isError);
  }

  async function dl(path, name) {
    try { await download(path, name); } catch (e) { if (!ctx.onAuthError(e)) say(`Download failed: ${e.message}`, true); }
  }

  async function cancel() {
    $.cancel.disabled = true;
    try {
      const j = await api(`/v1/jobs/${id}/cancel`, { method: "POST" });
      say(j.state === "cancelled" ? "Job cancelled." : "Cancel requested: the job stops at its next Newton iteration.");
      showJob(j);
    } catch (e) {
      if (!ctx.onAuthError(e)) say(`Cancel failed: ${e.message}`, true);
      $.cancel.disabled = false;
    }
  }

  function showJob(j) {
    s.job = j;
    const p = j.progress || {};
    const t = jobTimes(j, ctx.skew);
    $.title.textContent = j.title || j.id;
    $.state.replaceChildren(stateBadge(j.state, j.cancel_requested));
    $.bar.replaceChildren(progressBar(p.percent, j.state));
    const step = ["Step", p.step ? `${p.step} / ${p.n_steps}` : "—"];
    const solve = s.explicit
      ? [...explicitFacts(s.xp, j.state === "running"), ["Frames done", p.increments_completed]]
      : [["Increment", p.increment ?? "—"], ["Newton iteration", p.newton_iteration ?? "—"], ["Residual", fmtNum(p.residual)], ["Increments done", p.increments_completed]];
    const facts = [["Job", j.id], step, ...solve,
      ["Elapsed", duration(t.elapsed)], ["Remaining", ACTIVE.has(j.state) ? duration(t.eta) : "—"], ["Backend", j.backend || "—"]];
    if (j.timings && j.timings.total != null) facts.push(["Time by phase", phaseTimes(j.timings)]);
    if (j.error) facts.push(["Error", `${j.error.code}: ${j.error.message}`]);
    $.facts.replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
    $.cancel.disabled = !ACTIVE.has(j.state) || j.cancel_requested;
  }

  async function refreshJob() {
    try { showJob(await api(`/v1/jobs/${id}`)); } catch (e) { if (!ctx.onAuthError(e)) say(e.message, true); }
  }

  function logEvent(ev) {
    const d = ev.data || {};
    let detail = "";
    if (ev.type === "newton.iteration") {
      detail = `step ${d.step} inc ${d.increment} it ${d.iteration} residual ${fmtNum(d.residual)} pcg ${d.pcg_iterations}`;
      if (d.pcg_tolerance != null) detail += ` (to ${fmtNum(d.pcg_tolerance)})`;
    }
    else if (ev.type === "increment.converged" && d.energy) detail = logFrame(d);
    else if (ev.type === "increment.converged") detail = `#${d.n} (step ${d.step} inc ${d.increment}) ${d.newton_iterations} iterations, ${fmtNum(d.percent)}%`;
    else if (ev.type === "explicit.progress") detail = logExplicit(d);
    else detail = d.message || d.text || d.reason || (d.step ? `step ${d.step}` : "");
    const li = el("li", { class: `ev ev-${ev.type.replace(/\./g, "-")}` },
      el("span", { class: "muted mono" }, `${ev.seq} ${ev.time.slice(11, 19)}`), " ", el("b", {}, ev.type), " ", detail);
    const stick = $.log.scrollTop + $.log.clientHeight >= $.log.scrollHeight - 4;
    $.log.append(li);
    while ($.log.childElementCount > 500) $.log.firstElementChild.remove();
    if (stick) $.log.scrollTop = $.log.scrollHeight;
  }

  function onEvent(ev) {
    s.events++;
    logEvent(ev);
    const d = ev.data || {};
    if (ev.type === "newton.iteration") {
      const key = `${d.step}/${d.increment}`;
      s.conv.gaps.push(key !== s.incKey && s.conv.x.length > 0);
      s.incKey = key;
      s.conv.x.push(++s.k);
      s.conv.res.push(d.residual > 0 ? d.residual : null);
      s.conv.pcg.push(d.pcg_iterations ?? null);
      drawConvT();
    } else if (ev.type === "explicit.progress") {
      s.xp = d;
      markExplicit();
      refreshJobT();
    } else if (ev.type === "increment.converged" || ev.type.startsWith("job.")) {
      if (ev.type === "increment.converged") s.converged = Math.max(s.converged || 0, d.n || 0);
      if (ev.type === "job.restarted") s.energy.reset(); // an explicit run starts over: its frames again
      if (d.energy) {
        markExplicit();
        s.energy.add(d);
        drawEnergyT();
      }
      refreshResultsT();
      refreshJobT();
    } else if (ev.type === "increment.started" || ev.type === "step.started") {
      refreshJobT();
    }
  }

  function drawConv() {
    drawPlot($.conv, {
      xLabel: "Newton iteration (cumulative)", yLabel: "residual (relative)", y2Label: "PCG iterations", yLog: true,
      empty: "no Newton iterations yet",
      series: [
        { label: "residual", x: s.conv.x, y: s.conv.res, color: "#d9480f", points: true, gaps: s.conv.gaps },
        { label: "PCG iterations", x: s.conv.x, y: s.conv.pcg, color: "#1c7ed6", axis: "right", points: true },
      ],
    });
  }

  // An explicit job: energy plot instead of the (empty) convergence plot, its time facts.
  function markExplicit() {
    if (s.explicit) return;
    s.explicit = true;
    $.convCard.hidden = true;
    $.energyCard.hidden = false;
    $.energyCsv.hidden = false;
    if (s.job) showJob(s.job);
    drawEnergy();
  }

  function drawEnergy() {
    if (!s.explicit) return;
    s.energy.draw($.energy);
    $.energyNote.textContent = s.energy.note();
  }

  function drawLd() {
    const h = s.hist;
    const f = (a) => a && ($.ldAbs.checked ? a.map(Math.abs) : a);
    const xs = f(h && h.cols[$.ldx.value]);
    const ys = f(h && h.cols[$.ldy.value]);
    drawPlot($.ld, {
      xLabel: $.ldx.value || "displacement", yLabel: $.ldy.value || "load", empty: "no converged increment yet",
      series: xs && ys ? [{ label: `${$.ldy.value} vs ${$.ldx.value}`, x: [0, ...xs], y: [0, ...ys], color: "#2b8a3e", points: true }] : [],
    });
  }

  function setOptions(select, names, preferred) {
    const cur = select.value;
    if ([...select.options].map((o) => o.value).join() !== names.join()) select.replaceChildren(...names.map((n) => el("option", { value: n }, n)));
    select.value = names.includes(cur) ? cur : preferred;
  }

  async function refreshResults() {
    const done = Math.max(s.converged || 0, (s.job && s.job.progress && s.job.progress.increments_completed) || 0);
    if (!done) return; // nothing written yet (a queued job, or one cancelled before its first increment)
    try {
      const [csv, incs] = await Promise.all([text(`/v1/jobs/${id}/results/history.csv`), api(`/v1/jobs/${id}/results/increments`)]);
      s.hist = parseCsv(csv);
      const monitors = s.hist.names.slice(s.hist.names.indexOf("plastic_points") + 1);
      const all = s.hist.names;
      const loadLike = monitors.find((m) => /^r[fxyz]|rf|force|load|reaction/i.test(m));
      setOptions($.ldx, all, monitors.find((m) => m !== loadLike) || "increment");
      setOptions($.ldy, all, loadLike || "time");
      drawLd();
      s.incs = incs.items.filter((it) => it.vtu);
      if (!s.incs.length) {
        $.viewMsg.textContent = incs.items.length ? "this job writes no VTU (output.vtu), so there is no 3D view" : "waiting for the first converged increment…";
        $.vtu.disabled = true;
        return;
      }
      $.vtu.disabled = false;
      const ns = s.incs.map((it) => it.n);
      $.inc.min = 0;
      $.inc.max = ns.length - 1;
      if (s.follow || s.vtuN == null) {
        $.inc.value = ns.length - 1;
        await loadIncrement(ns[ns.length - 1]);
      }
    } catch (e) {
      if (!ctx.onAuthError(e)) say(`Results: ${e.message}`, true);
    }
  }

  async function loadIncrement(n) {
    if (n === s.vtuN && view.mesh) return;
    const it = s.incs.find((x) => x.n === n);
    const t = s.energy.timeOf.get(n);
    $.incLabel.textContent = `${n} (step ${it.step}, ${t != null ? `t=${fmtNum(t)}` : `λ=${fmtNum(it.load_factor)}`})`;
    const vtu = await bytes(`/v1/jobs/${id}/results/increments/${n}/vtu`, { signal: abort.signal });
    const mesh = parseVtu(vtu);
    const first = !view.mesh;
    s.vtuN = n;
    view.setMesh(mesh);
    if (first) {
      setOptions($.field, view.fields().length ? view.fields() : ["none"], view.fields()[0] || "none");
      view.setField($.field.value);
    }
    autoScale = view.autoScale();
    scaleChanged();
    legend();
    $.viewMsg.textContent = "";
    $.view.dataset.rendered = String(n);
  }

  function scaleChanged() {
    const f = (autoScale * +$.scale.value) / 20;
    $.scaleLabel.textContent = ` ${fmtNum(f, 2)} `;
    view.setScale(f);
  }

  // Show the written increments (an explicit run's frames) one after the other, from the one
  // shown (from the first when the last is shown); a second click stops.
  async function play() {
    if (s.playing) { s.playing = false; return; }
    if (!s.incs.length) return;
    s.playing = true;
    $.play.textContent = "■ Stop";
    try {
      for (let i = +$.inc.value >= s.incs.length - 1 ? 0 : +$.inc.value + 1; i < s.incs.length && s.playing && !abort.signal.aborted; i++) {
        $.inc.value = i;
        s.follow = i === s.incs.length - 1;
        await loadIncrement(s.incs[i].n);
        await new Promise((res) => setTimeout(res, 200));
      }
    } catch (e) {
      if (e.name !== "AbortError") say(`3D view: ${e.message}`, true);
    }
    s.playing = false;
    $.play.textContent = "▶ Play";
  }

  function incChanged() {
    const i = +$.inc.value;
    s.follow = i === s.incs.length - 1;
    if (s.incs[i]) loadIncrement(s.incs[i].n).catch((e) => say(`3D view: ${e.message}`, true));
  }

  function legend() {
    const r = view.range();
    if (!r) { $.legend.replaceChildren(); return; }
    const c = el("canvas", { width: 160, height: 10 });
    const g = c.getContext("2d");
    for (let i = 0; i < 160; i++) {
      const [R, G, B] = colormap(i / 159);
      g.fillStyle = `rgb(${R * 255},${G * 255},${B * 255})`;
      g.fillRect(i, 0, 1, 10);
    }
    const name = FIELD_LABEL[view.field] || view.field;
    if (r[0] === r[1]) {
      $.legend.replaceChildren(el("div", { class: "small" }, `${name}: uniform ${fmtNum(r[0])}`));
      return;
    }
    $.legend.replaceChildren(el("div", { class: "small" }, name), c,
      el("div", { class: "row small mono" }, el("span", {}, fmtNum(r[0])), el("span", {}, fmtNum(r[1]))));
  }

  const tick = setInterval(() => { if (s.job && ACTIVE.has(s.job.state)) showJob(s.job); }, 1000);
  (async () => {
    try {
      showJob(await api(`/v1/jobs/${id}`));
      drawConv();
      drawLd();
      refreshResults();
      await followEvents(id, 0, onEvent, abort.signal);
      await refreshJob();
    } catch (e) {
      if (e.name === "AbortError") return;
      if (!ctx.onAuthError(e)) say(e.status === 404 ? `No job ${id} on this server.` : e.message, true);
    }
  })();

  return () => {
    abort.abort();
    clearInterval(tick);
    window.removeEventListener("resize", onResize);
    view.dispose();
  };
}
