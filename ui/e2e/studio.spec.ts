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
  await page.getByTestId("step-4").getByRole("button", { name: "Add verify" }).click();
  const verify = page.getByTestId("step-4").getByRole("group", { name: "verify", exact: true });
  await verify.getByLabel("check text").fill("编辑");
  await verify.getByLabel("check role").selectOption("button");
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

  // A step whose target has no text (and no near label or crop) cannot be saved; the error sits on
  // that step. (Step 3, login, has a crop: without its text it is still a target, see below.)
  await page.getByTestId("step-3").getByLabel("target text").fill("");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("not saved: the flow is invalid");
  await expect(page.getByTestId("step-3").getByRole("alert")).toContainText("needs a text, a near label or a recorded crop");
});

test("verify, checks and compensation are edited as forms; a crop alone is a target", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Open" }).click();
  const mockSaved = () =>
    page.evaluate(
      () =>
        (window as unknown as { __mendMock: { saved: Record<string, unknown> } }).__mendMock.saved["login_edit_save.toml"],
    );

  // Step 5 (search) gets a verify: pick the kind, fill the target. An empty one says what it lacks
  // and is refused at its step.
  const search = page.getByTestId("step-4");
  await search.getByText("verify, compensation, checks, timeout").click();
  await expect(search.getByLabel("verify as JSON")).toHaveCount(1); // the escape hatch, folded away
  await search.getByRole("button", { name: "Add verify" }).click();
  const verify = search.getByRole("group", { name: "verify", exact: true });
  await expect(verify).toContainText("the check's target needs a text");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("not saved: the flow is invalid");
  await expect(search.getByRole("alert")).toContainText("step 5: the check's target needs a text");
  await verify.getByLabel("check kind").selectOption("text_matches");
  await verify.getByLabel("check text").fill("客户编号");
  await verify.getByLabel("check role").selectOption("field");
  await verify.getByLabel("text pattern").fill("^C00\\d$");
  await expect(verify.locator(".form-problem")).toHaveCount(0);
  // The JSON escape hatch follows the form.
  await search.getByText("edit as JSON").click();
  await expect(search.getByLabel("verify as JSON")).toHaveValue(
    JSON.stringify({ text_matches: { target: { text: "客户编号", role: "field" }, pattern: "^C00\\d$" } }),
  );

  // Step 9 (saved, an assert) shows its checks as forms: retitle one, remove one, add one.
  const assert = page.getByTestId("step-8");
  await expect(assert.getByRole("group", { name: "check 1", exact: true }).getByLabel("check text")).toHaveValue("查询");
  const title = assert.getByRole("group", { name: "check 2", exact: true });
  await expect(title.getByLabel("check kind")).toHaveValue("window_title");
  await title.getByLabel("title pattern").fill("客户管理系统");
  await assert.getByRole("button", { name: "remove check 1" }).click();
  await assert.getByRole("button", { name: "Add check" }).click();
  const gone = assert.getByRole("group", { name: "check 2", exact: true });
  await gone.getByLabel("check kind").selectOption("not_exists");
  await gone.getByLabel("check text").fill("保存");
  await gone.getByLabel("check role").selectOption("button");
  await gone.getByLabel("check in window").fill("编辑客户");

  // Step 7 (phone) undoes with two key steps: change one chord, add a click on 取消.
  const phone = page.getByTestId("step-6");
  await phone.getByText("verify, compensation, checks, timeout").click();
  const comp = phone.getByRole("group", { name: "compensation", exact: true });
  await expect(comp.getByRole("group", { name: "compensation step 1" }).getByLabel("compensation chord")).toHaveValue("ctrl+a");
  await comp.getByRole("group", { name: "compensation step 2" }).getByLabel("compensation chord").fill("Delete");
  await comp.getByRole("button", { name: "Add compensation step" }).click();
  const undo = comp.getByRole("group", { name: "compensation step 3" });
  await expect(undo).toContainText("needs a text");
  await undo.getByLabel("compensation target").fill("取消");
  await undo.getByLabel("compensation role").selectOption("button");
  await comp.getByRole("button", { name: "move compensation step 3 up" }).click();

  // Step 3 (login) without its text is known by its crop alone: its crop is shown, and it saves.
  const login = page.getByTestId("step-2");
  await expect(login.getByAltText("crop login_edit_save.crops/login.png")).toBeVisible();
  await login.getByLabel("target text").fill("");
  await login.getByText("3.", { exact: true }).click();
  await expect(page.getByTestId("target-crop")).toContainText("known by its pixels alone");
  await expect(page.getByTestId("target-crop").getByRole("img")).toHaveJSProperty("complete", true);
  expect(await page.getByTestId("target-crop").getByRole("img").evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(0);

  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("saved");
  const saved = (await mockSaved()) as { step: Record<string, unknown>[] };
  expect(saved.step[4]).toEqual({
    id: "search",
    action: "click",
    target: {
      text: "查询",
      role: "button",
      context: "runs the customer search",
      recorded: { x: 380, y: 62, w: 100, h: 34 },
      crop: "login_edit_save.crops/search.png",
    },
    verify: { text_matches: { target: { text: "客户编号", role: "field" }, pattern: "^C00\\d$" } },
  });
  expect(saved.step[8].check).toEqual([
    { window_title: "客户管理系统" },
    { not_exists: { text: "保存", role: "button", window: "编辑客户" } },
  ]);
  expect(saved.step[6].compensation).toEqual([
    { action: "key", keys: "ctrl+a" },
    { action: "click", target: { text: "取消", role: "button" } },
    { action: "key", keys: "Delete" },
  ]);
  expect(saved.step[2]).toMatchObject({
    id: "login",
    target: { role: "button", recorded: { x: 324, y: 280, w: 110, h: 34 }, crop: "login_edit_save.crops/login.png" },
    verify: { exists: { text: "查询", role: "button" } },
  });
  expect(saved.step[2].target).not.toHaveProperty("text");
  await page.screenshot({ path: `${SHOTS}/studio-editor-forms.png`, fullPage: true });
});

test("a verify's target is picked on the captured window, not typed", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Open" }).click();
  const edit = page.getByTestId("step-5");
  await edit.getByText("verify, compensation, checks, timeout").click();
  await edit.getByRole("button", { name: "Add verify" }).click();
  const pick = edit.getByRole("button", { name: "pick verify on the screenshot" });
  await pick.click();
  await expect(pick).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("pick-into")).toHaveText(
    "Capture the window, then click the control for the target its verify looks for of step 6: Mend proposes its text, role and box.",
  );
  await page.getByRole("button", { name: "Capture window" }).click();
  await page.getByTestId("screenshot").click({ position: { x: 200, y: 40 } });
  const verify = edit.getByRole("group", { name: "verify", exact: true });
  await expect(verify.getByLabel("check text")).toHaveValue("查询");
  await expect(verify.getByLabel("check role")).toHaveValue("button");
  await expect(pick).toHaveAttribute("aria-pressed", "false");
  await expect(page.getByTestId("pick-into")).toContainText("the step's target of step 6");
  await expect(edit.getByLabel("target text")).toHaveValue("编辑");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("saved");
  const saved = (await page.evaluate(
    () => (window as unknown as { __mendMock: { saved: Record<string, unknown> } }).__mendMock.saved["login_edit_save.toml"],
  )) as { step: Record<string, unknown>[] };
  expect(saved.step[5]).toMatchObject({
    id: "edit",
    target: { text: "编辑", role: "button", crop: "login_edit_save.crops/edit.png" },
    verify: { exists: { text: "查询", role: "button", recorded: { x: 380, y: 62, w: 100, h: 34 } } },
  });
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
