//! The structural rung: where the target's window exposes an accessibility tree (AT-SPI now,
//! UI Automation later: the `mend_structure::Structure` seam), the control is named by role and
//! name in the tree — and **checked against the pixels** before anything is answered.
//!
//! The tree is one witness, never an authority. A node is answered only when its box lies in
//! the frame (inside the window or one of its popups) and the frame's pixels there read the
//! caption (or, for a one-glyph caption, its ink has the glyph's shape); for a field, the
//! caption the tree relates it to reads so at the label's own box. Everything else passes down
//! to the pixel rungs, which alone decide then: an empty tree (a Qt app at cold start), extents
//! off the frame (a tree lagging a move), a box whose reading is blank or a near spelling, and
//! a box whose pixels read *another caption* — a stale tree, a scaled UI's popup extents, a
//! window over it: the tree is no witness there, and the pixel rungs read that box as the
//! other caption it shows.

use crate::chain::{Locator, Refusal};
use crate::scene::line_ocr;
use crate::text::{label_match, normalize, similarity};
use mend_capture::Frame;
use mend_model::{ErrorCode, Located, MendError, Rect, Role, Strategy, Target, TreeId};
use mend_ocr::OcrEngine;
use mend_structure::{AtSpi, Node, Snapshot};
use mend_vision::{confirm_short, ink_of, Verdict};

impl Locator {
    /// The live desktop's accessibility tree for the structural rung, unless `MEND_TREE=off`.
    /// No session bus or no AT-SPI registry: said once, and the pixel rungs work as before.
    pub fn use_desktop_tree(&mut self) -> Result<(), MendError> {
        match std::env::var("MEND_TREE").ok().as_deref().map(str::trim) {
            None | Some("") | Some("on") => {}
            Some("off") => return Ok(()),
            Some(other) => {
                return Err(MendError::new(
                    ErrorCode::InvalidArgument,
                    format!("MEND_TREE={other}: say on or off"),
                ))
            }
        }
        if let Some(t) = AtSpi::desktop() {
            self.structure = Some(Box::new(t));
        }
        Ok(())
    }

    /// The structural rung: the control the window's accessibility tree names, confirmed by
    /// the frame's pixels. `Ok(None)`: the pixel rungs decide (why is kept for their refusal:
    /// [`Locator::tree_said`]).
    pub(crate) fn by_tree(
        &mut self,
        frame: &Frame,
        target: &Target,
    ) -> Result<Option<Located>, Refusal> {
        self.tree_said = None;
        let (Some(tree), Some(win)) = (self.structure.as_mut(), frame.info.window.as_ref()) else {
            return Ok(None);
        };
        if target.text.is_none() {
            return Ok(None);
        }
        let snap = match tree.window(win) {
            Ok(s) => s,
            Err(e) => {
                let title = win.title.clone();
                self.say_no_tree(&title, &format!("its tree could not be read ({e})"));
                None
            }
        };
        if snap.is_none() {
            let title = win.title.clone();
            self.say_no_tree(&title, "it exposes no accessibility tree");
        }
        // A node the vocabulary gives another of the flow's own names is that control, never
        // this target's (the semantic rung's rule).
        let others: Vec<String> = self
            .flow_names
            .iter()
            .filter(|n| target.text.as_deref().is_some_and(|t| !name_is(t, n)))
            .cloned()
            .collect();
        let v = by_structure(&mut self.ocr, frame, snap.as_ref(), target, &others)
            .map_err(Refusal::from)?;
        match v {
            TreeVerdict::Found(l) => Ok(Some(l)),
            TreeVerdict::PassDown(why) => {
                self.tree_said = Some(why);
                Ok(None)
            }
        }
    }

