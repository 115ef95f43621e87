// What the dashboard's browser checks share: Debian's chromium through Playwright, the daemon's
// API, pixel statistics of screenshots, the login. The environment comes from test_dashboard.py:
// BASE_URL (page + API, same origin), TOKEN, SHOTS (screenshot folder), CHROMIUM,
// PLAYWRIGHT_CORE.
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const { chromium } = await import(pathToFileURL(resolve(process.env.PLAYWRIGHT_CORE)).href);
export const BASE = process.env.BASE_URL;
export const TOKEN = process.env.TOKEN;
export const SHOTS = process.env.SHOTS;

export function log(...a) { console.log("[dashboard]", ...a); }
export function check(cond, what) { if (!cond) throw new Error(`check failed: ${what}`); log("ok:", what); }

// Submit a job document (JSON text); its id.
export async function submit(body) {
  const r = await fetch(`${BASE}/v1/jobs`, { method: "POST", headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body });
  if (r.status !== 201) throw new Error(`submit: ${r.status} ${await r.text()}`);
  return (await r.json()).id;
}

export async function jobState(id) {
  const r = await fetch(`${BASE}/v1/jobs/${id}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return (await r.json()).state;
}

// Pixel statistics of a PNG screenshot, decoded by the page itself (2D canvas): pixels that
// differ from the background bg, reddish ones (the plots' first series), distinct colours.
export async function pixelStats(page, png, bg) {
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

// Log in with the token and wait for the job list.
export async function login(page, token = TOKEN) {
  await page.fill("#token-input", token);
  await page.click("#login-btn");
  await page.waitForSelector("#job-table", { timeout: 10000 });
}

// Run checks(page, consoleErrors) in a fresh headless chromium (WebGL through SwiftShader);
// on a failure, a screenshot and exit status 1; afterwards, no console errors but 401s.
export async function session(checks) {
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
    await checks(page);
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
}
