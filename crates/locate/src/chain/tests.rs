use super::*;

thread_local! {
    /// Set by a test: the next look faults inside perception.
    pub(super) static FAULT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A fault inside perception is a refusal with its own code, nothing found and nothing to
/// click; the locator reads the next screen as before.
#[test]
fn a_fault_in_perception_is_a_coded_refusal_and_the_next_look_works() {
    use mend_capture::{Capture, ImageFileCapture, WindowQuery};
    let png = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots/en/baseline/login.png");
    let cap = ImageFileCapture::open(&png).unwrap();
    let frame = cap.capture(&WindowQuery::title(".*").unwrap()).unwrap();
    let mut loc = Locator::new("eng").unwrap();
    let target = Target {
        text: Some("Login".into()),
        role: Role::Button,
        ..Target::default()
    };
    FAULT.with(|f| f.set(true));
    let r = loc.locate(&frame, &target, &Recorded::default());
    FAULT.with(|f| f.set(false));
    let e = r.expect_err("a fault is no control");
    assert_eq!(e.error.code, ErrorCode::PerceptionFailed);
    assert!(e.candidates.is_empty());
    assert!(
        e.error.message.contains("a fault put here by a test"),
        "{e:?}"
    );
    loc.locate(&frame, &target, &Recorded::default())
        .expect("the next look finds the button");
}

/// Absence proven on these very pixels is not looked for again (the chain would say the
/// same), and the window counts as steady from the first look at them; another target, or one
/// pixel changed, is looked for afresh. A fault put in the chain shows whether it ran.
#[test]
fn an_absence_proven_on_the_same_pixels_is_answered_without_the_chain() {
    use mend_capture::{Capture, ImageFileCapture, WindowQuery};
    let png = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots/en/baseline/login.png");
    let cap = ImageFileCapture::open(&png).unwrap();
    let frame = cap.capture(&WindowQuery::title(".*").unwrap()).unwrap();
    let mut loc = Locator::new("eng").unwrap();
    let button = |text: &str| Target {
        text: Some(text.into()),
        role: Role::Button,
        ..Target::default()
    };
    let first = loc
        .locate(&frame, &button("Export"), &Recorded::default())
        .expect_err("no Export on the login screen");
    assert_eq!(first.error.code, ErrorCode::LocatorNotFound);
    assert_eq!(loc.steady_ms(&frame), 0);
    std::thread::sleep(std::time::Duration::from_millis(20));
    FAULT.with(|f| f.set(true));
    let again = loc.locate(&frame, &button("Export"), &Recorded::default());
    let other = loc.locate(&frame, &button("Import"), &Recorded::default());
    let mut changed = cap.capture(&WindowQuery::title(".*").unwrap()).unwrap();
    let p = *changed.image.get_pixel(0, 0);
    changed
        .image
        .put_pixel(0, 0, image::Rgba([p[0] ^ 0xff, p[1], p[2], p[3]]));
    let on_changed = loc.locate(&changed, &button("Export"), &Recorded::default());
    FAULT.with(|f| f.set(false));
    let again = again.expect_err("still absent");
    assert_eq!(again.error.code, ErrorCode::LocatorNotFound);
    assert_eq!(again.error.message, first.error.message);
    assert!(
        loc.steady_ms(&frame) == 0,
        "the window shows the changed pixels now"
    );
    assert_eq!(
        other.expect_err("the chain ran").error.code,
        ErrorCode::PerceptionFailed
    );
    assert_eq!(
        on_changed.expect_err("the chain ran").error.code,
        ErrorCode::PerceptionFailed
    );
    // Back to the first pixels: a new first look, then steady from it.
    let _ = loc.locate(&frame, &button("Export"), &Recorded::default());
    assert_eq!(loc.steady_ms(&frame), 0);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let _ = loc.locate(&frame, &button("Export"), &Recorded::default());
    assert!(loc.steady_ms(&frame) >= 20, "{}", loc.steady_ms(&frame));
}

fn seen(text: &str, x: i32) -> SeenLabel {
    SeenLabel {
        text: text.into(),
        line: Rect::new(x, 10, 40, 14),
        control: None,
        conf: 90.0,
    }
}

/// A reader's line cut in two at a word space (`Default path` + `is "invoices.sc"`): the
/// two read together as the target are one reading of it; far apart, on another row, or
/// saying something else together, they are not joined.
#[test]
fn a_line_cut_at_a_word_space_is_read_whole() {
    let at = |text: &str, x: i32, y: i32, w: i32| SeenLabel {
        text: text.into(),
        line: Rect::new(x, y, w, 11),
        control: None,
        conf: 90.0,
    };
    let target = "Default path is \"invoices.sc\"";
    let joined = with_words_joined(
        vec![
            at("Default path", 2, 17, 72),
            at("is \"invoices.sc\"", 80, 17, 94),
        ],
        target,
    );
    assert!(joined
        .iter()
        .any(|l| l.text == target && l.line == Rect::new(2, 17, 172, 11)));
    let far = with_words_joined(
        vec![
            at("Default path", 2, 17, 72),
            at("is \"invoices.sc\"", 120, 17, 94),
        ],
        target,
    );
    assert_eq!(far.len(), 2, "a gap wider than one and a half text heights");
    let below = with_words_joined(
        vec![
            at("Default path", 2, 17, 72),
            at("is \"invoices.sc\"", 80, 30, 94),
        ],
        target,
    );
    assert_eq!(below.len(), 2, "another row");
    let other = with_words_joined(
        vec![
            at("Default path", 2, 17, 72),
            at("is \"draft.sc\"", 80, 17, 94),
        ],
        target,
    );
    assert_eq!(other.len(), 2, "another text together");
    // A monospace sentence read in three parts (Sylpheed's message view).
    let sentence = "Invoice 4710: 75.50 EUR, due 2 April 2027.";
    let three = with_words_joined(
        vec![
            at("Invoice 4710:", 193, 420, 125),
            at("due 2 April 2027.", 443, 420, 165),
            at("75.50 EUR,", 333, 421, 96),
        ],
        sentence,
    );
    assert!(three
        .iter()
        .any(|l| l.text == sentence && l.line == Rect::new(193, 420, 415, 12)));
    let gapped = with_words_joined(
        vec![
            at("Invoice 4710:", 193, 420, 125),
            at("75.50 EUR,", 333, 421, 96),
            at("due 2 April 2027.", 470, 420, 165),
        ],
        sentence,
    );
    assert_eq!(gapped.len(), 3, "a part further than a text height");
    // Two titles of a menu bar, as far apart as a terminal's words, among others: items.
    let bar = vec![
        at("File", 12, 7, 32),
        at("Edit", 61, 7, 35),
        at("Search", 112, 7, 60),
        at("Preferences", 189, 7, 107),
    ];
    assert_eq!(
        with_words_joined(bar, "Edit Search").len(),
        4,
        "a bar of items"
    );
}

/// A terminal sets each ideograph in two cells, and a reader may cut a caption at those
/// gaps (mc's `建目 录 (M)`): the parts say the caption together, its mnemonic taken in, a
/// shortcut column further on is no item beside it. A status line's brackets read alone
/// and a part read twice in one place (`[ 已写入 2 行 ]`) are nothing else along the row.
#[test]
fn an_ideographic_caption_in_parts_is_one_with_its_mnemonic() {
    let at = |t: &str, x: i32, w: i32| SeenLabel {
        text: t.into(),
        line: Rect::new(x, 308, w, 14),
        control: None,
        conf: 90.0,
    };
    let item = with_words_joined(
        vec![
            at("建目", 111, 30),
            at("录", 147, 14),
            at("(M)", 167, 21),
            at("F7", 282, 16),
        ],
        "建目录",
    );
    assert!(
        item.iter()
            .any(|l| l.text == "建目 录 (M)" && l.line == Rect::new(111, 308, 77, 14)),
        "{item:?}"
    );
    let status = with_words_joined(
        vec![
            at("[", 383, 4),
            at("已写入", 399, 50),
            at("2", 462, 7),
            at("2", 466, 3),
            at("行", 480, 14),
        ],
        "已写入 2 行",
    );
    assert!(status.iter().any(|l| l.text == "已写入 2 行"), "{status:?}");
    // Another caption close beside it on the row: items of a bar, not one caption.
    let bar = with_words_joined(
        vec![at("建目", 111, 30), at("录", 147, 14), at("删除", 175, 30)],
        "建目录",
    );
    assert_eq!(bar.len(), 3, "{bar:?}");
}

/// A menu's caption read twice: on the menu bar among `File Edit View`, and as a tool
/// group's title alone on its row (TuxGuitar's `Composition`): the bar's is the menu. Two
/// on bars, or none, stay as they were (a tie for the verdict to refuse).
#[test]
fn a_menu_is_the_one_among_items() {
    let at = |text: &str, x: i32, y: i32| SeenLabel {
        text: text.into(),
        line: Rect::new(x, y, 70, 13),
        control: None,
        conf: 90.0,
    };
    let cand = |x: i32, y: i32| Candidate {
        rect: Rect::new(x, y, 70, 13),
        text: "Composition".into(),
        role: Role::Menu,
        score: 1.0,
    };
    let bar = [
        at("File", 10, 7),
        at("Edit", 90, 7),
        at("Composition", 170, 7),
        at("Track", 250, 7),
    ];
    let mut labels = bar.to_vec();
    labels.push(at("Composition", 10, 122));
    let kept = among_menus(vec![cand(170, 7), cand(10, 122)], &labels, &[]);
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].rect.y, 7, "the menu bar's");
    // Inside a popup: an item too.
    let kept = among_menus(
        vec![cand(170, 7), cand(10, 122)],
        &labels,
        &[Rect::new(0, 100, 200, 200)],
    );
    assert_eq!(kept.len(), 2, "both items: still a tie");
    // Neither among items: as they were.
    let alone = [at("Composition", 10, 122), at("Composition", 300, 300)];
    let kept = among_menus(vec![cand(10, 122), cand(300, 300)], &alone, &[]);
    assert_eq!(kept.len(), 2);
    // A table's row of cells further down is a row of items too: with no menu open, the
    // window's first row of words (the menu bar) is the menu's (FileZilla's `File` menu
    // and a file list's type cell `File`).
    let mut table = bar.to_vec();
    table.extend([
        at(".keep", 10, 347),
        at("0", 90, 347),
        at("Composition", 250, 347),
    ]);
    let kept = among_menus(vec![cand(170, 7), cand(250, 347)], &table, &[]);
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].rect.y, 7, "the menu bar's");
    // The same with a menu open over the window: both stay (an open menu decides).
    let kept = among_menus(
        vec![cand(170, 7), cand(250, 347)],
        &table,
        &[Rect::new(200, 300, 200, 100)],
    );
    assert_eq!(kept.len(), 2);
}

