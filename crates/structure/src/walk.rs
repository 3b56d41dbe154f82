//! The D-Bus side: connecting, listing applications, walking a subtree concurrently.

use crate::path::{is_checkable_role, join, role_name, sibling_segments};
use crate::{Node, NodeStates, Snapshot, StructureError};
use atspi::State;
use futures_util::future::join_all;
use mend_model::{Rect, WindowInfo};
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Type};
use zbus::Connection;

const REGISTRY: &str = "org.a11y.atspi.Registry";
const ROOT: &str = "/org/a11y/atspi/accessible/root";
const ACCESSIBLE: &str = "org.a11y.atspi.Accessible";
const COMPONENT: &str = "org.a11y.atspi.Component";
/// atspi::RelationType::LabelledBy on the wire.
const RELATION_LABELLED_BY: u32 = 2;
/// Bound on each single method call (a hung application must not stall us for long).
const CALL_TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Obj {
    pub dest: String,
    pub path: String,
}

impl Obj {
    fn from_wire((dest, path): (String, OwnedObjectPath)) -> Obj {
        Obj {
            dest,
            path: path.as_str().to_string(),
        }
    }
    /// AT-SPI's null reference (`/org/a11y/atspi/null`) or an empty bus name.
    fn is_null(&self) -> bool {
        self.dest.is_empty() || self.path.ends_with("/null")
    }
}

async fn call<R, B>(
    conn: &Connection,
    o: &Obj,
    iface: &str,
    method: &str,
    body: &B,
) -> zbus::Result<R>
where
    R: DeserializeOwned + Type,
    B: serde::Serialize + Type,
{
    let msg = conn
        .call_method(
            Some(o.dest.as_str()),
            o.path.as_str(),
            Some(iface),
            method,
            body,
        )
        .await?;
    msg.body().deserialize::<R>()
}

async fn children(conn: &Connection, o: &Obj) -> Vec<Obj> {
    call::<Vec<(String, OwnedObjectPath)>, _>(conn, o, ACCESSIBLE, "GetChildren", &())
        .await
        .map(|v| {
            v.into_iter()
                .map(Obj::from_wire)
                .filter(|o| !o.is_null())
                .collect()
        })
        .unwrap_or_default()
}

