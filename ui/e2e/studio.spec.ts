import { expect, test } from "@playwright/test";

const SHOTS = "../docs/screenshots";

test("the library lists the sample flows with their steps", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("flow-login_edit_save.toml")).toContainText("login, search, edit, save");
  await expect(page.getByTestId("flow-login_edit_save.toml")).toContainText("9");
  await page.screenshot({ path: `${SHOTS}/studio-library.png` });
});

test("the editor edits a step, saves, and shows a validation error at its step", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Open" }).click();
  const search = page.getByTestId("step-4");
  await expect(search.getByLabel("target text")).toHaveValue("查询");
  await search.getByLabel("target text").fill("查询(Q)");
  // Reorder: move step 2 (password) above step 1 (user) and back with drag and drop.
  await page.getByTestId("step-1").getByRole("button", { name: "move up" }).click();
  await expect(page.getByTestId("step-0").getByLabel("step id")).toHaveValue("password");
  await page.getByTestId("step-1").dragTo(page.getByTestId("step-0"));
  await expect(page.getByTestId("step-0").getByLabel("step id")).toHaveValue("user");
  // Verify, compensation and interrupt handlers are editable too.
  await page.getByTestId("step-4").getByText("verify, compensation, checks, timeout").click();
  const verify = page.getByTestId("step-4").getByLabel("verify (how to tell it took effect)");
  await verify.fill('{"exists": {"text": "编辑", "role": "button"}}');
  await verify.blur();
  await page.getByLabel("interrupt 1 click").fill("确定(O)");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("saved");
  const saved = await page.evaluate(
    () => (window as unknown as { __mendMock: { saved: Record<string, unknown> } }).__mendMock.saved["login_edit_save.toml"],
  );
  expect(saved).toMatchObject({
    interrupt: [{ click: "确定(O)" }],
    step: expect.arrayContaining([
      expect.objectContaining({ id: "search", verify: { exists: { text: "编辑", role: "button" } } }),
    ]),
  });

  // Capture the window, click a control: Mend proposes the target; Test locate shows the rung.
  await page.getByTestId("step-4").click();
  await page.getByRole("button", { name: "Capture window" }).click();
  await page.getByTestId("screenshot").click({ position: { x: 200, y: 40 } });
  await page.getByRole("button", { name: "Test locate" }).click();
  await expect(page.getByTestId("locate-result")).toContainText("by exact");
  await page.screenshot({ path: `${SHOTS}/studio-editor.png`, fullPage: true });

  // A click step without a target text cannot be saved; the error sits on that step.
  await page.getByTestId("step-2").getByLabel("target text").fill("");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("not saved: the flow is invalid");
  await expect(page.getByTestId("step-2").getByRole("alert")).toContainText("needs a target");
});

test("a step that a crash would leave unverifiable carries a warning after saving", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Open" }).click();
  await expect(page.getByTestId("step-4").getByLabel("target text")).toHaveValue("查询");
  await expect(page.getByTestId("step-warning-4")).toHaveCount(0);
  // 查询 made a write step with no verify: it still saves, and the step says what a crash means.
  await page.getByTestId("step-4").getByLabel("risk").selectOption("write");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("saved");
  await expect(page.getByTestId("step-warning-4")).toContainText("RESUME_UNVERIFIED");
  await expect(page.getByTestId("step-warning-4")).toContainText("Add a `verify`");
  await page.getByTestId("step-4").screenshot({ path: `${SHOTS}/studio-step-warning.png` });
});

test("the run monitor shows a recorded run step by step and its report", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Run" }).click();
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page.getByTestId("run-status")).toHaveText("running");
  await expect(page.getByTestId("run-status")).toHaveText("passed", { timeout: 20_000 });
  await expect(page.getByTestId("run-step-login")).toContainText("exact");
  await expect(page.locator("table.run-steps tbody tr")).toHaveCount(9);
  await expect(page.getByTestId("report")).toContainText("status: **passed**");
  await page.screenshot({ path: `${SHOTS}/studio-monitor.png`, fullPage: true });
});

test("a paused run brings the takeover panel forward; skip resolves it", async ({ page }) => {
  await page.goto("/?scenario=removed");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Run" }).click();
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page.getByTestId("takeover")).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("takeover-code")).toHaveText("LOCATOR_NOT_FOUND");
  await expect(page.getByLabel("Side effects")).toContainText("login");
  await page.screenshot({ path: `${SHOTS}/studio-takeover.png`, fullPage: true });
  await page.getByRole("button", { name: "Skip" }).click();
  await expect(page.getByTestId("resolved")).toContainText("skip");
});

test("a pick on the screenshot proposes a flow change that can be accepted", async ({ page }) => {
  await page.goto("/?scenario=removed");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Run" }).click();
  await page.getByRole("button", { name: "Start run" }).click();
  await expect(page.getByTestId("takeover")).toBeVisible({ timeout: 20_000 });
  await page.getByTestId("takeover").getByTestId("screenshot").click({ position: { x: 120, y: 40 } });
  await page.getByRole("button", { name: /^Pick \d+,\d+$/ }).click();
  await expect(page.getByTestId("change-c1")).toContainText("+target");
  await page.getByTestId("change-c1").getByRole("button", { name: "Accept" }).click();
  await expect(page.getByTestId("change-c1")).toContainText("accepted");
  await page.screenshot({ path: `${SHOTS}/studio-changes.png`, fullPage: true });
});