/// One reader reads `Save` at a button, the other `Open`; an `Open` button stands
/// elsewhere: which of the two that place is, no reading can tell — refused.
#[test]
fn readers_that_disagree_on_a_caption_that_is_another_controls_are_a_refusal() {
    let labels = [seen("Save", 10), seen("Open", 100), seen("Cancel", 200)];
    let at = Rect::new(10, 10, 40, 14);
    assert_eq!(
        witness("Save", "Open", at, &labels),
        Witness::Conflicts {
            reading: "Open".into(),
            other: "Open".into()
        }
    );
    // The same reading where no other control is captioned so: a misreading, no conflict.
    let alone = [seen("Save", 10), seen("Cancel", 200)];
    assert_eq!(witness("Save", "Open", at, &alone), Witness::Agrees);
    // A near spelling of the target, or nothing read: agreement.
    assert_eq!(witness("File", "Eile", at, &labels), Witness::Agrees);
    assert_eq!(witness("Save", "", at, &labels), Witness::Agrees);
    assert_eq!(witness("Save", "Save", at, &labels), Witness::Agrees);
    // The other reading's twin at the same place is no other control.
    let same_place = [seen("Save", 10), seen("Open", 12)];
    assert_eq!(witness("Save", "Open", at, &same_place), Witness::Agrees);
    // The caption with a word more is another control, twin or not.
    assert!(matches!(
        witness("Save", "Save As...", at, &alone),
        Witness::Conflicts { .. }
    ));
    // Where the first reader missed the target, its own reading of the place must be
    // nothing, the target or a near spelling: any other caption refuses it.
    assert!(first_reading_allows("Save", ""));
    assert!(first_reading_allows("File", "Eile"));
    assert!(first_reading_allows("View", "yiew"));
    assert!(first_reading_allows("Load", "(Load)"));
    assert!(first_reading_allows("OK", "[< 0K >]"));
    assert!(!first_reading_allows("OK", "JK"));
    // A bracket or a frame read beside the caption is no word added.
    assert_eq!(witness("Save", "(Save)", at, &alone), Witness::Agrees);
    assert!(!first_reading_allows("Install", "Uninstall"));
    assert!(!first_reading_allows("Save", "Save As..."));
}

