// Entry: token login, hash routes (#/ jobs, #/job/<id>), server status in the top bar.
import "./style.css";
import { api, ApiError, getToken, setToken } from "./api.js";
import { jobPage } from "./job.js";
import { jobsPage } from "./jobs.js";
import { el } from "./util.js";

const app = document.getElementById("app");
const logoutBtn = document.getElementById("logout-btn");
const statusEl = document.getElementById("server-status");
let leave = null;
const ctx = {
  skew: 0,
  // A 401 anywhere sends the user back to the login form with the server's message.
  onAuthError(e) {
    if (!(e instanceof ApiError) || e.status !== 401) return false;
    setToken("");
    showLogin(`The server refused the token: ${e.message}`);
    return true;
  },
};

function showLogin(error) {
  if (leave) { leave(); leave = null; }
  logoutBtn.hidden = true;
  statusEl.textContent = "";
  const input = el("input", { id: "token-input", type: "password", autocomplete: "current-password", placeholder: "dt_…", size: 40 });
  const err = el("p", { id: "login-error", class: "error", role: "alert" }, error || "");
  const form = el("form", { id: "login-form", class: "card login", onsubmit: async (ev) => {
    ev.preventDefault();
    err.textContent = "";
    setToken(input.value.trim());
    try {
      await checkServer();
      route();
    } catch (e) {
      setToken("");
      err.textContent = e instanceof ApiError && e.status === 401
        ? `Wrong token: the server refused it (${e.message}).`
        : `Cannot log in: ${e.message}`;
    }
  } },
  el("h1", {}, "Log in to ductiled"),
  el("p", { class: "muted" }, "Paste an API token: on the server, the admin token is in <data dir>/admin.token; more with `ductiled token create`."),
  el("label", {}, "Token ", input), el("button", { type: "submit", id: "login-btn" }, "Log in"), err);
  app.replaceChildren(form);
  input.focus();
}

async function checkServer() {
  const t0 = Date.now();
  const r = await fetch("/v1/health", { headers: { Authorization: `Bearer ${getToken()}` } }).catch((e) => {
    throw new ApiError(0, "unreachable", `cannot reach the server (${e.message})`);
  });
  if (!r.ok) {
    let m = `HTTP ${r.status}`;
    try { m = (await r.json()).error.message; } catch { /* keep */ }
    throw new ApiError(r.status, "error", m);
  }
  const h = await r.json();
  const date = r.headers.get("Date");
  const skew = date ? Date.parse(date) + 500 - (t0 + Date.now()) / 2 : 0;
  ctx.skew = Number.isFinite(skew) && Math.abs(skew) > 2000 ? skew : 0; // only a real clock difference
  const rs = h.restarts && h.restarts.count ? ` · restarted ${h.restarts.count}× (last: ${h.restarts.last_reason})` : "";
  statusEl.textContent = `ductiled ${h.version} · ${h.backend_selected || h.backend} · ${h.device} · queue ${h.queue_depth}${rs}`;
  return h;
}

function route() {
  if (!getToken()) { showLogin(); return; }
  if (leave) { leave(); leave = null; }
  logoutBtn.hidden = false;
  const m = location.hash.match(/^#\/job\/(j-[0-9a-f]{16})$/);
  leave = m ? jobPage(app, ctx, m[1]) : jobsPage(app, ctx);
}

logoutBtn.addEventListener("click", () => { setToken(""); showLogin(); });
window.addEventListener("hashchange", route);
if (getToken()) {
  checkServer().then(route, (e) => { if (!ctx.onAuthError(e)) { route(); statusEl.textContent = e.message; } });
} else {
  showLogin();
}
setInterval(() => { if (getToken()) checkServer().catch(() => { statusEl.textContent = "server unreachable"; }); }, 15000);
