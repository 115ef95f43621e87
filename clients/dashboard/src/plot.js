// A small canvas plotter: line/point series on a left axis (linear or log10) and an optional
// right axis, nice ticks, axis labels, a legend. Enough for convergence and load–displacement
// plots without a chart library.

const FONT = "12px system-ui, sans-serif";

function niceTicks(lo, hi, n = 5) {
  if (!(hi > lo)) {
    const d = Math.abs(lo) * 0.1 || 1;
    lo -= d;
    hi += d;
  }
  const raw = (hi - lo) / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const t0 = Math.floor(lo / step) * step;
  const t1 = Math.ceil(hi / step) * step;
  const ticks = [];
  for (let t = t0; t <= t1 + step * 1e-9; t += step) ticks.push(Math.abs(t) < step * 1e-9 ? 0 : t);
  return { lo: t0, hi: t1, ticks };
}

function logTicks(lo, hi) {
  let a = Math.floor(Math.log10(lo));
  let b = Math.ceil(Math.log10(hi));
  if (a === b) b = a + 1;
  const every = Math.max(1, Math.ceil((b - a) / 8));
  const ticks = [];
  for (let e = a; e <= b; e += every) ticks.push(10 ** e);
  return { lo: 10 ** a, hi: 10 ** b, ticks };
}

function fmt(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(0).replace("e+", "e");
  return String(+v.toPrecision(4));
}

function extent(series, axis, log) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series) {
    if ((s.axis || "left") !== axis) continue;
    for (const v of s.y) if (v != null && isFinite(v) && (!log || v > 0)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  }
  return lo <= hi ? [lo, hi] : null;
}

// opts: {series: [{label, x, y, color, axis: "left"|"right", points: bool, dash: [on, off]}],
//        xLabel, yLabel, y2Label, yLog, empty: "message when there is nothing to plot"}
export function drawPlot(canvas, opts) {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth || 400;
  const h = canvas.clientHeight || 240;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const g = canvas.getContext("2d");
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  g.font = FONT;
  const css = getComputedStyle(canvas);
  const fg = css.getPropertyValue("--plot-fg").trim() || "#333";
  const grid = css.getPropertyValue("--plot-grid").trim() || "#e4e4e4";
  const hasRight = opts.series.some((s) => s.axis === "right");
  const m = { l: 62, r: hasRight ? 56 : 16, t: 22, b: 40 };
  const pw = w - m.l - m.r;
  const ph = h - m.t - m.b;
  let xlo = Infinity;
  let xhi = -Infinity;
  for (const s of opts.series) for (const v of s.x) if (isFinite(v)) { xlo = Math.min(xlo, v); xhi = Math.max(xhi, v); }
  const ey = extent(opts.series, "left", opts.yLog);
  if (!(xlo <= xhi) || !ey) {
    g.fillStyle = fg;
    g.textAlign = "center";
    g.fillText(opts.empty || "no data yet", w / 2, h / 2);
    return;
  }
  const X = niceTicks(xlo, xhi, Math.max(2, Math.floor(pw / 80)));
  const Y = opts.yLog ? logTicks(ey[0], ey[1]) : niceTicks(ey[0], ey[1], Math.max(2, Math.floor(ph / 45)));
  const ey2 = hasRight ? extent(opts.series, "right", false) : null;
  const Y2 = ey2 ? niceTicks(Math.min(0, ey2[0]), ey2[1], Y.ticks.length - 1) : null;
  const sx = (v) => m.l + ((v - X.lo) / (X.hi - X.lo)) * pw;
  const syL = opts.yLog
    ? (v) => m.t + ph - ((Math.log10(v) - Math.log10(Y.lo)) / (Math.log10(Y.hi) - Math.log10(Y.lo))) * ph
    : (v) => m.t + ph - ((v - Y.lo) / (Y.hi - Y.lo)) * ph;
  const syR = Y2 ? (v) => m.t + ph - ((v - Y2.lo) / (Y2.hi - Y2.lo)) * ph : null;
  // grid and ticks
  g.strokeStyle = grid;
  g.fillStyle = fg;
  g.lineWidth = 1;
  g.textAlign = "center";
  g.textBaseline = "top";
  for (const t of X.ticks) {
    const x = Math.round(sx(t)) + 0.5;
    g.beginPath(); g.moveTo(x, m.t); g.lineTo(x, m.t + ph); g.stroke();
    g.fillText(fmt(t), x, m.t + ph + 4);
  }
  g.textAlign = "right";
  g.textBaseline = "middle";
  for (const t of Y.ticks) {
    const y = Math.round(syL(t)) + 0.5;
    g.beginPath(); g.moveTo(m.l, y); g.lineTo(m.l + pw, y); g.stroke();
    g.fillText(fmt(t), m.l - 5, y);
  }
  if (Y2) {
    g.textAlign = "left";
    for (const t of Y2.ticks) g.fillText(fmt(t), m.l + pw + 5, syR(t));
  }
  g.strokeStyle = fg;
  g.strokeRect(m.l + 0.5, m.t + 0.5, pw, ph);
  // labels
  g.textAlign = "center";
  g.textBaseline = "bottom";
  g.fillText(opts.xLabel || "", m.l + pw / 2, h - 2);
  g.save();
  g.translate(12, m.t + ph / 2);
  g.rotate(-Math.PI / 2);
  g.textBaseline = "middle";
  g.fillText(opts.yLabel || "", 0, 0);
  g.restore();
  if (Y2 && opts.y2Label) {
    g.save();
    g.translate(w - 8, m.t + ph / 2);
    g.rotate(Math.PI / 2);
    g.textBaseline = "middle";
    g.fillText(opts.y2Label, 0, 0);
    g.restore();
  }
  // series, clipped to the plot area
  g.save();
  g.beginPath();
  g.rect(m.l, m.t, pw, ph);
  g.clip();
  for (const s of opts.series) {
    const sy = s.axis === "right" ? syR : syL;
    if (!sy) continue;
    g.strokeStyle = g.fillStyle = s.color;
    g.lineWidth = 1.5;
    g.setLineDash(s.dash || []);
    g.beginPath();
    let pen = false;
    for (let i = 0; i < s.x.length; i++) {
      const v = s.y[i];
      if (v == null || !isFinite(v) || (opts.yLog && s.axis !== "right" && v <= 0)) { pen = false; continue; }
      const px = sx(s.x[i]);
      const py = sy(v);
      if (pen) g.lineTo(px, py); else g.moveTo(px, py);
      pen = !s.gaps || !s.gaps[i + 1];
      if (s.points) g.fillRect(px - 2, py - 2, 4, 4);
    }
    g.stroke();
  }
  g.restore();
  // legend
  g.textAlign = "left";
  g.textBaseline = "middle";
  let lx = m.l + 4;
  for (const s of opts.series) {
    g.fillStyle = s.color;
    g.fillRect(lx, 6, 14, 4);
    g.fillStyle = fg;
    g.fillText(s.label, lx + 18, 8);
    lx += 26 + g.measureText(s.label).width;
  }
}
