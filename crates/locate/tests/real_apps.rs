//! The real-app image suite: screenshots of third-party legacy apps (Athena: xcalc, xmessage,
//! xfontsel; Motif: nedit; Win32 under Wine: notepad, winecfg, winemine, wordpad; GTK 3:
//! mousepad; Java Swing: jEdit; a terminal form: dialog in an xterm) in their default look and
//! with tweaks imposed from outside (X resources: fonts, colours, geometry; Wine: DPI, system
//! colours), each with a hand-labelled truth file (`<look>.truth.json`, checked on
//! `<look>.overlay.png`). Every target is located by its label and role alone, as a new user's
//! flow names it; scored by IoU ≥ 0.5 against the truth. A box on anything else is a wrong box,
//! never acceptable; the `refuse` cases must end in the coded refusal they name. No X server
//! needed: `fixtures/real-apps/screens/capture.sh` re-makes the Athena and terminal screenshots; the Wine,
//! Motif and GTK ones are frames Mend saved during `bash scripts/real-apps.sh` (with their
//! sidecar, popups included), labelled by hand (`<look>.about` in the truth file says what).

use mend_capture::{Capture, Frame, ImageFileCapture, WindowQuery};
use mend_locate::text::label_match;
use mend_locate::{Locator, Recorded};
use mend_model::{ErrorCode, Located, Rect, Role, Strategy, Target};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::OnceLock;

fn screens() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/real-apps/screens")
}

struct Screen {
    name: String,
    frame: Frame,
    truth: Value,
}

fn rect(v: &Value) -> Rect {
    let n = |k: &str| v[k].as_i64().unwrap() as i32;
    Rect::new(n("x"), n("y"), n("w"), n("h"))
}

fn role(r: &str) -> Role {
    match r {
        "button" => Role::Button,
        "field" => Role::Field,
        "menu" => Role::Menu,
        "label" => Role::Label,
        "row" => Role::Row,
        "text" => Role::Text,
        "any" => Role::Any,
        "column_header" => Role::ColumnHeader,
        other => panic!("unknown role {other}"),
    }
}

fn load(app: &str, look: &str) -> Screen {
    let dir = screens().join(app);
    let cap = ImageFileCapture::open(dir.join(format!("{look}.png"))).unwrap();
    let frame = cap.capture(&WindowQuery::title(".*").unwrap()).unwrap();
    let truth = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{look}.truth.json"))).unwrap(),
    )
    .unwrap();
    Screen {
        name: format!("{app}/{look}"),
        frame,
        truth,
    }
}

/// Every app and look with a truth file, default looks first.
fn all_screens() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for app in std::fs::read_dir(screens()).unwrap().flatten() {
        if !app.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(app.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if let Some(look) = name.strip_suffix(".truth.json") {
                out.push((
                    app.file_name().to_string_lossy().into_owned(),
                    look.to_string(),
                ));
            }
        }
    }
    out.sort_by_key(|(app, look)| (!is_default(look), app.clone(), look.clone()));
    out
}

/// An app's own look: `default`, or `default_<screen>` for another of its screens.
fn is_default(look: &str) -> bool {
    look == "default" || look.starts_with("default_")
}

fn locator() -> Locator {
    Locator::new("eng").expect("tesseract with eng")
}

fn find(loc: &mut Locator, frame: &Frame, text: &str, role: Role) -> Result<Located, ErrorCode> {
    find_as(loc, frame, text, role, &[])
}

/// [`find`] with the flow's other words for the caption (`synonyms`: the other language's).
fn find_as(
    loc: &mut Locator,
    frame: &Frame,
    text: &str,
    role: Role,
    synonyms: &[String],
) -> Result<Located, ErrorCode> {
    let target = Target {
        text: Some(text.to_string()),
        role,
        synonyms: synonyms.to_vec(),
        ..Target::default()
    };
    loc.locate(frame, &target, &Recorded::default())
        .map_err(|r| r.error.code)
}