    /// The checked state the window's tree gives the check box whose indicator the pixels
    /// found at `indicator` (frame pixels), beside its caption `caption`: the one checkable
    /// node on screen whose box holds the indicator's centre, named as the caption (or
    /// unnamed). `None` — no tree, no such node, two, or a node the tree names otherwise (a
    /// stale tree is no witness).
    pub fn tree_checked(&mut self, frame: &Frame, caption: &str, indicator: Rect) -> Option<bool> {
        let tree = self.structure.as_mut()?;
        let win = frame.info.window.as_ref()?;
        let snap = tree.window(win).ok()??;
        let scale = tree_scale(snap.window_rect, win.rect)?;
        let c = indicator.center();
        let mut found: Vec<(Rect, bool)> = Vec::new();
        for n in &snap.nodes {
            let Some(state) = n.states.checked else {
                continue;
            };
            if !on_screen(n) || !mend_structure::is_checkable_role(&n.role) {
                continue;
            }
            let r = frame.info.from_screen(&n.rect.scale(scale));
            if !r.contains(c) {
                continue;
            }
            if !n.name.trim().is_empty() && !name_is(caption, &n.name) {
                return None;
            }
            if !found.iter().any(|(b, _)| *b == r) {
                found.push((r, state));
            }
        }
        match found.as_slice() {
            [(_, state)] => Some(*state),
            _ => None,
        }
    }

    /// The place in the window's tree, now, of the control found at `at` (frame pixels) with
    /// the caption `text` — for `mend run --record` to write beside its crop. `None` with no
    /// tree, or where the tree does not name the caption there ([`taught_place`]).
    pub fn tree_place(&mut self, frame: &Frame, at: Rect, text: &str) -> Option<TreeId> {
        let tree = self.structure.as_mut()?;
        let win = frame.info.window.as_ref()?;
        let snap = tree.window(win).ok()??;
        let c = frame.info.to_screen(&at).center();
        taught_place(&snap, win.rect, c, text).map(|(place, _)| place)
    }

    fn say_no_tree(&mut self, title: &str, why: &str) {
        if !self.no_tree.iter().any(|t| t == title) {
            eprintln!("note: window '{title}': {why}; its controls are found by their pixels");
            self.no_tree.push(title.to_string());
        }
    }
}

/// The place in `snap` (the tree of the window at `win` on screen) of the control a click at
/// `at` (screen pixels) meant, for a target whose caption the pixels read as `text`: the
/// smallest showing control there that the tree names so (an entry: whose label it is), and
/// the role the tree gives it where that is one of Mend's (a menu item the pixels took for a
/// field). `None` where the tree and the pixels disagree: a place is only taught where both
/// witnesses named the same control.
pub fn taught_place(
    snap: &Snapshot,
    win: Rect,
    at: mend_model::Point,
    text: &str,
) -> Option<(TreeId, Option<Role>)> {
    let scale = tree_scale(snap.window_rect, win)?;
    let mut there: Vec<&Node> = snap
        .nodes
        .iter()
        .filter(|n| on_screen(n) && n.rect.scale(scale).contains(at))
        .filter(|n| !mend_structure::is_container_role(&n.role))
        .collect();
    there.sort_by_key(|n| n.rect.area());
    let node = there.into_iter().find(|n| {
        if is_field_role(&n.role) {
            label_of_entry(snap, n).is_some_and(|l| name_is(text, &l.name))
        } else {
            name_is(text, &n.name)
        }
    })?;
    let place = TreeId {
        path: node.path.clone(),
        of: snap.siblings_of(&node.path),
    };
    Some((place, mend_role(&node.role)))
}

/// Mend's role for an AT-SPI role, where one fits it alone.
fn mend_role(r: &str) -> Option<Role> {
    [
        Role::Menu,
        Role::Button,
        Role::Field,
        Role::ColumnHeader,
        Role::Row,
    ]
    .into_iter()
    .find(|&role| role_fits(role, r) && !(role == Role::Button && r == "check box"))
    .or_else(|| (r == "label").then_some(Role::Label))
}

/// What the tree and the pixels said about a target.
pub(crate) enum TreeVerdict {
    /// Named by the tree, confirmed by the pixels.
    Found(Located),
    /// The tree cannot decide (no tree, no node, several, pixels unsure): the pixel rungs do.
    PassDown(String),
}

/// AT-SPI roles a target's role can be.
fn role_fits(want: Role, node_role: &str) -> bool {
    let r = node_role;
    match want {
        Role::Button => matches!(
            r,
            "push button" | "toggle button" | "button" | "radio button" | "check box"
        ),
        Role::Menu => matches!(
            r,
            "menu" | "menu item" | "check menu item" | "radio menu item" | "tear off menu item"
        ),
        Role::Field => is_field_role(r),
        Role::Label => matches!(r, "label" | "static" | "heading" | "caption"),
        Role::ColumnHeader => matches!(r, "column header" | "table column header"),
        Role::Row => matches!(r, "table row" | "list item" | "tree item"),
        Role::Table => matches!(r, "table" | "tree table" | "list" | "tree"),
        Role::Text => matches!(r, "label" | "text" | "paragraph" | "static" | "heading"),
        // An area is no node of its own: the pixels place it (chain.rs bare_area).
        Role::Area => false,
        // Any control with a caption; never a container (a frame or panel is named by its
        // title, and its box holds every control in it).
        Role::Any => !mend_structure::is_container_role(r),
    }
}

