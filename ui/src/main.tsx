import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { createMockBackend, isTauriWindow, selectBackend } from "./backend";
import "./styles.css";

const root = document.getElementById("root");
if (!root) {
  throw new Error("index.html has no #root element");
}

// In a plain browser the mock replays a recorded run; `?scenario=removed` replays the one that
// pauses for a person (browser tests and screenshots use both).
const scenario = new URLSearchParams(window.location.search).get("scenario");
const backend = isTauriWindow(window)
  ? selectBackend(window)
  : createMockBackend({ scenario: scenario === "removed" ? "removed" : "pass" });

// Browser tests read what the mock saved.
if (backend.kind === "mock") (window as unknown as Record<string, unknown>).__mendMock = backend;

createRoot(root).render(
  <StrictMode>
    <App backend={backend} />
  </StrictMode>,
);
