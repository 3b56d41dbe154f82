import { useEffect, useState } from "react";
import {
  ACTIONS,
  toBackendError,
  type Action,
  type Backend,
  type BackendError,
  type Check,
  type Flow,
  type FlowWarning,
  type LocateResult,
  type Rect,
  type Risk,
  type Shot,
  type Step,
} from "../backend";
import {
  addStep,
  describeCheck,
  describeTarget,
  moveStep,
  needsTarget,
  removeStep,
  updateStep,
  updateTarget,
} from "../logic/flowEdit";
import { applyProposalInto, describePickInto, pickWindow, roleOptions, type PickInto } from "../logic/stepForms";
import { RecordPanel } from "./RecordPanel";
import { Screenshot, type Box } from "./Screenshot";
import { CheckList, CompensationList, Crop, VerifyForm } from "./StepForms";

/**
 * A JSON editor for one structured field (verify, compensation, checks); applied when it parses.
 * The forms edit these fields; this stays as the way to reach what they do not show.
 */
function JsonField<T>({
  label,
  value,
  onChange,
}: {
  label: string;
  value: T | undefined;
  onChange: (v: T | undefined) => void;
}) {
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value));
  const [bad, setBad] = useState<string | null>(null);
  return (
    <label className="json-field">
      {label}
      <textarea
        aria-label={label}
        rows={1}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          if (!text.trim()) {
            setBad(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(text) as T);
            setBad(null);
          } catch (e) {
            setBad(`not JSON: ${(e as Error).message}`);
          }
        }}
      />
      {bad && <span className="error">{bad}</span>}
    </label>
  );
}

