//! Pixels of real third-party apps (issue 13), cut from screenshots of their windows under
//! Xvfb: a GTK 3 find-and-replace dialog (mousepad, Adwaita) and Wine's check boxes (winecfg's
//! Graphics tab, 8 pt). Boxes here are the crops' pixels, measured once on the PNG.

use mend_model::Rect;
use mend_vision::{check_state, field_is_blank, find_check_indicator, find_control_boxes};

fn screen(name: &str) -> image::RgbaImage {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/screens")
        .join(name);
    image::open(&p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .to_rgba8()
}

#[test]
fn a_gtk_combo_entry_with_its_arrow_is_an_empty_field() {
    let img = screen("gtk_find_replace.png");
    // The "Search for:" entry and its drop button, as the locator boxes it.
    let b = find_control_boxes(&img)
        .into_iter()
        .find(|b| b.rect.contains(mend_model::Point { x: 200, y: 52 }) && b.rect.w > 200)
        .expect("the entry's frame");
    assert!(
        b.rect.right() > 400,
        "the box takes in the arrow: {:?}",
        b.rect
    );
    assert!(field_is_blank(&img, b.rect), "{:?}", b.rect);
}

#[test]
fn gtk_check_boxes_are_found_beside_their_captions_and_read() {
    let img = screen("gtk_find_replace.png");
    // (caption, its indicator, ticked)
    let cases = [
        (
            Rect::new(36, 236, 92, 14),
            Rect::new(16, 236, 16, 16),
            false,
        ), // Replace all in:
        (
            Rect::new(238, 121, 83, 14),
            Rect::new(218, 120, 16, 16),
            true,
        ), // Wrap around
        (
            Rect::new(36, 152, 74, 14),
            Rect::new(16, 152, 16, 16),
            false,
        ), // Match case
    ];
    for (caption, want, ticked) in cases {
        let got = find_check_indicator(&img, caption)
            .unwrap_or_else(|| panic!("no indicator beside {caption:?}"));
        assert!(
            got.iou(&want) > 0.5,
            "beside {caption:?}: {got:?}, want {want:?}"
        );
        assert_eq!(check_state(&img, got), Some(ticked), "{caption:?}");
    }
    // The "Search for:" label has a field beside it, not a check box.
    assert_eq!(find_check_indicator(&img, Rect::new(12, 44, 70, 14)), None);
}

#[test]
fn wine_check_boxes_are_found_left_of_their_captions_and_read() {
    let img = screen("wine_checks.png");
    // (caption, ticked): captions as OCR boxes them on this crop.
    let cases = [
        (Rect::new(24, 7, 317, 12), false), // Automatically capture the mouse …
        (Rect::new(24, 26, 296, 12), true), // Allow the window manager to decorate …
        (Rect::new(24, 46, 285, 12), true), // Allow the window manager to control …
        (Rect::new(24, 65, 46, 12), false), // Emulate
    ];
    for (caption, ticked) in cases {
        let b = find_check_indicator(&img, caption)
            .unwrap_or_else(|| panic!("no indicator beside {caption:?}"));
        assert!(
            b.right() <= caption.x && caption.x - b.right() <= 10 && b.w >= 11 && b.w <= 16,
            "beside {caption:?}: {b:?}"
        );
        assert!(
            (b.y + b.h / 2 - (caption.y + caption.h / 2)).abs() <= 3,
            "{b:?}"
        );
        assert_eq!(check_state(&img, b), Some(ticked), "{caption:?}: {b:?}");
    }
}

/// GNU nano's shortcut rows (xterm's 6×13 font): each key in reverse video, its caption a cell
/// to the right. The caption's line (as Tesseract boxes `Write Out`) with its key is the item;
/// a caption with no key before it (the file's own text) is none.
#[test]
fn a_key_in_reverse_video_before_a_caption_makes_it_a_shortcut_item() {
    let img = screen("nano_shortcuts.png");
    let item = mend_vision::key_badge(&img, Rect::new(104, 368, 53, 9)).expect("^O Write Out");
    assert_eq!((item.x, item.right()), (86, 157), "{item:?}");
    let item = mend_vision::key_badge(&img, Rect::new(527, 368, 27, 9)).expect("M-U Undo");
    assert_eq!(item.x, 506, "{item:?}");
    // `4710 paid`, a line of the file at the window's left edge.
    assert_eq!(mend_vision::key_badge(&img, Rect::new(1, 30, 54, 9)), None);
    // `Read 2 lines` on the status line: reverse video itself, no key before it.
    assert_eq!(
        mend_vision::key_badge(&img, Rect::new(258, 355, 88, 9)),
        None
    );
}
