import { describe, expect, it, vi } from "vitest";
import { createMockBackend, type Flow, type RunEvent } from "../backend";
import { addStep, applyProposal, moveStep, removeStep, updateStep, updateTarget } from "./flowEdit";
import { idle, medianMs, runReducer, started, toImagePixels } from "./runState";
import runs from "../backend/recorded/runs.json";

const flow: Flow = {
  version: 1,
  name: "f",
  window: { title: "客户管理系统" },
  step: [
    { id: "a", action: "click", target: { text: "登录", role: "button" } },
    { id: "b", action: "type", target: { text: "用户名", role: "field" }, text: "x" },
    { id: "c", action: "assert", check: [{ exists: { text: "查询" } }] },
  ],
};

describe("flow edits", () => {
  it("moves a step and leaves the original untouched", () => {
    const moved = moveStep(flow, 0, 2);
    expect(moved.step.map((s) => s.id)).toEqual(["b", "c", "a"]);
    expect(flow.step.map((s) => s.id)).toEqual(["a", "b", "c"]);
    expect(moveStep(flow, 0, 5)).toBe(flow);
  });

  it("adds, removes and edits steps; empty strings are dropped", () => {
    const added = addStep(flow, 1);
    expect(added.step).toHaveLength(4);
    expect(added.step[1].action).toBe("click");
    expect(removeStep(flow, 1).step.map((s) => s.id)).toEqual(["a", "c"]);
    const edited = updateTarget(updateStep(flow, 0, { risk: "write" }), 0, { text: "登录(L)", near: "" });
    expect(edited.step[0]).toEqual({ id: "a", action: "click", risk: "write", target: { text: "登录(L)", role: "button" } });
  });

  it("takes a proposal as the target and drops a stale crop", () => {
    const withCrop = updateTarget(flow, 0, { crop: "f.crops/a.png" });
    const p = applyProposal(withCrop, 0, {
      target: { text: "查询", role: "button", recorded: { x: 1, y: 2, w: 3, h: 4 } },
      rect: { x: 1, y: 2, w: 3, h: 4 },
      role: "button",
    });
    expect(p.step[0].target).toEqual({ text: "查询", role: "button", recorded: { x: 1, y: 2, w: 3, h: 4 } });
  });
});

describe("run state", () => {
  it("folds a recorded run into one row per step with rung and time", () => {
    let s = started();
    for (const progress of runs.pass.events) s = runReducer(s, { kind: "progress", progress } as RunEvent);
    s = runReducer(s, { kind: "finished", summary: runs.pass.summary, error: null } as RunEvent);
    expect(s.running).toBe(false);
    expect(s.steps).toHaveLength(9);
    expect(s.steps.every((r) => r.status === "passed")).toBe(true);
    expect(s.steps.find((r) => r.id === "login")?.strategy).toBe("exact");
    expect(s.summary?.status).toBe("passed");
    expect(medianMs(s.steps)).toBeGreaterThan(0);
    expect(s.lastRect).not.toBeNull();
  });

  it("shows a running step until its end arrives", () => {
    const start = runs.pass.events[0];
    const s = runReducer(idle, { kind: "progress", progress: start } as RunEvent);
    expect(s.steps[0].status).toBe("running");
  });

  it("maps a click on a scaled picture to the picture's pixels", () => {
    expect(toImagePixels({ x: 50, y: 25 }, { w: 400, h: 297 }, { w: 800, h: 594 })).toEqual({ x: 100, y: 50 });
  });
});

describe("mock backend", () => {
  it("refuses to save an invalid flow and says which step", async () => {
    const b = createMockBackend({ tickMs: 0 });
    const doc = await b.loadFlow("login_edit_save.toml");
    // Step 4 (customer) has no crop: without its text its target names nothing. (Step 3, login,
    // has one and stays valid: a crop alone is a target.)
    const bad = updateTarget(doc.flow!, 3, { text: "" });
    const saved = await b.saveFlow("login_edit_save.toml", bad);
    expect(saved.error?.code).toBe("FLOW_INVALID");
    expect(saved.error_step).toBe(3);
    expect(b.saved["login_edit_save.toml"]).toBeUndefined();
  });

  it("saves a write without a verify, with a warning at its step", async () => {
    const b = createMockBackend({ tickMs: 0 });
    const doc = await b.loadFlow("login_edit_save.toml");
    expect(doc.warnings).toEqual([]);
    const risky = updateStep(doc.flow!, 2, { verify: undefined });
    const saved = await b.saveFlow("login_edit_save.toml", risky);
    expect(saved.error).toBeNull();
    expect(saved.warnings.map((w) => w.step)).toEqual([2]);
    expect(saved.warnings[0].message).toContain("RESUME_UNVERIFIED");
  });

  it("replays the run that pauses, then its takeover resolves", async () => {
    const b = createMockBackend({ tickMs: 0, scenario: "removed" });
    const events: RunEvent[] = [];
    b.onRunEvent((e) => events.push(e));
    await b.startRun({ file: "login_edit_save.toml", vars: {}, data: null });
    // Wait for the replay's end, not for a clock: a loaded machine took longer than 50 ms.
    const fin = await vi.waitFor(
      () => {
        const f = events.find((e) => e.kind === "finished");
        if (!f) throw new Error("the replay has not finished yet");
        return f;
      },
      { timeout: 10_000, interval: 20 },
    );
    expect(fin && fin.kind === "finished" && fin.summary?.status).toBe("paused");
    const [t] = await b.listTakeovers(false);
    expect(t.code).toBe("LOCATOR_NOT_FOUND");
    await b.resolveTakeover(t.id, "skip");
    expect(await b.listTakeovers(false)).toHaveLength(0);
    expect(b.resolutions).toEqual([`${t.id} skip`]);
  });
});
