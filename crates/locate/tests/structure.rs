//! The structural rung on the practice app's screenshots, its tree given at the seam
//! (`FakeStructure`, the snapshot an AT-SPI walk would give, built from the screen's true
//! geometry) and its pixels read by the real readers. A tree is a witness, never an
//! authority: every stale tree here — extents off the window, an empty tree, a tree naming
//! another control at the place the pixels show, a window covered where the tree says the
//! control is — is passed down to the pixel rungs, never answered by it: the control is then
//! found where its pixels are, or refused.

use mend_capture::{Capture, Frame, ImageFileCapture, WindowQuery};
use mend_locate::{Locator, Recorded};
use mend_model::{ErrorCode, Rect, Role, Strategy, Target, TreeId};
use mend_structure::{FakeStructure, Node, NodeStates, Snapshot};
use serde_json::Value;
use std::path::PathBuf;

fn shot(screen: &str) -> (Frame, Vec<Value>) {
    shot_in("en", screen)
}

fn shot_in(lang: &str, screen: &str) -> (Frame, Vec<Value>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../../fixtures/screenshots/{lang}/baseline"));
    let cap = ImageFileCapture::open(dir.join(format!("{screen}.png"))).unwrap();
    let frame = cap.capture(&WindowQuery::title(".*").unwrap()).unwrap();
    let g: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{screen}.geometry.json"))).unwrap(),
    )
    .unwrap();
    (frame, g["controls"].as_array().unwrap().clone())
}

fn rect(v: &Value) -> Rect {
    let n = |k: &str| v[k].as_i64().unwrap() as i32;
    Rect::new(n("x"), n("y"), n("w"), n("h"))
}

fn node(role: &str, name: &str, rect: Rect, labelled_by: Vec<String>) -> Node {
    Node {
        role: role.into(),
        name: name.into(),
        rect,
        path: format!("frame/{role}[0]"),
        states: NodeStates {
            showing: true,
            visible: true,
            enabled: true,
            sensitive: true,
            ..Default::default()
        },
        labelled_by,
        depth: 2,
    }
}

/// The tree an accessible toolkit would give for the screen: every control of its geometry
/// under its AT-SPI role, screen pixels, a field labelled by its caption.
fn tree_of(frame: &Frame, controls: &[Value]) -> Snapshot {
    let mut nodes = Vec::new();
    for c in controls {
        let label = c["label"].as_str().unwrap_or_default().to_string();
        let r = rect(c);
        match c["role"].as_str().unwrap() {
            "button" => nodes.push(node("push button", &label, r, vec![])),
            "menu" => nodes.push(node("menu", &label, r, vec![])),
            "label" => nodes.push(node("label", &label, r, vec![])),
            "field" => nodes.push(node("text", "", r, vec![label])),
            _ => {}
        }
    }
    let win = frame.info.window.clone().unwrap();
    Snapshot {
        app: "practice".into(),
        pid: win.pid,
        window_name: win.title.clone(),
        window_rect: win.rect,
        nodes,
        truncated: false,
    }
}

fn locator(snapshots: Vec<Snapshot>) -> Locator {
    let mut l = Locator::new("eng").unwrap();
    l.structure = Some(Box::new(FakeStructure { snapshots }));
    l
}

fn target(text: &str, role: Role) -> Target {
    Target {
        text: Some(text.into()),
        role,
        ..Default::default()
    }
}

fn truth(controls: &[Value], role: &str, label: &str) -> Rect {
    rect(
        controls
            .iter()
            .find(|c| c["role"] == role && c["label"] == label)
            .unwrap(),
    )
}

/// `text` (a button) located on `frame` by a pixel rung, not the tree, at the box `at` holds
/// (frame pixels); the box found.
fn found_by_its_pixels(l: &mut Locator, frame: &Frame, text: &str, at: Rect) -> Rect {
    let got = l
        .locate(frame, &target(text, Role::Button), &Recorded::default())
        .unwrap_or_else(|r| panic!("{text}: {:?}", r.error));
    assert_ne!(got.strategy, Strategy::Structure, "{text}");
    assert!(
        got.rect.contains(at.center()),
        "{text} at its own pixels {at:?}: {got:?}"
    );
    got.rect
}

#[test]
fn a_control_the_tree_names_and_the_pixels_read_is_answered_by_the_tree() {
    let (frame, controls) = shot("main");
    let snap = tree_of(&frame, &controls);
    let mut l = locator(vec![snap]);
    for (text, role, kind) in [
        ("Search", Role::Button, "button"),
        ("Delete", Role::Button, "button"),
        ("File", Role::Menu, "menu"),
        ("Customer ID", Role::Field, "field"),
    ] {
        let got = l
            .locate(&frame, &target(text, role), &Recorded::default())
            .unwrap_or_else(|r| panic!("{text}: {:?}", r.error));
        assert_eq!(got.strategy, Strategy::Structure, "{text}");
        let want = frame.info.from_screen(&truth(&controls, kind, text));
        assert_eq!(got.rect, want, "{text}: the tree's box");
    }
}