fn c(x: i32, score: f64) -> Candidate {
    Candidate {
        rect: Rect::new(x, 10, 100, 30),
        text: "确定".into(),
        role: Role::Button,
        score,
    }
}

#[test]
fn one_clear_winner_is_taken() {
    assert!(matches!(decide(vec![c(0, 1.0)], None), Decision::Winner(_)));
    assert!(matches!(
        decide(vec![c(0, 1.0), c(300, 0.8)], None),
        Decision::Winner(w) if w.rect.x == 0
    ));
    assert!(matches!(decide(vec![], None), Decision::Nothing));
}

#[test]
fn a_tie_is_refused_unless_one_is_clearly_where_it_was() {
    assert!(matches!(
        decide(vec![c(0, 1.0), c(300, 1.0)], None),
        Decision::Ambiguous(v) if v.len() == 2
    ));
    let rec = Some(Rect::new(310, 12, 100, 30));
    assert!(matches!(
        decide(vec![c(0, 1.0), c(300, 1.0)], rec),
        Decision::Winner(w) if w.rect.x == 300
    ));
    let between = Some(Rect::new(150, 12, 100, 30));
    assert!(matches!(
        decide(vec![c(0, 1.0), c(300, 1.0)], between),
        Decision::Ambiguous(_)
    ));
}

