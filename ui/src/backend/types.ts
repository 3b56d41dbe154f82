/** What the shell reports about itself; mirrors `StudioInfo` in `src-tauri/src/commands.rs`. */
export interface StudioInfo {
  version: string;
  engine: string;
}

/**
 * The one error shape that crosses IPC: a stable `code` the UI may branch on and a `message` for
 * people. The UI never matches on message text.
 */
export interface BackendError {
  code: string;
  message: string;
}

/** Which implementation is serving the page; shown in the header so a mock is never mistaken for the app. */
export type BackendKind = "tauri" | "mock";

/** Everything the UI may ask of the studio. Components receive a `Backend`, never `@tauri-apps/*`. */
export interface Backend {
  readonly kind: BackendKind;
  /** Rejects with a `BackendError`. */
  studioInfo(): Promise<StudioInfo>;
}

export function isBackendError(value: unknown): value is BackendError {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as BackendError).code === "string" &&
    typeof (value as BackendError).message === "string"
  );
}

/**
 * Normalises whatever an IPC call rejected with. Mend commands reject with `{code, message}`;
 * Tauri itself rejects with a bare string when the call never reached a command (unknown command,
 * denied by a capability), which becomes code `"ipc"`.
 */
export function toBackendError(reason: unknown): BackendError {
  if (isBackendError(reason)) {
    return { code: reason.code, message: reason.message };
  }
  if (typeof reason === "string") {
    return { code: "ipc", message: reason };
  }
  if (reason instanceof Error) {
    return { code: "ipc", message: reason.message };
  }
  return { code: "ipc", message: String(reason) };
}