#[test]
fn extents_off_the_window_pass_down_to_the_pixels() {
    // A tree lagging a move: every box 300 px down and right, outside the window's picture.
    let (frame, controls) = shot("main");
    let mut snap = tree_of(&frame, &controls);
    for n in &mut snap.nodes {
        n.rect = n.rect.translate(300, 300);
    }
    let mut l = locator(vec![snap]);
    let search = frame
        .info
        .from_screen(&truth(&controls, "button", "Search"));
    found_by_its_pixels(&mut l, &frame, "Search", search);
}

#[test]
fn extents_shifted_onto_another_control_pass_down_and_the_pixels_find_it() {
    // A tree lagging a move by one button's pitch: its "Edit" box lies on the New button.
    let (frame, controls) = shot("main");
    let mut snap = tree_of(&frame, &controls);
    let edit = truth(&controls, "button", "Edit");
    let new = truth(&controls, "button", "New");
    for n in &mut snap.nodes {
        n.rect = n.rect.translate(new.x - edit.x, 0);
    }
    let mut l = locator(vec![snap]);
    // At Edit's own pixels, never at New.
    let got = found_by_its_pixels(&mut l, &frame, "Edit", frame.info.from_screen(&edit));
    assert!(!got.contains(frame.info.from_screen(&new).center()));
}

#[test]
fn an_empty_tree_or_none_passes_down() {
    let (frame, controls) = shot("main");
    let mut empty = tree_of(&frame, &controls);
    empty.nodes.clear();
    for snaps in [vec![empty], vec![]] {
        let mut l = locator(snaps);
        let search = frame
            .info
            .from_screen(&truth(&controls, "button", "Search"));
        found_by_its_pixels(&mut l, &frame, "Search", search);
    }
}

#[test]
fn a_tree_naming_another_control_at_the_place_the_pixels_show_is_no_witness() {
    // The tree calls the Delete button "Search" (a stale tree after the app relabelled its
    // buttons): the pixels there read Delete. Search is found where its own pixels are.
    let (frame, controls) = shot("main");
    let mut snap = tree_of(&frame, &controls);
    snap.nodes.retain(|n| n.name != "Search");
    for n in &mut snap.nodes {
        if n.name == "Delete" {
            n.name = "Search".into();
        }
    }
    let delete = frame
        .info
        .from_screen(&truth(&controls, "button", "Delete"));
    let search = frame
        .info
        .from_screen(&truth(&controls, "button", "Search"));
    let mut l = locator(vec![snap]);
    let got = found_by_its_pixels(&mut l, &frame, "Search", search);
    assert!(!got.contains(delete.center()), "never the Delete button");
    // And where the pixels show no Search anywhere (it was removed), nothing is answered.
    let mut gone = frame.clone();
    gone.info.id = 2;
    for y in search.y - 6..search.bottom() + 6 {
        for x in search.x - 6..search.right() + 6 {
            gone.image
                .put_pixel(x as u32, y as u32, image::Rgba([236, 236, 236, 255]));
        }
    }
    let r = l
        .locate(&gone, &target("Search", Role::Button), &Recorded::default())
        .expect_err("no Search on the screen");
    assert_eq!(r.error.code, ErrorCode::LocatorNotFound, "{:?}", r.error);
    assert!(
        r.error.message.contains("accessibility tree"),
        "{}",
        r.error.message
    );
}

#[test]
fn a_covered_control_is_never_answered_by_the_tree() {
    // Another window lies over the Search button (painted here: a blank panel, then a panel
    // showing another caption). The tree still says Search is there.
    let (frame, controls) = shot("main");
    let search = frame
        .info
        .from_screen(&truth(&controls, "button", "Search"));
    let new = frame.info.from_screen(&truth(&controls, "button", "New"));
    let snap = tree_of(&frame, &controls);

    let mut blank = frame.clone();
    for y in search.y - 10..search.bottom() + 10 {
        for x in search.x - 10..search.right() + 10 {
            blank
                .image
                .put_pixel(x as u32, y as u32, image::Rgba([236, 236, 236, 255]));
        }
    }
    let mut l = locator(vec![snap.clone()]);
    match l.locate(
        &blank,
        &target("Search", Role::Button),
        &Recorded::default(),
    ) {
        Ok(got) => panic!("a covered Search was answered: {got:?}"),
        Err(r) => assert_eq!(r.error.code, ErrorCode::LocatorNotFound, "{:?}", r.error),
    }

    let mut other = frame.clone();
    let part = image::imageops::crop_imm(
        &frame.image,
        new.x as u32,
        new.y as u32,
        new.w as u32,
        new.h as u32,
    )
    .to_image();
    image::imageops::replace(&mut other.image, &part, search.x as i64, search.y as i64);
    let mut l = locator(vec![snap]);
    match l.locate(
        &other,
        &target("Search", Role::Button),
        &Recorded::default(),
    ) {
        Ok(got) => panic!("a covered Search was answered: {got:?}"),
        Err(r) => assert!(
            matches!(
                r.error.code,
                ErrorCode::LocatorNotFound | ErrorCode::LocatorAmbiguous
            ),
            "{:?}",
            r.error
        ),
    }
}

