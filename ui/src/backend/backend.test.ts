import { describe, expect, it } from "vitest";
import {
  createMockBackend,
  createTauriBackend,
  isTauriWindow,
  MOCK_STUDIO_INFO,
  selectBackend,
  toBackendError,
} from "./index";
import type { Invoke } from "./tauri";

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
