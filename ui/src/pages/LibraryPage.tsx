import { useEffect, useState } from "react";
import { toBackendError, type Backend, type BackendError, type FlowEntry } from "../backend";

export function LibraryPage({
  backend,
  onOpen,
  onRun,
}: {
  backend: Backend;
  onOpen: (file: string) => void;
  onRun: (file: string) => void;
}) {
  const [flows, setFlows] = useState<FlowEntry[] | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    backend.listFlows().then(setFlows, (e) => setError(toBackendError(e)));
  }, [backend, reload]);

  const act = (p: Promise<unknown>) =>
    p.then(
      () => setReload((n) => n + 1),
      (e) => setError(toBackendError(e)),
    );

  return (
    <section className="page" aria-label="Flow library">
      <div className="toolbar">
        <button
          onClick={() => {
            const name = prompt("Name of the new flow", "new flow");
            if (!name) return;
            const file = `${name.replace(/[^\w-]+/g, "_")}.toml`;
            void act(backend.createFlow(file, name, "客户管理系统|Customer Desk").then(() => onOpen(file)));
          }}
        >
          New flow
        </button>
      </div>
      {error && (
        <p role="alert" className="error">
          {error.code}: {error.message}
        </p>
      )}
      {flows === null ? (
        <p>Loading…</p>
      ) : (
        <table className="flows" aria-label="Flows">
          <thead>
            <tr>
              <th>Flow</th>
              <th>File</th>
              <th>Steps</th>
              <th>Last runs</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {flows.map((f) => (
              <tr key={f.file} data-testid={`flow-${f.file}`}>
                <td>{f.error ? <span className="error">{f.error.code}</span> : f.name}</td>
                <td>
                  <code>{f.file}</code>
                </td>
                <td>{f.steps}</td>
                <td>
                  {f.last_runs.length === 0 && <span className="muted">never run</span>}
                  {f.last_runs.map((r) => (
                    <span key={r.id} className={`chip chip-${r.status}`} title={r.code ?? ""}>
                      {r.status}
                    </span>
                  ))}
                </td>
                <td className="actions">
                  <button onClick={() => onOpen(f.file)}>Open</button>
                  <button onClick={() => onRun(f.file)}>Run</button>
                  <button
                    onClick={() => {
                      const to = f.file.replace(/\.toml$/, "_copy.toml");
                      void act(backend.duplicateFlow(f.file, to));
                    }}
                  >
                    Duplicate
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
