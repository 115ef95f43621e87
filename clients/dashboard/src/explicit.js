// Explicit dynamics on the job page: the energies of the output frames against time (from the
// energy objects of the increment.converged events, docs/api.md "Explicit dynamics") and the
// facts of the last explicit.progress event (time reached, time steps, the step's ETA).
import { drawPlot } from "./plot.js";
import { duration, fmtNum } from "./util.js";

// Drawn in this order: the external work dashed under the internal work (which stays close to
// it), the small terms last, on top.
const TERMS = [
  ["external_work", "external work", "#2b8a3e", [6, 4]],
  ["internal_work", "internal work", "#1c7ed6"],
  ["damping_work", "damping work", "#ae3ec9"],
  ["kinetic", "kinetic", "#d9480f"],
];

// The frames' energies on the run's time axis. A frame's time is the time within its step, and
// a step's last frame is at its period, so each step starts where the one before ended.
export class EnergyHistory {
  constructor() { this.reset(); }

  reset() {
    this.t = [];
    this.y = Object.fromEntries(TERMS.map(([k]) => [k, []]));
    this.timeOf = new Map(); // frame n -> run time
    this.step = 0;
    this.offset = 0;
    this.last = 0;
    this.worst = 0; // largest |balance| relative to the largest term
  }

  // d: the data of an increment.converged event that carries energy
  add(d) {
    const e = d.energy;
    if (d.step !== this.step) {
      if (this.step) this.offset += this.last;
      this.step = d.step;
    }
    this.last = e.time ?? this.last;
    const t = this.offset + this.last;
    this.t.push(t);
    for (const [k] of TERMS) this.y[k].push(e[k]);
    this.timeOf.set(d.n, t);
    const scale = Math.max(...TERMS.map(([k]) => Math.abs(e[k] ?? 0)));
    if (scale > 0 && e.balance != null) this.worst = Math.max(this.worst, Math.abs(e.balance) / scale);
  }

  draw(canvas) {
    drawPlot(canvas, {
      xLabel: "time", yLabel: "energy", empty: "no output frame yet",
      series: TERMS.map(([k, label, color, dash]) => ({ label, x: this.t, y: this.y[k], color, dash, points: true })),
    });
    canvas.dataset.points = String(this.t.length);
  }

  note() {
    if (!this.t.length) return "Kinetic energy and the work of the internal, external and damping forces at each output frame.";
    return `${this.t.length} frame(s); energy balance within ${fmtNum(this.worst, 2)} of the largest term.`;
  }
}

// The facts of an explicit run from its last explicit.progress event (null: none yet).
export function explicitFacts(xp, running) {
  if (!xp) return [["Time", "—"], ["Time steps", "—"]];
  const period = xp.time_steps_step * xp.time_step;
  return [["Time", `${fmtNum(xp.time)} / ${fmtNum(period)}`], ["Time steps", `${xp.time_steps} / ${xp.time_steps_step}`],
    ["Time step", fmtNum(xp.time_step)], ["Step remaining", running ? duration(xp.eta_seconds) : "—"]];
}

export function logExplicit(d) {
  return `step ${d.step} time ${fmtNum(d.time)}: ${d.time_steps} / ${d.time_steps_step} time steps, ${fmtNum(d.percent)}%, step ETA ${duration(d.eta_seconds)}`;
}

export function logFrame(d) {
  const e = d.energy;
  return `#${d.n} frame ${d.increment} (step ${d.step}) time ${fmtNum(e.time)}: kinetic ${fmtNum(e.kinetic)}, internal ${fmtNum(e.internal_work)}, external ${fmtNum(e.external_work)}, balance ${fmtNum(e.balance)}`;
}
