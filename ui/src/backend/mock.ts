import flows from "./recorded/flows.json";
import runs from "./recorded/runs.json";
import teach from "./recorded/teach.json";
import { stepProblem } from "../logic/stepForms";
import type {
  Backend,
  BackendError,
  ChangeView,
  Flow,
  FlowDoc,
  FlowEntry,
  FlowWarning,
  Progress,
  RecaptureRequest,
  RecordEvent,
  RunEvent,
  Step,
  StudioInfo,
  Summary,
  Takeover,
} from "./types";

/**
 * Stands in for the Rust shell when the page runs in a plain browser (vite dev, browser tests).
 * It replays events recorded from real runs of `fixtures/flows/login_edit_save.toml` against the
 * practice app (`recorded/runs.json`: baseline passes; `removed` pauses at 查询 and is skipped).
 * Its version is deliberately not a real release number so a screenshot can never pass it off
 * as the app.
 */
export const MOCK_STUDIO_INFO: StudioInfo = { version: "0.0.0-mock", engine: "mend" };

export interface MockOptions {
  info?: StudioInfo;
  /** When set, every call rejects with this error, to exercise the UI's error paths. */
  failWith?: BackendError;
  /** Milliseconds between replayed events (0 in unit tests). */
  tickMs?: number;
  /** Which recording `startRun` replays: the passing run, or the one that pauses. */
  scenario?: "pass" | "removed";
}

type Recorded = { events: Progress[]; summary: Summary };
const RECORDED = runs as unknown as {
  pass: Recorded;
  removed: Recorded;
  skip: Recorded;
  takeover: Takeover;
};
const FLOWS = flows as unknown as Record<string, { source: string; flow: Flow }>;
/**
 * The events of a real recording (`crates/teach/tests/live.rs` with MEND_TEACH_KEEP): a person
 * logs in to the practice app; its crops are under public/mock/teach.crops/.
 */
const TEACH = teach as unknown as RecordEvent[];
/** Crop folders of the mock's own flows; any other `X.crops/` is the recording's. */
const FIXTURE_CROPS = ["delete_with_confirm", "login_edit_save", "new_customers"];

export interface MockBackend extends Backend {
  /** What was saved, for tests. */
  readonly saved: Record<string, Flow>;
  readonly resolutions: string[];
  /** Re-capture requests, for tests. */
  readonly recaptures: RecaptureRequest[];
}

