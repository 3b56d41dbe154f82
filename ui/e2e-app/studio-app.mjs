// End-to-end test of the real studio (Tauri + WebKitGTK) under Xvfb, driven through
// tauri-driver and WebKitWebDriver with plain W3C WebDriver calls. The practice app runs beside
// it. Usage: node studio-app.mjs STUDIO_BINARY PRACTICE_APP SHOTS_DIR
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";

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

function startDesk(variant) {
  const p = spawn(DESK, ["--lang", "zh", "--variant", variant, "--screen", "login", "--seed", "1"], {
    stdio: "ignore",
  });
  return p;
}

const session = await wd("POST", "/session", {
  capabilities: { alwaysMatch: { "tauri:options": { application: APP } } },
});
const sid = session.sessionId;
const S = (p) => `/session/${sid}${p}`;
const find = async (xpath) => (await wd("POST", S("/element"), { using: "xpath", value: xpath }))[ELEMENT];
const click = async (xpath) => wd("POST", S(`/element/${await find(xpath)}/click`), {});
const text = async (xpath) => wd("GET", S(`/element/${await find(xpath)}/text`));
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
