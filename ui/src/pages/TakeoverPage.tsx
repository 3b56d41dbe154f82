import { useCallback, useEffect, useState } from "react";
import { toBackendError, type Backend, type BackendError, type ChangeView, type Takeover } from "../backend";
import { Screenshot, type Box } from "./Screenshot";

export function TakeoverPage({ backend, onResolved }: { backend: Backend; onResolved: () => void }) {
  const [list, setList] = useState<Takeover[]>([]);
  const [changes, setChanges] = useState<ChangeView[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [shot, setShot] = useState<string | null>(null);
  const [pick, setPick] = useState<{ x: number; y: number } | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const [done, setDone] = useState<string>("");

  const refresh = useCallback(() => {
    backend.listTakeovers(false).then((l) => {
      setList(l);
      setSelected((s) => (s && l.some((t) => t.id === s) ? s : (l[0]?.id ?? null)));
    });
    backend.listChanges().then(setChanges);
  }, [backend]);
  useEffect(refresh, [refresh]);
  useEffect(
    () =>
      backend.onRunEvent((e) => {
        if (e.kind === "finished") refresh();
      }),
    [backend, refresh],
  );

  const t = list.find((x) => x.id === selected) ?? null;
  useEffect(() => {
    setPick(null);
    if (t?.screenshot) backend.readImage(t.screenshot).then(setShot, () => setShot(null));
    else setShot(null);
  }, [backend, t?.id, t?.screenshot]);

  const resolve = (resolution: string) => {
    if (!t) return;
    setError(null);
    backend.resolveTakeover(t.id, resolution).then(
      () => {
        setDone(`${t.id}: ${resolution}`);
        onResolved();
        refresh();
      },
      (e) => setError(toBackendError(e)),
    );
  };

  const boxes: Box[] = (t?.candidates ?? []).map((c) => ({
    rect: c.rect,
    label: `${c.text} ${c.score.toFixed(2)}`,
    kind: "candidate",
  }));
  if (pick) boxes.push({ rect: { x: pick.x - 6, y: pick.y - 6, w: 12, h: 12 }, label: "here", kind: "picked" });

  return (
    <section className="page takeover" aria-label="Takeover">
      {list.length === 0 && <p className="muted">No run is waiting for a person.</p>}
      {done && <p data-testid="resolved">resolved {done}</p>}
      {error && (
        <p role="alert" className="error">
          {error.code}: {error.message}
        </p>
      )}
      <ul className="takeover-list">
        {list.map((x) => (
          <li key={x.id}>
            <button className={x.id === selected ? "selected" : ""} onClick={() => setSelected(x.id)}>
              {x.id} — step {x.step + 1} '{x.step_id}' — {x.code}
            </button>
          </li>
        ))}
      </ul>
      {t && (
        <div className="takeover-body" data-testid="takeover">
          <div>
            <h3>
              Run {t.run} paused at step {t.step + 1} '{t.step_id}' ({t.action})
            </h3>
            <p>
              <strong data-testid="takeover-code">{t.code}</strong>: {t.message}
            </p>
            <p className="suggestion">Suggestion: {t.suggestion}</p>
            <h4>Side effects so far</h4>
            <ul aria-label="Side effects">
              {t.effects.length === 0 && <li className="muted">none</li>}
              {t.effects.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
            <div className="toolbar">
              <button disabled={!pick} onClick={() => pick && resolve(`pick ${pick.x},${pick.y}`)}>
                {pick ? `Pick ${pick.x},${pick.y}` : "Pick (click the screenshot)"}
              </button>
              <button onClick={() => resolve("done")}>Done by hand</button>
              <button onClick={() => resolve("skip")}>Skip</button>
              <button onClick={() => resolve("retry")}>Retry</button>
              <button onClick={() => resolve("abort")}>Abort</button>
            </div>
          </div>
          {shot && <Screenshot src={shot} alt="the window when the run paused" boxes={boxes} onPick={setPick} />}
        </div>
      )}
      <h3>Proposed flow changes</h3>
      {changes.length === 0 && <p className="muted">None.</p>}
      {changes.map((c) => (
        <div key={c.change.id} className="change" data-testid={`change-${c.change.id}`}>
          <p>
            {c.change.id} — step {c.change.step + 1} '{c.change.step_id}' — <span className="chip">{c.change.status}</span>
          </p>
          <pre className="diff">
            {c.diff.split("\n").map((l, i) => (
              <span key={i} className={l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : ""}>
                {l + "\n"}
              </span>
            ))}
          </pre>
          {c.change.status === "proposed" && (
            <div className="toolbar">
              <button onClick={() => backend.decideChange(c.change.id, true).then(refresh, (e) => setError(toBackendError(e)))}>
                Accept
              </button>
              <button onClick={() => backend.decideChange(c.change.id, false).then(refresh, (e) => setError(toBackendError(e)))}>
                Reject
              </button>
            </div>
          )}
        </div>
      ))}
    </section>
  );
}