export function createMockBackend(options: MockOptions = {}): MockBackend {
  const info = options.info ?? MOCK_STUDIO_INFO;
  const tick = options.tickMs ?? 120;
  const files: Record<string, { source: string; flow: Flow }> = structuredClone(FLOWS);
  const saved: Record<string, Flow> = {};
  const resolutions: string[] = [];
  const listeners = new Set<(e: RunEvent) => void>();
  const recordListeners = new Set<(e: RecordEvent) => void>();
  const recaptures: RecaptureRequest[] = [];
  /** The recording in progress: its file, name, window, steps told so far, and its timer. */
  type Recording = {
    file: string;
    name: string;
    window: string;
    steps: Step[];
    notes: string[];
    timer?: ReturnType<typeof setTimeout>;
  };
  let recording: Recording | null = null;
  const tellRecord = (e: RecordEvent) => {
    for (const l of recordListeners) l(e);
  };
  let takeovers: Takeover[] = [];
  let changes: ChangeView[] = [];
  const lastRuns: Record<string, FlowEntry["last_runs"]> = {};

  const ok = <T>(value: T): Promise<T> =>
    options.failWith ? Promise.reject({ ...options.failWith }) : Promise.resolve(structuredClone(value));

  function replay(rec: Recorded, file: string, after?: () => void) {
    let i = 0;
    const next = () => {
      if (i < rec.events.length) {
        const progress = rec.events[i++];
        for (const l of listeners) l({ kind: "progress", progress });
        setTimeout(next, tick);
      } else {
        for (const l of listeners) l({ kind: "finished", summary: rec.summary, error: null });
        lastRuns[file] = [
          { id: rec.summary.run, status: rec.summary.status, started_ms: Date.now(), code: rec.summary.code },
          ...(lastRuns[file] ?? []),
        ];
        after?.();
      }
    };
    setTimeout(next, tick);
  }

  /** The engine's step rules (`check_step`: targets, checks, verify, compensation), at their step. */
  function validate(flow: Flow): { error: BackendError | null; step: number | null } {
    for (const [i, s] of flow.step.entries()) {
      const problem = stepProblem(s);
      if (problem) {
        return { error: { code: "FLOW_INVALID", message: `flow:${i + 1}:1: step ${i + 1}: ${problem}` }, step: i };
      }
    }
    return { error: null, step: null };
  }

  /** The backend's redo rules (crates/model/src/redo.rs), for the steps the mock's flows use. */
  function warnings(flow: Flow): FlowWarning[] {
    const out: FlowWarning[] = [];
    for (const [i, s] of flow.step.entries()) {
      if (s.verify || ["focus", "wait_for", "assert", "check", "uncheck"].includes(s.action)) continue;
      const risk = s.risk ?? "read";
      const why =
        risk !== "read"
          ? `a \`${risk}\` step may have committed its effect`
          : ["key", "scroll", "drag"].includes(s.action)
            ? `a ${s.action} sent twice acts twice`
            : s.action === "type" && s.target?.role !== "field"
              ? "a `type` whose target is not `role = \"field\"` cannot be emptied safely before retyping"
              : null;
      if (why) {
        const id = s.id ?? String(i + 1);
        out.push({
          step: i,
          message: `step ${i + 1} ('${id}'): no \`verify\`, and ${why}; a crash or failure after it acted pauses the run (RESUME_UNVERIFIED) for a person. Add a \`verify\` that tells whether it took effect`,
        });
      }
    }
    return out;
  }

  const doc = (file: string): FlowDoc => ({
    file,
    source: files[file].source,
    flow: files[file].flow,
    error: null,
    error_step: null,
    warnings: warnings(files[file].flow),
  });

  const backend: MockBackend = {
    kind: "mock",
    saved,
    resolutions,
    recaptures,
    studioInfo: () => ok(info),
    listFlows: () =>
      ok(
        Object.entries(files).map(([file, f]) => ({
          file,
          name: f.flow.name,
          steps: f.flow.step.length,
          error: null,
          last_runs: lastRuns[file] ?? [],
        })),
      ),
    loadFlow: (file) =>
      files[file] ? ok(doc(file)) : Promise.reject({ code: "INVALID_ARGUMENT", message: `no flow ${file}` }),
    saveFlow: (file, flow) => {
      const v = validate(flow);
      if (!v.error) {
        files[file] = { source: files[file]?.source ?? "", flow: structuredClone(flow) };
        saved[file] = structuredClone(flow);
      }
      return ok({
        file,
        source: "",
        flow: v.error ? null : flow,
        error: v.error,
        error_step: v.step,
        warnings: v.error ? [] : warnings(flow),
      });
    },
    createFlow: (file, name, title) => {
      files[file] = { source: "", flow: { version: 1, name, window: { title }, step: [{ action: "focus" }] } };
      return ok(doc(file));
    },
    duplicateFlow: (file, newFile) => {
      files[newFile] = structuredClone(files[file]);
      return ok(doc(newFile));
    },
    captureWindow: (title) => ok({ png: "mock/frame.png", width: 800, height: 594, title }),
    // Flow crops (`x.crops/step.png`) are copied under public/mock/ from fixtures/flows.
    readImage: (path) => {
      if (path.startsWith("mock/")) return ok(path);
      const m = /^([\w.-]+)\.crops\/([\w-]+\.png)$/.exec(path);
      if (!m) return Promise.reject({ code: "INVALID_ARGUMENT", message: `no image ${path} in the mock` });
      return ok(FIXTURE_CROPS.includes(m[1]) ? `mock/${path}` : `mock/teach.crops/${m[2]}`);
    },
    proposeTarget: (_title, x, y) =>
      ok({
        target: { text: "查询", role: "button", recorded: { x: 380, y: 62, w: 100, h: 34 } },
        rect: { x: Math.min(x, 380), y: Math.min(y, 62), w: 100, h: 34 },
        role: "button",
      }),
    testLocate: (_title, target) =>
      ok({
        located: {
          strategy: target.recorded ? "exact" : "fuzzy_ocr",
          box: target.recorded ?? { x: 380, y: 62, w: 100, h: 34 },
          screen_box: { x: 501, y: 172, w: 100, h: 34 },
          confidence: 1,
          text: target.text ?? "",
          frame_id: 1,
        },
        error: null,
        candidates: [],
      }),
    startRun: (request) => {
      const scenario = options.scenario ?? "pass";
      replay(RECORDED[scenario], request.file, () => {
        if (scenario === "removed") takeovers = [{ ...RECORDED.takeover, status: "open" }];
      });
      return ok(undefined);
    },
    listTakeovers: (all) => ok(takeovers.filter((t) => all || t.status === "open")),
    resolveTakeover: (id, resolution) => {
      resolutions.push(`${id} ${resolution}`);
      takeovers = takeovers.map((t) => (t.id === id ? { ...t, status: "resolved", resolution } : t));
      if (resolution.startsWith("pick")) {
        changes = [
          {
            change: {
              id: "c1",
              run: RECORDED.takeover.run,
              takeover: id,
              flow_path: "login_edit_save.toml",
              step: RECORDED.takeover.step,
              step_id: RECORDED.takeover.step_id,
              old: { text: "查询", role: "button" },
              new: { text: "检索", role: "button", recorded: { x: 380, y: 62, w: 100, h: 34 } },
              crop: null,
              status: "proposed",
              created_ms: Date.now(),
            },
            diff: '--- login_edit_save.toml\n+++ login_edit_save.toml (proposed)\n@@ step 5 (search) @@\n-target = { text = "查询", role = "button" }\n+target = { text = "检索", role = "button", recorded = { x = 380, y = 62, w = 100, h = 34 } }\n',
          },
        ];
      }
      if (resolution === "abort") {
        setTimeout(() => {
          for (const l of listeners)
            l({ kind: "finished", summary: { ...RECORDED.removed.summary, status: "aborted", takeover: null }, error: null });
        }, tick);
      } else {
        replay(RECORDED.skip, "login_edit_save.toml");
      }
      return ok(undefined);
    },
    listChanges: () => ok(changes),
    decideChange: (id, accept) => {
      changes = changes.map((c) =>
        c.change.id === id ? { ...c, change: { ...c.change, status: accept ? "accepted" : "rejected" } } : c,
      );
      const c = changes.find((c) => c.change.id === id);
      return c ? ok(c.change) : Promise.reject({ code: "INVALID_ARGUMENT", message: `no change ${id}` });
    },
    runReport: (id) => {
      const rec = [RECORDED.pass, RECORDED.removed, RECORDED.skip].find((r) => r.summary.run === id) ?? RECORDED.pass;
      const lines = rec.summary.steps.map(
        (s) => `| ${s.row + 1} | ${s.id} | ${s.action} | ${s.status} | ${s.strategy ?? "—"} | ${s.duration_ms} ms |`,
      );
      return ok({
        summary: rec.summary,
        markdown: `# Run ${rec.summary.run} — ${rec.summary.flow}\n\n- status: **${rec.summary.status}**\n\n| row | step | action | status | rung | time |\n|---|---|---|---|---|---|\n${lines.join("\n")}\n`,
      });
    },
    onRunEvent: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    startRecording: (request) => {
      if (options.failWith) return Promise.reject({ ...options.failWith });
      if (recording) return Promise.reject({ code: "WINDOW_BLOCKED", message: "a run or a recording is in progress" });
      if (files[request.file]) {
        return Promise.reject({ code: "INVALID_ARGUMENT", message: `${request.file} exists already; record into a new file` });
      }
      const stem = request.file.replace(/\.toml$/, "");
      const rec: Recording = { file: request.file, name: request.name || stem, window: request.window, steps: [], notes: [] };
      recording = rec;
      // The recorded session, replayed one event per tick, its crops renamed for this file.
      const events = TEACH.map((e) =>
        e.kind === "step" && e.step.target?.crop
          ? { ...e, step: { ...e.step, target: { ...e.step.target, crop: e.step.target.crop.replace(/^[^/]+\.crops\//, `${stem}.crops/`) } } }
          : e,
      );
      let i = 0;
      const next = () => {
        if (recording !== rec || i >= events.length) return;
        const e = events[i++];
        if (e.kind === "step") rec.steps[e.index] = e.step;
        if (e.kind === "note") rec.notes.push(e.message);
        tellRecord(e);
        rec.timer = setTimeout(next, tick);
      };
      rec.timer = setTimeout(next, tick);
      return ok(undefined);
    },
    stopRecording: () => {
      const rec = recording;
      if (!rec) return Promise.reject({ code: "INVALID_ARGUMENT", message: "nothing is being recorded" });
      clearTimeout(rec.timer);
      recording = null;
      setTimeout(() => {
        if (rec.steps.length === 0) {
          tellRecord({ kind: "finished", recorded: { doc: null, secrets: [], notes: rec.notes, stopped: "asked" }, error: null });
          return;
        }
        const flow: Flow = { version: 1, name: rec.name, window: { title: rec.window }, step: structuredClone(rec.steps) };
        files[rec.file] = { source: "", flow };
        const secrets = rec.steps.flatMap((s) => /^\$\{secret:(\w+)\}$/.exec(s.text ?? "")?.[1] ?? []);
        tellRecord({
          kind: "finished",
          recorded: { doc: doc(rec.file), secrets, notes: rec.notes, stopped: "asked" },
          error: null,
        });
      }, tick);
      return ok(undefined);
    },
    onRecordEvent: (listener) => {
      recordListeners.add(listener);
      return () => recordListeners.delete(listener);
    },
    recaptureCrop: (request) => {
      recaptures.push(structuredClone(request));
      const rect = request.rect ?? request.target.recorded;
      if (!rect) {
        return Promise.reject({
          code: "INVALID_ARGUMENT",
          message: "the step has no recorded box: capture the window and drag a box around the control",
        });
      }
      const stem = request.file.replace(/\.toml$/, "");
      const own = request.target.crop?.startsWith(`${stem}.crops/`) ? request.target.crop : undefined;
      return ok({ ...request.target, crop: own ?? `${stem}.crops/s${request.step + 1}.png`, recorded: rect });
    },
  };
  return backend;
}
