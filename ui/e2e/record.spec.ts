import { expect, test } from "@playwright/test";

const SHOTS = "../docs/screenshots";

type Mock = { recaptures: { file: string; step: number; rect: { x: number; y: number; w: number; h: number } | null }[]; saved: Record<string, { step: { target?: { recorded?: unknown; crop?: string } }[] }> };
const mock = (page: import("@playwright/test").Page) =>
  page.evaluate(() => {
    const m = (window as unknown as { __mendMock: Mock }).__mendMock;
    return { recaptures: m.recaptures, saved: m.saved };
  });

test("Record: steps appear live, Stop writes the flow and opens it in the editor", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("flow-login_edit_save.toml").getByRole("button", { name: "Open" }).click();
  await page.getByRole("button", { name: "● Record" }).click();
  // The window and a free file name are proposed; a taken file is refused before starting.
  await expect(page.getByLabel("record window")).toHaveValue("客户管理系统|Customer Desk");
  await expect(page.getByLabel("record file")).toHaveValue("login_edit_save-recorded.toml");
  await page.getByLabel("record file").fill("login_edit_save.toml");
  await expect(page.getByRole("button", { name: "Start recording" })).toBeDisabled();
  await expect(page.getByText("login_edit_save.toml exists already")).toBeVisible();
  await page.getByLabel("record file").fill("login_edit_save-recorded.toml");
  await page.getByLabel("record name").fill("login, recorded");
  await page.getByRole("button", { name: "Start recording" }).click();

  // Steps come while the recording goes on (Stop still offered): the field clicks became
  // `type`s in place, the password only as its secret's name.
  const recording = page.getByTestId("recording");
  await expect(recording).toContainText("Recording in '客户管理系统'");
  await expect(recording).toContainText("ctrl+alt+End");
  await expect(page.getByTestId("recorded-step-0")).toContainText("type field '用户名' ← \"admin\"");
  await expect(page.getByTestId("recorded-step-1")).toContainText("${secret:SECRET_2}");
  await expect(page.getByTestId("recorded-step-2")).toContainText("click button '登录' [write] + verify");
  await expect(page.getByRole("button", { name: "■ Stop" })).toBeEnabled();
  await page.screenshot({ path: `${SHOTS}/studio-recording.png`, fullPage: true });

  await page.getByRole("button", { name: "■ Stop" }).click();
  const outcome = page.getByTestId("record-outcome");
  await expect(outcome).toContainText("recorded 3 step(s) into login_edit_save-recorded.toml and validated");
  await expect(outcome).toContainText("Set SECRET_2 before running");
  await expect(recording).toHaveCount(0);

  // The flow is open in the editor: its steps as cards, the button's crop shown.
  await expect(page.getByRole("heading", { level: 2 })).toContainText("login, recorded");
  await expect(page.getByRole("heading", { level: 2 })).toContainText("login_edit_save-recorded.toml");
  await expect(page.getByTestId("step-0").getByLabel("typed text")).toHaveValue("admin");
  await expect(page.getByTestId("step-1").getByLabel("typed text")).toHaveValue("${secret:SECRET_2}");
  await page.getByTestId("step-2").click();
  await expect(page.getByTestId("target-crop")).toContainText("login_edit_save-recorded.crops/s3.png");
  await expect(page.getByTestId("target-crop").getByRole("img")).toHaveJSProperty("complete", true);
  await page.screenshot({ path: `${SHOTS}/studio-recorded.png`, fullPage: true });

  // Re-capture the crop from a box dragged on the window's picture, then save.
  await page.getByRole("button", { name: "Capture window" }).click();
  const shot = page.getByTestId("screenshot");
  await expect(page.getByTestId("crop-box")).toContainText("Drag a box");
  const b = (await shot.boundingBox())!;
  await page.mouse.move(b.x + 100, b.y + 50);
  await page.mouse.down();
  await page.mouse.move(b.x + 160, b.y + 70, { steps: 5 });
  await page.mouse.move(b.x + 200, b.y + 90, { steps: 5 });
  await page.mouse.up();
  await expect(page.getByTestId("crop-box")).toContainText("dragged box");
  await page.getByRole("button", { name: "Re-capture crop" }).click();
  await expect(page.getByTestId("save-status")).toHaveText(
    "crop of step 3 re-captured into login_edit_save-recorded.crops/s3.png; save to keep it",
  );
  const { recaptures } = await mock(page);
  expect(recaptures).toHaveLength(1);
  expect(recaptures[0]).toMatchObject({ file: "login_edit_save-recorded.toml", step: 2 });
  const rect = recaptures[0].rect!;
  expect(rect.w).toBeGreaterThan(50);
  expect(rect.h).toBeGreaterThan(20);
  // The drag was no pick: the target kept its text and crop, and took the dragged box.
  await expect(page.getByTestId("step-2").getByLabel("target text")).toHaveValue("登录");
  await expect(page.getByTestId("step-2")).toContainText(`recorded ${rect.x},${rect.y} ${rect.w}×${rect.h}`);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("save-status")).toHaveText("saved");
  const { saved } = await mock(page);
  expect(saved["login_edit_save-recorded.toml"].step[2].target).toMatchObject({
    recorded: rect,
    crop: "login_edit_save-recorded.crops/s3.png",
  });
});