/// A check box's state from the tree (issue 33): the one checkable node whose box holds the
/// indicator the pixels found, named as the caption. No tree, a node named otherwise (a stale
/// tree), two nodes there, or a node that is not on screen: no word from the tree.
#[test]
fn a_check_box_state_comes_from_the_one_checkable_node_at_its_indicator() {
    let (frame, controls) = shot("main");
    let win = frame.info.window.clone().unwrap();
    let screen_box = Rect::new(win.rect.x + 20, win.rect.y + 300, 120, 18);
    let indicator = {
        let r = frame.info.from_screen(&screen_box);
        Rect::new(r.x + 2, r.y + 2, 14, 14)
    };
    let with = |nodes: Vec<Node>| {
        let mut snap = tree_of(&frame, &controls);
        snap.nodes.extend(nodes);
        locator(vec![snap])
    };
    let check = |name: &str, checked: bool, r: Rect| {
        let mut n = node("check box", name, r, vec![]);
        n.states.checked = Some(checked);
        n
    };
    let mut l = with(vec![check("Remember me", true, screen_box)]);
    assert_eq!(l.tree_checked(&frame, "Remember me", indicator), Some(true));
    let mut l = with(vec![check("Remember me", false, screen_box)]);
    assert_eq!(
        l.tree_checked(&frame, "Remember me", indicator),
        Some(false)
    );
    // Unnamed in the tree: its place alone names it.
    let mut l = with(vec![check("", true, screen_box)]);
    assert_eq!(l.tree_checked(&frame, "Remember me", indicator), Some(true));
    // Named otherwise: a stale tree, no witness.
    let mut l = with(vec![check("Log in automatically", true, screen_box)]);
    assert_eq!(l.tree_checked(&frame, "Remember me", indicator), None);
    // Two boxes there that disagree in place: no witness.
    let mut l = with(vec![
        check("Remember me", true, screen_box),
        check("Remember me", false, screen_box.translate(4, 0)),
    ]);
    assert_eq!(l.tree_checked(&frame, "Remember me", indicator), None);
    // Elsewhere on the window, or hidden: nothing.
    let mut l = with(vec![check(
        "Remember me",
        true,
        screen_box.translate(0, 60),
    )]);
    assert_eq!(l.tree_checked(&frame, "Remember me", indicator), None);
    let mut hidden = check("Remember me", true, screen_box);
    hidden.states.showing = false;
    let mut l = with(vec![hidden]);
    assert_eq!(l.tree_checked(&frame, "Remember me", indicator), None);
    // No tree at all.
    let mut l = Locator::new("eng").unwrap();
    assert_eq!(l.tree_checked(&frame, "Remember me", indicator), None);
}

/// The tree with each node's path as an AT-SPI walk writes it: `frame/role[i]`, `i` counting
/// the earlier siblings of its role.
fn with_paths(mut snap: Snapshot) -> Snapshot {
    let roles: Vec<String> = snap.nodes.iter().map(|n| n.role.clone()).collect();
    for (n, seg) in snap
        .nodes
        .iter_mut()
        .zip(mend_structure::sibling_segments(&roles))
    {
        n.path = format!("frame/{seg}");
    }
    snap
}

/// The place a control of `name` has in `snap`, as `mend teach` writes it.
fn taught(snap: &Snapshot, name: &str) -> TreeId {
    let n = snap.nodes.iter().find(|n| n.name == name).unwrap();
    TreeId {
        path: n.path.clone(),
        of: snap.siblings_of(&n.path),
    }
}

fn taught_as(text: &str, role: Role, tree: TreeId) -> Target {
    Target {
        text: Some(text.into()),
        role,
        tree: Some(tree),
        ..Default::default()
    }
}

