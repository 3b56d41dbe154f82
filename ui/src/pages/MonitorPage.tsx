import { useEffect, useReducer, useState } from "react";
import { toBackendError, type Backend, type BackendError, type FlowEntry, type Report } from "../backend";
import { idle, medianMs, runReducer, started, type RunState } from "../logic/runState";
import { Screenshot } from "./Screenshot";

type Action = { kind: "start" } | Parameters<typeof runReducer>[1];

function reducer(state: RunState, a: Action): RunState {
  return a.kind === "start" ? started() : runReducer(state, a);
}

export function MonitorPage({
  backend,
  file,
  onPaused,
}: {
  backend: Backend;
  file: string | null;
  onPaused: () => void;
}) {
  const [flows, setFlows] = useState<FlowEntry[]>([]);
  const [chosen, setChosen] = useState<string>(file ?? "");
  const [vars, setVars] = useState("");
  const [data, setData] = useState("");
  const [state, dispatch] = useReducer(reducer, idle);
  const [error, setError] = useState<BackendError | null>(null);
  const [frame, setFrame] = useState<string | null>(null);
  const [report, setReport] = useState<Report | null>(null);

  useEffect(() => {
    backend.listFlows().then((f) => {
      setFlows(f);
      setChosen((c) => c || f[0]?.file || "");
    });
  }, [backend]);
  useEffect(() => {
    if (file) setChosen(file);
  }, [file]);
  useEffect(() => backend.onRunEvent((e) => dispatch(e)), [backend]);

  // The current frame: re-captured whenever a step ends.
  const ended = state.steps.filter((s) => s.status !== "running").length;
  useEffect(() => {
    if (!state.running && !state.summary) return;
    backend.captureWindow("客户管理系统|Customer Desk").then(
      (s) => setFrame(s.png),
      () => undefined,
    );
  }, [backend, ended, state.running, state.summary]);

  useEffect(() => {
    if (!state.summary) return;
    backend.runReport(state.summary.run).then(setReport, () => undefined);
    if (state.summary.status === "paused") onPaused();
  }, [backend, state.summary, onPaused]);

  const start = () => {
    const v: Record<string, string> = {};
    for (const line of vars.split("\n")) {
      const [k, ...rest] = line.split("=");
      if (k.trim()) v[k.trim()] = rest.join("=");
    }
    setError(null);
    setReport(null);
    dispatch({ kind: "start" });
    backend.startRun({ file: chosen, vars: v, data: data || null }).catch((e) => {
      setError(toBackendError(e));
      dispatch({ kind: "finished", summary: null, error: toBackendError(e) });
    });
  };

  const median = medianMs(state.steps);
  return (
    <section className="page monitor" aria-label="Run monitor">
      <div className="toolbar">
        <label>
          flow
          <select aria-label="flow to run" value={chosen} onChange={(e) => setChosen(e.target.value)}>
            {flows.map((f) => (
              <option key={f.file} value={f.file}>
                {f.file}
              </option>
            ))}
          </select>
        </label>
        <label>
          variables (K=V per line)
          <textarea aria-label="variables" rows={1} value={vars} onChange={(e) => setVars(e.target.value)} />
        </label>
        <label>
          data file
          <input aria-label="data file" value={data} onChange={(e) => setData(e.target.value)} placeholder="customers.csv" />
        </label>
        <button onClick={start} disabled={state.running || !chosen}>
          Start run
        </button>
        <span data-testid="run-status" className={`chip chip-${state.summary?.status ?? (state.running ? "running" : "idle")}`}>
          {state.summary ? state.summary.status : state.running ? "running" : "idle"}
        </span>
        {median !== null && <span className="muted">median step {median} ms</span>}
      </div>
      {error && (
        <p role="alert" className="error">
          {error.code}: {error.message}
        </p>
      )}
      <div className="monitor-body">
        <table className="run-steps" aria-label="Steps of the run">
          <thead>
            <tr>
              <th>row</th>
              <th>step</th>
              <th>action</th>
              <th>status</th>
              <th>rung</th>
              <th>confidence</th>
              <th>time</th>
              <th>code</th>
            </tr>
          </thead>
          <tbody>
            {state.steps.map((s) => (
              <tr key={`${s.row}/${s.step}`} className={`st-${s.status}`} data-testid={`run-step-${s.id}`}>
                <td>{s.row + 1}</td>
                <td>{s.id}</td>
                <td>{s.action}</td>
                <td>{s.status}</td>
                <td>{s.strategy ?? "—"}</td>
                <td>{s.confidence?.toFixed(2) ?? "—"}</td>
                <td>{s.status === "running" ? "…" : `${s.ms} ms`}</td>
                <td title={s.message ?? ""}>{s.code ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <div className="frame">
          {frame && (
            <Screenshot
              src={frame}
              alt="current frame"
              boxes={
                state.lastRect
                  ? [
                      {
                        rect: state.lastRect,
                        label: `${state.lastStrategy ?? ""} ${state.lastConfidence?.toFixed(2) ?? ""}`,
                        kind: "located",
                      },
                    ]
                  : []
              }
            />
          )}
        </div>
      </div>
      <details open={state.log.length > 0}>
        <summary>Audit ({state.log.length} events)</summary>
        <ol className="audit" aria-label="Audit">
          {state.log.map((p, i) => (
            <li key={i}>
              row {p.row + 1} {p.id} {p.action} {p.status} {p.strategy ?? ""} {p.ms} ms {p.code ?? ""}
            </li>
          ))}
        </ol>
      </details>
      {report && (
        <details open>
          <summary>Report</summary>
          <pre data-testid="report">{report.markdown}</pre>
        </details>
      )}
    </section>
  );
}
