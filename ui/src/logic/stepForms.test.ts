import { describe, expect, it } from "vitest";
import { createMockBackend, type Check, type Flow, type Step, type TargetSpec } from "../backend";
import flows from "../backend/recorded/flows.json";
import { describeTarget, updateStep, updateTarget } from "./flowEdit";
import {
  applyProposalInto,
  applyTargetFields,
  checkFields,
  checkFromFields,
  checkProblem,
  editCheck,
  editStepFields,
  hiddenStepFields,
  moveAt,
  newCheck,
  newCompensationStep,
  pickWindow,
  removeAt,
  replaceAt,
  roleOptions,
  stepProblem,
  targetProblem,
  withCheckTarget,
} from "./stepForms";

/** A target with every key the check form does not show. */
const rich: TargetSpec = {
  text: "查询",
  role: "button",
  near: "客户编号",
  offset: [120, 0],
  recorded: { x: 380, y: 62, w: 100, h: 34 },
  crop: "f.crops/search.png",
  context: "runs the customer search",
  window: "客户管理系统",
  synonyms: ["Search"],
};

const SAMPLES = Object.values(flows as unknown as Record<string, { flow: Flow }>).map((f) => f.flow);

describe("check forms", () => {
  it("round-trips every kind of check through its fields without losing what the form does not show", () => {
    const checks: Check[] = [
      { exists: rich },
      { not_exists: rich },
      { window_title: "提示|Notice" },
      { text_matches: { target: rich, pattern: "^C00\\d$" } },
    ];
    for (const c of checks) {
      expect(checkFromFields(checkFields(c), c)).toEqual(c);
      expect(editCheck(c, {})).toEqual(c);
    }
  });

  it("round-trips every verify and check of the sample flows unchanged", () => {
    let seen = 0;
    for (const flow of SAMPLES) {
      for (const s of flow.step) {
        for (const c of [...(s.check ?? []), ...(s.verify ? [s.verify] : [])]) {
          expect(editCheck(c, {})).toEqual(c);
          seen++;
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(7);
  });

  it("edits a target field and keeps the recorded box, crop, offset, context and synonyms", () => {
    const c = editCheck({ exists: rich }, { text: "检索", window: "" });
    expect(c).toEqual({ exists: { ...rich, text: "检索", window: undefined } });
    expect("window" in (c as { exists: TargetSpec }).exists).toBe(false);
  });

  it("writes no role for 'any' unless the target named one, and no empty strings", () => {
    expect(editCheck({ exists: { text: "保存" } }, { role: "any", near: "" })).toEqual({ exists: { text: "保存" } });
    expect(editCheck({ exists: { text: "保存", role: "button" } }, { role: "any" })).toEqual({
      exists: { text: "保存", role: "any" },
    });
    expect(editCheck({ exists: { text: "保存" } }, { role: "field" })).toEqual({ exists: { text: "保存", role: "field" } });
  });

  it("writes only the target fields it is given", () => {
    expect(applyTargetFields({ window: "确认" }, rich)).toEqual({ ...rich, window: "确认" });
    expect(applyTargetFields({ text: "" }, { text: "a", crop: "f.crops/a.png" })).toEqual({ crop: "f.crops/a.png" });
    expect(applyTargetFields({})).toEqual({});
  });

  it("drops the offset when the near label it is measured from is emptied", () => {
    const c = editCheck({ exists: rich }, { near: "" }) as { exists: TargetSpec };
    expect(c.exists.near).toBeUndefined();
    expect(c.exists.offset).toBeUndefined();
    expect(c.exists.recorded).toEqual(rich.recorded);
    expect(checkProblem(c)).toBeNull();
    // Left in place by hand, an offset without near is what the engine refuses.
    expect(targetProblem({ text: "x", offset: [1, 2] })).toMatch(/offset needs a near/);
  });

  it("switches kinds: a control check keeps its whole target, a title check its pattern", () => {
    const exists: Check = { exists: rich };
    const gone = editCheck(exists, { kind: "not_exists" });
    expect(gone).toEqual({ not_exists: rich });
    const reads = editCheck(gone, { kind: "text_matches" });
    expect(reads).toEqual({ text_matches: { target: rich, pattern: "" } });
    expect(checkProblem(reads)).toBe("the text pattern is empty");
    expect(editCheck(reads, { pattern: "\\d+" })).toEqual({ text_matches: { target: rich, pattern: "\\d+" } });
    // A title check starts from the window the target was in; back, the target starts empty.
    const title = editCheck(exists, { kind: "window_title" });
    expect(title).toEqual({ window_title: "客户管理系统" });
    const back = editCheck(title, { kind: "exists" });
    expect(back).toEqual({ exists: {} });
    expect(checkProblem(back)).toMatch(/needs a text, a near label or a recorded crop/);
  });

  it("makes new checks of each kind that say what is missing", () => {
    expect(newCheck()).toEqual({ exists: {} });
    expect(newCheck("window_title")).toEqual({ window_title: "" });
    expect(checkProblem(newCheck("window_title"))).toBe("the window title pattern is empty");
    expect(newCheck("text_matches")).toEqual({ text_matches: { target: {}, pattern: "" } });
    const filled = editCheck(newCheck(), { text: "编辑", role: "button" });
    expect(filled).toEqual({ exists: { text: "编辑", role: "button" } });
    expect(checkProblem(filled)).toBeNull();
  });

  it("accepts a target known by its crop alone, as the engine does, and refuses an empty one", () => {
    expect(targetProblem({ crop: "f.crops/print.png", role: "button" })).toBeNull();
    expect(checkProblem({ exists: { crop: "f.crops/print.png" } })).toBeNull();
    expect(targetProblem({ near: "用户名" })).toBeNull();
    expect(targetProblem({ role: "button", recorded: { x: 1, y: 2, w: 3, h: 4 } })).toMatch(/needs a text/);
    expect(targetProblem(undefined)).toMatch(/needs a text/);
    expect(describeTarget({ crop: "f.crops/print.png", role: "button" })).toBe("button by its crop print.png");
  });

  it("knows the roles and their other spellings", () => {
    expect(targetProblem({ text: "x", role: "knob" })).toMatch(/role 'knob' is not a role/);
    expect(targetProblem({ near: "Resolution:", offset: [0, -150], role: "area" })).toBeNull();
    expect(targetProblem({ near: "Resolution:", role: "area" })).toMatch(/an area .* without a text/);
    expect(targetProblem({ text: "picture", near: "Resolution:", offset: [0, -150], role: "area" })).toMatch(/an area/);
    expect(targetProblem({ text: "x", role: "edit" })).toBeNull();
    expect(roleOptions("edit")).toContain("edit");
    expect(roleOptions("button")).not.toContain("edit");
    expect(roleOptions(undefined)[0]).toBe("any");
  });
});

describe("compensation forms", () => {
  it("round-trips every compensation step of the sample flows unchanged", () => {
    let seen = 0;
    for (const flow of SAMPLES) {
      for (const s of flow.step) {
        for (const c of s.compensation ?? []) {
          expect(editStepFields(c, {})).toEqual(c);
          seen++;
        }
        // A whole step through the compensation form too (it shows less than the step card).
        expect(editStepFields(s, {})).toEqual(s);
      }
    }
    expect(seen).toBeGreaterThanOrEqual(8);
  });

  it("edits a step's action, target and text and keeps what its form does not show", () => {
    const s: Step = {
      id: "undo",
      action: "click",
      target: { text: "撤销", role: "button", recorded: { x: 1, y: 2, w: 3, h: 4 }, crop: "f.crops/undo.png" },
      risk: "write",
      verify: { not_exists: { text: "撤销" } },
    };
    const edited = editStepFields(s, { text: "还原" });
    expect(edited).toEqual({ ...s, target: { ...s.target, text: "还原" } });
    expect(hiddenStepFields(s)).toEqual(["id", "risk", "verify", "target.recorded", "target.crop"]);
    const typed = editStepFields(edited, { action: "type", typed: "${old}" });
    expect(typed).toMatchObject({ action: "type", text: "${old}", id: "undo", risk: "write" });
    expect(stepProblem(typed)).toBeNull();
  });

  it("gives an action that acts on a control a target, and drops an empty one when it no longer needs it", () => {
    const fresh = newCompensationStep();
    expect(stepProblem(fresh)).toMatch(/needs a text, a near label or a recorded crop/);
    const key = editStepFields(fresh, { action: "key" });
    expect(key).toEqual({ action: "key" });
    expect(stepProblem(key)).toMatch(/key needs keys/);
    expect(editStepFields(key, { keys: "ctrl+z" })).toEqual({ action: "key", keys: "ctrl+z" });
    const click = editStepFields({ action: "key", keys: "ctrl+z" }, { action: "click" });
    expect(click).toEqual({ action: "click", keys: "ctrl+z", target: {} });
    expect(editStepFields(click, { text: "撤销", role: "button" })).toMatchObject({ target: { text: "撤销", role: "button" } });
    // A target with something in it stays when the action changes to one without a target.
    expect(editStepFields({ action: "click", target: { text: "x" } }, { action: "focus" })).toEqual({
      action: "focus",
      target: { text: "x" },
    });
  });

  it("says what the engine would refuse, naming the compensation step", () => {
    expect(stepProblem({ action: "type", target: { text: "电话", role: "field" } })).toBe("type needs the text to type");
    expect(stepProblem({ action: "assert" })).toBe("wait_for and assert need at least one check");
    expect(stepProblem({ action: "assert", check: [{ window_title: "" }] })).toBe("the window title pattern is empty");
    expect(stepProblem({ action: "check", target: { text: "Bold", role: "button" } })).toMatch(/check box's caption/);
    expect(stepProblem({ action: "check", target: { text: "Bold" } })).toBeNull();
    expect(stepProblem({ action: "click" })).toBe("click needs a target");
    expect(stepProblem({ action: "focus" })).toBeNull();
    expect(
      stepProblem({
        action: "click",
        target: { text: "保存" },
        compensation: [{ action: "key", keys: "ctrl+z" }, { action: "click", target: { role: "button" } }],
      }),
    ).toMatch(/^compensation 2: target needs a text/);
    expect(stepProblem({ action: "click", target: { text: "保存" }, verify: { exists: {} } })).toMatch(
      /the check's target needs a text/,
    );
  });

  it("replaces, removes and moves items of a list without touching the original", () => {
    const list = ["a", "b", "c"];
    expect(replaceAt(list, 1, "B")).toEqual(["a", "B", "c"]);
    expect(removeAt(list, 0)).toEqual(["b", "c"]);
    expect(moveAt(list, 2, 1)).toEqual(["a", "c", "b"]);
    expect(moveAt(list, 0, -1)).toEqual(list);
    expect(list).toEqual(["a", "b", "c"]);
    expect(removeAt(undefined, 0)).toEqual([]);
  });
});

describe("picking a check's target on the captured window", () => {
  const proposal = {
    target: { text: "编辑", role: "button", recorded: { x: 40, y: 334, w: 100, h: 34 } },
    rect: { x: 40, y: 334, w: 100, h: 34 },
    role: "button",
  };
  const flow: Flow = {
    version: 1,
    name: "f",
    window: { title: "客户管理系统" },
    step: [
      {
        action: "click",
        target: { text: "查询", role: "button", crop: "f.crops/search.png" },
        verify: { exists: { text: "?", window: "提示", crop: "f.crops/old.png" } },
        check: [{ window_title: "客户管理系统" }, { text_matches: { target: { near: "电话" }, pattern: "^1" } }],
      },
    ],
  };

  it("puts the picked control into the verify, keeping its kind and window, dropping the old crop", () => {
    const next = applyProposalInto(flow, 0, { into: "verify" }, proposal);
    expect(next.step[0].verify).toEqual({
      exists: { text: "编辑", role: "button", window: "提示", recorded: { x: 40, y: 334, w: 100, h: 34 } },
    });
    expect(next.step[0].target).toEqual(flow.step[0].target);
    expect(next.step[0].check).toEqual(flow.step[0].check);
  });

  it("puts it into one check of the list, keeping the pattern; a title check has no target to take it", () => {
    const next = applyProposalInto(flow, 0, { into: "check", index: 1 }, proposal);
    expect(next.step[0].check![1]).toEqual({
      text_matches: { target: { near: "电话", ...proposal.target }, pattern: "^1" },
    });
    expect(next.step[0].check![0]).toEqual({ window_title: "客户管理系统" });
    expect(applyProposalInto(flow, 0, { into: "check", index: 0 }, proposal).step[0].check).toEqual(flow.step[0].check);
    expect(applyProposalInto(flow, 0, { into: "check", index: 5 }, proposal)).toBe(flow);
    expect(withCheckTarget({ window_title: "x" }, { text: "y" })).toEqual({ window_title: "x" });
  });

  it("puts it into the step's target as before, and captures the window the target names", () => {
    expect(applyProposalInto(flow, 0, { into: "target" }, proposal).step[0].target).toEqual(proposal.target);
    expect(pickWindow(flow.step[0], { into: "verify" })).toBe("提示");
    expect(pickWindow(flow.step[0], { into: "check", index: 1 })).toBeUndefined();
    expect(pickWindow({ action: "click", target: { text: "确定", window: "确认" } }, { into: "target" })).toBe("确认");
  });
});

describe("mock backend validates checks, verify and compensation like the engine", () => {
  it("refuses a verify whose target names nothing, at its step", async () => {
    const b = createMockBackend({ tickMs: 0 });
    const flow = (await b.loadFlow("login_edit_save.toml")).flow!;
    const bad = updateStep(flow, 4, { verify: newCheck() });
    const saved = await b.saveFlow("login_edit_save.toml", bad);
    expect(saved.error?.code).toBe("FLOW_INVALID");
    expect(saved.error?.message).toContain("step 5: the check's target needs a text");
    expect(saved.error_step).toBe(4);
    expect(b.saved["login_edit_save.toml"]).toBeUndefined();
  });

  it("refuses an incomplete compensation step and saves a complete one", async () => {
    const b = createMockBackend({ tickMs: 0 });
    const flow = (await b.loadFlow("login_edit_save.toml")).flow!;
    const comp = flow.step[6].compensation!;
    const bad = updateStep(flow, 6, { compensation: [...comp, { action: "key" }] });
    const refused = await b.saveFlow("login_edit_save.toml", bad);
    expect(refused.error?.message).toContain("compensation 3: key needs keys");
    const good = updateStep(flow, 6, { compensation: [...comp, { action: "key", keys: "Tab" }] });
    expect((await b.saveFlow("login_edit_save.toml", good)).error).toBeNull();
    expect(b.saved["login_edit_save.toml"].step[6].compensation).toHaveLength(3);
  });

  it("saves a step whose target is its crop alone", async () => {
    const b = createMockBackend({ tickMs: 0 });
    const flow = (await b.loadFlow("login_edit_save.toml")).flow!;
    const cropOnly = updateTarget(flow, 2, { text: "" });
    expect(cropOnly.step[2].target).toEqual({
      role: "button",
      recorded: { x: 324, y: 280, w: 110, h: 34 },
      crop: "login_edit_save.crops/login.png",
    });
    const saved = await b.saveFlow("login_edit_save.toml", cropOnly);
    expect(saved.error).toBeNull();
    expect(b.saved["login_edit_save.toml"].step[2].target?.text).toBeUndefined();
  });
});