fn is_field_role(r: &str) -> bool {
    matches!(
        r,
        "text" | "entry" | "password text" | "spin button" | "editbar" | "terminal"
    )
}

/// The tree's name means the target's caption: the same words (mnemonics, a trailing colon or
/// ellipsis, case aside), or the same words in the UI vocabulary's other language (a flow
/// written on the English UI, a tree in Chinese: Save As is 另存为). A tree is not OCR: no
/// near spelling counts.
fn name_is(text: &str, name: &str) -> bool {
    label_match(text, name) == Some(1.0)
        || (has_cjk(text) != has_cjk(name) && crate::semantic::same_meaning(text, name))
}

/// Only across scripts does the vocabulary name a caption: within one, a synonym is another
/// control (a flow's "Search" menu is not its "Find..." item).
fn has_cjk(s: &str) -> bool {
    s.chars().any(mend_ocr::is_ideograph)
}

/// How many screen pixels a pixel of the tree is: 1 when the tree's window is the window's
/// size (a few pixels of frame aside), the ratio of the two when both sides agree on one (a UI
/// scaled 1.5× or 2× that reports logical pixels), `None` when they fit no one scale.
fn tree_scale(tree: Rect, screen: Rect) -> Option<f64> {
    if tree.w <= 0 || tree.h <= 0 || screen.w <= 0 || screen.h <= 0 {
        return Some(1.0);
    }
    let (sx, sy) = (
        screen.w as f64 / tree.w as f64,
        screen.h as f64 / tree.h as f64,
    );
    // Within a window frame's or a shadow's pixels of each other (a toolkit's own decorations
    // counted on one side only): one size.
    if (sx - 1.0).abs() <= 0.15 && (sy - 1.0).abs() <= 0.15 {
        return Some(1.0);
    }
    ((sx - sy).abs() <= 0.04 * sx && sx >= 1.2).then_some((sx + sy) / 2.0)
}

/// A node the operator can see now. GTK 2's accessibility (gail) never marks an open menu's
/// items `showing`; their extents are real only while their menu is open (zero once it closed or
/// before it opened), so a visible item with a box counts — its caption must be read at that
/// box all the same, like any node's.
fn on_screen(n: &Node) -> bool {
    let shown = n.states.showing || (n.states.visible && is_menu_item(&n.role));
    shown && n.states.visible && n.rect.w > 0 && n.rect.h > 0
}

fn is_menu_item(r: &str) -> bool {
    matches!(r, "menu item" | "check menu item" | "radio menu item")
}

/// How a box's reading stands to the caption the tree gave it.
#[derive(Debug, PartialEq)]
enum Reading {
    /// The caption's words, whole and in order, with at most other ink set apart (an icon, a
    /// shortcut, a check mark).
    Agrees,
    /// Nothing legible, or a near spelling: the pixels neither confirm nor deny.
    Unsure,
    /// Another caption: nothing in it is the target's words or a misreading of them.
    Other(String),
}

fn judge_reading(text: &str, reading: &str) -> Reading {
    if normalize(reading).is_empty() {
        return Reading::Unsure;
    }
    if label_match(text, reading).is_some() {
        return Reading::Agrees;
    }
    let words: Vec<&str> = reading.split_whitespace().collect();
    let t = normalize(text);
    let mut best = 0.0f64;
    for i in 0..words.len() {
        for j in (i + 1)..=words.len().min(i + 8) {
            let part = words[i..j].join(" ");
            best = best.max(similarity(&t, &normalize(&part)));
            if label_match(text, &part).is_some()
                && words[..i]
                    .iter()
                    .chain(&words[j..])
                    .all(|w| icon_like(w) || shortcut_like(w))
            {
                return Reading::Agrees;
            }
        }
    }
    let letters = reading.chars().filter(|c| c.is_alphanumeric()).count();
    // The caption with a word more ("Save As..." where the tree says "Save") is another
    // control's caption, as is text nothing like it.
    let more = normalize(reading).contains(&t) && crate::text::adds_a_word(&t, &normalize(reading));
    if more || (best < 0.5 && letters >= 2) {
        Reading::Other(reading.trim().to_string())
    } else {
        Reading::Unsure
    }
}

