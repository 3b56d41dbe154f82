import type { Action, Check, Flow, Proposal, Step, TargetSpec } from "../backend";
import { applyProposal, clean, needsTarget, updateStep } from "./flowEdit";

/**
 * The small forms that edit a step's `verify`, its `check` list and its `compensation` steps
 * without JSON. Each form shows a few fields of a larger value; editing goes through
 * `edit*(value, patch)`, which reads the form's fields off the value, applies the patch and writes
 * them back onto the same value, so whatever the form does not show (a target's `recorded` box,
 * `crop`, `offset`, `context`, `synonyms`; a compensation step's `id`, `risk`, `verify`, …)
 * survives the edit. The `*Problem` functions mirror the engine's validation
 * (`check_target`, `check_check`, `check_step` in crates/model/src/flow.rs), so the form can say
 * what is missing before a save is refused; the engine stays the judge.
 */

/** The roles a target may name (crates/model `Role::parse`). */
export const ROLES = ["any", "button", "field", "label", "text", "menu", "column_header", "row", "table", "area"] as const;

/** Other spellings `Role::parse` also takes (a flow written by hand may use them). */
const ROLE_ALIASES = ["dialog_button", "edit", "input", "header"];

/** The role picker's options: the roles, and the target's own spelling when it is another one. */
export function roleOptions(current: string | undefined): string[] {
  return current === undefined || (ROLES as readonly string[]).includes(current) ? [...ROLES] : [...ROLES, current];
}

export type CheckKind = "exists" | "not_exists" | "window_title" | "text_matches";

/** The four checks of the flow format, with the words the form shows for them. */
export const CHECK_KINDS: { kind: CheckKind; label: string }[] = [
  { kind: "exists", label: "a control is shown (exists)" },
  { kind: "not_exists", label: "a control is gone (not_exists)" },
  { kind: "window_title", label: "a window is open (window_title)" },
  { kind: "text_matches", label: "a control reads (text_matches)" },
];

/** The target fields a check form shows; the rest of the target is kept as it is. */
export interface TargetFields {
  text: string;
  /** "any" when the target names no role. */
  role: string;
  near: string;
  window: string;
}

export interface CheckFields extends TargetFields {
  kind: CheckKind;
  /** `text_matches`: the regex the text read at the target must match. */
  pattern: string;
  /** `window_title`: the regex of the window's title. */
  title: string;
}

export function checkKind(c: Check): CheckKind {
  if ("exists" in c) return "exists";
  if ("not_exists" in c) return "not_exists";
  if ("window_title" in c) return "window_title";
  return "text_matches";
}

/** The target a check looks at (none for `window_title`). */
export function checkTarget(c: Check): TargetSpec | undefined {
  if ("exists" in c) return c.exists;
  if ("not_exists" in c) return c.not_exists;
  if ("text_matches" in c) return c.text_matches.target;
  return undefined;
}

export function targetFields(t: TargetSpec | undefined): TargetFields {
  return { text: t?.text ?? "", role: t?.role ?? "any", near: t?.near ?? "", window: t?.window ?? "" };
}

/**
 * Writes the given form fields onto a target, keeping every key the form does not show. An empty
 * field removes its key (the saved TOML never holds `text = ""`); "any" is written as a role only
 * when the target named a role before (a target without one already means any). Emptying `near`
 * also drops `offset`, which is measured from the anchor and is refused without it.
 */
export function applyTargetFields(f: Partial<TargetFields>, base: TargetSpec = {}): TargetSpec {
  const out: TargetSpec = { ...base };
  if (f.text !== undefined) out.text = f.text;
  if (f.role !== undefined) out.role = f.role === "any" && base.role === undefined ? undefined : f.role;
  if (f.near !== undefined) {
    out.near = f.near;
    if (!f.near) out.offset = undefined;
  }
  if (f.window !== undefined) out.window = f.window;
  return clean(out);
}

export function checkFields(c: Check): CheckFields {
  return {
    kind: checkKind(c),
    ...targetFields(checkTarget(c)),
    pattern: "text_matches" in c ? c.text_matches.pattern : "",
    title: "window_title" in c ? c.window_title : "",
  };
}

/**
 * Builds the check the form's fields describe, on top of `base` (the check being edited): its
 * target keeps the fields the form does not show, also when the kind changes between the three
 * kinds that look at a control. A pattern or title is kept as typed, even empty: the form then
 * says it is missing (`checkProblem`), and a save is refused by the engine.
 */
