import { describe, expect, it, vi } from "vitest";
import {
  createMockBackend,
  createTauriBackend,
  isTauriWindow,
  MOCK_STUDIO_INFO,
  selectBackend,
  toBackendError,
} from "./index";
import type { Invoke, Listen } from "./tauri";
import type { RecordEvent } from "./types";

describe("selectBackend", () => {
  it("uses the mock in a plain browser window", () => {
    expect(selectBackend({}).kind).toBe("mock");
  });

  it("uses Tauri when the webview injected __TAURI_INTERNALS__", () => {
    expect(selectBackend({ __TAURI_INTERNALS__: { invoke: () => undefined } }).kind).toBe("tauri");
  });

  it("does not take an explicitly cleared global for Tauri", () => {
    expect(isTauriWindow({ __TAURI_INTERNALS__: undefined })).toBe(false);
    expect(isTauriWindow({ __TAURI_INTERNALS__: null })).toBe(false);
  });
});

describe("mock backend", () => {
  it("reports the mend engine under a version no release uses", async () => {
    const info = await createMockBackend().studioInfo();
    expect(info).toEqual(MOCK_STUDIO_INFO);
    expect(info.engine).toBe("mend");
    expect(info.version).toMatch(/mock/);
  });

  it("rejects with {code, message} when told to fail", async () => {
    const backend = createMockBackend({ failWith: { code: "engine_down", message: "no engine" } });
    await expect(backend.studioInfo()).rejects.toEqual({ code: "engine_down", message: "no engine" });
  });
});

describe("tauri backend", () => {
  it("invokes the snake_case command and returns its payload", async () => {
    const calls: string[] = [];
    const invoke = (async (command: string) => {
      calls.push(command);
      return { version: "0.1.0", engine: "mend" };
    }) as Invoke;
    await expect(createTauriBackend(invoke).studioInfo()).resolves.toEqual({
      version: "0.1.0",
      engine: "mend",
    });
    expect(calls).toEqual(["studio_info"]);
  });

  it("passes a command's {code, message} rejection through unchanged", async () => {
    const invoke = (() => Promise.reject({ code: "not_found", message: "x" })) as Invoke;
    await expect(createTauriBackend(invoke).studioInfo()).rejects.toEqual({
      code: "not_found",
      message: "x",
    });
  });

  it("wraps Tauri's own bare-string rejections as code ipc", async () => {
    const invoke = (() => Promise.reject("Command studio_info not found")) as Invoke;
    await expect(createTauriBackend(invoke).studioInfo()).rejects.toEqual({
      code: "ipc",
      message: "Command studio_info not found",
    });
  });
});

describe("toBackendError", () => {
  it("drops extra fields and keeps code and message", () => {
    expect(toBackendError({ code: "c", message: "m", extra: 1 })).toEqual({ code: "c", message: "m" });
  });

  it("turns Errors and other values into code ipc", () => {
    expect(toBackendError(new Error("boom"))).toEqual({ code: "ipc", message: "boom" });
    expect(toBackendError(42)).toEqual({ code: "ipc", message: "42" });
  });
});

describe("recording through the mock", () => {
  it("tells the recorded steps live and, on Stop, writes the flow so far", async () => {
    const backend = createMockBackend({ tickMs: 0 });
    const events: RecordEvent[] = [];
    backend.onRecordEvent((e) => events.push(e));
    await backend.startRecording({ file: "mine.toml", window: "客户管理系统", name: null });
    await expect(backend.startRecording({ file: "x.toml", window: "w", name: null })).rejects.toMatchObject({
      code: "WINDOW_BLOCKED",
    });
    await vi.waitFor(() => expect(events.filter((e) => e.kind === "step")).toHaveLength(6));
    const crop = events.flatMap((e) => (e.kind === "step" && e.step.target?.crop ? [e.step.target.crop] : []));
    expect(crop[0]).toBe("mine.crops/s3.png");
    await backend.stopRecording();
    await vi.waitFor(() => expect(events.at(-1)?.kind).toBe("finished"));
    const done = events.at(-1) as Extract<RecordEvent, { kind: "finished" }>;
    expect(done.recorded?.secrets).toEqual(["SECRET_2"]);
    expect(done.recorded?.doc?.flow?.step).toHaveLength(3);
    expect((await backend.loadFlow("mine.toml")).flow?.step[0].text).toBe("admin");
    await expect(backend.stopRecording()).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    // The file exists now: a new recording must go elsewhere.
    await expect(backend.startRecording({ file: "mine.toml", window: "w", name: null })).rejects.toMatchObject({
      code: "INVALID_ARGUMENT",
    });
  });

  it("re-captures a crop by the dragged box, else the recorded one, else refuses", async () => {
    const backend = createMockBackend({ tickMs: 0 });
    const rec = { x: 1, y: 2, w: 30, h: 20 };
    const t = await backend.recaptureCrop({ file: "f.toml", step: 4, window: "w", target: { recorded: rec }, rect: null });
    expect(t).toEqual({ recorded: rec, crop: "f.crops/s5.png" });
    const box = { x: 5, y: 5, w: 9, h: 9 };
    const again = await backend.recaptureCrop({ file: "f.toml", step: 4, window: "w", target: t, rect: box });
    expect(again).toEqual({ recorded: box, crop: "f.crops/s5.png" });
    await expect(
      backend.recaptureCrop({ file: "f.toml", step: 0, window: "w", target: {}, rect: null }),
    ).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});

describe("recording through tauri", () => {
  it("invokes the commands and maps record-finished to a finished event", async () => {
    const calls: [string, unknown][] = [];
    const invoke = (async (command: string, args?: unknown) => {
      calls.push([command, args]);
      return undefined;
    }) as Invoke;
    const handlers: Record<string, (e: { payload: unknown }) => void> = {};
    const listen = (async (event: string, h: (e: { payload: unknown }) => void) => {
      handlers[event] = h;
      return () => undefined;
    }) as Listen;
    const backend = createTauriBackend(invoke, listen);
    const seen: RecordEvent[] = [];
    backend.onRecordEvent((e) => seen.push(e));
    await backend.startRecording({ file: "r.toml", window: "w", name: null });
    await backend.stopRecording();
    expect(calls.map((c) => c[0])).toEqual(["start_recording", "stop_recording"]);
    expect(calls[0][1]).toEqual({ request: { file: "r.toml", window: "w", name: null } });
    await vi.waitFor(() => expect(Object.keys(handlers).sort()).toEqual(["record-event", "record-finished"]));
    handlers["record-event"]({ payload: { kind: "step", index: 0, step: { action: "key", keys: "Return" } } });
    handlers["record-finished"]({ payload: { recorded: null, error: { code: "CAPTURE_FAILED", message: "m" } } });
    expect(seen).toEqual([
      { kind: "step", index: 0, step: { action: "key", keys: "Return" } },
      { kind: "finished", recorded: null, error: { code: "CAPTURE_FAILED", message: "m" } },
    ]);
  });
});
