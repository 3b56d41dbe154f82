//! Accessibility-tree backend: a snapshot of one top-level window's AT-SPI 2 tree.
//!
//! [`AtSpi`] talks raw D-Bus (zbus) to the AT-SPI registry and the applications, firing
//! the per-node calls of a whole subtree concurrently on one connection, so a snapshot costs
//! roughly (tree depth x 2) round trips rather than (nodes x calls). `atspi` supplies the
//! protocol types (roles, states, relation and coordinate enums).
//!
//! Popups: an application's *other* top-level accessibles that are showing and look like
//! popups (roles "window", "popup menu", "menu", "tool tip"; Qt puts an open menu there) are
//! appended to the snapshot's `nodes`, each subtree's paths starting `popup[i]/`, with depth
//! counted from the popup root (0).

mod path;
mod session;
mod walk;

pub use path::{is_checkable_role, is_container_role, role_name, sibling_segments};
pub use session::{start_a11y_session, A11ySession};

use mend_model::{Rect, WindowInfo};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// The states a caller filters on. See [`Node::states`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeStates {
    pub showing: bool,
    pub visible: bool,
    pub enabled: bool,
    pub sensitive: bool,
    pub focused: bool,
    /// `Some` only for checkable roles (check box, toggle button, radio, check/radio menu item)
    /// or nodes with the CHECKABLE state.
    pub checked: Option<bool>,
    pub editable: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// AT-SPI role name, e.g. "push button", "menu item", "text", "check box", "page tab".
    pub role: String,
    /// Accessible name.
    pub name: String,
    /// Screen pixels from `Component.GetExtents(Screen)`; `Rect::new(0,0,0,0)` when none.
    pub rect: Rect,
    /// Role path from the window down, with indices among same-role siblings, e.g.
    /// `frame/filler[0]/menu bar[0]/menu item[2]`; popups start `popup[i]/`.
    pub path: String,
    pub states: NodeStates,
    /// Names of the targets of the LabelledBy relation.
    pub labelled_by: Vec<String>,
    /// 0 for the window (and for each popup root).
    pub depth: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Application name in the registry.
    pub app: String,
    pub pid: u32,
    pub window_name: String,
    pub window_rect: Rect,
    /// Depth-first (pre-order) from the window, then the popups.
    pub nodes: Vec<Node>,
    /// The node cap or depth cap was hit.
    pub truncated: bool,
}

impl Snapshot {
    /// Nodes of the window itself (not of popups).
    pub fn window_nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| !n.path.starts_with("popup["))
    }
    /// Nodes of the popups (paths `popup[i]/...`).
    pub fn popup_nodes(&self) -> impl Iterator<Item = &Node> {
        self.nodes.iter().filter(|n| n.path.starts_with("popup["))
    }
    /// How many nodes share `path`'s parent and its role (itself included): the `N` of its
    /// last segment's `role[i]` among its siblings.
    pub fn siblings_of(&self, path: &str) -> u32 {
        let (parent, role) = split_path(path);
        self.nodes
            .iter()
            .filter(|n| split_path(&n.path) == (parent, role))
            .count() as u32
    }
    /// First node with this role and name.
    pub fn find(&self, role: &str, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.role == role && n.name == name)
    }
}

/// A path's parent and the role of its last segment (`a/b[0]/menu item[2]` → `a/b[0]`, `menu item`).
fn split_path(path: &str) -> (&str, &str) {
    let (parent, last) = path.rsplit_once('/').unwrap_or(("", path));
    (parent, last.split('[').next().unwrap_or(last))
}

#[derive(Debug, thiserror::Error)]
pub enum StructureError {
    /// No usable session bus / AT-SPI bus where one was required (e.g. by the session helper).
    #[error("no accessibility bus: {0}")]
    NoBus(String),
    #[error("D-Bus error: {0}")]
    Bus(String),
    #[error("accessibility bus did not answer within {0:?}")]
    Timeout(Duration),
    /// Starting the private session (dbus-daemon, at-spi-bus-launcher) failed.
    #[error("a11y session: {0}")]
    Session(String),
}

impl From<zbus::Error> for StructureError {
    fn from(e: zbus::Error) -> Self {
        StructureError::Bus(e.to_string())
    }
}

pub trait Structure {
    /// The tree of the top-level window `win` (matched by pid when non-zero, then by
    /// name == title, then by extents closest to `win.rect`); `Ok(None)` when that app
    /// exposes no tree / no matching window.
    fn window(&mut self, win: &WindowInfo) -> Result<Option<Snapshot>, StructureError>;
}

/// A live AT-SPI connection (to the accessibility bus).
pub struct AtSpi {
    rt: tokio::runtime::Runtime,
    conn: zbus::Connection,
    /// Bound for one `window()` call as a whole.
    pub snapshot_timeout: Duration,
    /// Node cap (default 3000) and depth cap (default 40).
    pub max_nodes: usize,
    pub max_depth: u32,
}

