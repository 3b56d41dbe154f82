import { useEffect, useRef, useState } from "react";
import { toBackendError, type Backend, type BackendError } from "../backend";
import {
  describeRecordedStep,
  recordingStarted,
  recordOutcome,
  recordProblem,
  recordReducer,
  suggestRecordFile,
  type RecordingState,
} from "../logic/recording";

/**
 * Record: the person names the window and a new flow file, works in the application, and the
 * steps appear here as Mend captures them. Stop (or the stop chord pressed in the application)
 * writes and validates the flow, which then opens in the editor (`onRecorded`).
 */
export function RecordPanel({
  backend,
  defaultWindow,
  defaultFile,
  onRecorded,
}: {
  backend: Backend;
  defaultWindow: string;
  defaultFile: string;
  onRecorded: (file: string) => void;
}) {
  const [form, setForm] = useState<{ window: string; file: string; name: string } | null>(null);
  const [existing, setExisting] = useState<string[]>([]);
  const [rec, setRec] = useState<RecordingState | null>(null);
  const [error, setError] = useState<BackendError | null>(null);

  const recorded = useRef(onRecorded);
  recorded.current = onRecorded;
  useEffect(
    () =>
      backend.onRecordEvent((e) => {
        setRec((s) => (s ? recordReducer(s, e) : s));
        if (e.kind === "finished" && e.recorded?.doc) recorded.current(e.recorded.doc.file);
      }),
    [backend],
  );

  const open = () => {
    setError(null);
    backend.listFlows().then(
      (l) => {
        const files = l.map((f) => f.file);
        setExisting(files);
        setForm({ window: defaultWindow, file: suggestRecordFile(files, defaultFile), name: "" });
      },
      (e) => setError(toBackendError(e)),
    );
  };

  const live = rec && (rec.phase === "starting" || rec.phase === "recording" || rec.phase === "stopping");
  const problem = form ? recordProblem(form.file, form.window, existing) : null;

  return (
    <section className="record-panel" aria-label="Record">
      {!form && !live && (
        <button className="record-button" onClick={open}>
          ● Record
        </button>
      )}
      {form && !live && (
        <div className="record-form toolbar">
          <label>
            window (title regex)
            <input
              aria-label="record window"
              value={form.window}
              onChange={(e) => setForm({ ...form, window: e.target.value })}
            />
          </label>
          <label>
            new flow file
            <input aria-label="record file" value={form.file} onChange={(e) => setForm({ ...form, file: e.target.value })} />
          </label>
          <label>
            name
            <input
              aria-label="record name"
              value={form.name}
              placeholder="(the file's name)"
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
          </label>
          <button
            disabled={problem !== null}
            onClick={() => {
              setError(null);
              setRec(recordingStarted());
              backend.startRecording({ file: form.file, window: form.window, name: form.name || null }).then(
                () => setForm(null),
                (e) => {
                  setRec(null);
                  setError(toBackendError(e));
                },
              );
            }}
          >
            Start recording
          </button>
          <button onClick={() => setForm(null)}>Cancel</button>
          {problem && <span className="muted">{problem}</span>}
        </div>
      )}
      {rec && live && (
        <div className="recording" data-testid="recording">
          <div className="toolbar">
            <span className="rec-dot" aria-hidden>
              ●
            </span>
            <strong>
              {rec.phase === "starting"
                ? "Starting…"
                : rec.phase === "stopping"
                  ? "Stopping: writing the flow…"
                  : `Recording in '${rec.title}'`}
            </strong>
            <span className="muted">
              work in the application as usual; press <kbd>{rec.stopChord ?? "ctrl+alt+End"}</kbd> there, or Stop here
            </span>
            <span className="spacer" />
            <button
              disabled={rec.phase !== "recording"}
              onClick={() => {
                setRec((s) => (s ? { ...s, phase: "stopping" } : s));
                backend.stopRecording().catch((e) => setError(toBackendError(e)));
              }}
            >
              ■ Stop
            </button>
          </div>
          <ol className="recorded-steps" aria-label="Recorded steps">
            {rec.steps.map((s, i) => (
              <li key={i} data-testid={`recorded-step-${i}`} className={i === rec.last ? "just-told" : undefined}>
                {describeRecordedStep(s)}
              </li>
            ))}
          </ol>
          {rec.steps.length === 0 && <p className="muted">No step yet: click in the application.</p>}
          {rec.notes.map((n, i) => (
            <p key={i} className="muted note">
              note: {n}
            </p>
          ))}
        </div>
      )}
      {rec && !live && (
        <p role="status" data-testid="record-outcome" className={rec.phase === "failed" ? "error" : undefined}>
          {recordOutcome(rec)}
        </p>
      )}
      {rec && rec.phase === "finished" &&
        rec.notes.map((n, i) => (
          <p key={i} className="muted note">
            note: {n}
          </p>
        ))}
      {error && (
        <p role="alert" className="error">
          {error.code}: {error.message}
        </p>
      )}
    </section>
  );
}