function StepCard({
  backend,
  step,
  index,
  selected,
  error,
  warning,
  onSelect,
  onChange,
  onTarget,
  onMove,
  onRemove,
  onDrop,
  pick,
  onPick,
  cropVersion,
}: {
  backend: Backend;
  step: Step;
  /** Bumped when a crop file was re-captured, so its picture is read again. */
  cropVersion: number;
  index: number;
  selected: boolean;
  /** Where the next pick on the captured window goes, when this step is selected. */
  pick: PickInto | null;
  onPick: (dest: PickInto) => void;
  error: BackendError | null;
  warning: string | null;
  onSelect: () => void;
  onChange: (patch: Partial<Step>) => void;
  onTarget: (patch: Record<string, string | undefined>) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
  onDrop: (from: number) => void;
}) {
  return (
    <li
      className={`step-card${selected ? " selected" : ""}${error ? " invalid" : ""}`}
      data-testid={`step-${index}`}
      draggable
      onDragStart={(e) => e.dataTransfer.setData("text/plain", String(index))}
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        onDrop(Number(e.dataTransfer.getData("text/plain")));
      }}
      onClick={onSelect}
    >
      <div className="step-head">
        <span className="handle" title="drag to reorder">
          ⠿
        </span>
        <strong>{index + 1}.</strong>
        <input
          aria-label="step id"
          className="step-id"
          value={step.id ?? ""}
          placeholder="id"
          onChange={(e) => onChange({ id: e.target.value })}
        />
        <select
          aria-label="action"
          value={step.action}
          onChange={(e) => onChange({ action: e.target.value as Action })}
        >
          {ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
        <select
          aria-label="risk"
          value={step.risk ?? "read"}
          onChange={(e) => onChange({ risk: e.target.value as Risk })}
        >
          <option>read</option>
          <option>write</option>
          <option>irreversible</option>
        </select>
        <span className="spacer" />
        <button aria-label="move up" onClick={() => onMove(index - 1)}>
          ↑
        </button>
        <button aria-label="move down" onClick={() => onMove(index + 1)}>
          ↓
        </button>
        <button aria-label="delete step" onClick={onRemove}>
          ✕
        </button>
      </div>
      {(needsTarget(step.action) || step.target) && (
        <div className="step-target">
          {step.target?.crop && <Crop key={cropVersion} backend={backend} path={step.target.crop} />}
          <label>
            text
            <input
              aria-label="target text"
              value={step.target?.text ?? ""}
              onChange={(e) => onTarget({ text: e.target.value })}
            />
          </label>
          <label>
            role
            <select
              aria-label="target role"
              value={step.target?.role ?? "any"}
              onChange={(e) => onTarget({ role: e.target.value })}
            >
              {roleOptions(step.target?.role).map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <label>
            near
            <input
              aria-label="anchor label"
              value={step.target?.near ?? ""}
              onChange={(e) => onTarget({ near: e.target.value || undefined })}
            />
          </label>
          <label>
            window
            <input
              aria-label="target window"
              value={step.target?.window ?? ""}
              onChange={(e) => onTarget({ window: e.target.value || undefined })}
            />
          </label>
          {step.target?.recorded && (
            <span className="muted">
              recorded {step.target.recorded.x},{step.target.recorded.y} {step.target.recorded.w}×
              {step.target.recorded.h}
            </span>
          )}
        </div>
      )}
      {step.action === "type" && (
        <label className="step-text">
          text
          <input aria-label="typed text" value={step.text ?? ""} onChange={(e) => onChange({ text: e.target.value })} />
        </label>
      )}
      {step.action === "key" && (
        <label className="step-text">
          keys
          <input aria-label="keys" value={step.keys ?? ""} onChange={(e) => onChange({ keys: e.target.value })} />
        </label>
      )}
      {(step.action === "wait_for" || step.action === "assert") && (
        <CheckList
          backend={backend}
          title={`${step.action === "assert" ? "asserts" : "waits for"} (all must hold)`}
          checks={step.check}
          onChange={(check) => onChange({ check })}
          onPick={(index) => onPick({ into: "check", index })}
          picking={pick?.into === "check" ? pick.index : null}
        />
      )}
      <details className="step-more" onClick={(e) => e.stopPropagation()}>
        <summary>verify, compensation, checks, timeout</summary>
        <VerifyForm
          backend={backend}
          verify={step.verify}
          onChange={(verify) => onChange({ verify })}
          onPick={() => onPick({ into: "verify" })}
          picking={pick?.into === "verify"}
        />
        <CompensationList steps={step.compensation} onChange={(compensation) => onChange({ compensation })} />
        {step.action !== "wait_for" && step.action !== "assert" && (
          <CheckList
            backend={backend}
            title="checks after the action (waited on until they hold)"
            checks={step.check}
            onChange={(check) => onChange({ check })}
            onPick={(index) => onPick({ into: "check", index })}
            picking={pick?.into === "check" ? pick.index : null}
          />
        )}
        <label>
          timeout ms
          <input
            aria-label="timeout ms"
            type="number"
            value={step.timeout_ms ?? ""}
            onChange={(e) => onChange({ timeout_ms: e.target.value ? Number(e.target.value) : undefined })}
          />
        </label>
        <details className="json-escape">
          <summary>edit as JSON</summary>
          {/* Keyed by value: a reordered or reloaded step, or a form edit, shows its own JSON. */}
          <JsonField<Check>
            key={`v${JSON.stringify(step.verify)}`}
            label="verify as JSON"
            value={step.verify}
            onChange={(v) => onChange({ verify: v })}
          />
          <JsonField<Step[]>
            key={`c${JSON.stringify(step.compensation)}`}
            label="compensation as JSON"
            value={step.compensation}
            onChange={(v) => onChange({ compensation: v })}
          />
          <JsonField<Check[]>
            key={`k${JSON.stringify(step.check)}`}
            label="checks as JSON"
            value={step.check}
            onChange={(v) => onChange({ check: v })}
          />
        </details>
      </details>
      <div className="step-meta">
        {step.check?.map((c, i) => (
          <span key={i} className="chip">
            check: {describeCheck(c)}
          </span>
        ))}
        {step.verify && <span className="chip">verify: {describeCheck(step.verify)}</span>}
        {step.compensation?.length ? (
          <span className="chip">compensation: {step.compensation.length} step(s)</span>
        ) : null}
      </div>
      {error && (
        <p role="alert" className="error step-error">
          {error.message}
        </p>
      )}
      {warning && (
        <p role="note" className="warning step-warning" data-testid={`step-warning-${index}`}>
          {warning}
        </p>
      )}
    </li>
  );
}

