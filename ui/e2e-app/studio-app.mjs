// End-to-end test of the real studio (Tauri + WebKitGTK) under Xvfb, driven through
// tauri-driver and WebKitWebDriver with plain W3C WebDriver calls. The practice app runs beside
// it. Usage: node studio-app.mjs STUDIO_BINARY PRACTICE_APP SHOTS_DIR
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [APP, DESK, SHOTS] = process.argv.slice(2);
const WD = `http://127.0.0.1:${process.env.MEND_DRIVER_PORT ?? 4444}`;
const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

async function wd(method, path, body) {
  const r = await fetch(WD + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const j = await r.json();
  if (j.value && j.value.error) throw new Error(`${method} ${path}: ${j.value.error}: ${j.value.message}`);
  return j.value;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  let last;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(300);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ""}`);
}

function startDesk(variant, geometry) {
  const extra = geometry ? ["--dump-geometry", geometry] : [];
  const p = spawn(DESK, ["--lang", "zh", "--variant", variant, "--screen", "login", "--seed", "1", ...extra], {
    stdio: "ignore",
  });
  return p;
}

/** The practice app's control (its geometry dump, screen pixels). */
function control(geometry, role, label) {
  const g = JSON.parse(readFileSync(geometry, "utf8"));
  const c = g.controls.find((c) => c.role === role && c.label.includes(label));
  if (!c) throw new Error(`no ${role} '${label}' in the practice app`);
  return c;
}

/** A person's click on the practice app, through the X server (xdotool), with the app in front. */
async function personClicks(geometry, role, label) {
  const c = control(geometry, role, label);
  execFileSync("xdotool", ["search", "--onlyvisible", "--class", "Customerdesk", "windowactivate", "--sync"]);
  execFileSync("xdotool", ["mousemove", String(c.x + c.w / 2), String(c.y + c.h / 2)]);
  await sleep(300);
  execFileSync("xdotool", ["click", "1"]);
  await sleep(700);
}

const session = await wd("POST", "/session", {
  capabilities: { alwaysMatch: { "tauri:options": { application: APP } } },
});
const sid = session.sessionId;
const S = (p) => `/session/${sid}${p}`;
const find = async (xpath) => (await wd("POST", S("/element"), { using: "xpath", value: xpath }))[ELEMENT];
const click = async (xpath) => wd("POST", S(`/element/${await find(xpath)}/click`), {});
const text = async (xpath) => wd("GET", S(`/element/${await find(xpath)}/text`));
const fill = async (xpath, value) => {
  const el = await waitFor(xpath, () => find(xpath), 10_000);
  await wd("POST", S(`/element/${el}/clear`), {});
  await wd("POST", S(`/element/${el}/value`), { text: value });
};
const shot = async (name) => {
  const b64 = await wd("GET", S("/screenshot"));
  writeFileSync(`${SHOTS}/${name}`, Buffer.from(b64, "base64"));
};
const tab = (name) => click(`//nav//button[contains(., '${name}')]`);

let desk;
try {
  // 1. Baseline: open the sample flow, run it, watch it pass.
  desk = startDesk("baseline");
  await sleep(3000);
  await waitFor("the flow library", () => text("//tr[@data-testid='flow-login_search.toml']"));
  await click("//tr[@data-testid='flow-login_search.toml']//button[text()='Open']");
  await waitFor("the editor", () => text("//li[@data-testid='step-3']"));
  await shot("studio-app-editor.png");
  await tab("Run monitor");
  await click("//select[@aria-label='flow to run']/option[@value='login_search.toml']");
  await click("//button[text()='Start run']");
  const passed = await waitFor(
    "the run to pass",
    async () => ((await text("//*[@data-testid='run-status']")) === "passed" ? true : null),
    120_000,
  );
  console.log("baseline run: passed", passed);
  await sleep(800);
  await shot("studio-app-run.png");
  desk.kill();
  await sleep(500);

  // 2. `removed`: the run pauses, the takeover panel comes forward, Skip lets it finish.
  desk = startDesk("removed");
  await sleep(3000);
  await click("//button[text()='Start run']");
  await waitFor("the takeover panel", () => text("//*[@data-testid='takeover-code']"), 120_000);
  const code = await text("//*[@data-testid='takeover-code']");
  if (code !== "LOCATOR_NOT_FOUND") throw new Error(`takeover code ${code}`);
  await shot("studio-app-takeover.png");
  await click("//button[text()='Skip']");
  await waitFor("the resolution", () => text("//*[@data-testid='resolved']"));
  await tab("Run monitor");
  await waitFor(
    "the run to finish after the skip",
    async () => ((await text("//*[@data-testid='run-status']")) === "passed" ? true : null),
    120_000,
  );
  await shot("studio-app-finished.png");
  console.log("removed run: paused, skipped, finished");
  desk.kill();
  await sleep(500);

  // 3. Record: a person (xdotool) logs in while the studio records; the steps show as they are
  // captured; Stop writes the flow, which opens in the editor; the password is in no file.
  const geometry = join(mkdtempSync(join(tmpdir(), "mend-e2e-")), "geometry.json");
  desk = startDesk("baseline", geometry);
  await waitFor("the practice app's login screen", () => JSON.parse(readFileSync(geometry, "utf8")).screen === "login");
  await tab("Editor");
  await click("//button[contains(., 'Record')]");
  await fill("//input[@aria-label='record window']", "客户管理系统|Customer Desk");
  await fill("//input[@aria-label='record file']", "e2e-recorded.toml");
  await click("//button[text()='Start recording']");
  await waitFor("the recording to start", async () => (await text("//*[@data-testid='recording']")).includes("Recording in"));
  const PASSWORD = process.env.DESK_PASSWORD ?? "e2e-password";
  await personClicks(geometry, "field", "用户名");
  execFileSync("xdotool", ["type", "--delay", "60", "admin"]);
  await personClicks(geometry, "field", "密码");
  // Live: the user-name step is told as a `type` once the person moved on.
  await waitFor("the first step, live", async () => (await text("//*[@data-testid='recorded-step-0']")).includes("admin"), 30_000);
  execFileSync("xdotool", ["type", "--delay", "60", PASSWORD]);
  await personClicks(geometry, "button", "登录");
  await waitFor("the person logged in", () => JSON.parse(readFileSync(geometry, "utf8")).screen === "main", 15_000);
  await sleep(1500);
  await shot("studio-app-recording.png");
  await click("//button[contains(., 'Stop')]");
  const outcome = await waitFor(
    "the recording to be written",
    async () => {
      const t = await text("//*[@data-testid='record-outcome']");
      return t.includes("into e2e-recorded.toml") ? t : null;
    },
    60_000,
  );
  if (!outcome.includes("validated")) throw new Error(`recording: ${outcome}`);
  await waitFor("the recorded flow in the editor", async () => (await text("//h2")).includes("e2e-recorded.toml"));
  const src = readFileSync(join(process.env.MEND_FLOWS, "e2e-recorded.toml"), "utf8");
  if (!src.includes('text = "admin"') || !src.includes("${secret:")) throw new Error(`recorded flow:\n${src}`);
  if (src.includes(PASSWORD)) throw new Error("the password reached the recorded flow");
  await shot("studio-app-recorded.png");
  console.log(`recording: ${outcome}`);
} catch (e) {
  await wd("GET", S("/screenshot"))
    .then((b64) => writeFileSync("/tmp/studio-e2e-failure.png", Buffer.from(b64, "base64")))
    .catch(() => undefined);
  const body = await text("//main").catch(() => "?");
  console.error(`page at the failure:\n${body}`);
  throw e;
} finally {
  desk?.kill();
  await wd("DELETE", `/session/${sid}`).catch(() => undefined);
}
