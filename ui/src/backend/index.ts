import { createMockBackend } from "./mock";
import { createTauriBackend } from "./tauri";
import type { Backend } from "./types";

export type * from "./types";
export { ACTIONS, isBackendError, toBackendError } from "./types";
export { createMockBackend, MOCK_STUDIO_INFO, type MockBackend } from "./mock";
export { createTauriBackend } from "./tauri";

/**
 * Tauri injects `__TAURI_INTERNALS__` into every webview it creates before any page script runs;
 * a plain browser never has it. Its presence is the whole test.
 */
export function isTauriWindow(win: object): boolean {
  return "__TAURI_INTERNALS__" in win && (win as Record<string, unknown>).__TAURI_INTERNALS__ != null;
}

export function selectBackend(win: object): Backend {
  return isTauriWindow(win) ? createTauriBackend() : createMockBackend();
}