/// What an icon before a caption reads as: a mark or two, never a word of three letters.
fn icon_like(w: &str) -> bool {
    w.chars().count() <= 2
}

/// What a menu item shows after its caption: a shortcut (Ctrl+S, F5, Shift+Ctrl+S), an arrow,
/// a mark.
fn shortcut_like(w: &str) -> bool {
    let lower = w.to_lowercase();
    !w.chars().any(|c| c.is_alphanumeric())
        || w.contains('+')
        || (lower.starts_with('f')
            && lower.len() <= 3
            && lower[1..].chars().all(|c| c.is_ascii_digit()))
        || matches!(
            lower.as_str(),
            "ctrl" | "alt" | "shift" | "del" | "ins" | "esc" | "enter" | "tab" | "backspace"
        )
}

/// Where the frame shows the window and its popups (frame pixels): a tree box must lie in one.
fn shown_areas(frame: &Frame) -> Vec<Rect> {
    let bounds = frame.info.bounds();
    let mut areas: Vec<Rect> = frame
        .info
        .window_in_frame()
        .into_iter()
        .chain(frame.info.popups.iter().copied())
        .filter_map(|r| r.intersect(&bounds))
        .collect();
    if areas.is_empty() {
        areas.push(bounds);
    }
    areas
}

fn inside_any(r: &Rect, areas: &[Rect]) -> bool {
    areas.iter().any(|a| a.contains_rect(r))
}

/// The text the frame shows in `r` (frame pixels), read as one line or a small region.
fn read_box(ocr: &mut OcrEngine, frame: &Frame, r: Rect) -> Result<String, MendError> {
    let bounds = frame.info.bounds();
    let Some(at) = r.inflate(1).intersect(&bounds) else {
        return Ok(String::new());
    };
    let lines = ocr.read_lines(&frame.image, at, line_ocr(at.h.min(60)))?;
    Ok(lines
        .iter()
        .map(|l| l.text.as_str())
        .collect::<Vec<_>>()
        .join(" "))
}

/// A caption of one to three glyphs whose box nothing legible was read in: its ink drawn as the
/// caption in the machine's fonts.
fn shape_agrees(frame: &Frame, text: &str, r: Rect) -> bool {
    let glyphs = text.chars().filter(|c| !c.is_whitespace()).count();
    if !(1..=3).contains(&glyphs) {
        return false;
    }
    let Some(ink) = ink_of(&frame.image, r.inflate(-2)) else {
        return false;
    };
    matches!(confirm_short(text, &ink, None), Verdict::Fits(_))
}