/// A truth entry's `synonyms`, as a flow's target gives them.
fn synonyms(t: &Value) -> Vec<String> {
    t["synonyms"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .collect()
}

/// A located box judged against the truth: the box of that control, or wrong. A refusal is a miss.
#[derive(Debug, PartialEq)]
enum Verdict {
    Hit,
    Missed(ErrorCode),
    Wrong(Rect),
}

/// `truth` is the control's box and any other box of the same control (`also`: a menu item's
/// caption and its row).
fn judge(r: &Result<Located, ErrorCode>, truth: &[Rect]) -> Verdict {
    match r {
        Ok(l) if truth.iter().any(|t| l.rect.iou(t) >= 0.5) => Verdict::Hit,
        Ok(l) => Verdict::Wrong(l.rect),
        Err(c) => Verdict::Missed(*c),
    }
}

#[derive(Default, Debug)]
struct Score {
    found: usize,
    targets: usize,
    refused_ok: usize,
    refusals: usize,
    missed: Vec<String>,
    wrong: Vec<String>,
}

fn score(loc: &mut Locator, s: &Screen) -> Score {
    let mut sc = Score::default();
    for t in s.truth["targets"].as_array().unwrap() {
        let label = t["label"].as_str().unwrap();
        let r = find_as(
            loc,
            &s.frame,
            label,
            role(t["role"].as_str().unwrap()),
            &synonyms(t),
        );
        sc.targets += 1;
        let mut truth = vec![rect(&t["box"])];
        truth.extend(t["also"].as_array().into_iter().flatten().map(rect));
        match judge(&r, &truth) {
            Verdict::Hit => sc.found += 1,
            Verdict::Missed(c) => sc.missed.push(format!("{} '{label}': {c}", s.name)),
            Verdict::Wrong(b) => sc.wrong.push(format!(
                "{} '{label}': answered {b:?}, truth {:?}",
                s.name,
                rect(&t["box"])
            )),
        }
    }
    for n in s.truth["refuse"].as_array().unwrap() {
        let label = n["label"].as_str().unwrap();
        let want = n["code"].as_str().unwrap();
        sc.refusals += 1;
        match find_as(
            loc,
            &s.frame,
            label,
            role(n["role"].as_str().unwrap()),
            &synonyms(n),
        ) {
            Err(c) if c.as_str() == want => sc.refused_ok += 1,
            Err(c) => sc
                .missed
                .push(format!("{} '{label}': {c}, want {want}", s.name)),
            Ok(l) => sc.wrong.push(format!(
                "{} '{label}' must be refused ({want}) but answered {:?} '{}'",
                s.name, l.rect, l.text
            )),
        }
    }
    sc
}

/// The whole suite, scored once per test process (nextest runs each test in its own).
fn suite() -> &'static Vec<(String, Score)> {
    static SUITE: OnceLock<Vec<(String, Score)>> = OnceLock::new();
    SUITE.get_or_init(|| {
        let mut loc = locator();
        let mut out = Vec::new();
        println!("\nreal-app suite: screen | found/targets | refused/negatives | wrong");
        for (app, look) in all_screens() {
            let s = load(&app, &look);
            // A screen of a Chinese UI is read as `mend run` reads it by default (chi_sim+eng;
            // the truth file's "lang"); the English screens with eng alone.
            let sc = match s.truth["lang"].as_str() {
                Some(lang) => score(&mut Locator::new(lang).expect("tesseract data"), &s),
                None => score(&mut loc, &s),
            };
            println!(
                "| {} | {}/{} | {}/{} | {} |",
                s.name,
                sc.found,
                sc.targets,
                sc.refused_ok,
                sc.refusals,
                sc.wrong.len()
            );
            out.push((look, sc));
        }
        for (_, sc) in &out {
            for m in &sc.missed {
                println!("MISSED {m}");
            }
            for w in &sc.wrong {
                println!("WRONG {w}");
            }
        }
        out
    })
}

fn rate(defaults: bool) -> (usize, usize) {
    suite()
        .iter()
        .filter(|(look, _)| is_default(look) == defaults)
        .fold((0, 0), |(f, t), (_, s)| (f + s.found, t + s.targets))
}

/// Not one wrong box anywhere, every negative refused with its code, and the found rate held
/// at what it is (a floor that only goes up). The bar is ≥ 95 % on default looks and
/// ≥ 90 % across tweaks; the keys still refused are listed by the suite's MISSED lines.
const FLOOR_DEFAULT: usize = 95;
const FLOOR_TWEAKED: usize = 90;

#[test]
fn real_apps_every_target_scored() {
    let wrong: usize = suite().iter().map(|(_, s)| s.wrong.len()).sum();
    let bad_refusals: usize = suite().iter().map(|(_, s)| s.refusals - s.refused_ok).sum();
    let (df, dt) = rate(true);
    let (tf, tt) = rate(false);
    println!("default looks {df}/{dt}, tweaked looks {tf}/{tt}");
    assert_eq!(wrong, 0, "wrong boxes");
    assert_eq!(bad_refusals, 0, "negatives not refused with their code");
    assert!(
        df * 100 >= dt * FLOOR_DEFAULT,
        "default looks: {df}/{dt} found"
    );
    assert!(
        tf * 100 >= tt * FLOOR_TWEAKED,
        "tweaked looks: {tf}/{tt} found"
    );
}

/// Failure 4: one-glyph captions. Every digit and the + - . = keys of the calculator are read
/// and found as the keys they are, on every look; any other one-glyph key is found or refused
/// with a code (`*`, `(` and `)` are still refused on some looks: no two reads agree).
#[test]
fn one_glyph_keys_are_read() {
    let mut loc = locator();
    let mut bad = Vec::new();
    for look in ["default", "big_font", "dark", "large"] {
        let s = load("xcalc", look);
        for t in s.truth["targets"].as_array().unwrap() {
            let label = t["label"].as_str().unwrap();
            if label.chars().count() > 1 {
                continue;
            }
            let must = label
                .chars()
                .all(|c| c.is_ascii_digit() || "+-.=".contains(c));
            let v = judge(
                &find(&mut loc, &s.frame, label, Role::Button),
                &[rect(&t["box"])],
            );
            match v {
                Verdict::Hit => {}
                Verdict::Missed(_) if !must => {}
                v => bad.push(format!("{look} '{label}': {v:?}")),
            }
        }
    }
    assert!(bad.is_empty(), "one-glyph keys: {bad:?}");
}

