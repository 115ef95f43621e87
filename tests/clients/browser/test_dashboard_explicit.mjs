// Dashboard checks on an explicit dynamics job, in Debian's chromium (Playwright; common.mjs).
// Started by test_dashboard_explicit.py with EXPLICIT_JOB (the example shell plate, ~10 s)
// besides common.mjs's environment.
//  1. while the job runs, its page shows the explicit progress (time / time period, time steps,
//     the step's remaining time) from explicit.progress events, and the energy plot, in place
//     of the convergence plot, gains points from the increment.converged events' energy;
//  2. once it has succeeded: a point per frame, drawn (pixels), the balance noted, energy.csv
//     downloads with a row per frame, the 3D view draws the shells of the last frame, coloured
//     by |U|;
//  3. the finished job's page, opened again, draws the plot from the stored events;
//  4. Play shows the frames one after the other.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BASE, check, log, login, pixelStats, session, SHOTS, submit } from "./common.mjs";

const JOB = readFileSync(process.env.EXPLICIT_JOB, "utf8");
const { time: PERIOD, output: { frames: FRAMES } } = JSON.parse(JOB).steps[0].explicit;

const points = (page) => page.evaluate(() => +(document.querySelector("#energy-plot")?.dataset.points || 0));

await session(async (page) => {
  await page.goto(`${BASE}/`);
  await login(page);
  const id = await submit(JOB);
  log("submitted", id);
  await page.goto(`${BASE}/#/job/${id}`);

  // 1. live: explicit progress and a growing energy plot
  // the facts {name: text} of the job page, read at the moment every one of them shows
  const live = await (await page.waitForFunction((period) => {
    const f = Object.fromEntries([...document.querySelectorAll(".facts dt")].map((d) => [d.textContent, d.nextElementSibling?.textContent || ""]));
    return document.querySelector("#job-state")?.textContent.startsWith("running") &&
      new RegExp(`^[0-9.e-]+ / ${period}$`).test(f["Time"] || "") && /^\d+ \/ \d+$/.test(f["Time steps"] || "") &&
      /\d/.test(f["Step remaining"] || "") && f;
  }, String(PERIOD), { timeout: 120000 })).jsonValue();
  check(true, `the running job shows its time "${live["Time"]}", time steps "${live["Time steps"]}", step remaining "${live["Step remaining"]}"`);
  check(await page.isHidden("#conv-plot") && await page.isVisible("#energy-plot"), "the energy plot replaces the convergence plot");
  await page.waitForFunction((n) => document.querySelector("#job-state")?.textContent.startsWith("running") &&
    +(document.querySelector("#energy-plot")?.dataset.points || 0) >= 2 && +document.querySelector("#energy-plot").dataset.points < n,
  FRAMES, { timeout: 120000 });
  check(true, `the energy plot gains points while the job runs (${await points(page)} of ${FRAMES})`);
  check(await page.locator("#event-log li.ev-explicit-progress").count() > 0, "the event log lists explicit.progress events");
  await page.screenshot({ path: join(SHOTS, "dashboard-explicit-running.png") });

  // 2. the finished job
  await page.waitForFunction(() => document.querySelector("#job-state")?.textContent.startsWith("succeeded"), null, { timeout: 180000 });
  await page.waitForFunction((n) => +(document.querySelector("#energy-plot")?.dataset.points || 0) === n, FRAMES, { timeout: 10000 });
  await page.waitForTimeout(500); // the throttled redraw
  const e = await pixelStats(page, await page.locator("#energy-plot").screenshot(), [255, 255, 255]);
  log("energy plot pixels", e);
  check(e.reddish > 40 && e.differ > 0.02 * e.total, `the energy plot draws its ${FRAMES} frames (kinetic energy points and the work curves)`);
  const note = await page.textContent("#energy-note");
  const balance = +(note.match(/within (\S+) of/) || [])[1];
  check(note.startsWith(`${FRAMES} frame(s)`) && balance < 1e-5, `the energy balance is noted: "${note}"`);
  const [dl] = await Promise.all([page.waitForEvent("download"), page.click("#download-energy")]);
  const rows = readFileSync(await dl.path(), "utf8").trim().split("\n");
  check(dl.suggestedFilename() === `${id}-energy.csv` && rows.length === FRAMES + 1 && rows[0].startsWith("step,frame,time,kinetic"),
    `energy.csv downloads with a row per frame (${rows.length - 1})`);
  await page.waitForSelector(`#view3d[data-rendered="${FRAMES}"]`, { timeout: 30000 });
  const v = await pixelStats(page, await page.locator("#view3d").screenshot(), [244, 246, 248]);
  log("3D view pixels", v);
  check(v.differ > 0.05 * v.total, "the 3D view draws the plate's shells (> 5% of it)");
  // the job asks for MISES: the frames carry the shells' surface stresses, the view's default field
  check(v.colours >= 4 && (await page.inputValue("#field-select")) === "MISES", "the shells are coloured by the von Mises stress");
  await page.screenshot({ path: join(SHOTS, "dashboard-explicit.png") });

  // 3. opened again: the plot from the stored events
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector("#job-table");
  await page.goto(`${BASE}/#/job/${id}`);
  await page.waitForFunction((n) => +(document.querySelector("#energy-plot")?.dataset.points || 0) === n, FRAMES, { timeout: 30000 });
  check(true, "the finished job's page draws the energy plot from its stored events");

  // 4. Play: from the first frame to the last
  await page.waitForSelector(`#view3d[data-rendered="${FRAMES}"]`, { timeout: 30000 });
  await page.click("#play-btn");
  await page.waitForSelector('#view3d[data-rendered="1"]', { timeout: 30000 });
  check((await page.textContent("#increment-label")).includes("t="), `the frame is labelled by its time: "${await page.textContent("#increment-label")}"`);
  await page.waitForFunction((n) => document.querySelector("#view3d")?.dataset.rendered === String(n) &&
    document.querySelector("#play-btn")?.textContent.includes("Play"), FRAMES, { timeout: 120000 });
  check(true, `Play showed the frames up to the last (${FRAMES})`);
});