export function checkFromFields(f: CheckFields, base?: Check): Check {
  const old = base ? checkTarget(base) : undefined;
  const target = () => applyTargetFields(f, old);
  switch (f.kind) {
    case "exists":
      return { exists: target() };
    case "not_exists":
      return { not_exists: target() };
    case "window_title":
      return { window_title: f.title };
    case "text_matches":
      return { text_matches: { target: target(), pattern: f.pattern } };
  }
}

/** One form edit of a check: the fields shown, patched, written back onto the same check. */
export function editCheck(c: Check, patch: Partial<CheckFields>): Check {
  const fields = { ...checkFields(c), ...patch };
  // A window title check switched to a control check starts from an empty target, and back:
  // the title prefills from the target's window when that is all the form knows of it.
  if (patch.kind === "window_title" && !fields.title) fields.title = fields.window;
  return checkFromFields(fields, c);
}

/** A fresh check of a kind, as the form's "add" button makes it (incomplete until filled in). */
export function newCheck(kind: CheckKind = "exists"): Check {
  return checkFromFields({ kind, text: "", role: "any", near: "", window: "", pattern: "", title: "" });
}

/** Why a target would be refused (`check_target`), or null. A crop alone is a target. */
export function targetProblem(t: TargetSpec | undefined, what = "target"): string | null {
  if (!t || (!t.text && !t.near && !t.crop)) {
    return `${what} needs a text, a near label or a recorded crop (a control known by its pixels)`;
  }
  if (t.role !== undefined && ![...ROLES, ...ROLE_ALIASES].includes(t.role)) {
    return `${what}: role '${t.role}' is not a role; use ${ROLES.slice(1).join(", ")} or any`;
  }
  if (t.offset && !t.near) return `${what}: an offset needs a near label`;
  if (t.role === "area" && (!t.near || !t.offset || t.text)) {
    return `${what}: an area (a canvas, a picture: no control, no words) is named by a near label and an offset alone, without a text`;
  }
  return null;
}

/** Why a check would be refused (`check_check`), or null. */
export function checkProblem(c: Check): string | null {
  switch (checkKind(c)) {
    case "window_title":
      return (c as { window_title: string }).window_title ? null : "the window title pattern is empty";
    case "text_matches": {
      const tm = (c as { text_matches: { target: TargetSpec; pattern: string } }).text_matches;
      return targetProblem(tm.target, "the check's target") ?? (tm.pattern ? null : "the text pattern is empty");
    }
    default:
      return targetProblem(checkTarget(c), "the check's target");
  }
}

/**
 * Why a step would be refused (`check_step`, without `${var}`s: the engine knows the data
 * columns), or null; a compensation step's problem names it as the engine does.
 */
export function stepProblem(s: Step): string | null {
  if (s.target || needsTarget(s.action)) {
    const p = s.target ? targetProblem(s.target) : `${s.action} needs a target`;
    if (p) return p;
  }
  if (s.action === "type" && s.text === undefined) return "type needs the text to type";
  if (s.action === "key" && !s.keys) return 'key needs keys ("Return", "ctrl+a")';
  if (s.action === "drag" && !s.to) return "drag needs `to`";
  if ((s.action === "check" || s.action === "uncheck") && s.target) {
    const r = s.target.role;
    if (!s.target.text || !(r === undefined || r === "any" || r === "label" || r === "text")) {
      return `${s.action} needs the check box's caption as its target's text (role left out, or label)`;
    }
  }
  if ((s.action === "wait_for" || s.action === "assert") && !s.check?.length) {
    return "wait_for and assert need at least one check";
  }
  if (s.to) {
    const p = targetProblem(s.to, "to");
    if (p) return p;
  }
  for (const c of [...(s.check ?? []), ...(s.verify ? [s.verify] : [])]) {
    const p = checkProblem(c);
    if (p) return p;
  }
  for (const [i, c] of (s.compensation ?? []).entries()) {
    const p = stepProblem(c);
    if (p) return `compensation ${i + 1}: ${p}`;
  }
  return null;
}

/** The fields a compensation step's small form shows. */
export interface StepFields {
  action: Action;
  /** The target's text. */
  text: string;
  role: string;
  /** `type`: the text typed. */
  typed: string;
  /** `key`: the chord. */
  keys: string;
}

export function stepFields(s: Step): StepFields {
  const t = targetFields(s.target);
  return { action: s.action, text: t.text, role: t.role, typed: s.text ?? "", keys: s.keys ?? "" };
}

