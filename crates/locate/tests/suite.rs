//! The data-driven locator suite: every target of every screen of the practice app, recorded on
//! `baseline` (box, template crop, label), located again on every variant's checked-in
//! screenshot and scored against the app's true geometry. No X server needed.
//!
//! Non-negative variants must find every target (IoU ≥ 0.5); on `removed` and `decoy` the
//! targets that are gone must be refused with LOCATOR_NOT_FOUND or LOCATOR_AMBIGUOUS. A box on
//! the wrong control is never acceptable anywhere.

use mend_capture::{Capture, ImageFileCapture, WindowQuery};
use mend_locate::{Locator, Recorded};
use mend_model::{ErrorCode, Rect, Role, Strategy, Target};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn shots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/screenshots")
}

struct Shot {
    frame: mend_capture::Frame,
    controls: Vec<Value>,
}

fn rect(v: &Value) -> Rect {
    let n = |k: &str| v[k].as_i64().unwrap() as i32;
    Rect::new(n("x"), n("y"), n("w"), n("h"))
}

fn load(dir: &Path, screen: &str) -> Option<Shot> {
    let png = dir.join(format!("{screen}.png"));
    if !png.exists() {
        return None;
    }
    let cap = ImageFileCapture::open(&png).unwrap();
    let frame = cap.capture(&WindowQuery::title(".*").unwrap()).unwrap();
    let g: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{screen}.geometry.json"))).unwrap(),
    )
    .unwrap();
    let controls = if screen == "confirm" {
        g["dialogs"].as_array().unwrap().last().unwrap()["controls"]
            .as_array()
            .unwrap()
            .clone()
    } else {
        g["controls"].as_array().unwrap().clone()
    };
    Some(Shot { frame, controls })
}

fn role_of(r: &str) -> Option<Role> {
    match r {
        "button" | "dialog_button" => Some(Role::Button),
        "field" => Some(Role::Field),
        "column_header" => Some(Role::ColumnHeader),
        _ => None,
    }
}

/// The same control in another variant: by key (buttons, fields), by label for column headers.
fn same_control<'a>(controls: &'a [Value], t: &Value) -> Option<&'a Value> {
    controls.iter().find(|c| {
        c["role"] == t["role"]
            && match t.get("key") {
                Some(k) => c.get("key") == Some(k),
                None => c["label"] == t["label"],
            }
    })
}

#[derive(Default)]
struct Tally {
    hits: BTreeMap<String, usize>,
    refused_ok: usize,
    missed: Vec<String>,
    wrong: Vec<String>,
}

