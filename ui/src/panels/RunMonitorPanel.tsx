import { Panel } from "./Panel";

export function RunMonitorPanel() {
  return (
    <Panel title="Run monitor">
      <p className="status">
        <span className="dot idle" aria-hidden="true" />
        Idle — no run in progress
      </p>
    </Panel>
  );
}
