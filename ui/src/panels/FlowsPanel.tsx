import { Panel } from "./Panel";

/** No backend command lists flows yet, so the list is honestly empty rather than filled with samples. */
export function FlowsPanel() {
  return (
    <Panel title="Flows">
      <ul className="flow-list" aria-label="Flows" />
      <p className="empty">No flows yet</p>
    </Panel>
  );
}
