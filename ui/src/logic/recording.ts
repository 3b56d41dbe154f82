import type { BackendError, RecordEvent, Rect, Step, Stopped } from "../backend";
import { describeTarget } from "./flowEdit";

/**
 * The studio's Record, as pure state: the events of one recording (`RecordEvent`) folded into
 * what the editor shows while the person works — the steps so far, the notes — and how it
 * ended. Steps are replaced by index: the engine sends a step again when later input changes it.
 */
export interface RecordingState {
  phase: "starting" | "recording" | "stopping" | "finished" | "failed";
  /** The window being recorded (its title), once started. */
  title: string | null;
  stopChord: string | null;
  steps: Step[];
  notes: string[];
  /** The step told last (new or changed), to highlight. */
  last: number | null;
  /** Filled when finished. */
  file: string | null;
  secrets: string[];
  stopped: Stopped | null;
  error: BackendError | null;
}

export function recordingStarted(): RecordingState {
  return {
    phase: "starting",
    title: null,
    stopChord: null,
    steps: [],
    notes: [],
    last: null,
    file: null,
    secrets: [],
    stopped: null,
    error: null,
  };
}

export function recordReducer(state: RecordingState, event: RecordEvent): RecordingState {
  switch (event.kind) {
    case "started":
      return { ...state, phase: state.phase === "stopping" ? "stopping" : "recording", title: event.title, stopChord: event.stop_chord };
    case "step": {
      const steps = [...state.steps];
      steps[event.index] = event.step;
      // A gap can only come from a lost event; a placeholder keeps indexes aligned.
      for (let i = 0; i < steps.length; i++) steps[i] ??= { action: "focus" };
      return { ...state, steps, last: event.index };
    }
    case "note":
      return { ...state, notes: [...state.notes, event.message] };
    case "finished": {
      if (event.error || !event.recorded) {
        return { ...state, phase: "failed", error: event.error ?? { code: "ipc", message: "the recording ended without a result" } };
      }
      const r = event.recorded;
      return {
        ...state,
        phase: "finished",
        // The flow as written is the truth; the live rows were its drafts.
        steps: r.doc?.flow?.step ?? state.steps,
        notes: r.notes,
        file: r.doc?.file ?? null,
        secrets: r.secrets,
        stopped: r.stopped,
        error: r.doc?.error ?? null,
      };
    }
  }
}

/** One line for a recorded step: what it does to what. A secret shows as its `${secret:NAME}`. */
export function describeRecordedStep(s: Step): string {
  const parts: string[] = [s.action];
  if (s.target) parts.push(describeTarget(s.target));
  if (s.action === "type" && s.text !== undefined) parts.push(`← "${s.text}"`);
  if (s.action === "key" && s.keys) parts.push(s.keys);
  if (s.risk && s.risk !== "read") parts.push(`[${s.risk}]`);
  if (s.verify) parts.push("+ verify");
  return parts.join(" ");
}

/** A free file name for a new recording: `<base>.toml`, else `<base>-2.toml`, … */
export function suggestRecordFile(existing: string[], base: string): string {
  const stem = (base.replace(/\.toml$/, "").replace(/[^\w.-]+/g, "_").replace(/^[.]+/, "") || "recorded").slice(0, 60);
  const taken = new Set(existing);
  for (let k = 1; ; k++) {
    const f = k === 1 ? `${stem}.toml` : `${stem}-${k}.toml`;
    if (!taken.has(f)) return f;
  }
}

/** Why a recording cannot start with these inputs (null when it can). */
export function recordProblem(file: string, window: string, existing: string[]): string | null {
  if (!/^[\w][\w.-]*\.toml$/.test(file) || file.includes("..")) {
    return "the flow file is NAME.toml (letters, digits, _ . -) in the flows folder";
  }
  if (existing.includes(file)) return `${file} exists already; record into a new file`;
  if (!window.trim()) return "name the window to record: a regex of its title";
  try {
    new RegExp(window);
  } catch {
    return `'${window}' is not a valid regex`;
  }
  return null;
}

/** What the person is told when a recording ends. */
export function recordOutcome(s: RecordingState): string {
  if (s.phase === "failed") return `recording failed: ${s.error?.code}: ${s.error?.message}`;
  if (s.phase !== "finished") return "";
  if (!s.file) return "nothing was recorded: no click or key reached the window";
  const how = s.stopped === "chord" ? ` (stopped by ${s.stopChord ?? "the chord"})` : "";
  const valid = s.error ? ` — invalid: ${s.error.message}` : " and validated";
  const secrets = s.secrets.length
    ? `. Set ${s.secrets.join(", ")} before running (a masked field was typed into; its text was not kept)`
    : "";
  return `recorded ${s.steps.length} step(s) into ${s.file}${how}${valid}${secrets}`;
}

/** The box between two points dragged on a picture, in its pixels; null for a mere click. */
export function dragRect(a: { x: number; y: number }, b: { x: number; y: number }, min = 4): Rect | null {
  const x = Math.round(Math.min(a.x, b.x));
  const y = Math.round(Math.min(a.y, b.y));
  const w = Math.round(Math.abs(a.x - b.x));
  const h = Math.round(Math.abs(a.y - b.y));
  return w >= min && h >= min ? { x, y, w, h } : null;
}
