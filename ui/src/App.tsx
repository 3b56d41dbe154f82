import { useCallback, useEffect, useState } from "react";
import { toBackendError, type Backend, type BackendError, type StudioInfo } from "./backend";
import { EditorPage } from "./pages/EditorPage";
import { LibraryPage } from "./pages/LibraryPage";
import { MonitorPage } from "./pages/MonitorPage";
import { TakeoverPage } from "./pages/TakeoverPage";

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

export type Tab = "library" | "editor" | "monitor" | "takeover";

export function App({ backend, initialTab = "library" }: { backend: Backend; initialTab?: Tab }) {
  const info = useStudioInfo(backend);
  const [tab, setTab] = useState<Tab>(initialTab);
  const [file, setFile] = useState<string | null>(null);
  const [waiting, setWaiting] = useState(0);

  // The studio may be started with a flow to open (the demo opens a sample flow).
  const openAtStart = info.status === "ready" ? info.info.open : null;
  useEffect(() => {
    if (openAtStart) {
      setFile(openAtStart);
      setTab("editor");
    }
  }, [openAtStart]);

  const refreshWaiting = useCallback(() => {
    backend.listTakeovers(false).then((l) => setWaiting(l.length), () => undefined);
  }, [backend]);
  useEffect(refreshWaiting, [refreshWaiting]);
  // A paused run brings the takeover panel to the front.
  const onPaused = useCallback(() => {
    refreshWaiting();
    setTab("takeover");
  }, [refreshWaiting]);

  const openInEditor = useCallback((f: string) => {
    setFile(f);
    setTab("editor");
  }, []);

  const tabs: [Tab, string][] = [
    ["library", "Flows"],
    ["editor", "Editor"],
    ["monitor", "Run monitor"],
    ["takeover", waiting ? `Takeover (${waiting})` : "Takeover"],
  ];
  return (
    <div className="studio">
      <header className="studio-header">
        <h1>Mend Studio</h1>
        <nav className="tabs" role="tablist">
          {tabs.map(([t, label]) => (
            <button key={t} role="tab" aria-selected={tab === t} onClick={() => setTab(t)}>
              {label}
            </button>
          ))}
        </nav>
        <span className="spacer" />
        <EngineLine state={info} />
        {backend.kind === "mock" && <span className="badge">browser mock backend</span>}
      </header>
      <main>
        {tab === "library" && (
          <LibraryPage
            backend={backend}
            onOpen={(f) => {
              setFile(f);
              setTab("editor");
            }}
            onRun={(f) => {
              setFile(f);
              setTab("monitor");
            }}
          />
        )}
        {tab === "editor" && <EditorPage backend={backend} file={file} onOpen={openInEditor} />}
        {/* The monitor stays mounted so a run's events are not lost when switching tabs. */}
        <div hidden={tab !== "monitor"}>
          <MonitorPage backend={backend} file={file} onPaused={onPaused} />
        </div>
        {tab === "takeover" && <TakeoverPage backend={backend} onResolved={refreshWaiting} />}
      </main>
    </div>
  );
}
