// Dashboard checks in Debian's chromium (Playwright). Started by test_dashboard.py with
// BASE_URL (page + API, same origin), TOKEN, LONG_JOB (a job file that runs ~10 s), SHOTS
// (screenshot folder), CHROMIUM, PLAYWRIGHT_CORE.
//  1. a wrong token shows an error; the right one logs in;
//  2. the job list updates without a reload while a job runs (state and progress change);
//  3. the job page draws the convergence plot and a non-blank 3D view (pixels of screenshots);
//  4. the cancel button cancels a running job.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const { chromium } = await import(pathToFileURL(resolve(process.env.PLAYWRIGHT_CORE)).href);
const BASE = process.env.BASE_URL;
const TOKEN = process.env.TOKEN;
const SHOTS = process.env.SHOTS;
const LONG_JOB = readFileSync(process.env.LONG_JOB, "utf8");

function log(...a) { console.log("[dashboard]", ...a); }
function check(cond, what) { if (!cond) throw new Error(`check failed: ${what}`); log("ok:", what); }

async function submit() {
  const r = await fetch(`${BASE}/v1/jobs`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body: LONG_JOB });
  if (r.status !== 201) throw new Error(`submit: ${r.status} ${await r.text()}`);
  return (await r.json()).id;
}

async function jobState(id) {
  const r = await fetch(`${BASE}/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return (await r.json()).state;
}

// Pixel statistics of a PNG screenshot, decoded by the page itself (2D canvas).
async function pixelStats(page, png, bg) {
  return page.evaluate(async ([b64, bg]) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let differ = 0, reddish = 0;
    const colours = new Set();
    for (let i = 0; i < d.length; i += 4) {
      const [r, gg, b] = [d[i], d[i + 1], d[i + 2]];
      if (Math.abs(r - bg[0]) + Math.abs(gg - bg[1]) + Math.abs(b - bg[2]) > 24) differ++;
      if (r > 170 && gg > 40 && gg < 120 && b < 80) reddish++;
      colours.add(((r >> 5) << 6) | ((gg >> 5) << 3) | (b >> 5));
    }
    return { total: d.length / 4, differ, reddish, colours: colours.size, w: c.width, h: c.height };
  }, [png.toString("base64"), bg]);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
    "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync",
    "--disable-quic", "--disable-dev-shm-usage"],
});
let page;
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  page = await context.newPage();
  const consoleErrors = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));

  // 1. login
  await page.goto(`${BASE}/`);
  await page.fill("#token-input", "dt_0000000000000000_wrong");
  await page.click("#login-btn");
  await page.waitForFunction(() => document.querySelector("#login-error")?.textContent.includes("Wrong token"), null, { timeout: 10000 });
  check(true, `wrong token shows: "${await page.textContent("#login-error")}"`);
  await page.screenshot({ path: join(SHOTS, "dashboard-login-error.png") });
  await page.fill("#token-input", TOKEN);
  await page.click("#login-btn");
  await page.waitForSelector("#job-table", { timeout: 10000 });
  check(true, "the right token opens the job list");
  // test_dashboard.py restarted the daemon in place (SIGUSR1) before: the status bar says so
  await page.waitForFunction(() => document.querySelector("#server-status")?.textContent.includes("restarted 1× (last: SIGUSR1"), null, { timeout: 10000 });
  check(true, `the status bar names the restart: "${await page.textContent("#server-status")}"`);

  // 2. live job list
  await page.evaluate(() => { window.__noReload = 1; });
  const a = await submit();
  log("submitted", a);
  const row = `#job-table tr[data-id="${a}"]`;
  await page.waitForSelector(`${row}[data-state="running"]`, { timeout: 30000 });
  const p1 = await page.getAttribute(`${row} [role=progressbar]`, "aria-valuenow");
  await page.waitForFunction(([sel, p]) => {
    const bar = document.querySelector(`${sel} [role=progressbar]`);
    return bar && bar.getAttribute("aria-valuenow") !== p;
  }, [row, p1], { timeout: 30000 });
  const p2 = await page.getAttribute(`${row} [role=progressbar]`, "aria-valuenow");
  check(await page.evaluate(() => window.__noReload === 1), `the job list updated without a reload (progress ${p1}% -> ${p2}%)`);
  await page.screenshot({ path: join(SHOTS, "dashboard-jobs.png") });

  // 3. job page: convergence plot and 3D view
  await page.click(`${row} a`);
  await page.waitForSelector("#view3d[data-rendered]", { timeout: 30000 });
  await page.waitForTimeout(1500); // a few more iterations and increments arrive
  const conv = await pixelStats(page, await page.locator("#conv-plot").screenshot(), [255, 255, 255]);
  log("convergence plot pixels", conv);
  check(conv.reddish > 40 && conv.differ > 0.02 * conv.total, "the convergence plot shows residual points");
  const v = await pixelStats(page, await page.locator("#view3d").screenshot(), [244, 246, 248]);
  log("3D view pixels", v);
  check(v.differ > 0.05 * v.total, "the 3D view is not blank (mesh covers > 5% of it)");
  check(v.colours >= 4, "the 3D view is coloured by the field (several colours)");
  await page.fill("#scale-slider", "60");
  await page.dispatchEvent("#scale-slider", "input");
  check((await page.textContent("#scale-label")).trim() !== "", "the deformation scale slider works");
  check(await page.locator("#event-log li").count() > 10, "the event log lists events");
  await page.screenshot({ path: join(SHOTS, "dashboard-job.png") });

  // 4. cancel a running job from its page
  const b = await submit();
  await page.goto(`${BASE}/#/job/${b}`);
  await page.waitForFunction(() => document.querySelector("#job-state")?.textContent.startsWith("running"), null, { timeout: 60000 });
  await page.click("#cancel-btn");
  await page.waitForFunction(() => document.querySelector("#job-state")?.textContent.startsWith("cancelled"), null, { timeout: 60000 });
  check((await jobState(b)) === "cancelled", `the cancel button cancelled running job ${b}`);
  await page.waitForFunction(() => document.querySelector(".facts")?.textContent.includes("Time by phase"), null, { timeout: 10000 });
  const phases = await page.evaluate(() => [...document.querySelectorAll(".facts dt")].find((d) => d.textContent === "Time by phase")?.nextElementSibling?.textContent || "");
  check(/linear solver [0-9.e-]+ s/.test(phases) && /assembly [0-9.e-]+ s/.test(phases), `the ended job shows its time by phase: "${phases}"`);
  await page.screenshot({ path: join(SHOTS, "dashboard-cancelled.png") });

  const real = consoleErrors.filter((e) => !/401|Unauthorized/.test(e));
  check(real.length === 0, `no console errors${real.length ? ": " + real.join(" | ") : ""}`);
  log("PASS");
} catch (e) {
  console.error("[dashboard] FAIL:", e.message);
  if (page) await page.screenshot({ path: join(SHOTS, "failure.png") }).catch(() => {});
  await browser.close();
  process.exit(1);
}
await browser.close();
