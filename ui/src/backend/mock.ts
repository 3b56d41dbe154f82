import type { Backend, BackendError, StudioInfo } from "./types";

/**
 * Stands in for the Rust shell when the page runs in a plain browser (vite dev, browser tests).
 * Its version is deliberately not a real release number so a screenshot can never pass it off
 * as the app.
 */
export const MOCK_STUDIO_INFO: StudioInfo = { version: "0.0.0-mock", engine: "mend" };

export interface MockOptions {
  info?: StudioInfo;
  /** When set, every call rejects with this error, to exercise the UI's error paths. */
  failWith?: BackendError;
}

export function createMockBackend(options: MockOptions = {}): Backend {
  const info = options.info ?? MOCK_STUDIO_INFO;
  return {
    kind: "mock",
    studioInfo: () =>
      options.failWith ? Promise.reject({ ...options.failWith }) : Promise.resolve({ ...info }),
  };
}
