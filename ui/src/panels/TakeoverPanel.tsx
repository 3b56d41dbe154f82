import { Panel } from "./Panel";

export function TakeoverPanel() {
  return (
    <Panel title="Takeover">
      <p className="empty">No takeover requests</p>
    </Panel>
  );
}
