import { useEffect, useState } from "react";
import { ACTIONS, toBackendError, type Action, type Backend, type Check, type Step } from "../backend";
import { needsTarget } from "../logic/flowEdit";
import {
  CHECK_KINDS,
  checkFields,
  checkProblem,
  checkTarget,
  editCheck,
  editStepFields,
  hiddenStepFields,
  moveAt,
  newCheck,
  newCompensationStep,
  removeAt,
  replaceAt,
  roleOptions,
  stepFields,
  stepProblem,
  type CheckFields,
  type CheckKind,
} from "../logic/stepForms";

/** A target's template crop (a path from the flow), as the backend serves it. */
export function Crop({ backend, path, large = false }: { backend: Backend; path: string; large?: boolean }) {
  const [src, setSrc] = useState<string | null>(null);
  const [bad, setBad] = useState<string | null>(null);
  useEffect(() => {
    setSrc(null);
    setBad(null);
    backend.readImage(path).then(setSrc, (e) => setBad(toBackendError(e).message));
  }, [backend, path]);
  if (bad) return <span className="muted">crop {path}: {bad}</span>;
  return src ? <img className={large ? "crop crop-large" : "crop"} src={src} alt={`crop ${path}`} /> : null;
}

function RoleSelect({ label, value, onChange }: { label: string; value: string | undefined; onChange: (r: string) => void }) {
  return (
    <label>
      role
      <select aria-label={label} value={value ?? "any"} onChange={(e) => onChange(e.target.value)}>
        {roleOptions(value).map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
    </label>
  );
}

/**
 * One check as a small form: its kind, then the target it looks at (text, role, near, window) and
 * the pattern it reads, or the window title. Fields it does not show stay in the check.
 */
export function CheckForm({
  backend,
  name,
  check,
  onChange,
  onRemove,
  onPick,
  picking = false,
}: {
  backend: Backend;
  name: string;
  check: Check;
  onChange: (c: Check) => void;
  onRemove: () => void;
  /** Makes the next click on the captured window this check's target. */
  onPick?: () => void;
  picking?: boolean;
}) {
  const f = checkFields(check);
  const target = checkTarget(check);
  const problem = checkProblem(check);
  const set = (patch: Partial<CheckFields>) => onChange(editCheck(check, patch));
  return (
    <fieldset className="check-form" aria-label={name}>
      <legend>{name}</legend>
      <select aria-label="check kind" value={f.kind} onChange={(e) => set({ kind: e.target.value as CheckKind })}>
        {CHECK_KINDS.map((k) => (
          <option key={k.kind} value={k.kind}>
            {k.label}
          </option>
        ))}
      </select>
      {f.kind === "window_title" ? (
        <label>
          title
          <input
            aria-label="title pattern"
            placeholder="regex of the title"
            value={f.title}
            onChange={(e) => set({ title: e.target.value })}
          />
        </label>
      ) : (
        <>
          {target?.crop && <Crop backend={backend} path={target.crop} />}
          <label>
            text
            <input aria-label="check text" value={f.text} onChange={(e) => set({ text: e.target.value })} />
          </label>
          <RoleSelect label="check role" value={target?.role} onChange={(role) => set({ role })} />
          <label>
            near
            <input aria-label="check anchor" value={f.near} onChange={(e) => set({ near: e.target.value })} />
          </label>
          <label>
            window
            <input aria-label="check in window" value={f.window} onChange={(e) => set({ window: e.target.value })} />
          </label>
          {f.kind === "text_matches" && (
            <label>
              reads
              <input
                aria-label="text pattern"
                placeholder="regex"
                value={f.pattern}
                onChange={(e) => set({ pattern: e.target.value })}
              />
            </label>
          )}
          {onPick && (
            <button
              aria-label={`pick ${name} on the screenshot`}
              aria-pressed={picking}
              className={picking ? "picking" : undefined}
              title="the next click on the captured window names this target"
              onClick={(e) => {
                e.stopPropagation();
                onPick();
              }}
            >
              ⌖ pick
            </button>
          )}
        </>
      )}
      <button aria-label={`remove ${name}`} onClick={onRemove}>
        ✕
      </button>
      {problem && <span className="warning form-problem">{problem}</span>}
    </fieldset>
  );
}

/** A step's `verify`: one check, or a button that adds one. */
export function VerifyForm({
  backend,
  verify,
  onChange,
  onPick,
  picking = false,
}: {
  backend: Backend;
  verify: Check | undefined;
  onChange: (c: Check | undefined) => void;
  onPick?: () => void;
  picking?: boolean;
}) {
  return (
    <div className="form-list">
      <span className="form-list-title">verify (how to tell it took effect)</span>
      {verify ? (
        <CheckForm
          backend={backend}
          name="verify"
          check={verify}
          onChange={onChange}
          onRemove={() => onChange(undefined)}
          onPick={onPick}
          picking={picking}
        />
      ) : (
        <button onClick={() => onChange(newCheck())}>Add verify</button>
      )}
    </div>
  );
}

/** A list of checks (an assert's or wait_for's, or those a step waits on after acting). */
export function CheckList({
  backend,
  title,
  checks,
  onChange,
  onPick,
  picking = null,
}: {
  backend: Backend;
  title: string;
  checks: Check[] | undefined;
  onChange: (c: Check[]) => void;
  onPick?: (index: number) => void;
  /** The check the next pick goes to, if any. */
  picking?: number | null;
}) {
  return (
    <div className="form-list" role="group" aria-label="checks">
      <span className="form-list-title">{title}</span>
      {(checks ?? []).map((c, i) => (
        <CheckForm
          key={i}
          backend={backend}
          name={`check ${i + 1}`}
          check={c}
          onChange={(v) => onChange(replaceAt(checks, i, v))}
          onRemove={() => onChange(removeAt(checks, i))}
          onPick={onPick && (() => onPick(i))}
          picking={picking === i}
        />
      ))}
      <button onClick={() => onChange([...(checks ?? []), newCheck()])}>Add check</button>
    </div>
  );
}

/** One compensation step: its action, the target's text and role, and what a type or key sends. */
function CompensationStepForm({
  name,
  step,
  onChange,
  onRemove,
  onMove,
}: {
  name: string;
  step: Step;
  onChange: (s: Step) => void;
  onRemove: () => void;
  onMove: (by: number) => void;
}) {
  const f = stepFields(step);
  const hidden = hiddenStepFields(step);
  const problem = stepProblem(step);
  const set = (patch: Parameters<typeof editStepFields>[1]) => onChange(editStepFields(step, patch));
  return (
    <fieldset className="check-form" aria-label={name}>
      <legend>{name}</legend>
      <select aria-label="compensation action" value={f.action} onChange={(e) => set({ action: e.target.value as Action })}>
        {ACTIONS.map((a) => (
          <option key={a}>{a}</option>
        ))}
      </select>
      {(needsTarget(step.action) || step.target) && (
        <>
          <label>
            target
            <input aria-label="compensation target" value={f.text} onChange={(e) => set({ text: e.target.value })} />
          </label>
          <RoleSelect label="compensation role" value={step.target?.role} onChange={(role) => set({ role })} />
        </>
      )}
      {step.action === "type" && (
        <label>
          types
          <input aria-label="compensation typing" value={f.typed} onChange={(e) => set({ typed: e.target.value })} />
        </label>
      )}
      {step.action === "key" && (
        <label>
          chord
          <input
            aria-label="compensation chord"
            placeholder="ctrl+a"
            value={f.keys}
            onChange={(e) => set({ keys: e.target.value })}
          />
        </label>
      )}
      <button aria-label={`move ${name} up`} onClick={() => onMove(-1)}>
        ↑
      </button>
      <button aria-label={`move ${name} down`} onClick={() => onMove(1)}>
        ↓
      </button>
      <button aria-label={`remove ${name}`} onClick={onRemove}>
        ✕
      </button>
      {hidden.length > 0 && <span className="muted">also: {hidden.join(", ")} (edit as JSON)</span>}
      {problem && <span className="warning form-problem">{problem}</span>}
    </fieldset>
  );
}

/** A step's `compensation`: the steps that undo it, in order. */
export function CompensationList({ steps, onChange }: { steps: Step[] | undefined; onChange: (s: Step[]) => void }) {
  return (
    <div className="form-list" role="group" aria-label="compensation">
      <span className="form-list-title">compensation (steps that undo it, in order)</span>
      {(steps ?? []).map((s, i) => (
        <CompensationStepForm
          key={i}
          name={`compensation step ${i + 1}`}
          step={s}
          onChange={(v) => onChange(replaceAt(steps, i, v))}
          onRemove={() => onChange(removeAt(steps, i))}
          onMove={(by) => onChange(moveAt(steps, i, i + by))}
        />
      ))}
      <button onClick={() => onChange([...(steps ?? []), newCompensationStep()])}>Add compensation step</button>
    </div>
  );
}