fn run(lang: &str) {
    let mut locator = Locator::new("chi_sim+eng").expect("tesseract with chi_sim+eng");
    let root = shots().join(lang);
    let mut variants: Vec<String> = std::fs::read_dir(&root)
        .expect("screenshots; run scripts/screenshots.sh")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    variants.sort();
    let mut table: BTreeMap<String, Tally> = BTreeMap::new();
    for screen in ["login", "main", "record", "confirm"] {
        let base = load(&root.join("baseline"), screen).expect("baseline screenshot");
        let origin = base.frame.info.origin;
        let targets: Vec<&Value> = base
            .controls
            .iter()
            .filter(|c| role_of(c["role"].as_str().unwrap()).is_some())
            .filter(|c| !c["label"].as_str().unwrap().is_empty())
            .collect();
        for v in &variants {
            let Some(shot) = load(&root.join(v), screen) else {
                continue;
            };
            let tally = table.entry(v.clone()).or_default();
            for t in &targets {
                let screen_rect = rect(t);
                let recorded = screen_rect.translate(-origin.x, -origin.y);
                let target = Target {
                    text: Some(t["label"].as_str().unwrap().to_string()),
                    role: role_of(t["role"].as_str().unwrap()).unwrap(),
                    recorded: Some(recorded),
                    ..Target::default()
                };
                // The crop `mend record` would keep: a field's with its caption beside it.
                let rec = Recorded {
                    template: locator
                        .crop_for(&base.frame, &target, recorded)
                        .and_then(|r| mend_vision::crop(&base.frame.image, r)),
                };
                let name = format!("{lang}/{v}/{screen} '{}'", t["label"].as_str().unwrap());
                let truth = same_control(&shot.controls, t).map(rect);
                match (locator.locate(&shot.frame, &target, &rec), truth) {
                    (Ok(l), Some(truth)) if l.screen_box.iou(&truth) >= 0.5 => {
                        *tally
                            .hits
                            .entry(l.strategy.as_str().to_string())
                            .or_default() += 1;
                    }
                    (Ok(l), _) => tally.wrong.push(format!(
                        "{name}: {:?} by {} but truth is {truth:?}",
                        l.screen_box,
                        l.strategy.as_str()
                    )),
                    (Err(r), None) => {
                        assert!(
                            matches!(
                                r.error.code,
                                ErrorCode::LocatorNotFound | ErrorCode::LocatorAmbiguous
                            ),
                            "{name}: refused with {}",
                            r.error.code
                        );
                        tally.refused_ok += 1;
                    }
                    (Err(r), Some(_)) => tally.missed.push(format!("{name}: {}", r.error)),
                }
            }
        }
    }
    println!("\nlocator suite ({lang}): variant | exact | fuzzy_ocr | semantic | anchor | correct refusals | missed | wrong");
    let (mut missed, mut wrong) = (Vec::new(), Vec::new());
    for (v, t) in &table {
        let h = |s: Strategy| t.hits.get(s.as_str()).copied().unwrap_or(0);
        println!(
            "| {v} | {} | {} | {} | {} | {} | {} | {} |",
            h(Strategy::Exact),
            h(Strategy::FuzzyOcr),
            h(Strategy::Semantic),
            h(Strategy::Anchor),
            t.refused_ok,
            t.missed.len(),
            t.wrong.len()
        );
        missed.extend(t.missed.iter().cloned());
        wrong.extend(t.wrong.iter().cloned());
    }
    for m in &missed {
        println!("MISSED {m}");
    }
    for w in &wrong {
        println!("WRONG {w}");
    }
    assert!(wrong.is_empty(), "{} wrong boxes", wrong.len());
    assert!(
        missed.is_empty(),
        "{} targets not found on non-negative variants",
        missed.len()
    );
}

#[test]
fn every_target_zh() {
    run("zh");
}

#[test]
fn every_target_en() {
    run("en");
}

/// The semantic rung: a flow recorded on the Chinese UI, run on the English one. No recorded
/// box or crop, only the label: exact and fuzzy OCR cannot match 查询 to "Search"; the offline
/// matcher's cross-language meanings can, and a decoy is still refused.
#[test]
fn chinese_targets_on_english_screens_resolve_semantically() {
    let mut locator = Locator::new("chi_sim+eng").unwrap();
    let mut semantic = 0;
    for (screen, variant) in [
        ("login", "baseline"),
        ("main", "baseline"),
        ("record", "baseline"),
        ("main", "decoy"),
        ("main", "relabeled"),
        ("main", "moved,dark_theme,relabeled"),
        ("record", "moved,dark_theme,relabeled"),
        ("confirm", "moved,dark_theme,relabeled"),
    ] {
        let zh = load(&shots().join("zh/baseline"), screen).unwrap();
        let en = load(&shots().join("en").join(variant), screen).unwrap();
        for t in zh.controls.iter().filter(|c| c["role"] == "button") {
            let target = Target {
                text: Some(t["label"].as_str().unwrap().to_string()),
                role: Role::Button,
                ..Target::default()
            };
            let name = format!("{screen}/{variant} '{}'", t["label"]);
            match (
                locator.locate(&en.frame, &target, &Recorded::default()),
                same_control(&en.controls, t),
            ) {
                (Ok(l), Some(truth)) => {
                    assert!(
                        l.screen_box.iou(&rect(truth)) >= 0.5,
                        "{name}: wrong box {:?}",
                        l.screen_box
                    );
                    assert_eq!(l.strategy, Strategy::Semantic, "{name}");
                    semantic += 1;
                }
                (Ok(l), None) => panic!("{name}: acted on {:?} where the control is gone", l.text),
                (Err(r), Some(_)) => panic!("{name}: {}", r.error),
                (Err(_), None) => {}
            }
        }
    }
    assert!(semantic >= 10, "only {semantic} semantic hits");
}

