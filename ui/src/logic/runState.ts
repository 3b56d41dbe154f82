import type { BackendError, Progress, Rect, RunEvent, Summary } from "../backend";

export interface StepRow {
  row: number;
  step: number;
  id: string;
  action: string;
  status: string;
  strategy: string | null;
  confidence: number | null;
  ms: number;
  code: string | null;
  message: string | null;
}

/** What the run monitor shows, folded from run events. */
export interface RunState {
  running: boolean;
  steps: StepRow[];
  log: Progress[];
  /** The last control acted on, drawn on the frame. */
  lastRect: Rect | null;
  lastStrategy: string | null;
  lastConfidence: number | null;
  summary: Summary | null;
  error: BackendError | null;
}

export const idle: RunState = {
  running: false,
  steps: [],
  log: [],
  lastRect: null,
  lastStrategy: null,
  lastConfidence: null,
  summary: null,
  error: null,
};

export function started(): RunState {
  return { ...idle, running: true };
}

export function runReducer(state: RunState, event: RunEvent): RunState {
  if (event.kind === "finished") {
    return { ...state, running: false, summary: event.summary, error: event.error };
  }
  const p = event.progress;
  const log = [...state.log, p];
  if (p.status === "interrupt" || p.status === "undone") {
    return { ...state, log };
  }
  const key = (r: { row: number; step: number }) => `${r.row}/${r.step}`;
  const row: StepRow = {
    row: p.row,
    step: p.step,
    id: p.id,
    action: p.action,
    status: p.status === "start" ? "running" : p.status,
    strategy: p.strategy,
    confidence: p.confidence,
    ms: p.ms,
    code: p.code,
    message: p.message,
  };
  const at = state.steps.findIndex((s) => key(s) === key(p));
  const steps = at < 0 ? [...state.steps, row] : state.steps.map((s, i) => (i === at ? row : s));
  return {
    ...state,
    running: true,
    log,
    steps,
    lastRect: p.rect ?? state.lastRect,
    lastStrategy: p.strategy ?? state.lastStrategy,
    lastConfidence: p.confidence ?? state.lastConfidence,
  };
}

/** Median of the finished steps' times, for the monitor's header. */
export function medianMs(steps: StepRow[]): number | null {
  const done = steps.filter((s) => s.status === "passed" || s.status === "verified").map((s) => s.ms);
  if (!done.length) return null;
  done.sort((a, b) => a - b);
  const m = Math.floor(done.length / 2);
  return done.length % 2 ? done[m] : Math.round((done[m - 1] + done[m]) / 2);
}

/** A click on an image shown at `shown` size → the image's own pixels (`natural`). */
export function toImagePixels(
  click: { x: number; y: number },
  shown: { w: number; h: number },
  natural: { w: number; h: number },
): { x: number; y: number } {
  return {
    x: Math.round((click.x * natural.w) / Math.max(1, shown.w)),
    y: Math.round((click.y * natural.h) / Math.max(1, shown.h)),
  };
}