/// Failure 5: a speck never becomes a button. `+` as a button on the keypad is the `+` key or a
/// refusal, never a box inside another key (the `.` key's dot), never smaller than a key; and a
/// caption that is nowhere on the screen is LOCATOR_NOT_FOUND.
#[test]
fn a_speck_never_becomes_a_button() {
    let mut loc = locator();
    for look in ["default", "color", "big_font", "dark", "large"] {
        let s = load("xcalc", look);
        let keys: Vec<Rect> = s.truth["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| rect(&t["box"]))
            .collect();
        let smallest = keys.iter().map(|k| k.w.min(k.h)).min().unwrap();
        for label in ["+", "-", ".", "=", "*", "%", "Save"] {
            match find(&mut loc, &s.frame, label, Role::Button) {
                Ok(l) => {
                    assert!(
                        l.rect.w >= smallest / 2 && l.rect.h >= smallest / 2,
                        "{look} '{label}': a speck {:?} became a button",
                        l.rect
                    );
                    let truth = s.truth["targets"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .find(|t| t["label"] == label)
                        .map(|t| rect(&t["box"]));
                    assert!(
                        truth.is_some_and(|t| l.rect.iou(&t) >= 0.5),
                        "{look} '{label}': answered {:?}, the key is {truth:?}",
                        l.rect
                    );
                }
                Err(c) => assert!(
                    matches!(c, ErrorCode::LocatorNotFound | ErrorCode::LocatorAmbiguous),
                    "{look} '{label}': {c}"
                ),
            }
        }
        assert_eq!(
            find(&mut loc, &s.frame, "%", Role::Button).err(),
            Some(ErrorCode::LocatorNotFound),
            "{look}"
        );
    }
}

/// Failure 6: thin-bordered (1 px, no bevel; oval or square) command buttons are buttons, each
/// on its own — never one label "Quit Save".
#[test]
fn thin_framed_buttons_are_buttons() {
    let mut loc = locator();
    for (app, look) in [
        ("xmessage", "default"),
        ("xmessage", "big_font"),
        ("xfontsel", "default"),
        ("xfontsel", "small_font"),
    ] {
        let s = load(app, look);
        for t in s.truth["targets"].as_array().unwrap() {
            let label = t["label"].as_str().unwrap();
            let r = find(&mut loc, &s.frame, label, Role::Button);
            assert_eq!(
                judge(&r, &[rect(&t["box"])]),
                Verdict::Hit,
                "{app}/{look} '{label}': {r:?}"
            );
            // The caption read is the button's (an oval's end may add a mark: "‘Save").
            let read = r.unwrap().text;
            assert!(
                label_match(label, &read).is_some(),
                "{app}/{look}: read {read:?}"
            );
        }
    }
    let s = load("xmessage", "default");
    assert_eq!(
        find(&mut loc, &s.frame, "Quit Save", Role::Button).err(),
        Some(ErrorCode::LocatorNotFound)
    );
}

/// Two controls that read alike are a tie: LOCATOR_AMBIGUOUS, never the first one.
#[test]
fn two_buttons_that_read_alike_are_ambiguous() {
    let mut loc = locator();
    let s = load("xmessage", "twin_save");
    assert_eq!(
        find(&mut loc, &s.frame, "Save", Role::Button).err(),
        Some(ErrorCode::LocatorAmbiguous)
    );
}

/// A Swing (Metal) menu bar: a gradient background, so no single grey level outnumbers the
/// text's colour (a histogram mode took the text for the background, and 'File' then had
/// "unread ink" reaching into 'Edit'), and items 14 px apart, under two glyph widths ("Search
/// Markers" was one line). Every menu is found on its own, at its own box.
#[test]
fn a_gradient_menu_bar_is_read_item_by_item() {
    every_target_is_hit(&mut locator(), &load("jedit", "default"), None);
}

/// A caption above its field, a wide button right of the caption on its row: the field is the
/// one below. The button's text sits centred in its box, so it is no field, whatever its shape
/// (a click on "Replace & Find" for the field of "Replace with:" was a wrong action).
#[test]
fn a_caption_above_its_field_is_not_the_label_of_the_button_beside_it() {
    every_target_is_hit(
        &mut locator(),
        &load("jedit", "default_replace"),
        Some("field"),
    );
}

/// Menu items with a 16 px colour icon left of their text (read as junk "PY", or left as
/// unread ink beside the caption) and a mnemonic underline under F (read as E): each item is
/// found at its own text; "Replace", which every item says more than, is refused.
#[test]
fn menu_items_beside_icons_and_under_mnemonics_are_found() {
    let mut loc = locator();
    let s = load("jedit", "default_search_menu");
    every_target_is_hit(&mut loc, &s, None);
    assert_eq!(
        find(&mut loc, &s.frame, "Replace", Role::Menu).err(),
        Some(ErrorCode::LocatorNotFound)
    );
}

/// A dark window (WineMine's black board) under a light menu bar: the whole-window read made
/// "me" of Game, its capital unread, and the second look's strip, sized from that part alone,
/// began past the G. A line read in part is read again over all its ink: Game and Help found.
#[test]
fn a_menu_word_read_in_part_is_read_again_whole() {
    every_target_is_hit(&mut locator(), &load("winemine", "default_board"), None);
}

/// A default button's dotted focus ring (Win32's DrawFocusRect, 3 px inside the frame): read
/// with the ring in view, "Yes" came back as nothing (the window pass's "Ge]" or "Ye" stayed);
/// read inside the ring, it is found — at 120 DPI and on dark system colours.
#[test]
fn a_caption_inside_a_dotted_focus_ring_is_read() {
    let mut loc = locator();
    for look in ["dpi120_question", "colors_question"] {
        every_target_is_hit(&mut loc, &load("wordpad", look), Some("button"));
    }
}

/// A terminal form (dialog(1) in an xterm): a light panel on a blue screen, so the window's
/// mean is dark; polarity judged for the whole window inverted the panel too and its labels
/// were misread. One-row fields are bars in cell colours with no frame, one right on top of the
/// other (taken together as one box, both labels answered its middle: a wrong field), and the
/// buttons are captions in angle brackets, "< OK >" and "<Cancel>". Each field is found at its
/// own bar, each button at its brackets, and plain labels are never buttons.
#[test]
fn a_terminal_form_is_read_on_its_light_panel() {
    let mut loc = locator();
    every_target_is_hit(&mut loc, &load("dialog", "default_form"), None);
    // After a real run's first step (14 pt font): the labels sit beside the box-drawing side
    // line of the form's frame, which ran into them in the window pass; the label strip read
    // again ends at that line.
    every_target_is_hit(&mut loc, &load("dialog", "fs14_form_filled"), None);
    for look in ["default_form", "rv_form", "fs14_form", "fs14_form_filled"] {
        let s = load("dialog", look);
        // On the tweaked looks a target is its own box or a refusal, never another control.
        for t in s.truth["targets"].as_array().unwrap() {
            let label = t["label"].as_str().unwrap();
            let r = find(&mut loc, &s.frame, label, role(t["role"].as_str().unwrap()));
            assert!(
                !matches!(judge(&r, &[rect(&t["box"])]), Verdict::Wrong(_)),
                "{look} '{label}': {r:?}"
            );
        }
        for label in ["Enter the customer", "Name", "Phone"] {
            assert_eq!(
                find(&mut loc, &s.frame, label, Role::Button).err(),
                Some(ErrorCode::LocatorNotFound),
                "{look} '{label}' as a button"
            );
        }
    }
}

/// Every truth target of `s` (of role `only`, when given) is found at its own box, by its
/// label and role alone.
fn every_target_is_hit(loc: &mut Locator, s: &Screen, only: Option<&str>) {
    for t in s.truth["targets"].as_array().unwrap() {
        let kind = t["role"].as_str().unwrap();
        if only.is_some_and(|o| o != kind) {
            continue;
        }
        let label = t["label"].as_str().unwrap();
        let r = find(loc, &s.frame, label, role(kind));
        assert_eq!(
            judge(&r, &[rect(&t["box"])]),
            Verdict::Hit,
            "{} '{label}': {r:?}",
            s.name
        );
    }
}

/// Targets known only by their pixels (issue 14: an icon, a one-glyph key, a control whose
/// caption is never read): every target of an app's own screen is cropped at its true box and
/// located with no text at all, on that screen and on every tweaked look of the app. A place
/// is answered only when it alone shows the crop clearly; two look-alikes are refused
/// (`LOCATOR_AMBIGUOUS`), a weak match too (`LOCATOR_NOT_FOUND`). Never a wrong box.
#[test]
fn a_control_known_only_by_its_pixels_is_found_once_or_refused() {
    let mut loc = locator();
    let (mut same, mut tweaked) = ((0, 0, 0), (0, 0, 0)); // found, refused, targets
    let mut wrong = vec![];
    let screens = all_screens();
    for (app, src_look) in screens.iter().filter(|(_, l)| is_default(l)) {
        let src = load(app, src_look);
        // The same screen, and (from the app's main screen) every tweaked look of it.
        let dests: Vec<String> = std::iter::once(src_look.clone())
            .chain(
                screens
                    .iter()
                    .filter(|(a, l)| a == app && !is_default(l) && src_look == "default")
                    .map(|(_, l)| l.clone()),
            )
            .collect();
        let others: Vec<(String, Screen)> = dests
            .iter()
            .filter(|l| *l != src_look)
            .map(|l| (l.clone(), load(app, l)))
            .collect();
        for t in src.truth["targets"].as_array().unwrap() {
            let label = t["label"].as_str().unwrap();
            let Some(crop) = mend_vision::crop(&src.frame.image, rect(&t["box"])) else {
                continue;
            };
            let target = Target {
                role: role(t["role"].as_str().unwrap()),
                ..Target::default()
            };
            let rec = Recorded {
                template: Some(crop),
            };
            for look in &dests {
                let dst = if look == src_look {
                    &src
                } else {
                    &others.iter().find(|(l, _)| l == look).unwrap().1
                };
                let Some(tt) = dst.truth["targets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|d| d["label"] == t["label"] && d["role"] == t["role"])
                else {
                    continue;
                };
                let mut truth = vec![rect(&tt["box"])];
                truth.extend(tt["also"].as_array().into_iter().flatten().map(rect));
                let r = loc
                    .locate(&dst.frame, &target, &rec)
                    .map_err(|r| r.error.code);
                let tally = if look == src_look {
                    &mut same
                } else {
                    &mut tweaked
                };
                tally.2 += 1;
                // A click lands at the box's centre: right when that is inside the control.
                let r = r.map(|mut l| {
                    if truth.iter().any(|t| t.contains(l.rect.center())) {
                        l.rect = truth[0];
                    }
                    l
                });
                match judge(&r, &truth) {
                    Verdict::Hit => tally.0 += 1,
                    Verdict::Missed(c) => {
                        if std::env::var_os("MEND_PIXELS_VERBOSE").is_some() {
                            println!("refused {app}/{look} '{label}': {c}");
                        }
                        assert!(
                            matches!(
                                c,
                                ErrorCode::LocatorAmbiguous | ErrorCode::LocatorNotFound
                            ),
                            "{app}/{look} '{label}': {c}"
                        );
                        tally.1 += 1;
                    }
                    Verdict::Wrong(b) => wrong.push(format!(
                        "{app}/{look} '{label}' (crop from {src_look}): answered {b:?}, truth {truth:?}"
                    )),
                }
            }
        }
    }
    println!(
        "by pixels alone: own screen {}/{} found, {} refused; tweaked looks {}/{} found, {} refused; {} wrong",
        same.0, same.2, same.1, tweaked.0, tweaked.2, tweaked.1, wrong.len()
    );
    assert!(wrong.is_empty(), "wrong boxes: {wrong:#?}");
    assert!(
        same.2 > 50 && tweaked.2 > 50,
        "the suite has targets to try"
    );
}

/// Crop-only targets at other scales and when the control is gone: a key's crop is still found
/// on the same window drawn at 125 % and 150 % (the whole screenshot scaled, as a DPI change
/// does), and refused as `LOCATOR_NOT_FOUND` once that key is painted over.
#[test]
fn a_crop_is_found_at_125_and_150_percent_and_refused_when_its_control_is_gone() {
    let mut loc = locator();
    let s = load("xcalc", "default");
    let key = s.truth["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["label"] == "7")
        .map(|t| rect(&t["box"]))
        .unwrap();
    let crop = mend_vision::crop(&s.frame.image, key).unwrap();
    let target = Target {
        role: Role::Button,
        ..Target::default()
    };
    let rec = Recorded {
        template: Some(crop.clone()),
    };
    for scale in [1.25f64, 1.5] {
        let (w, h) = s.frame.image.dimensions();
        let img = image::imageops::resize(
            &s.frame.image,
            (w as f64 * scale).round() as u32,
            (h as f64 * scale).round() as u32,
            image::imageops::FilterType::Triangle,
        );
        let mut frame = s.frame.clone();
        frame.image = img;
        let want = Rect::new(
            (key.x as f64 * scale) as i32,
            (key.y as f64 * scale) as i32,
            (key.w as f64 * scale) as i32,
            (key.h as f64 * scale) as i32,
        );
        let l = loc
            .locate(&frame, &target, &rec)
            .unwrap_or_else(|r| panic!("{scale}: {:?}", r.error));
        assert!(
            want.contains(l.rect.center()),
            "{scale}: {:?} not in {want:?}",
            l.rect
        );
    }
    // The key painted over with the window's background: nothing shows the crop any more.
    let mut gone = s.frame.clone();
    let bg = *gone.image.get_pixel(2, 2);
    for y in key.y..key.y + key.h {
        for x in key.x..key.x + key.w {
            gone.image.put_pixel(x as u32, y as u32, bg);
        }
    }
    assert_eq!(
        loc.locate(&gone, &target, &rec)
            .map_err(|r| r.error.code)
            .err(),
        Some(ErrorCode::LocatorNotFound)
    );
}

/// A flow that clicks "Search" and then "Find..." names two controls. Before the Search menu's
/// popup has painted, only the menu bar is on the screen, and "Find" is a synonym of "Search":
/// the semantic rung answered the Search title again (a real jEdit run clicked it twice and
/// closed its own menu). Told the flow's names, it never answers a control the flow names
/// otherwise; the step waits for its item or refuses.
#[test]
fn a_guess_by_meaning_never_lands_on_a_control_the_flow_names_otherwise() {
    let mut loc = locator();
    let s = load("jedit", "default");
    let alone = find(&mut loc, &s.frame, "Find...", Role::Menu).expect("a synonym alone");
    assert_eq!(alone.strategy, mend_model::Strategy::Semantic);
    loc.flow_names = vec!["Search".into(), "Find...".into()];
    assert_eq!(
        find(&mut loc, &s.frame, "Find...", Role::Menu).err(),
        Some(ErrorCode::LocatorNotFound)
    );
    // The flow's own name for this very target is no reason to refuse it.
    let search = find(&mut loc, &s.frame, "Search", Role::Menu).expect("Search itself");
    assert_eq!(search.text, "Search");
}

/// The anchor rung on nedit's Replace/Find (colors look): the control at the offset is clicked
/// only if nothing there reads as another control. An offset measured wrong lands on
/// "Selection" and a target named otherwise is refused there; with the offset right, a target
/// known only by its place is found; a target whose text is on another control is refused.
#[test]
fn an_anchor_never_lands_on_a_control_named_otherwise() {
    let mut loc = locator();
    let s = load("nedit", "colors_replace");
    let anchored = |text: Option<&str>, dx: i32| Target {
        text: text.map(str::to_string),
        near: Some("Replace all in:".into()),
        offset: Some((dx, 0)),
        role: Role::Button,
        ..Target::default()
    };
    let window = Rect::new(101, 172, 57, 23);
    let wrong = loc.locate(
        &s.frame,
        &anchored(Some("Current"), 120),
        &Recorded::default(),
    );
    assert_eq!(
        wrong.err().map(|r| r.error.code),
        Some(ErrorCode::LocatorNotFound)
    );
    let by_place = loc
        .locate(&s.frame, &anchored(None, 76), &Recorded::default())
        .expect("the button at the offset");
    assert!(by_place.rect.iou(&window) >= 0.5, "{:?}", by_place.rect);
    let named = loc.locate(
        &s.frame,
        &anchored(Some("Current"), 76),
        &Recorded::default(),
    );
    assert_eq!(
        named.err().map(|r| r.error.code),
        Some(ErrorCode::LocatorNotFound)
    );
}

/// An anchor that is read, with nothing at its offset (empty space far right of "Replace all
/// in:"): the refusal says the anchor was found and where, and that the control beside it is
/// missing — not "no control matching 'Replace all in:'", as if the anchor were the target
/// (issue 31: "no control matching 'Load' (Field)" although Load was read).
#[test]
fn an_anchor_read_with_nothing_at_its_offset_says_which_is_missing() {
    let mut loc = locator();
    let s = load("nedit", "colors_replace");
    let t = Target {
        text: Some("Regex".into()),
        near: Some("Replace all in:".into()),
        offset: Some((900, 0)),
        role: Role::Button,
        ..Target::default()
    };
    let e = loc
        .locate(&s.frame, &t, &Recorded::default())
        .expect_err("nothing there")
        .error;
    assert_eq!(e.code, ErrorCode::LocatorNotFound);
    assert!(
        e.message
            .contains("the anchor 'Replace all in:' was found at"),
        "{}",
        e.message
    );
    assert!(e.message.contains("at +900,+0"), "{}", e.message);
}

/// The corpus's flows are written on the English UI. Under zh_CN the same controls are found
/// by meaning (the UI vocabulary, sourced from GTK's own catalogs): Name: is 名称(N): beside its
/// field (not the file list's column header 名称), Save is 保存(S) whose underlined mnemonic
/// reads as noise, Save As... is 另存为(A)… read as one item though chi_sim boxed 另存 over it,
/// File is 文件(F) set apart from 编辑(E). A word the vocabulary lacks (全部保存) is refused.
#[test]
fn an_english_flow_finds_its_controls_on_the_chinese_ui() {
    let mut loc = Locator::new("chi_sim+eng").expect("tesseract with chi_sim and eng");
    for look in ["zh_save_as", "zh_file_menu"] {
        let s = load("mousepad", look);
        every_target_is_hit(&mut loc, &s, None);
        let sc = score(&mut loc, &s);
        assert!(sc.wrong.is_empty(), "{:?}", sc.wrong);
        assert_eq!(sc.refused_ok, sc.refusals, "{}: {:?}", s.name, sc.missed);
    }
}

/// Issue 31, batch D: a list's row known by its pixels — on the bar a list draws behind its
/// selected row, or as one of a column of lines on one ground. Poedit's selected entry (wxGTK,
/// the first contact's trait) and GTK 3's file chooser in another app (Mousepad: a selected
/// file, unselected ones, the sidebar) are found as rows; the same words in a text box under
/// its caption strip, a button, a column header and a caption are not rows.
#[test]
fn rows_are_known_by_a_selection_bar_or_a_column() {
    let mut loc = locator();
    let mut bad = Vec::new();
    for (app, look) in [
        ("poedit", "default_translate"),
        ("mousepad", "default_open"),
    ] {
        let s = load(app, look);
        let sc = score(&mut loc, &s);
        bad.extend(sc.missed);
        bad.extend(sc.wrong);
    }
    assert!(bad.is_empty(), "rows: {bad:?}");
}

/// A prompt drawn with no box (Emacs's minibuffer: `Write file: ` then the folder, wrapped):
/// its input is the rest of the caption's line where a block cursor stands, on the line or on
/// the line it wraps onto, on a light and a dark ground. Caught with the cursor off (it
/// blinks), the same line is no input, and neither is any other line of text without a caret
/// (the mode line's buffer name, the document's line). Wine's console draws its cursor as an
/// underline a quarter of its cell tall: that is a caret too, and no edge of a strip over a
/// text area (the black under the prompt was taken for one: FIELD_NOT_FILLED).
#[test]
fn a_prompt_without_a_box_is_an_input_where_its_caret_stands() {
    let mut loc = locator();
    let mut bad = Vec::new();
    for (app, look) in [
        ("emacs-lucid", "default_write_file"),
        ("emacs-lucid", "dark_write_file"),
        ("emacs-lucid", "font_write_file"),
        ("wineconsole", "default_prompt"),
        ("wineconsole", "default_prompt_caret_off"),
    ] {
        let s = load(app, look);
        let sc = score(&mut loc, &s);
        bad.extend(sc.missed);
        bad.extend(sc.wrong);
    }
    assert!(bad.is_empty(), "prompts: {bad:?}");
}

/// One-glyph items standing alone (gv's page list: `1 2 3` down a narrow column, 5×9 px in the
/// default look, bold 9×13 in the font look), which a whole-window read does not read: each is
/// found by its shape and its own single-glyph reading; `Z`, which a 5×9 `2` is drawn like,
/// and a page the list does not hold are refused.
#[test]
fn one_glyph_items_standing_alone_are_found_by_shape_and_their_own_reading() {
    let mut loc = locator();
    let mut bad = Vec::new();
    for look in ["default_pages", "font_pages", "small_pages"] {
        let s = load("gv", look);
        let sc = score(&mut loc, &s);
        bad.extend(sc.missed);
        bad.extend(sc.wrong);
    }
    assert!(bad.is_empty(), "lone glyphs: {bad:?}");
}

/// A sign set apart after a caption (XForms' return arrow on its default button, `Accept ↵`):
/// nothing legible is read in it, and it is no part of the caption — the button is found,
/// and no caption with a word more (`Accept All`) is.
#[test]
fn a_sign_set_apart_after_a_caption_is_no_part_of_it() {
    let mut loc = locator();
    let s = load("fdesign", "font14_attributes");
    let sc = score(&mut loc, &s);
    assert!(sc.missed.is_empty() && sc.wrong.is_empty(), "{sc:?}");
}

/// A caption and its value read as one line (Ephoto's info bar: `Resolution: 64×48`): a colon
/// ends a caption, so the anchor `Resolution:` is the line's part up to it, and an offset is
/// measured from that part's centre (the save button 392 px right of it). An anchor named
/// without its colon is not cut out of the line.
#[test]
fn a_caption_read_with_its_value_is_cut_at_its_colon() {
    let mut loc = locator();
    let s = load("ephoto", "default_info_bar");
    let at = |near: &str, dx: i32| Target {
        near: Some(near.into()),
        offset: Some((dx, 0)),
        role: Role::Any,
        ..Target::default()
    };
    let save = Rect::new(806, 470, 28, 28);
    let l = loc
        .locate(&s.frame, &at("Resolution:", 392), &Recorded::default())
        .expect("the save button right of the caption");
    assert!(l.rect.iou(&save) >= 0.5, "{:?}", l.rect);
    let e = loc
        .locate(&s.frame, &at("Resolution", 392), &Recorded::default())
        .expect_err("no caption 'Resolution' on its own");
    assert_eq!(e.error.code, ErrorCode::LocatorNotFound);
}

/// An area (`role = "area"`: a canvas, a picture, no control of its own) by its anchor and
/// offset (Ephoto's image view above its info bar): the place itself where the pixels show it
/// bare; refused on the picture (a box), on a tool button, on an unframed icon, on words, and
/// off the window — each saying what is there.
#[test]
fn an_area_is_a_bare_place_at_its_offset_and_nothing_else() {
    let mut loc = locator();
    let s = load("ephoto", "default_info_bar");
    let at = |dx: i32, dy: i32| Target {
        near: Some("Resolution:".into()),
        offset: Some((dx, dy)),
        role: Role::Area,
        ..Target::default()
    };
    let bare = loc
        .locate(&s.frame, &at(0, -150), &Recorded::default())
        .expect("the bare view above the bar");
    assert_eq!(bare.strategy, Strategy::Anchor);
    let c = bare.rect.center();
    assert!(
        (c.x - 427).abs() <= 2 && (c.y - 334).abs() <= 2,
        "{:?}",
        bare.rect
    );
    assert!(bare.rect.w <= 16 && bare.rect.h <= 16, "{:?}", bare.rect);
    for (dx, dy, says) in [
        (113, -250, "a control"),  // the picture, framed in white
        (392, 0, "a control"),     // the save button
        (-400, -472, "not bare"),  // the folder icon before `home`, no frame
        (-370, -470, "the words"), // `home`
        (0, 0, "the words"),       // the caption itself
        (600, 0, "outside"),       // past the window's right edge
    ] {
        let e = loc
            .locate(&s.frame, &at(dx, dy), &Recorded::default())
            .expect_err("nothing bare there")
            .error;
        assert_eq!(
            e.code,
            ErrorCode::LocatorNotFound,
            "{dx},{dy}: {}",
            e.message
        );
        assert!(e.message.contains(says), "{dx},{dy}: {}", e.message);
    }
}

/// Faint captions (Free Vision's dialog in xterm: its title and `Name` in bright white on
/// light grey, 26 grey levels, the N in yellow) are read when a target is not found: the
/// window is looked at again with that text drawn at full contrast. The title and the field
/// under `Name` are found at their boxes; what the first look found is found where it was; a
/// control the dialog lacks is still refused.
#[test]
fn faint_captions_are_read_when_the_first_look_finds_nothing() {
    let mut loc = locator();
    let s = load("fp-ide", "default_save_as");
    let t = |text: &str, role: Role| Target {
        text: Some(text.into()),
        role,
        ..Target::default()
    };
    for (text, role, want) in [
        ("Save File As", Role::Any, Rect::new(260, 69, 71, 9)),
        ("Name", Role::Field, Rect::new(170, 106, 168, 13)),
        ("Ok", Role::Button, Rect::new(362, 106, 60, 13)),
    ] {
        let l = loc
            .locate(&s.frame, &t(text, role), &Recorded::default())
            .unwrap_or_else(|e| panic!("{text}: {}", e.error.message));
        assert!(l.rect.iou(&want) >= 0.6, "{text}: {:?}", l.rect);
        assert_eq!(l.frame_id, s.frame.info.id, "{text}: the frame looked at");
    }
    let e = loc
        .locate(&s.frame, &t("Replace", Role::Button), &Recorded::default())
        .expect_err("no Replace on the dialog");
    assert_eq!(e.error.code, ErrorCode::LocatorNotFound);
}

/// Athena command buttons packed edge to edge (xedit: `Quit | Save | Load`, parted by 1 px lines,
/// against the window's top, the pane's rule under them; no button has a top or a bottom line
/// of its own): each is a button (the suite's targets), and the file name field right of Load —
/// a Text widget with no frame of its own, empty but for its caret — is the cell beside it, on
/// every look.
#[test]
fn packed_buttons_are_cells_and_the_field_beside_them_one_too() {
    let mut loc = locator();
    let field = Target {
        near: Some("Load".into()),
        role: Role::Field,
        ..Target::default()
    };
    for (look, want) in [
        ("default", Rect::new(111, 0, 479, 18)),
        ("font18", Rect::new(145, 0, 445, 26)),
        ("dark", Rect::new(111, 0, 479, 18)),
        ("color", Rect::new(111, 0, 479, 18)),
    ] {
        let s = load("xedit", look);
        let l = loc
            .locate(&s.frame, &field, &Recorded::default())
            .unwrap_or_else(|r| panic!("xedit/{look}: {:?}", r.error));
        assert!(l.rect.iou(&want) >= 0.5, "xedit/{look}: {:?}", l.rect);
    }
}

/// A terminal emulator's screen (x3270, batch L): the host's prompt with its block cursor, a
/// stippled scroll bar at the window's edge (no ground for the prompt's line to run on); and a
/// part of a line refused with the line it is in named, so the writer can name the whole line.
#[test]
fn a_host_prompt_is_an_input_and_a_part_of_a_line_names_its_line() {
    let mut loc = locator();
    let t = |text: &str, role: Role| Target {
        text: Some(text.into()),
        role,
        ..Target::default()
    };
    let s = load("x3270", "default_prompt");
    let l = loc
        .locate(
            &s.frame,
            &t("INVOICE NUMBER ==>", Role::Field),
            &Recorded::default(),
        )
        .unwrap_or_else(|e| panic!("the prompt: {}", e.error.message));
    assert!(l.rect.x >= 120 && l.rect.right() <= 570, "{:?}", l.rect);
    let s = load("x3270", "reverse_paid");
    let e = loc
        .locate(
            &s.frame,
            &t("MARKED PAID", Role::Text),
            &Recorded::default(),
        )
        .expect_err("a part of a line");
    assert_eq!(e.error.code, ErrorCode::LocatorNotFound);
    assert!(
        e.error
            .message
            .contains("read only inside 'INVOICE 4711 MARKED PAID'"),
        "{}",
        e.error.message
    );
    // A radio option named as a button: refused, and the refusal says where its caption is
    // and how to name it.
    let s = load("x3270", "default_save");
    let e = loc
        .locate(&s.frame, &t("Once", Role::Button), &Recorded::default())
        .expect_err("a radio option is no button");
    assert_eq!(e.error.code, ErrorCode::LocatorNotFound);
    assert!(
        e.error.message.contains("'Once' is read at") && e.error.message.contains("role = \"any\""),
        "{}",
        e.error.message
    );
}