/// The anchor rung: a field given only as "the control at this offset from label X".
#[test]
fn fields_found_by_anchor_label_and_offset() {
    let mut locator = Locator::new("chi_sim+eng").unwrap();
    for lang in ["zh", "en"] {
        let base = load(&shots().join(lang).join("baseline"), "record").unwrap();
        for variant in [
            "baseline",
            "moved",
            "relabeled",
            "dark_theme",
            "owner_drawn",
        ] {
            let shot = load(&shots().join(lang).join(variant), "record").unwrap();
            for f in base.controls.iter().filter(|c| c["role"] == "field") {
                // Recording: find the label on the baseline, keep the offset to the field.
                let text = f["label"].as_str().unwrap().to_string();
                let label_target = Target {
                    text: Some(text.clone()),
                    role: Role::Label,
                    ..Target::default()
                };
                let lb = locator
                    .locate(&base.frame, &label_target, &Recorded::default())
                    .unwrap_or_else(|r| panic!("{lang} label {text}: {}", r.error))
                    .screen_box;
                let fr = rect(f);
                let target = Target {
                    near: Some(text),
                    offset: Some((fr.center().x - lb.center().x, fr.center().y - lb.center().y)),
                    role: Role::Field,
                    ..Target::default()
                };
                let name = format!("{lang}/{variant} field right of '{}'", f["label"]);
                let l = locator
                    .locate(&shot.frame, &target, &Recorded::default())
                    .unwrap_or_else(|r| panic!("{name}: {}", r.error));
                let truth = rect(same_control(&shot.controls, f).unwrap());
                assert!(
                    l.screen_box.iou(&truth) >= 0.5,
                    "{name}: {:?} vs {truth:?}",
                    l.screen_box
                );
                assert_eq!(l.strategy, Strategy::Anchor, "{name}");
            }
        }
    }
}

/// A row picked by its id (the delete flow's first step), with no recorded box: on every
/// variant's main screen, in both languages, the id's text lands inside its row — also where
/// the table's grid lines run right beside it (owner_drawn: a rule next to the text is no
/// unread text).
#[test]
fn a_row_is_found_by_its_id_on_every_variant() {
    let mut locator = Locator::new("chi_sim+eng").unwrap();
    let mut found = 0;
    for lang in ["zh", "en"] {
        for e in std::fs::read_dir(shots().join(lang)).unwrap().flatten() {
            let v = e.file_name().to_string_lossy().into_owned();
            let Some(shot) = load(&e.path(), "main") else {
                continue;
            };
            let Some(row) = shot
                .controls
                .iter()
                .find(|c| c["role"] == "row" && c["record"] == "C003")
            else {
                continue;
            };
            let target = Target {
                text: Some("C003".into()),
                role: Role::Any,
                ..Target::default()
            };
            match locator.locate(&shot.frame, &target, &Recorded::default()) {
                Ok(l) => {
                    assert!(
                        rect(row).contains(l.screen_box.center()),
                        "{lang}/{v}: {:?} is not in the row {:?}",
                        l.screen_box,
                        rect(row)
                    );
                    found += 1;
                }
                Err(r) => panic!("{lang}/{v}: {}", r.error),
            }
        }
    }
    assert!(found >= 26, "only {found} screens had the row");
}