/// Default bound for [`AtSpi::connect`].
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(1000);

impl AtSpi {
    /// [`AtSpi::connect`] for a face of Mend: the tree when the desktop has one, else `None`
    /// with why said on stderr (controls are then found by their pixels).
    pub fn desktop() -> Option<AtSpi> {
        match AtSpi::connect() {
            Ok(Some(t)) => Some(t),
            Ok(None) => {
                eprintln!(
                    "note: no accessibility bus (AT-SPI) on this desktop: controls are found by their pixels"
                );
                None
            }
            Err(e) => {
                eprintln!(
                    "note: the accessibility bus could not be reached ({e}): controls are found by their pixels"
                );
                None
            }
        }
    }

    /// Connects through the session bus in `DBUS_SESSION_BUS_ADDRESS` (or straight to
    /// `AT_SPI_BUS_ADDRESS` when set). `Ok(None)` when there is no session bus or no AT-SPI
    /// bus/registry; `Err(Timeout)` when a bus does not answer within [`CONNECT_TIMEOUT`].
    pub fn connect() -> Result<Option<AtSpi>, StructureError> {
        if let Ok(a11y) = std::env::var("AT_SPI_BUS_ADDRESS") {
            if !a11y.is_empty() {
                return Self::connect_inner(None, Some(a11y), CONNECT_TIMEOUT);
            }
        }
        match std::env::var("DBUS_SESSION_BUS_ADDRESS") {
            Ok(a) if !a.is_empty() => Self::connect_inner(Some(a), None, CONNECT_TIMEOUT),
            // zbus would fall back to $XDG_RUNTIME_DIR/bus.
            _ => Self::connect_inner(None, None, CONNECT_TIMEOUT),
        }
    }

    /// Like [`AtSpi::connect`] with an explicit session bus address (e.g. from
    /// [`A11ySession::bus_address`]) and bound; reads no environment.
    pub fn connect_to(
        session_bus: &str,
        timeout: Duration,
    ) -> Result<Option<AtSpi>, StructureError> {
        Self::connect_inner(Some(session_bus.to_string()), None, timeout)
    }

    fn connect_inner(
        session: Option<String>,
        a11y: Option<String>,
        timeout: Duration,
    ) -> Result<Option<AtSpi>, StructureError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .map_err(|e| StructureError::Bus(e.to_string()))?;
        let fut = walk::open(session, a11y);
        let conn = match rt.block_on(async { tokio::time::timeout(timeout, fut).await }) {
            Err(_) => return Err(StructureError::Timeout(timeout)),
            Ok(Ok(Some(c))) => c,
            Ok(Ok(None)) => return Ok(None),
            Ok(Err(e)) => return Err(e),
        };
        Ok(Some(AtSpi {
            rt,
            conn,
            snapshot_timeout: Duration::from_secs(10),
            max_nodes: 3000,
            max_depth: 40,
        }))
    }

    /// Applications in the registry: (application name, pid, top-level window names).
    pub fn applications(&mut self) -> Result<Vec<(String, u32, Vec<String>)>, StructureError> {
        let t = self.snapshot_timeout;
        let fut = walk::applications(&self.conn);
        let apps = self
            .rt
            .block_on(async { tokio::time::timeout(t, fut).await })
            .map_err(|_| StructureError::Timeout(t))??;
        Ok(apps
            .into_iter()
            .map(|a| {
                (
                    a.name,
                    a.pid,
                    a.windows.into_iter().map(|w| w.name).collect(),
                )
            })
            .collect())
    }
}

impl Structure for AtSpi {
    fn window(&mut self, win: &WindowInfo) -> Result<Option<Snapshot>, StructureError> {
        let t = self.snapshot_timeout;
        let limits = walk::Limits {
            max_nodes: self.max_nodes,
            max_depth: self.max_depth,
        };
        let fut = walk::snapshot(&self.conn, win, limits);
        self.rt
            .block_on(async { tokio::time::timeout(t, fut).await })
            .map_err(|_| StructureError::Timeout(t))?
    }
}

/// A fake for unit tests elsewhere: returns canned snapshots. `window()` picks the snapshot
/// matched like the real one: pid (when both non-zero), then `window_name == title`, then the
/// closest `window_rect`; `None` when `snapshots` is empty or no pid matches.
#[derive(Debug, Clone, Default)]
pub struct FakeStructure {
    pub snapshots: Vec<Snapshot>,
}

impl Structure for FakeStructure {
    fn window(&mut self, win: &WindowInfo) -> Result<Option<Snapshot>, StructureError> {
        let cands: Vec<&Snapshot> = self
            .snapshots
            .iter()
            .filter(|s| win.pid == 0 || s.pid == 0 || s.pid == win.pid)
            .collect();
        let pick = walk::pick_window(&cands, win, |s| {
            (s.window_name.as_str(), s.window_rect, true)
        });
        Ok(pick.map(|s| (*s).clone()))
    }
}