/// What was read of a mark after a caption: nothing legible, or one ideograph after a
/// Latin caption, is a sign; a letter or digit of the caption's script, two glyphs, or an
/// ideograph after a Chinese caption are words.
#[test]
fn a_lone_sign_after_a_caption_is_no_word() {
    let mark = Rect::new(370, 350, 16, 12);
    assert!(lone_sign("", "OK", mark, 11));
    assert!(lone_sign("↵", "OK", mark, 11));
    assert!(lone_sign("今", "OK", mark, 11));
    assert!(!lone_sign("2", "Page", mark, 11));
    assert!(!lone_sign("A", "Save", mark, 11));
    assert!(!lone_sign("全部", "Delete", mark, 11));
    assert!(!lone_sign("今", "确定", mark, 11));
    assert!(!lone_sign("今", "OK", Rect::new(370, 350, 40, 12), 11));
}

/// A refusal names the line that holds the wanted words among more words; a glyph more
/// (a radio's diamond read `0`) or a path whose name joins the words with `_` is no such
/// line.
#[test]
fn a_refusal_names_the_line_holding_the_words_among_more() {
    let at = |text: &str| SeenLabel {
        text: text.into(),
        line: Rect::new(0, 0, 100, 10),
        control: None,
        conf: 90.0,
    };
    let said = read_inside(&[at("File"), at("INVOICE 4711 MARKED PAID")], "MARKED PAID");
    assert!(said.contains("inside 'INVOICE 4711 MARKED PAID'"), "{said}");
    assert_eq!(read_inside(&[at("0 Once")], "Once"), "");
    assert_eq!(
        read_inside(
            &[at("/tmp/real-apps/emacs-default-save_as-rk/work/")],
            "Save As..."
        ),
        ""
    );
    assert_eq!(read_inside(&[at("Save As...")], "Save As..."), "");
}

