import { invoke as tauriInvoke } from "@tauri-apps/api/core";
import { toBackendError, type Backend, type StudioInfo } from "./types";

/** The shape of `invoke` from `@tauri-apps/api/core`, injectable so the mapping is testable without a webview. */
export type Invoke = <T>(command: string, args?: Record<string, unknown>) => Promise<T>;

async function call<T>(invoke: Invoke, command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (reason) {
    throw toBackendError(reason);
  }
}

/** The real backend: each method is one `invoke` of the Rust command of the same (snake_case) name. */
export function createTauriBackend(invoke: Invoke = tauriInvoke): Backend {
  return {
    kind: "tauri",
    studioInfo: () => call<StudioInfo>(invoke, "studio_info"),
  };
}