async fn name(conn: &Connection, o: &Obj) -> String {
    let v: zbus::Result<OwnedValue> = call(
        conn,
        o,
        "org.freedesktop.DBus.Properties",
        "Get",
        &(ACCESSIBLE, "Name"),
    )
    .await;
    // GTK 3 menu items end in padding spaces ("New      "); trimmed.
    v.ok()
        .and_then(|v| String::try_from(v).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// What one node says about itself (not its children).
#[derive(Debug, Clone, Default)]
pub(crate) struct Props {
    pub role: String,
    pub name: String,
    pub states: u64,
    pub rect: Rect,
    pub labelled_by: Vec<Obj>,
}

impl Props {
    fn has(&self, s: State) -> bool {
        self.states & (s as u64) != 0
    }
}

fn rect_of(e: zbus::Result<(i32, i32, i32, i32)>) -> Rect {
    match e {
        // GTK 3 gives (i32::MIN, i32::MIN, 1, 1) for unmapped widgets (closed menus' items).
        Ok((x, y, w, h)) if w > 0 && h > 0 && x != i32::MIN && y != i32::MIN => {
            Rect::new(x, y, w, h)
        }
        _ => Rect::new(0, 0, 0, 0),
    }
}

async fn props(conn: &Connection, o: &Obj) -> Props {
    let (role, name, states, ext, rels) = tokio::join!(
        call::<u32, _>(conn, o, ACCESSIBLE, "GetRole", &()),
        name(conn, o),
        call::<Vec<u32>, _>(conn, o, ACCESSIBLE, "GetState", &()),
        call::<(i32, i32, i32, i32), _>(conn, o, COMPONENT, "GetExtents", &(0u32,)),
        call::<Vec<(u32, Vec<(String, OwnedObjectPath)>)>, _>(
            conn,
            o,
            ACCESSIBLE,
            "GetRelationSet",
            &()
        ),
    );
    let states = states
        .map(|v| {
            v.iter()
                .take(2)
                .enumerate()
                .fold(0u64, |acc, (i, w)| acc | ((*w as u64) << (32 * i)))
        })
        .unwrap_or(0);
    let labelled_by = rels
        .unwrap_or_default()
        .into_iter()
        .filter(|(t, _)| *t == RELATION_LABELLED_BY)
        .flat_map(|(_, targets)| targets.into_iter().map(Obj::from_wire))
        .filter(|o| !o.is_null())
        .collect();
    Props {
        role: role.map(role_name).unwrap_or("unknown").to_string(),
        name,
        states,
        rect: rect_of(ext),
        labelled_by,
    }
}

pub(crate) fn node_states(p: &Props) -> NodeStates {
    let checkable = is_checkable_role(&p.role) || p.has(State::Checkable);
    NodeStates {
        showing: p.has(State::Showing),
        visible: p.has(State::Visible),
        enabled: p.has(State::Enabled),
        sensitive: p.has(State::Sensitive),
        focused: p.has(State::Focused),
        checked: checkable.then(|| p.has(State::Checked) || p.has(State::Pressed)),
        editable: p.has(State::Editable),
    }
}

/// Opens the AT-SPI bus: `Ok(None)` when there is no session bus, no `org.a11y.Bus`, or no
/// registry answering on the a11y bus.
pub(crate) async fn open(
    session: Option<String>,
    a11y: Option<String>,
) -> Result<Option<Connection>, StructureError> {
    let a11y_addr = match a11y {
        Some(a) => a,
        None => {
            let sess = match session {
                Some(addr) => match addr.parse::<zbus::Address>() {
                    Ok(a) => zbus::connection::Builder::address(a)?.build().await,
                    Err(_) => return Ok(None),
                },
                None => Connection::session().await,
            };
            let Ok(sess) = sess else { return Ok(None) };
            let bus = Obj {
                dest: "org.a11y.Bus".into(),
                path: "/org/a11y/bus".into(),
            };
            match call::<String, _>(&sess, &bus, "org.a11y.Bus", "GetAddress", &()).await {
                Ok(a) if !a.is_empty() => a,
                _ => return Ok(None),
            }
        }
    };
    let Ok(addr) = a11y_addr.parse::<zbus::Address>() else {
        return Ok(None);
    };
    let Ok(conn) = zbus::connection::Builder::address(addr)?
        .method_timeout(CALL_TIMEOUT)
        .build()
        .await
    else {
        return Ok(None);
    };
    // The registry is bus-activated; asking it for its children starts it when needed.
    let root = Obj {
        dest: REGISTRY.into(),
        path: ROOT.into(),
    };
    match call::<Vec<(String, OwnedObjectPath)>, _>(&conn, &root, ACCESSIBLE, "GetChildren", &())
        .await
    {
        Ok(_) => Ok(Some(conn)),
        Err(_) => Ok(None),
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Top {
    pub obj: Obj,
    pub name: String,
    pub props: Props,
}

#[derive(Debug, Clone)]
pub(crate) struct App {
    pub name: String,
    pub pid: u32,
    pub windows: Vec<Top>,
}

async fn pid_of(conn: &Connection, dest: &str) -> u32 {
    let bus = Obj {
        dest: "org.freedesktop.DBus".into(),
        path: "/org/freedesktop/DBus".into(),
    };
    call::<u32, _>(
        conn,
        &bus,
        "org.freedesktop.DBus",
        "GetConnectionUnixProcessID",
        &(dest,),
    )
    .await
    .unwrap_or(0)
}

async fn app_details(conn: &Connection, app: Obj, pid: u32) -> App {
    let (name, tops) = tokio::join!(name(conn, &app), children(conn, &app));
    let windows = join_all(tops.into_iter().map(|t| async move {
        let p = props(conn, &t).await;
        Top {
            obj: t,
            name: p.name.clone(),
            props: p,
        }
    }))
    .await;
    App { name, pid, windows }
}

/// All applications; only those with pid `only_pid` get their windows listed when that is
/// `Some` and any matches.
async fn apps(conn: &Connection, only_pid: Option<u32>) -> Result<Vec<App>, StructureError> {
    let root = Obj {
        dest: REGISTRY.into(),
        path: ROOT.into(),
    };
    let list: Vec<Obj> =
        call::<Vec<(String, OwnedObjectPath)>, _>(conn, &root, ACCESSIBLE, "GetChildren", &())
            .await?
            .into_iter()
            .map(Obj::from_wire)
            .filter(|o| !o.is_null())
            .collect();
    let pids = join_all(list.iter().map(|a| pid_of(conn, &a.dest))).await;
    let any = only_pid.is_some_and(|p| pids.contains(&p));
    let wanted: Vec<(Obj, u32)> = list
        .into_iter()
        .zip(pids)
        .filter(|(_, p)| !any || Some(*p) == only_pid)
        .collect();
    Ok(join_all(wanted.into_iter().map(|(a, p)| app_details(conn, a, p))).await)
}

pub(crate) async fn applications(conn: &Connection) -> Result<Vec<App>, StructureError> {
    apps(conn, None).await
}

fn rect_distance(a: Rect, b: Rect) -> i64 {
    [(a.x, b.x), (a.y, b.y), (a.w, b.w), (a.h, b.h)]
        .iter()
        .map(|(p, q)| (*p as i64 - *q as i64).abs())
        .sum()
}

/// Picks the candidate for `win`: same name as the title first (closest extents among
/// those), else the closest extents among candidates overlapping `win.rect`. Candidates
/// that are not showing lose against showing ones. `key` gives (name, rect, showing).
pub(crate) fn pick_window<'a, T>(
    cands: &'a [T],
    win: &WindowInfo,
    key: impl Fn(&'a T) -> (&'a str, Rect, bool),
) -> Option<&'a T> {
    let best = |it: &mut dyn Iterator<Item = &'a T>| {
        it.min_by_key(|c| {
            let (_, r, showing) = key(c);
            (!showing, rect_distance(r, win.rect))
        })
    };
    let mut named = cands.iter().filter(|c| key(c).0 == win.title);
    if let Some(c) = best(&mut named) {
        return Some(c);
    }
    let mut overlapping = cands
        .iter()
        .filter(|c| key(c).1.intersect(&win.rect).is_some());
    best(&mut overlapping)
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub max_nodes: usize,
    pub max_depth: u32,
}

struct Ctx {
    limits: Limits,
    reserved: AtomicUsize,
    truncated: AtomicBool,
}

struct Raw {
    obj: Obj,
    props: Props,
    children: Vec<Raw>,
}

fn walk<'a>(
    conn: &'a Connection,
    obj: Obj,
    known: Option<Props>,
    depth: u32,
    ctx: &'a Ctx,
) -> Pin<Box<dyn Future<Output = Raw> + Send + 'a>> {
    Box::pin(async move {
        let props = match known {
            Some(p) => p,
            None => props(conn, &obj).await,
        };
        if props.has(State::ManagesDescendants) {
            return Raw {
                obj,
                props,
                children: vec![],
            };
        }
        let mut kids = children(conn, &obj).await;
        if !kids.is_empty() && depth + 1 > ctx.limits.max_depth {
            ctx.truncated.store(true, Ordering::Relaxed);
            kids.clear();
        }
        // Reserve room for the children under the node cap.
        let want = kids.len();
        let got = ctx
            .reserved
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                Some(r + want.min(ctx.limits.max_nodes.saturating_sub(r)))
            })
            .map(|r| want.min(ctx.limits.max_nodes.saturating_sub(r)))
            .unwrap_or(0);
        if got < want {
            ctx.truncated.store(true, Ordering::Relaxed);
            kids.truncate(got);
        }
        let children = join_all(
            kids.into_iter()
                .map(|k| walk(conn, k, None, depth + 1, ctx)),
        )
        .await;
        Raw {
            obj,
            props,
            children,
        }
    })
}