/// An icon view wraps "Internet Settings" under its icon, centred: the two lines are one
/// caption; lines beside each other, off-centre or of another size are not.
#[test]
fn a_caption_wrapped_under_an_icon_is_one_caption() {
    let at = |text: &str, x: i32, y: i32, w: i32, h: i32| SeenLabel {
        text: text.into(),
        line: Rect::new(x, y, w, h),
        control: None,
        conf: 90.0,
    };
    let view = vec![
        at("Add/", 28, 60, 22, 10),
        at("Remove", 18, 72, 38, 10),
        at("Programs", 14, 84, 46, 10),
        at("Game", 100, 60, 26, 10),
        at("Controllers", 88, 72, 51, 10),
        at("Internet", 170, 60, 37, 10),
        at("Settings", 170, 72, 38, 10),
    ];
    let joined: Vec<String> = stacked_captions(&view)
        .into_iter()
        .map(|l| l.text)
        .collect();
    for want in [
        "Internet Settings",
        "Game Controllers",
        "Add/ Remove Programs",
    ] {
        assert!(joined.iter().any(|j| j == want), "{want} in {joined:?}");
    }
    let rect = stacked_captions(&view)
        .into_iter()
        .find(|l| l.text == "Internet Settings")
        .unwrap()
        .line;
    assert_eq!(rect, Rect::new(170, 60, 38, 22));
    // Side by side, or one line far below, or a heading twice the size: no caption.
    assert!(!joined
        .iter()
        .any(|j| j.contains("Settings Game") || j.contains("Programs Game")));
    let apart = vec![
        at("Internet", 170, 60, 37, 10),
        at("Settings", 170, 100, 38, 10),
    ];
    assert!(stacked_captions(&apart).is_empty());
    let off = vec![
        at("Internet", 170, 60, 37, 10),
        at("Settings", 260, 72, 38, 10),
    ];
    assert!(stacked_captions(&off).is_empty());
    let heading = vec![
        at("Internet", 170, 60, 80, 24),
        at("Settings", 190, 86, 38, 10),
    ];
    assert!(stacked_captions(&heading).is_empty());
}

#[test]
fn an_exact_caption_is_not_tied_with_another_caption_two_letters_away() {
    let read = |x: i32, text: &str, score: f64| Candidate {
        text: text.into(),
        ..c(x, score)
    };
    let target = "Import Registry File...";
    let v = verdict(
        vec![
            read(0, "Import Registry File...", 1.0),
            read(200, "Export Registry File...", 0.89),
        ],
        None,
        target,
    );
    assert!(matches!(v, Some(Ok(w)) if w.rect.x == 0));
    // One letter off, or letters that look alike, may be the target misread: still a tie.
    for near in [
        "Import Registry Flle...",
        "lmport Registry File..",
        "Impart Registry File...",
    ] {
        let v = verdict(
            vec![read(0, target, 1.0), read(200, near, 0.9)],
            None,
            target,
        );
        assert!(matches!(v, Some(Err(_))), "{near} must stay a rival");
    }
    // With no exact reading, two near ones stay a tie.
    let v = verdict(
        vec![
            read(0, "Irnport Registry File", 0.9),
            read(200, "Export Registry File", 0.85),
        ],
        None,
        target,
    );
    assert!(matches!(v, Some(Err(_))));
}

#[test]
fn the_same_control_read_twice_is_one_candidate() {
    assert!(matches!(
        decide(vec![c(0, 0.9), c(2, 1.0)], None),
        Decision::Winner(w) if w.score == 1.0
    ));
}

#[test]
fn only_a_window_where_nothing_could_be_the_caption_is_asked_its_meaning_first() {
    let seen = |texts: &[&str]| -> Vec<SeenLabel> {
        texts
            .iter()
            .map(|t| SeenLabel {
                text: t.to_string(),
                line: Rect::new(0, 0, 40, 12),
                control: None,
                conf: 90.0,
            })
            .collect()
    };
    let english = seen(&["Customer ID", "Name", "Save", "2024-01-05"]);
    assert!(speaks_another_script("客户编号", &english));
    // Chinese data on an English screen shares no ideograph with the caption.
    assert!(speaks_another_script(
        "客户编号",
        &seen(&["Customer ID", "张三"])
    ));
    // One of the caption's ideographs read anywhere: it may be there, read in part.
    assert!(!speaks_another_script(
        "客户编号",
        &seen(&["Customer ID", "客户名称"])
    ));
    assert!(!speaks_another_script("删除", &seen(&["Delete", "删"])));
    assert!(!speaks_another_script("Save As", &english));
    assert!(speaks_another_script(
        "Save As",
        &seen(&["另存为", "名称：", "123"])
    ));
    // A mnemonic's one letter, an id's prefix: no Latin word.
    assert!(speaks_another_script(
        "Save As",
        &seen(&["另存为(A)...", "(S)", "C001"])
    ));
    assert!(!speaks_another_script("Save As", &seen(&["另存为", "Sa"])));
    // Digits have no script; a window that read nothing tells nothing.
    assert!(!speaks_another_script("1234", &english));
    assert!(!speaks_another_script("客户编号", &[]));
}