/// The structural rung on one frame and the snapshot of its window's tree (`None`: the window
/// has no tree).
pub(crate) fn by_structure(
    ocr: &mut OcrEngine,
    frame: &Frame,
    snapshot: Option<&Snapshot>,
    target: &Target,
    others: &[String],
) -> Result<TreeVerdict, MendError> {
    let Some(text) = target.text.as_deref() else {
        return Ok(TreeVerdict::PassDown("the target has no caption".into()));
    };
    let Some(snap) = snapshot else {
        return Ok(TreeVerdict::PassDown("the window has no tree".into()));
    };
    if snap.nodes.is_empty() {
        return Ok(TreeVerdict::PassDown(
            "the window's tree is empty (not built yet?)".into(),
        ));
    }
    // A scaled UI (GDK_SCALE, QT_SCALE_FACTOR, a HiDPI desktop) can report its tree in
    // logical pixels: brought to the screen's by the window's own two sizes.
    let scale = match frame.info.window.as_ref() {
        Some(w) => match tree_scale(snap.window_rect, w.rect) {
            Some(s) => s,
            None => {
                return Ok(TreeVerdict::PassDown(format!(
                    "the tree's window ({}×{}) does not fit the window on screen ({}×{})",
                    snap.window_rect.w, snap.window_rect.h, w.rect.w, w.rect.h
                )))
            }
        },
        None => 1.0,
    };
    let scaled;
    let snap = if scale == 1.0 {
        snap
    } else {
        let mut s = snap.clone();
        for n in &mut s.nodes {
            // Logical pixels scaled from the screen's origin.
            n.rect = n.rect.scale(scale);
        }
        scaled = s;
        &scaled
    };
    if target.role == Role::Field {
        return match field(ocr, frame, snap, text)? {
            TreeVerdict::PassDown(why) if target.tree.is_some() => {
                by_taught_place(ocr, frame, snap, target, text, others, why)
            }
            v => Ok(v),
        };
    }
    let named: Vec<&Node> = snap
        .nodes
        .iter()
        .filter(|n| on_screen(n) && role_fits(target.role, &n.role) && name_is(text, &n.name))
        .filter(|n| !others.iter().any(|o| name_is(o, &n.name)))
        .collect();
    // The same control can appear twice (a menu's title and its popup's own accessible):
    // one box, one candidate.
    let mut boxes: Vec<&Node> = Vec::new();
    for n in named {
        if !boxes.iter().any(|b| b.rect == n.rect) {
            boxes.push(n);
        }
    }
    let node = match boxes.as_slice() {
        [] => {
            let why = format!("the tree names no {:?} '{text}' on screen", target.role);
            return by_taught_place(ocr, frame, snap, target, text, others, why);
        }
        [n] => *n,
        many => {
            return Ok(TreeVerdict::PassDown(format!(
                "the tree names {} controls '{text}'",
                many.len()
            )))
        }
    };
    confirmed(ocr, frame, node, text)
}

/// A node the tree names: answered where its box lies in the window's picture and the pixels
/// there show the tree's own caption for it (in the UI's language).
fn confirmed(
    ocr: &mut OcrEngine,
    frame: &Frame,
    node: &Node,
    text: &str,
) -> Result<TreeVerdict, MendError> {
    let r = frame.info.from_screen(&node.rect);
    if !inside_any(&r, &shown_areas(frame)) {
        return Ok(TreeVerdict::PassDown(format!(
            "the tree's box for '{text}' ({},{} {}×{}) is not in the window's picture (a tree behind a move?)",
            r.x, r.y, r.w, r.h
        )));
    }
    let shown = node.name.as_str();
    let reading = read_box(ocr, frame, r)?;
    match judge_reading(shown, &reading) {
        Reading::Agrees => Ok(TreeVerdict::Found(answer(frame, r, shown, 1.0))),
        Reading::Unsure if shape_agrees(frame, shown, r) => {
            Ok(TreeVerdict::Found(answer(frame, r, shown, 0.95)))
        }
        Reading::Unsure => Ok(TreeVerdict::PassDown(format!(
            "the pixels at the tree's '{text}' read '{reading}'"
        ))),
        // The tree is wrong about this place (stale, scaled, or another window over it): it
        // is no witness here, and the pixel rungs decide by their own reading, which shows
        // another caption at this box.
        Reading::Other(seen) => Ok(TreeVerdict::PassDown(format!(
            "it names '{text}' ({}) at {},{}, where the screen shows '{seen}'",
            node.path, r.x, r.y
        ))),
    }
}

