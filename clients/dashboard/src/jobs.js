// The job table: polled every second (one small request), updated in place without a reload.
import { api } from "./api.js";
import { el, duration, fmtNum, jobTimes, progressBar, stateBadge } from "./util.js";

export function jobsPage(root, ctx) {
  const status = el("p", { class: "muted", id: "jobs-status" }, "loading…");
  const filter = el("select", { id: "state-filter", onchange: () => refresh() },
    ...["all", "queued,running", "succeeded", "failed", "cancelled"].map((s) => el("option", { value: s }, s === "queued,running" ? "active" : s)));
  const tbody = el("tbody");
  const table = el("table", { id: "job-table", class: "jobs" },
    el("thead", {}, el("tr", {}, ...["Job", "Title", "State", "Owner", "Progress", "Step / inc / it", "Residual", "Elapsed", "Remaining", "Created"].map((h) => el("th", {}, h)))),
    tbody);
  root.replaceChildren(el("section", { class: "card" },
    el("div", { class: "row" }, el("h1", {}, "Jobs"), el("label", {}, "Show ", filter)), table, status));
  let timer = null;
  let stopped = false;

  function row(j) {
    const p = j.progress || {};
    const t = jobTimes(j, ctx.skew);
    const link = el("a", { href: `#/job/${j.id}` }, j.id);
    return el("tr", { "data-id": j.id, "data-state": j.state, onclick: (e) => { if (e.target.tagName !== "A") location.hash = `#/job/${j.id}`; } },
      el("td", { class: "mono" }, link),
      el("td", { class: "title" }, j.title || "—"),
      el("td", {}, stateBadge(j.state, j.cancel_requested)),
      el("td", {}, j.owner || j.user || "—"),
      el("td", { class: "progress" }, progressBar(p.percent, j.state)),
      el("td", { class: "mono" }, p.step ? `${p.step}/${p.n_steps} · ${p.increment ?? "—"} · ${p.newton_iteration ?? "—"}` : "—"),
      el("td", { class: "mono" }, fmtNum(p.residual)),
      el("td", {}, duration(t.elapsed)),
      el("td", { class: "eta" }, j.state === "running" ? duration(t.eta) : j.state === "queued" ? "queued" : "—"),
      el("td", { class: "muted" }, new Date(j.created_at).toLocaleString()));
  }

  async function refresh() {
    if (stopped) return;
    clearTimeout(timer);
    try {
      const q = filter.value === "all" ? "" : `&state=${filter.value}`;
      const page = await api(`/v1/jobs?limit=200${q}`);
      tbody.replaceChildren(...page.items.map(row));
      status.textContent = page.items.length ? `${page.items.length} job(s) · updated ${new Date().toLocaleTimeString()}` : "No jobs yet. Submit one with `ductile submit job.json`.";
      status.classList.remove("error");
    } catch (e) {
      if (ctx.onAuthError(e)) return;
      status.textContent = `Cannot load jobs: ${e.message}`;
      status.classList.add("error");
    }
    if (!stopped) timer = setTimeout(refresh, 1000);
  }
  refresh();
  return () => { stopped = true; clearTimeout(timer); };
}