/**
 * Writes a compensation form's fields onto its step, keeping every key the form does not show.
 * An action that acts on a control gets a target (empty until its text is filled in); one that
 * does not keeps a target only when there is something in it, since an empty target is refused.
 */
export function stepFromFields(f: StepFields, base: Step): Step {
  const out: Step = { ...base, action: f.action, text: f.typed, keys: f.keys };
  const target = applyTargetFields({ text: f.text, role: f.role }, base.target);
  out.target = needsTarget(f.action) || Object.keys(target).length > 0 ? target : undefined;
  return clean(out);
}

export function editStepFields(s: Step, patch: Partial<StepFields>): Step {
  return stepFromFields({ ...stepFields(s), ...patch }, s);
}

/** A compensation step as the "add" button makes it: a click whose target is still to be named. */
export function newCompensationStep(): Step {
  return { action: "click", target: {} };
}

/** The keys of a step its compensation form does not show (listed so nothing is hidden silently). */
export function hiddenStepFields(s: Step): string[] {
  const shown = new Set<string>(["action", "target", "text", "keys"]);
  const hidden = Object.keys(s).filter((k) => !shown.has(k) && s[k as keyof Step] !== undefined);
  const t = s.target ?? {};
  for (const k of Object.keys(t)) {
    if (k !== "text" && k !== "role" && t[k as keyof TargetSpec] !== undefined) hidden.push(`target.${k}`);
  }
  return hidden;
}

/** List edits for the check and compensation lists: each returns a new list. */
export function replaceAt<T>(list: T[] | undefined, at: number, value: T): T[] {
  return (list ?? []).map((x, i) => (i === at ? value : x));
}

export function removeAt<T>(list: T[] | undefined, at: number): T[] {
  return (list ?? []).filter((_, i) => i !== at);
}

/** Moves an item one place up or down (a compensation's order is the order it undoes in). */
export function moveAt<T>(list: T[] | undefined, from: number, to: number): T[] {
  const out = [...(list ?? [])];
  if (from < 0 || from >= out.length || to < 0 || to >= out.length || from === to) return out;
  const [x] = out.splice(from, 1);
  out.splice(to, 0, x);
  return out;
}

/** Where a control picked on the captured window goes: the step's target, or a check's. */
export type PickInto = { into: "target" } | { into: "verify" } | { into: "check"; index: number };

/** A check with its target replaced (a `window_title` check has none and is returned as it is). */
export function withCheckTarget(c: Check, t: TargetSpec): Check {
  if ("exists" in c) return { exists: t };
  if ("not_exists" in c) return { not_exists: t };
  if ("text_matches" in c) return { text_matches: { ...c.text_matches, target: t } };
  return c;
}

/**
 * A proposal from clicking the captured window, taken as the target of the step or of one of its
 * checks: the proposal's text, role and box over the old target, whose crop (of another control)
 * is dropped; the rest of the old target (near, window, context, synonyms) stays.
 */
export function applyProposalInto(flow: Flow, at: number, dest: PickInto, p: Proposal): Flow {
  const s = flow.step[at];
  if (!s) return flow;
  const take = (old: TargetSpec | undefined) => clean({ ...(old ?? {}), ...p.target, crop: undefined });
  switch (dest.into) {
    case "target":
      return applyProposal(flow, at, p);
    case "verify":
      return s.verify ? updateStep(flow, at, { verify: withCheckTarget(s.verify, take(checkTarget(s.verify))) }) : flow;
    case "check": {
      const c = s.check?.[dest.index];
      if (!c) return flow;
      return updateStep(flow, at, { check: replaceAt(s.check, dest.index, withCheckTarget(c, take(checkTarget(c)))) });
    }
  }
}

/** How the editor names where the next pick goes. */
export function describePickInto(dest: PickInto): string {
  if (dest.into === "target") return "the step's target";
  if (dest.into === "verify") return "the target its verify looks for";
  return `the target check ${dest.index + 1} looks at`;
}

/** The window a pick's target is in (a dialog named by the target), if it names one. */
export function pickWindow(s: Step | undefined, dest: PickInto): string | undefined {
  if (!s) return undefined;
  if (dest.into === "target") return s.target?.window;
  const c = dest.into === "verify" ? s.verify : s.check?.[dest.index];
  return (c && checkTarget(c)?.window) || s.target?.window;
}