fn flatten(
    raw: &Raw,
    path: String,
    depth: u32,
    out: &mut Vec<(Node, Vec<Obj>)>,
    names: &mut HashMap<Obj, String>,
) {
    names.insert(raw.obj.clone(), raw.props.name.clone());
    out.push((
        Node {
            role: raw.props.role.clone(),
            name: raw.props.name.clone(),
            rect: raw.props.rect,
            path: path.clone(),
            states: node_states(&raw.props),
            labelled_by: vec![],
            depth,
        },
        raw.props.labelled_by.clone(),
    ));
    let roles: Vec<&str> = raw.children.iter().map(|c| c.props.role.as_str()).collect();
    for (c, seg) in raw.children.iter().zip(sibling_segments(&roles)) {
        flatten(c, join(&path, &seg), depth + 1, out, names);
    }
}

const POPUP_ROLES: &[&str] = &["window", "popup menu", "menu", "tool tip"];

pub(crate) async fn snapshot(
    conn: &Connection,
    win: &WindowInfo,
    limits: Limits,
) -> Result<Option<Snapshot>, StructureError> {
    let apps = apps(conn, (win.pid != 0).then_some(win.pid)).await?;
    let cands: Vec<(usize, &Top)> = apps
        .iter()
        .enumerate()
        .flat_map(|(i, a)| a.windows.iter().map(move |w| (i, w)))
        .collect();
    let Some(&(ai, top)) = pick_window(&cands, win, |(_, t)| {
        (t.name.as_str(), t.props.rect, t.props.has(State::Showing))
    }) else {
        return Ok(None);
    };
    let app = &apps[ai];
    let popups: Vec<&Top> = app
        .windows
        .iter()
        .filter(|w| {
            w.obj != top.obj
                && w.props.has(State::Showing)
                && POPUP_ROLES.contains(&w.props.role.as_str())
        })
        .collect();

    let ctx = Ctx {
        limits,
        reserved: AtomicUsize::new(1 + popups.len()),
        truncated: AtomicBool::new(false),
    };
    let main = walk(conn, top.obj.clone(), Some(top.props.clone()), 0, &ctx);
    let pops = join_all(
        popups
            .iter()
            .map(|p| walk(conn, p.obj.clone(), Some(p.props.clone()), 0, &ctx)),
    );
    let (main, pops) = tokio::join!(main, pops);

    let mut out = Vec::new();
    let mut names = HashMap::new();
    flatten(&main, main.props.role.clone(), 0, &mut out, &mut names);
    for (i, p) in pops.iter().enumerate() {
        flatten(
            p,
            format!("popup[{i}]/{}", p.props.role),
            0,
            &mut out,
            &mut names,
        );
    }
    // Names of LabelledBy targets outside the walked tree.
    let missing: Vec<Obj> = {
        let mut m: Vec<Obj> = out
            .iter()
            .flat_map(|(_, l)| l.iter())
            .filter(|o| !names.contains_key(*o))
            .cloned()
            .collect();
        m.sort_by(|a, b| (&a.dest, &a.path).cmp(&(&b.dest, &b.path)));
        m.dedup();
        m
    };
    let fetched = join_all(missing.iter().map(|o| name(conn, o))).await;
    names.extend(missing.into_iter().zip(fetched));
    let nodes = out
        .into_iter()
        .map(|(mut n, l)| {
            n.labelled_by = l.iter().filter_map(|o| names.get(o).cloned()).collect();
            n
        })
        .collect();
    Ok(Some(Snapshot {
        app: app.name.clone(),
        pid: app.pid,
        window_name: top.name.clone(),
        window_rect: top.props.rect,
        nodes,
        truncated: ctx.truncated.load(Ordering::Relaxed),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(title: &str, rect: Rect) -> WindowInfo {
        WindowInfo {
            id: 1,
            title: title.into(),
            app_name: String::new(),
            pid: 0,
            rect,
            focused: true,
            owner: None,
            takes_no_focus: false,
        }
    }

    #[test]
    fn picks_by_name_then_extents() {
        let c = vec![
            ("Untitled 1 - Mousepad", Rect::new(0, 0, 800, 600), true),
            ("Save As", Rect::new(100, 100, 400, 300), true),
            ("Untitled 1 - Mousepad", Rect::new(10, 10, 640, 480), true),
        ];
        fn k<'a>(t: &'a (&'static str, Rect, bool)) -> (&'a str, Rect, bool) {
            *t
        }
        assert_eq!(
            pick_window(
                &c,
                &win("Untitled 1 - Mousepad", Rect::new(12, 12, 640, 480)),
                k
            )
            .unwrap()
            .1,
            Rect::new(10, 10, 640, 480)
        );
        // No name match: closest overlapping extents.
        assert_eq!(
            pick_window(&c, &win("Other", Rect::new(100, 100, 400, 300)), k)
                .unwrap()
                .0,
            "Save As"
        );
        // Nothing overlaps: none.
        assert!(pick_window(&c, &win("Other", Rect::new(2000, 2000, 10, 10)), k).is_none());
        // A hidden one loses against a showing one of the same name.
        let c2 = vec![
            ("A", Rect::new(0, 0, 10, 10), false),
            ("A", Rect::new(500, 500, 10, 10), true),
        ];
        assert!(
            pick_window(&c2, &win("A", Rect::new(0, 0, 10, 10)), k)
                .unwrap()
                .2
        );
    }

    #[test]
    fn states_decode() {
        let p = Props {
            role: "check box".into(),
            states: State::Showing as u64 | State::Checked as u64 | State::Enabled as u64,
            ..Default::default()
        };
        let s = node_states(&p);
        assert!(s.showing && s.enabled && !s.visible && !s.focused);
        assert_eq!(s.checked, Some(true));
        let p = Props {
            role: "push button".into(),
            states: State::Checked as u64,
            ..Default::default()
        };
        assert_eq!(node_states(&p).checked, None);
        // Wire bit numbers (at-spi2-core AtspiStateType): SHOWING 25, MANAGES_DESCENDANTS 31, CHECKABLE 41.
        assert_eq!(State::Showing as u64, 1 << 25);
        assert_eq!(State::ManagesDescendants as u64, 1 << 31);
        assert_eq!(State::Checkable as u64, 1 << 41);
    }
}
