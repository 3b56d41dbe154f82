import { invoke as tauriInvoke } from "@tauri-apps/api/core";
import { listen as tauriListen } from "@tauri-apps/api/event";
import {
  toBackendError,
  type Backend,
  type BackendError,
  type Progress,
  type RecordEvent,
  type Recorded,
  type Summary,
} from "./types";

/** The shape of `invoke` from `@tauri-apps/api/core`, injectable so the mapping is testable without a webview. */
export type Invoke = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;
/** The shape of `listen` from `@tauri-apps/api/event`. */
export type Listen = <T>(
  event: string,
  handler: (e: { payload: T }) => void,
) => Promise<() => void>;

async function call<T>(invoke: Invoke, command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (reason) {
    throw toBackendError(reason);
  }
}

/** The real backend: each method is one `invoke` of the Rust command of the same (snake_case) name. */
export function createTauriBackend(
  invoke: Invoke = tauriInvoke,
  listen: Listen = tauriListen as Listen,
): Backend {
  return {
    kind: "tauri",
    studioInfo: () => call(invoke, "studio_info"),
    listFlows: () => call(invoke, "list_flows"),
    loadFlow: (file) => call(invoke, "load_flow", { file }),
    saveFlow: (file, flow) => call(invoke, "save_flow", { file, flow }),
    createFlow: (file, name, title) => call(invoke, "create_flow", { file, name, title }),
    duplicateFlow: (file, newFile) => call(invoke, "duplicate_flow", { file, newFile }),
    captureWindow: (title) => call(invoke, "capture_window", { title }),
    readImage: (path) => call(invoke, "read_image", { path }),
    proposeTarget: (title, x, y) => call(invoke, "propose_target", { title, x, y }),
    testLocate: (title, target) => call(invoke, "test_locate", { title, target }),
    startRun: (request) => call(invoke, "start_run", { request }),
    listTakeovers: (all) => call(invoke, "list_takeovers", { all }),
    resolveTakeover: (id, resolution) => call(invoke, "resolve_takeover", { id, resolution }),
    listChanges: () => call(invoke, "list_changes"),
    decideChange: (id, accept) => call(invoke, "decide_change", { id, accept }),
    runReport: (id) => call(invoke, "run_report", { id }),
    onRunEvent: (listener) => {
      const stops: Promise<() => void>[] = [
        listen<Progress>("run-event", (e) => listener({ kind: "progress", progress: e.payload })),
        listen<{ summary: Summary | null; error: BackendError | null }>(
          "run-finished",
          (e) => listener({ kind: "finished", summary: e.payload.summary, error: e.payload.error }),
        ),
      ];
      return () => {
        for (const s of stops) void s.then((stop) => stop());
      };
    },
    startRecording: (request) => call(invoke, "start_recording", { request }),
    stopRecording: () => call(invoke, "stop_recording"),
    recaptureCrop: (request) => call(invoke, "recapture_crop", { request }),
    onRecordEvent: (listener) => {
      const stops: Promise<() => void>[] = [
        listen<Exclude<RecordEvent, { kind: "finished" }>>("record-event", (e) => listener(e.payload)),
        listen<{ recorded: Recorded | null; error: BackendError | null }>("record-finished", (e) =>
          listener({ kind: "finished", recorded: e.payload.recorded, error: e.payload.error }),
        ),
      ];
      return () => {
        for (const s of stops) void s.then((stop) => stop());
      };
    },
  };
}