/// The control at the place the target was taught in the tree ([`Target::tree`]), where no
/// node is named by its caption: the same UI in another language keeps its shape. Answered
/// only when the node there has the target's role, its parent still holds as many controls of
/// that role, its name is in the other script (a caption changed in the flow's own language is
/// a question of meaning, for the pixel rungs and the semantic one), it is none of the flow's
/// other controls, and the pixels read its name at its box (for a field: its label's).
fn by_taught_place(
    ocr: &mut OcrEngine,
    frame: &Frame,
    snap: &Snapshot,
    target: &Target,
    text: &str,
    others: &[String],
    why: String,
) -> Result<TreeVerdict, MendError> {
    let Some(id) = target.tree.as_ref() else {
        return Ok(TreeVerdict::PassDown(why));
    };
    let down = |more: String| Ok(TreeVerdict::PassDown(format!("{why}; {more}")));
    let Some(node) = snap.nodes.iter().find(|n| n.path == id.path) else {
        return down(format!("nothing is at its taught place {}", id.path));
    };
    if !on_screen(node) || !role_fits(target.role, &node.role) {
        return down(format!(
            "its taught place holds a {} not shown as a {:?}",
            node.role, target.role
        ));
    }
    let now = snap.siblings_of(&node.path);
    if now != id.of {
        return down(format!(
            "its taught place's parent holds {now} of its role where it held {} (the window changed shape)",
            id.of
        ));
    }
    let (caption, label) = if target.role == Role::Field {
        match label_of_entry(snap, node) {
            Some(l) => (l.name.as_str(), Some(l)),
            None => return down("the field at its taught place has no one label".into()),
        }
    } else {
        (node.name.as_str(), None)
    };
    if caption.trim().is_empty() || has_cjk(caption) == has_cjk(text) {
        return down(format!(
            "the tree calls its taught place '{caption}', in the flow's own script: a renamed caption is for the pixel rungs"
        ));
    }
    if others.iter().any(|o| name_is(o, caption)) {
        return down(format!(
            "its taught place is '{caption}', another control of this flow"
        ));
    }
    match label {
        None => confirmed(ocr, frame, node, text),
        Some(l) => match confirmed(ocr, frame, l, text)? {
            TreeVerdict::Found(_) => {
                let r = frame.info.from_screen(&node.rect);
                if !inside_any(&r, &shown_areas(frame)) {
                    return down("the field is not in the window's picture".into());
                }
                Ok(TreeVerdict::Found(answer(frame, r, caption, 1.0)))
            }
            v => Ok(v),
        },
    }
}

/// The label an entry is related to (`labelled-by`), else the one label beside it.
fn label_of_entry<'a>(snap: &'a Snapshot, entry: &Node) -> Option<&'a Node> {
    let labels: Vec<&Node> = snap
        .nodes
        .iter()
        .filter(|n| on_screen(n) && !is_field_role(&n.role) && !n.name.trim().is_empty())
        .collect();
    let related: Vec<&Node> = labels
        .iter()
        .copied()
        .filter(|l| entry.labelled_by.iter().any(|b| b == &l.name))
        .collect();
    if let [l] = related.as_slice() {
        return Some(l);
    }
    let beside: Vec<&Node> = labels
        .into_iter()
        .filter(|l| {
            matches!(l.role.as_str(), "label" | "static") && beside_label(&l.rect, &entry.rect)
        })
        .collect();
    match beside.as_slice() {
        [l] => Some(l),
        _ => None,
    }
}

fn answer(frame: &Frame, r: Rect, text: &str, confidence: f64) -> Located {
    Located {
        strategy: Strategy::Structure,
        rect: r,
        screen_box: frame.info.to_screen(&r),
        confidence,
        text: text.to_string(),
        frame_id: frame.info.id,
    }
}

/// A field by its caption: the entry the tree relates to a label of that caption
/// (`labelled-by`), else the one entry on the label's row to its right or just below it. The
/// caption's own box must read the caption; the field's box must lie in the window.
fn field(
    ocr: &mut OcrEngine,
    frame: &Frame,
    snap: &Snapshot,
    text: &str,
) -> Result<TreeVerdict, MendError> {
    let areas = shown_areas(frame);
    let labels: Vec<&Node> = snap
        .nodes
        .iter()
        .filter(|n| on_screen(n) && !is_field_role(&n.role) && name_is(text, &n.name))
        .collect();
    let fields: Vec<&Node> = snap
        .nodes
        .iter()
        .filter(|n| on_screen(n) && is_field_role(&n.role))
        .collect();
    let related: Vec<&Node> = fields
        .iter()
        .copied()
        .filter(|f| f.labelled_by.iter().any(|l| name_is(text, l)))
        .collect();
    let (field, label) = match (related.as_slice(), labels.as_slice()) {
        ([f], [l]) => (*f, *l),
        ([], [l]) => {
            let beside: Vec<&Node> = fields
                .iter()
                .copied()
                .filter(|f| beside_label(&l.rect, &f.rect))
                .collect();
            match beside.as_slice() {
                [f] => (*f, *l),
                _ => {
                    return Ok(TreeVerdict::PassDown(format!(
                        "the tree has {} entries beside its label '{text}'",
                        beside.len()
                    )))
                }
            }
        }
        (r, l) => {
            return Ok(TreeVerdict::PassDown(format!(
                "the tree relates {} entries and {} labels to '{text}'",
                r.len(),
                l.len()
            )))
        }
    };
    let fr = frame.info.from_screen(&field.rect);
    let lr = frame.info.from_screen(&label.rect);
    if !inside_any(&fr, &areas) || !inside_any(&lr, &areas) {
        return Ok(TreeVerdict::PassDown(format!(
            "the tree's field for '{text}' is not in the window's picture (a tree behind a move?)"
        )));
    }
    let reading = read_box(ocr, frame, lr)?;
    match judge_reading(&label.name, &reading) {
        Reading::Agrees => Ok(TreeVerdict::Found(answer(frame, fr, &label.name, 1.0))),
        Reading::Unsure => Ok(TreeVerdict::PassDown(format!(
            "the pixels at the tree's label '{text}' read '{reading}'"
        ))),
        Reading::Other(seen) => Ok(TreeVerdict::PassDown(format!(
            "it labels a field '{text}' at {},{}, where the screen shows '{seen}' at its label",
            fr.x, fr.y
        ))),
    }
}