export function EditorPage({
  backend,
  file,
  onOpen,
}: {
  backend: Backend;
  file: string | null;
  /** Open another flow (a recording just written) in the editor. */
  onOpen: (file: string) => void;
}) {
  const [flow, setFlow] = useState<Flow | null>(null);
  const [selected, setSelected] = useState(0);
  const [error, setError] = useState<{ error: BackendError; step: number | null } | null>(null);
  const [warnings, setWarnings] = useState<FlowWarning[]>([]);
  const [status, setStatus] = useState<string>("");
  const [shot, setShot] = useState<Shot | null>(null);
  const [located, setLocated] = useState<LocateResult | null>(null);
  const [busy, setBusy] = useState(false);
  /** Where the next click on the captured window goes; the window title it was captured by. */
  const [pickInto, setPickInto] = useState<PickInto>({ into: "target" });
  const [shotTitle, setShotTitle] = useState<string>("");
  /** A box dragged on the screenshot: what Re-capture crops instead of the recorded box. */
  const [dragged, setDragged] = useState<Rect | null>(null);
  const [cropVersion, setCropVersion] = useState(0);

  useEffect(() => {
    if (!file) return;
    backend.loadFlow(file).then(
      (doc) => {
        setFlow(doc.flow);
        setError(doc.error ? { error: doc.error, step: doc.error_step } : null);
        setWarnings(doc.warnings ?? []);
      },
      (e) => setError({ error: toBackendError(e), step: null }),
    );
  }, [backend, file]);

  // The Record panel keeps its place (first child) whatever else shows, so a recording's state
  // survives the editor switching to the flow it wrote.
  const stem = file?.replace(/\.toml$/, "") ?? "recorded";
  const record = (
    <RecordPanel
      backend={backend}
      defaultWindow={flow?.window.title ?? ""}
      defaultFile={file ? `${stem}-recorded` : "recorded"}
      onRecorded={onOpen}
    />
  );
  if (!file || !flow)
    return (
      <section className="page editor" aria-label="Step editor">
        {record}
        <p>
          {!file
            ? "Open a flow from the library, or record one."
            : error
              ? `${error.error.code}: ${error.error.message}`
              : "Loading…"}
        </p>
      </section>
    );

  const title = flow.window.title;
  const step = flow.step[selected];
  const boxes: Box[] = [];
  if (located?.located) {
    boxes.push({
      rect: located.located.box,
      label: `${located.located.strategy} ${located.located.confidence.toFixed(2)}`,
      kind: "located",
    });
  }
  for (const c of located?.candidates ?? []) boxes.push({ rect: c.rect, label: c.text, kind: "candidate" });
  if (dragged) boxes.push({ rect: dragged, label: "crop box", kind: "picked" });

  const recapture = () => {
    if (!step?.target) return;
    setBusy(true);
    backend
      .recaptureCrop({ file, step: selected, window: title, target: step.target, rect: dragged })
      .then(
        (target) => {
          setFlow(updateStep(flow, selected, { target }));
          setCropVersion((v) => v + 1);
          setDragged(null);
          setStatus(`crop of step ${selected + 1} re-captured into ${target.crop}; save to keep it`);
        },
        (e) => setError({ error: toBackendError(e), step: null }),
      )
      .finally(() => setBusy(false));
  };

  const save = () => {
    setStatus("saving…");
    backend.saveFlow(file, flow).then(
      (doc) => {
        if (doc.error) {
          setError({ error: doc.error, step: doc.error_step });
          setStatus("not saved: the flow is invalid");
        } else {
          setError(null);
          setWarnings(doc.warnings ?? []);
          setStatus("saved");
        }
      },
      (e) => setError({ error: toBackendError(e), step: null }),
    );
  };

  return (
    <section className="page editor" aria-label="Step editor">
      {record}
      <div className="toolbar">
        <h2>
          {flow.name} <code>{file}</code>
        </h2>
        <span className="muted">window: {title}</span>
        <span className="spacer" />
        <button onClick={() => setFlow(addStep(flow, flow.step.length))}>Add step</button>
        <button onClick={save}>Save</button>
        <span data-testid="save-status">{status}</span>
      </div>
      {error && error.step === null && (
        <p role="alert" className="error">
          {error.error.code}: {error.error.message}
        </p>
      )}
      <fieldset className="interrupts" aria-label="Interrupt handlers">
        <legend>Interrupt handlers (checked between steps)</legend>
        {(flow.interrupt ?? []).map((h, i) => (
          <div key={i} className="toolbar">
            when a window titled
            <input
              aria-label={`interrupt ${i + 1} window`}
              value={h.window}
              onChange={(e) =>
                setFlow({
                  ...flow,
                  interrupt: (flow.interrupt ?? []).map((x, j) => (j === i ? { ...x, window: e.target.value } : x)),
                })
              }
            />
            appears, click
            <input
              aria-label={`interrupt ${i + 1} click`}
              value={h.click}
              onChange={(e) =>
                setFlow({
                  ...flow,
                  interrupt: (flow.interrupt ?? []).map((x, j) => (j === i ? { ...x, click: e.target.value } : x)),
                })
              }
            />
            <button
              aria-label={`remove interrupt ${i + 1}`}
              onClick={() => setFlow({ ...flow, interrupt: (flow.interrupt ?? []).filter((_, j) => j !== i) })}
            >
              ✕
            </button>
          </div>
        ))}
        <button onClick={() => setFlow({ ...flow, interrupt: [...(flow.interrupt ?? []), { window: "提示", click: "确定" }] })}>
          Add interrupt handler
        </button>
      </fieldset>
      <div className="editor-body">
        <ol className="steps" aria-label="Steps">
          {flow.step.map((s, i) => (
            <StepCard
              key={i}
              backend={backend}
              cropVersion={cropVersion}
              step={s}
              index={i}
              selected={i === selected}
              pick={i === selected ? pickInto : null}
              onPick={(dest) => {
                setSelected(i);
                setPickInto(dest);
              }}
              error={error && error.step === i ? error.error : null}
              warning={warnings.find((w) => w.step === i)?.message ?? null}
              onSelect={() => {
                if (i === selected) return;
                setSelected(i);
                setPickInto({ into: "target" });
              }}
              onChange={(patch) => setFlow(updateStep(flow, i, patch))}
              onTarget={(patch) => setFlow(updateTarget(flow, i, patch))}
              onMove={(to) => {
                setFlow(moveStep(flow, i, to));
                setSelected(Math.max(0, Math.min(to, flow.step.length - 1)));
                setPickInto({ into: "target" });
              }}
              onRemove={() => {
                setFlow(removeStep(flow, i));
                setSelected(0);
                setPickInto({ into: "target" });
              }}
              onDrop={(from) => setFlow(moveStep(flow, from, i))}
            />
          ))}
        </ol>
        <aside className="target-tools" aria-label="Target tools">
          <h3>Target of step {selected + 1}</h3>
          <p className="muted">{describeTarget(step?.target)}</p>
          {step?.target?.crop && (
            <figure className="target-crop" data-testid="target-crop">
              <Crop key={cropVersion} backend={backend} path={step.target.crop} large />
              <figcaption className="muted">
                crop <code>{step.target.crop}</code>
                {!step.target.text && !step.target.near && " — this control is known by its pixels alone"}
              </figcaption>
            </figure>
          )}
          <div className="toolbar">
            <button
              disabled={busy}
              onClick={() => {
                setBusy(true);
                const by = pickWindow(step, pickInto) ?? title;
                backend
                  .captureWindow(by)
                  .then(
                    (s) => {
                      setShot(s);
                      setShotTitle(by);
                    },
                    (e) => setError({ error: toBackendError(e), step: null }),
                  )
                  .finally(() => setBusy(false));
              }}
            >
              Capture window
            </button>
            <button
              disabled={busy || !step?.target}
              onClick={() => {
                if (!step?.target) return;
                setBusy(true);
                backend
                  .testLocate(title, step.target)
                  .then(setLocated, (e) => setError({ error: toBackendError(e), step: null }))
                  .finally(() => setBusy(false));
              }}
            >
              Test locate
            </button>
            <button
              disabled={busy || !step?.target || (!dragged && !step.target.recorded)}
              title="crop the step's box (or a box dragged on the screenshot) from the window as it is now"
              onClick={recapture}
            >
              Re-capture crop
            </button>
          </div>
          {shot && (
            <p className="muted" data-testid="crop-box">
              {dragged
                ? `Re-capture crops the dragged box ${dragged.x},${dragged.y} ${dragged.w}×${dragged.h}.`
                : "Drag a box on the screenshot to re-capture a different box as the crop."}
            </p>
          )}
          {located && (
            <p data-testid="locate-result">
              {located.located
                ? `found '${located.located.text}' by ${located.located.strategy} (confidence ${located.located.confidence.toFixed(2)}) at ${located.located.box.x},${located.located.box.y}`
                : `${located.error?.code}: ${located.error?.message}`}
            </p>
          )}
          {(shot || pickInto.into !== "target") && (
            <p className="muted" data-testid="pick-into">
              {shot ? "Click" : "Capture the window, then click"} the control for {describePickInto(pickInto)} of step{" "}
              {selected + 1}: Mend proposes its text, role and box.
            </p>
          )}
          {shot && (
            <>
              <Screenshot
                src={shot.png}
                alt={`window ${shot.title}`}
                boxes={boxes}
                onBox={setDragged}
                onPick={(p) => {
                  setBusy(true);
                  const dest = pickInto;
                  backend
                    .proposeTarget(shotTitle, p.x, p.y)
                    .then(
                      (prop) => {
                        setFlow(applyProposalInto(flow, selected, dest, prop));
                        setPickInto({ into: "target" });
                      },
                      (e) => setError({ error: toBackendError(e), step: null }),
                    )
                    .finally(() => setBusy(false));
                }}
              />
            </>
          )}
        </aside>
      </div>
    </section>
  );
}
