import { useEffect, useState } from "react";
import { toBackendError, type Backend, type BackendError, type StudioInfo } from "./backend";
import { FlowsPanel } from "./panels/FlowsPanel";
import { RunMonitorPanel } from "./panels/RunMonitorPanel";
import { TakeoverPanel } from "./panels/TakeoverPanel";

type InfoState =
  | { status: "loading" }
  | { status: "ready"; info: StudioInfo }
  | { status: "failed"; error: BackendError };

function useStudioInfo(backend: Backend): InfoState {
  const [state, setState] = useState<InfoState>({ status: "loading" });
  useEffect(() => {
    let live = true;
    backend.studioInfo().then(
      (info) => live && setState({ status: "ready", info }),
      (reason: unknown) => live && setState({ status: "failed", error: toBackendError(reason) }),
    );
    return () => {
      live = false;
    };
  }, [backend]);
  return state;
}

function EngineLine({ state }: { state: InfoState }) {
  switch (state.status) {
    case "loading":
      return <span className="engine">Connecting to engine…</span>;
    case "ready":
      return (
        <span className="engine" data-testid="engine-version">
          Engine {state.info.engine} v{state.info.version}
        </span>
      );
    case "failed":
      return (
        <span className="engine engine-error" role="alert">
          Engine unavailable ({state.error.code}): {state.error.message}
        </span>
      );
  }
}

export function App({ backend }: { backend: Backend }) {
  const info = useStudioInfo(backend);
  return (
    <div className="studio">
      <header className="studio-header">
        <h1>Mend Studio</h1>
        <EngineLine state={info} />
        {backend.kind === "mock" && <span className="badge">browser mock backend</span>}
      </header>
      <main className="panels">
        <FlowsPanel />
        <RunMonitorPanel />
        <TakeoverPanel />
      </main>
    </div>
  );
}
