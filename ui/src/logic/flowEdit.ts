import type { Check, Flow, Proposal, Step, TargetSpec } from "../backend";

/** Pure edits of a flow for the step editor: each returns a new flow, the input is untouched. */

export function moveStep(flow: Flow, from: number, to: number): Flow {
  const steps = [...flow.step];
  if (from < 0 || from >= steps.length || to < 0 || to >= steps.length || from === to) return flow;
  const [s] = steps.splice(from, 1);
  steps.splice(to, 0, s);
  return { ...flow, step: steps };
}

export function addStep(flow: Flow, at: number, step: Step = { action: "click", target: { text: "" } }): Flow {
  const steps = [...flow.step];
  steps.splice(Math.max(0, Math.min(at, steps.length)), 0, step);
  return { ...flow, step: steps };
}

export function removeStep(flow: Flow, at: number): Flow {
  return { ...flow, step: flow.step.filter((_, i) => i !== at) };
}

export function updateStep(flow: Flow, at: number, patch: Partial<Step>): Flow {
  return { ...flow, step: flow.step.map((s, i) => (i === at ? clean({ ...s, ...patch }) : s)) };
}

export function updateTarget(flow: Flow, at: number, patch: Partial<TargetSpec>): Flow {
  const s = flow.step[at];
  return updateStep(flow, at, { target: clean({ ...(s.target ?? {}), ...patch }) });
}

/** A proposal from clicking the captured window becomes the step's target. */
export function applyProposal(flow: Flow, at: number, p: Proposal): Flow {
  const old = flow.step[at].target ?? {};
  return updateStep(flow, at, {
    target: clean({ ...old, ...p.target, crop: undefined }),
  });
}

/** Drop empty strings and undefined so the saved TOML has no `text = ""`. */
export function clean<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || v === "" || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = v;
  }
  return out as T;
}

export function describeTarget(t?: TargetSpec): string {
  if (!t) return "—";
  const where = t.window ? ` in ${t.window}` : "";
  // A control known by its pixels alone (issue 14): named by its crop's file.
  if (t.text === undefined && t.near === undefined && t.crop) return `${t.role ?? "any"} by its crop ${t.crop.split("/").pop()}${where}`;
  const what = t.text ?? (t.near ? `near ${t.near}` : "?");
  return `${t.role ?? "any"} '${what}'${where}`;
}

export function describeCheck(c: Check): string {
  if ("exists" in c) return `${describeTarget(c.exists)} exists`;
  if ("not_exists" in c) return `${describeTarget(c.not_exists)} does not exist`;
  if ("window_title" in c) return `window '${c.window_title}' is open`;
  return `${describeTarget(c.text_matches.target)} reads /${c.text_matches.pattern}/`;
}

/** Which actions act on a control (and so need a target). */
export function needsTarget(action: Step["action"]): boolean {
  return ["click", "double_click", "right_click", "type", "drag", "scroll", "check", "uncheck"].includes(action);
}