#[test]
fn a_control_taught_in_one_language_is_found_at_its_place_in_the_tree_of_the_other() {
    // Taught on an English UI as "Purge" (a word no vocabulary gives 删除), run on the
    // Chinese one: the tree names no "Purge", but at the taught place sits a push button the
    // pixels read 删除 — the tree's own name for it.
    let (frame, controls) = shot_in("zh", "main");
    let snap = with_paths(tree_of(&frame, &controls));
    let delete = frame.info.from_screen(&truth(&controls, "button", "删除"));
    let place = taught(&snap, "删除");
    assert_eq!((place.path.as_str(), place.of), ("frame/push button[3]", 4));
    let mut l = locator(vec![snap.clone()]);
    let got = l
        .locate(
            &frame,
            &taught_as("Purge", Role::Button, place.clone()),
            &Recorded::default(),
        )
        .unwrap_or_else(|r| panic!("{:?}", r.error));
    assert_eq!(got.strategy, Strategy::Structure);
    assert_eq!(got.text, "删除");
    assert!(got.rect.contains(delete.center()), "{got:?} vs {delete:?}");
    // Without its place, nothing on the screen is "Purge": refused, never a guess.
    let r = l
        .locate(&frame, &target("Purge", Role::Button), &Recorded::default())
        .expect_err("no Purge without its place");
    assert_eq!(r.error.code, ErrorCode::LocatorNotFound, "{:?}", r.error);

    // A field the same way: its entry at the taught place, its label read at the label's box.
    let field = frame
        .info
        .from_screen(&truth(&controls, "field", "客户编号"));
    let entry = snap.nodes.iter().find(|n| n.role == "text").unwrap();
    let place = TreeId {
        path: entry.path.clone(),
        of: snap.siblings_of(&entry.path),
    };
    let got = l
        .locate(
            &frame,
            &taught_as("Account key", Role::Field, place),
            &Recorded::default(),
        )
        .unwrap_or_else(|r| panic!("{:?}", r.error));
    assert_eq!(got.strategy, Strategy::Structure);
    assert!(got.rect.contains(field.center()), "{got:?} vs {field:?}");
}

#[test]
fn a_taught_place_is_no_witness_where_the_window_changed_shape_or_the_name_is_not_a_translation() {
    let (frame, controls) = shot_in("zh", "main");
    let snap = with_paths(tree_of(&frame, &controls));
    let place = taught(&snap, "删除");
    let not_by_tree = |l: &mut Locator, t: &Target| match l.locate(&frame, t, &Recorded::default())
    {
        Ok(got) => assert_ne!(got.strategy, Strategy::Structure, "{t:?}: {got:?}"),
        Err(r) => assert_eq!(
            r.error.code,
            ErrorCode::LocatorNotFound,
            "{t:?}: {:?}",
            r.error
        ),
    };
    // A button more under the same parent (a tweak added one): the places moved.
    let mut grown = snap.clone();
    let mut extra = grown
        .nodes
        .iter()
        .find(|n| n.name == "查询")
        .unwrap()
        .clone();
    extra.name = "导出".into();
    extra.rect = Rect::new(extra.rect.x, extra.rect.y + 300, extra.rect.w, extra.rect.h);
    grown.nodes.insert(0, extra);
    let grown = with_paths(grown);
    assert_eq!(grown.siblings_of(&place.path), 5);
    not_by_tree(
        &mut locator(vec![grown]),
        &taught_as("Purge", Role::Button, place.clone()),
    );
    // A caption in the flow's own script at the place: a rename is a question of meaning.
    not_by_tree(
        &mut locator(vec![snap.clone()]),
        &taught_as("清除", Role::Button, place.clone()),
    );
    // The place holds another control of this flow (删除 is the flow's Delete).
    let mut l = locator(vec![snap.clone()]);
    l.flow_names = vec!["Delete".into(), "Purge".into()];
    not_by_tree(&mut l, &taught_as("Purge", Role::Button, place.clone()));
    // Another role at the place, or nothing there.
    not_by_tree(
        &mut locator(vec![snap.clone()]),
        &taught_as("Purge", Role::Field, place.clone()),
    );
    let nowhere = TreeId {
        path: "frame/push button[9]".into(),
        of: 4,
    };
    not_by_tree(
        &mut locator(vec![snap.clone()]),
        &taught_as("Purge", Role::Button, nowhere),
    );
    // The tree's box at the place shows another caption (a stale tree): passed down.
    let mut stale = snap.clone();
    let search = stale.nodes.iter().find(|n| n.name == "查询").unwrap().rect;
    stale
        .nodes
        .iter_mut()
        .find(|n| n.name == "删除")
        .unwrap()
        .rect = search;
    not_by_tree(
        &mut locator(vec![stale]),
        &taught_as("Purge", Role::Button, place),
    );
}
