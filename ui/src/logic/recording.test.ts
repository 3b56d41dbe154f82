import { describe, expect, it } from "vitest";
import type { FlowDoc, RecordEvent } from "../backend";
import teach from "../backend/recorded/teach.json";
import {
  describeRecordedStep,
  dragRect,
  recordingStarted,
  recordOutcome,
  recordProblem,
  recordReducer,
  suggestRecordFile,
  type RecordingState,
} from "./recording";

const EVENTS = teach as unknown as RecordEvent[];

describe("recording state", () => {
  it("folds a real recording's events: a step told again replaces its row", () => {
    let s = recordingStarted();
    expect(s.phase).toBe("starting");
    const counts: number[] = [];
    for (const e of EVENTS) {
      s = recordReducer(s, e);
      counts.push(s.steps.length);
    }
    expect(s.phase).toBe("recording");
    expect(s.title).toBe("客户管理系统");
    expect(s.stopChord).toBe("ctrl+alt+End");
    // 7 events, 3 steps: the field clicks became `type`s in place.
    expect(counts).toEqual([0, 1, 1, 2, 2, 3, 3]);
    expect(s.steps.map((x) => x.action)).toEqual(["type", "type", "click"]);
    expect(s.steps[0].text).toBe("admin");
    expect(s.steps[1].text).toBe("${secret:SECRET_2}");
    expect(s.steps[2].verify).toBeDefined();
    expect(s.last).toBe(2);
  });

  it("keeps stopping when the start is told late, and finishes with the flow as written", () => {
    let s: RecordingState = { ...recordingStarted(), phase: "stopping" };
    s = recordReducer(s, { kind: "started", title: "w", stop_chord: "ctrl+alt+End" });
    expect(s.phase).toBe("stopping");
    s = recordReducer(s, { kind: "step", index: 0, step: { action: "click", target: { text: "draft" } } });
    s = recordReducer(s, { kind: "note", message: "a click outside" });
    const doc: FlowDoc = {
      file: "r.toml",
      source: "",
      flow: { version: 1, name: "r", window: { title: "w" }, step: [{ action: "click", target: { text: "final" } }] },
      error: null,
      error_step: null,
      warnings: [],
    };
    s = recordReducer(s, {
      kind: "finished",
      recorded: { doc, secrets: ["PASSWORD"], notes: ["n"], stopped: "chord" },
      error: null,
    });
    expect(s.phase).toBe("finished");
    expect(s.steps[0].target?.text).toBe("final");
    expect(s.notes).toEqual(["n"]);
    expect(recordOutcome(s)).toBe(
      "recorded 1 step(s) into r.toml (stopped by ctrl+alt+End) and validated. Set PASSWORD before running (a masked field was typed into; its text was not kept)",
    );
  });

  it("a gap in the indexes keeps rows aligned", () => {
    const s = recordReducer(recordingStarted(), { kind: "step", index: 2, step: { action: "key", keys: "Return" } });
    expect(s.steps).toHaveLength(3);
    expect(s.steps[2].keys).toBe("Return");
  });

  it("tells nothing recorded, and a failure with its code", () => {
    const none = recordReducer(recordingStarted(), {
      kind: "finished",
      recorded: { doc: null, secrets: [], notes: [], stopped: "asked" },
      error: null,
    });
    expect(recordOutcome(none)).toMatch(/nothing was recorded/);
    const failed = recordReducer(recordingStarted(), {
      kind: "finished",
      recorded: null,
      error: { code: "CAPTURE_FAILED", message: "no RECORD" },
    });
    expect(failed.phase).toBe("failed");
    expect(recordOutcome(failed)).toBe("recording failed: CAPTURE_FAILED: no RECORD");
  });
});

describe("recording inputs", () => {
  it("suggests a free file name", () => {
    expect(suggestRecordFile([], "login-recorded")).toBe("login-recorded.toml");
    expect(suggestRecordFile(["a.toml", "a-2.toml"], "a")).toBe("a-3.toml");
    expect(suggestRecordFile([], "my flow/../x")).toBe("my_flow_.._x.toml");
    expect(suggestRecordFile([], "")).toBe("recorded.toml");
  });

  it("refuses a bad or taken file and a bad window pattern", () => {
    expect(recordProblem("new.toml", "客户管理系统", ["old.toml"])).toBeNull();
    expect(recordProblem("old.toml", "w", ["old.toml"])).toMatch(/exists already/);
    expect(recordProblem("../x.toml", "w", [])).toMatch(/NAME\.toml/);
    expect(recordProblem("x.txt", "w", [])).toMatch(/NAME\.toml/);
    expect(recordProblem("x.toml", "  ", [])).toMatch(/name the window/);
    expect(recordProblem("x.toml", "(unclosed", [])).toMatch(/not a valid regex/);
  });

  it("a drag is a box in either direction; a click is none", () => {
    expect(dragRect({ x: 50, y: 40 }, { x: 10, y: 20.4 })).toEqual({ x: 10, y: 20, w: 40, h: 20 });
    expect(dragRect({ x: 10, y: 10 }, { x: 12, y: 30 })).toBeNull();
  });

  it("describes a recorded step in one line, a secret by its name only", () => {
    expect(
      describeRecordedStep({
        action: "type",
        target: { text: "密码", role: "field" },
        text: "${secret:SECRET_2}",
        clear: true,
      }),
    ).toBe("type field '密码' ← \"${secret:SECRET_2}\"");
    expect(describeRecordedStep({ action: "key", keys: "ctrl+s" })).toBe("key ctrl+s");
    expect(
      describeRecordedStep({
        action: "click",
        risk: "write",
        target: { role: "button", crop: "f.crops/s3.png" },
        verify: { window_title: "^x$" },
      }),
    ).toBe("click button by its crop s3.png [write] + verify");
  });
});