/// An entry on a label's row to its right (within 400 px), or just below it, left edges close.
fn beside_label(label: &Rect, field: &Rect) -> bool {
    let lc = label.center();
    let right = field.x >= label.x + label.w / 2
        && field.x - label.right() <= 400
        && lc.y >= field.y
        && lc.y <= field.bottom();
    let below = field.y >= label.bottom() - 2
        && field.y - label.bottom() <= 2 * label.h.max(10)
        && (field.x - label.x).abs() <= 2 * label.h.max(10);
    right || below
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reading_with_an_icon_or_a_shortcut_beside_the_caption_agrees() {
        assert_eq!(
            judge_reading("Save As...", "Save As... Shift+Ctrl+S"),
            Reading::Agrees
        );
        assert_eq!(judge_reading("Save", "Ld Save"), Reading::Agrees);
        assert_eq!(judge_reading("File", "File"), Reading::Agrees);
        // Read out of order: a menu item's shortcut, right of it, first.
        assert_eq!(
            judge_reading("Save As...", "Shift+Ctrl+S Save As..."),
            Reading::Agrees
        );
    }

    #[test]
    fn another_caption_is_other_and_a_misreading_is_unsure() {
        assert_eq!(
            judge_reading("Save", "Cancel"),
            Reading::Other("Cancel".into())
        );
        assert_eq!(judge_reading("Save", "Sawe"), Reading::Unsure);
        assert_eq!(
            judge_reading("Save", "Save As..."),
            Reading::Other("Save As...".into())
        );
        assert_eq!(
            judge_reading("Save", "Save Changes"),
            Reading::Other("Save Changes".into())
        );
        assert_eq!(judge_reading("Save", ""), Reading::Unsure);
        assert_eq!(judge_reading("Save", "|"), Reading::Unsure);
    }

    #[test]
    fn a_tree_in_logical_pixels_is_scaled_and_one_that_fits_no_scale_is_not_used() {
        let screen = Rect::new(100, 80, 1200, 900);
        assert_eq!(tree_scale(Rect::new(100, 80, 1198, 902), screen), Some(1.0));
        assert_eq!(tree_scale(Rect::new(50, 40, 600, 450), screen), Some(2.0));
        let s = tree_scale(Rect::new(67, 53, 800, 600), screen).unwrap();
        assert!((s - 1.5).abs() < 0.01, "{s}");
        assert_eq!(tree_scale(Rect::new(0, 0, 600, 900), screen), None);
        assert_eq!(
            Rect::new(10, 20, 30, 40).scale(2.0),
            Rect::new(20, 40, 60, 80)
        );
    }

    #[test]
    fn the_vocabulary_names_across_scripts_only() {
        assert!(name_is("Save As...", "另存为(A)…"));
        assert!(name_is("File", "文件(F)"));
        assert!(name_is("Save", "Save"));
        assert!(!name_is("Search", "Find"));
        assert!(!name_is("Save", "Save As..."));
    }

    #[test]
    fn containers_are_no_targets_and_menus_are_menus() {
        assert!(!role_fits(Role::Any, "frame"));
        assert!(!role_fits(Role::Any, "menu bar"));
        assert!(role_fits(Role::Any, "push button"));
        assert!(role_fits(Role::Menu, "menu"));
        assert!(role_fits(Role::Menu, "menu item"));
        assert!(!role_fits(Role::Button, "menu item"));
        assert!(role_fits(Role::Field, "text"));
    }

    fn shown(role: &str, name: &str, rect: Rect, path: &str) -> Node {
        Node {
            role: role.into(),
            name: name.into(),
            rect,
            path: path.into(),
            states: mend_structure::NodeStates {
                showing: true,
                visible: true,
                ..Default::default()
            },
            labelled_by: vec![],
            depth: 2,
        }
    }

    #[test]
    fn a_place_is_taught_only_where_the_tree_names_the_caption_the_pixels_read() {
        let mut entry = shown("text", "", Rect::new(170, 40, 200, 24), "frame/text[0]");
        entry.labelled_by = vec!["Name:".into()];
        let snap = Snapshot {
            app: "a".into(),
            pid: 1,
            window_name: "w".into(),
            window_rect: Rect::new(0, 0, 400, 300),
            nodes: vec![
                shown("frame", "w", Rect::new(0, 0, 400, 300), "frame"),
                shown(
                    "push button",
                    "Save",
                    Rect::new(10, 10, 60, 24),
                    "frame/push button[0]",
                ),
                shown(
                    "push button",
                    "Cancel",
                    Rect::new(80, 10, 60, 24),
                    "frame/push button[1]",
                ),
                shown(
                    "label",
                    "Name:",
                    Rect::new(100, 44, 60, 16),
                    "frame/label[0]",
                ),
                entry,
            ],
            truncated: false,
        };
        let win = Rect::new(0, 0, 400, 300);
        let at = |x, y| mend_model::Point { x, y };
        let (place, role) = taught_place(&snap, win, at(90, 20), "Cancel").unwrap();
        assert_eq!((place.path.as_str(), place.of), ("frame/push button[1]", 2));
        assert_eq!(role, Some(Role::Button));
        // The pixels' caption is not the tree's name there: nothing taught.
        assert_eq!(taught_place(&snap, win, at(90, 20), "Save"), None);
        // A field by its label.
        let (place, role) = taught_place(&snap, win, at(200, 50), "Name:").unwrap();
        assert_eq!(
            (place.path.as_str(), role),
            ("frame/text[0]", Some(Role::Field))
        );
        assert_eq!(taught_place(&snap, win, at(200, 50), "Title"), None);
        // Only the window there: a container is no place.
        assert_eq!(taught_place(&snap, win, at(300, 200), "w"), None);
        // A tree at half the window's size (a scaled UI) is scaled before it is looked at.
        let big = Rect::new(0, 0, 800, 600);
        let (place, _) = taught_place(&snap, big, at(180, 40), "Cancel").unwrap();
        assert_eq!(place.path, "frame/push button[1]");
        assert_eq!(mend_role("menu item"), Some(Role::Menu));
        assert_eq!(mend_role("check box"), None);
        assert_eq!(mend_role("label"), Some(Role::Label));
    }

    #[test]
    fn an_open_menu_s_item_counts_as_shown_by_its_box_as_gtk_2_gives_it() {
        let mut item = shown("menu item", "Save As ...", Rect::new(6, 121, 397, 21), "m");
        item.states.showing = false;
        assert!(
            on_screen(&item),
            "gail: an open menu's item, not marked showing"
        );
        item.rect = Rect::new(0, 0, 0, 0);
        assert!(!on_screen(&item), "its menu closed: no box");
        let mut button = shown("push button", "OK", Rect::new(6, 121, 60, 21), "b");
        button.states.showing = false;
        assert!(!on_screen(&button), "anything else must be showing");
        item.rect = Rect::new(6, 121, 397, 21);
        item.states.visible = false;
        assert!(!on_screen(&item));
    }

    #[test]
    fn a_field_beside_or_below_its_label() {
        let label = Rect::new(10, 10, 60, 20);
        assert!(beside_label(&label, &Rect::new(80, 6, 200, 28)));
        assert!(beside_label(&label, &Rect::new(10, 32, 200, 28)));
        assert!(!beside_label(&label, &Rect::new(80, 60, 200, 28)));
        assert!(!beside_label(&label, &Rect::new(600, 6, 200, 28)));
    }
}
