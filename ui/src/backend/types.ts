/** What the shell reports about itself; mirrors `StudioInfo` in `src-tauri/src/commands.rs`. */
export interface StudioInfo {
  version: string;
  engine: string;
  /** A flow to open at start (the demo sets one). */
  open?: string | null;
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

// ---- The flow format (mirrors crates/model/src/flow.rs; TOML and JSON have the same shape) ----

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface TargetSpec {
  text?: string;
  role?: string;
  near?: string;
  offset?: [number, number];
  recorded?: Rect;
  crop?: string;
  context?: string;
  window?: string;
  synonyms?: string[];
}

export type Check =
  | { exists: TargetSpec }
  | { not_exists: TargetSpec }
  | { window_title: string }
  | { text_matches: { target: TargetSpec; pattern: string } };

export type Action =
  | "focus"
  | "click"
  | "double_click"
  | "right_click"
  | "type"
  | "key"
  | "scroll"
  | "drag"
  | "check"
  | "uncheck"
  | "wait_for"
  | "assert";

export const ACTIONS: Action[] = [
  "focus",
  "click",
  "double_click",
  "right_click",
  "type",
  "key",
  "scroll",
  "drag",
  "check",
  "uncheck",
  "wait_for",
  "assert",
];

export type Risk = "read" | "write" | "irreversible";

export interface Step {
  id?: string;
  action: Action;
  target?: TargetSpec;
  text?: string;
  clear?: boolean;
  keys?: string;
  lines?: number;
  to?: TargetSpec;
  check?: Check[];
  risk?: Risk;
  verify?: Check;
  compensation?: Step[];
  timeout_ms?: number;
}

export interface Flow {
  version: number;
  name: string;
  window: { title: string; class?: string; allow?: string[] };
  vars?: Record<string, string>;
  interrupt?: { window: string; click: string }[];
  step: Step[];
}

export interface RunBrief {
  id: string;
  status: string;
  started_ms: number;
  code: string | null;
}

export interface FlowEntry {
  file: string;
  name: string;
  steps: number;
  error: BackendError | null;
  last_runs: RunBrief[];
}

export interface FlowDoc {
  file: string;
  source: string;
  flow: Flow | null;
  error: BackendError | null;
  /** 0-based step the validation error is at. */
  error_step: number | null;
  /** Valid, but a crash or a failure after acting at these steps needs a person. */
  warnings: FlowWarning[];
}

export interface FlowWarning {
  /** 0-based step. */
  step: number;
  message: string;
}

export interface Shot {
  /** A data: or same-origin URL of the PNG. */
  png: string;
  width: number;
  height: number;
  title: string;
}

export interface Proposal {
  target: TargetSpec;
  rect: Rect;
  role: string;
}

export interface Located {
  strategy: string;
  box: Rect;
  screen_box: Rect;
  confidence: number;
  text: string;
  frame_id: number;
}

export interface Candidate {
  rect: Rect;
  text: string;
  role: string;
  score: number;
}

export interface LocateResult {
  located: Located | null;
  error: BackendError | null;
  candidates: Candidate[];
}

// ---- Runs (mirror crates/runner) ----

/** One run event: a step started / ended, an interrupt dismissed, a compensation ran. */
export interface Progress {
  row: number;
  rows: number;
  step: number;
  steps: number;
  id: string;
  action: string;
  /** start | passed | verified | retry | failed | interrupt | undone */
  status: string;
  strategy: string | null;
  confidence: number | null;
  ms: number;
  code: string | null;
  message: string | null;
  rect: Rect | null;
}

export interface StepSummary {
  row: number;
  step: number;
  id: string;
  action: string;
  status: string;
  strategy: string | null;
  confidence: number | null;
  duration_ms: number;
  code: string | null;
  screenshot: string | null;
  /** What the step said of itself (a failure's reason; how a redo went). */
  message?: string | null;
}

export interface Summary {
  run: string;
  flow: string;
  status: string;
  code: string | null;
  message: string | null;
  steps: StepSummary[];
  report: string | null;
  takeover: string | null;
}

export type RunEvent =
  | { kind: "progress"; progress: Progress }
  | { kind: "finished"; summary: Summary | null; error: BackendError | null };

export interface RunRequest {
  file: string;
  vars: Record<string, string>;
  data: string | null;
}

export interface Takeover {
  id: string;
  run: string;
  flow: string;
  row: number;
  step: number;
  step_id: string;
  action: string;
  code: string;
  message: string;
  screenshot: string | null;
  candidates: Candidate[];
  effects: string[];
  suggestion: string;
  status: string;
  resolution: string | null;
  created_ms: number;
}

export interface Change {
  id: string;
  run: string;
  takeover: string;
  flow_path: string;
  step: number;
  step_id: string;
  old: TargetSpec;
  new: TargetSpec;
  crop: string | null;
  status: string;
  created_ms: number;
}

export interface ChangeView {
  change: Change;
  diff: string;
}

export interface Report {
  summary: Summary;
  markdown: string;
}

// ---- Recording (mirror crates/app/src/recording.rs and crates/teach) ----

export interface RecordRequest {
  /** A new flow file in the flows folder. */
  file: string;
  /** Anchored regex of the application's main window title. */
  window: string;
  name: string | null;
}

/** How a recording ended: Stop (or Ctrl+C), the stop chord in the app, or the input stream ended. */
export type Stopped = "asked" | "chord" | "input_ended";

export interface Recorded {
  /** The flow written and validated; null when nothing was recorded (nothing written). */
  doc: FlowDoc | null;
  /** Secrets the flow uses for masked fields: set them before running. */
  secrets: string[];
  notes: string[];
  stopped: Stopped;
}

/**
 * One recording event. A `step` carries its index and whole current state: the same index comes
 * again when later input changes the step (a field click becomes a `type` when the typing ends).
 */
export type RecordEvent =
  | { kind: "started"; title: string; stop_chord: string }
  | { kind: "step"; index: number; step: Step }
  | { kind: "note"; message: string }
  | { kind: "finished"; recorded: Recorded | null; error: BackendError | null };

export interface RecaptureRequest {
  file: string;
  /** 0-based step (names the crop when the target has none yet). */
  step: number;
  /** The flow's window title, used when the target names no window of its own. */
  window: string;
  target: TargetSpec;
  /** A box dragged on the screenshot (window pixels); else the target's recorded box. */
  rect: Rect | null;
}

/** "pick X,Y" | "done" | "skip" | "retry" | "abort" — what the engine's resolve understands. */
export type Resolution = string;

/** Everything the UI may ask of the studio. Components receive a `Backend`, never `@tauri-apps/*`. */
export interface Backend {
  readonly kind: BackendKind;
  /** Every method rejects with a `BackendError`. */
  studioInfo(): Promise<StudioInfo>;
  listFlows(): Promise<FlowEntry[]>;
  loadFlow(file: string): Promise<FlowDoc>;
  /** Validates; an invalid flow comes back with its error and is not written. */
  saveFlow(file: string, flow: Flow): Promise<FlowDoc>;
  createFlow(file: string, name: string, title: string): Promise<FlowDoc>;
  duplicateFlow(file: string, newFile: string): Promise<FlowDoc>;
  captureWindow(title: string): Promise<Shot>;
  /** A crop or screenshot path from a flow or a run, as an image URL. */
  readImage(path: string): Promise<string>;
  proposeTarget(title: string, x: number, y: number): Promise<Proposal>;
  testLocate(title: string, target: TargetSpec): Promise<LocateResult>;
  startRun(request: RunRequest): Promise<void>;
  listTakeovers(all: boolean): Promise<Takeover[]>;
  resolveTakeover(id: string, resolution: Resolution): Promise<void>;
  listChanges(): Promise<ChangeView[]>;
  decideChange(id: string, accept: boolean): Promise<Change>;
  runReport(id: string): Promise<Report>;
  /** Run events as they happen; returns the unsubscribe function. */
  onRunEvent(listener: (event: RunEvent) => void): () => void;
  /** Record a person's demonstration into a new flow file; steps come as `RecordEvent`s. */
  startRecording(request: RecordRequest): Promise<void>;
  /** End the recording: the flow so far is written and validated (a `finished` event). */
  stopRecording(): Promise<void>;
  /** Recording events as they happen; returns the unsubscribe function. */
  onRecordEvent(listener: (event: RecordEvent) => void): () => void;
  /** Crop the step's box from the window as it is now; the target with its new crop and box. */
  recaptureCrop(request: RecaptureRequest): Promise<TargetSpec>;
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
