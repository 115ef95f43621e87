// Dashboard checks in Debian's chromium (Playwright; common.mjs). Started by test_dashboard.py
// with BASE_URL (page + API, same origin), TOKEN, LONG_JOB (a job file that runs ~10 s), SHOTS
// (screenshot folder), CHROMIUM, PLAYWRIGHT_CORE.
//  1. a wrong token shows an error; the right one logs in;
//  2. the job list updates without a reload while a job runs (state and progress change);
//  3. the job page draws the convergence plot and a non-blank 3D view (pixels of screenshots);
//  4. the cancel button cancels a running job.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BASE, check, jobState, log, login, pixelStats, session, SHOTS, submit } from "./common.mjs";

const LONG_JOB = readFileSync(process.env.LONG_JOB, "utf8");

await session(async (page) => {
  // 1. login
  await page.goto(`${BASE}/`);
  await page.fill("#token-input", "dt_0000000000000000_wrong");
  await page.click("#login-btn");
  await page.waitForFunction(() => document.querySelector("#login-error")?.textContent.includes("Wrong token"), null, { timeout: 10000 });
  check(true, `wrong token shows: "${await page.textContent("#login-error")}"`);
  await page.screenshot({ path: join(SHOTS, "dashboard-login-error.png") });
  await login(page);
  check(true, "the right token opens the job list");
  // test_dashboard.py restarted the daemon in place (SIGUSR1) before: the status bar says so
  await page.waitForFunction(() => document.querySelector("#server-status")?.textContent.includes("restarted 1× (last: SIGUSR1"), null, { timeout: 10000 });
  check(true, `the status bar names the restart: "${await page.textContent("#server-status")}"`);

  // 2. live job list
  await page.evaluate(() => { window.__noReload = 1; });
  const a = await submit(LONG_JOB);
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
  const b = await submit(LONG_JOB);
  await page.goto(`${BASE}/#/job/${b}`);
  await page.waitForFunction(() => document.querySelector("#job-state")?.textContent.startsWith("running"), null, { timeout: 60000 });
  await page.click("#cancel-btn");
  await page.waitForFunction(() => document.querySelector("#job-state")?.textContent.startsWith("cancelled"), null, { timeout: 60000 });
  check((await jobState(b)) === "cancelled", `the cancel button cancelled running job ${b}`);
  await page.waitForFunction(() => document.querySelector(".facts")?.textContent.includes("Time by phase"), null, { timeout: 10000 });
  const phases = await page.evaluate(() => [...document.querySelectorAll(".facts dt")].find((d) => d.textContent === "Time by phase")?.nextElementSibling?.textContent || "");
  check(/linear solver [0-9.e-]+ s \(preconditioner setup [0-9.e-]+ s\)/.test(phases) && /assembly [0-9.e-]+ s/.test(phases), `the ended job shows its time by phase: "${phases}"`);
  await page.screenshot({ path: join(SHOTS, "dashboard-cancelled.png") });
});
