//! A field's recorded crop holds its caption (`Locator::crop_for`, what `mend record` keeps):
//! the exact rung places the field by its caption's and its own pixels together. A crop of the
//! field alone — any empty field looks like it — never lets the caption go unread.
//! No X server needed: the practice app's checked-in screenshots.

use mend_capture::{Capture, Frame, ImageFileCapture, WindowQuery};
use mend_locate::{Locator, Recorded};
use mend_model::{Rect, Role, Strategy, Target};
use std::path::PathBuf;

fn frame(variant: &str) -> Frame {
    let png = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots/zh")
        .join(variant)
        .join("login.png");
    let cap = ImageFileCapture::open(&png).unwrap();
    cap.capture(&WindowQuery::title(".*").unwrap()).unwrap()
}

/// The login screen's user-name field and password field (frame pixels, zh baseline).
const USER: Rect = Rect {
    x: 326,
    y: 172,
    w: 197,
    h: 26,
};
const PASSWORD: Rect = Rect {
    x: 326,
    y: 222,
    w: 197,
    h: 26,
};

fn user_field() -> Target {
    Target {
        text: Some("用户名".into()),
        role: Role::Field,
        recorded: Some(USER),
        ..Target::default()
    }
}

#[test]
fn a_fields_crop_holds_its_caption_and_the_exact_rung_places_the_field_by_it() {
    let mut loc = Locator::new("chi_sim+eng").expect("tesseract with chi_sim+eng");
    let base = frame("baseline");
    let at = loc
        .crop_for(&base, &user_field(), USER)
        .expect("the caption 用户名 is read left of the field");
    assert_eq!((at.y, at.h, at.right()), (USER.y, USER.h, USER.right()));
    assert!(
        at.x < USER.x - 40,
        "the crop {at:?} does not reach over the caption"
    );
    let rec = Recorded {
        template: mend_vision::crop(&base.image, at),
    };
    // The same screen, and the screen moved: the field, by the exact rung.
    for variant in ["baseline", "moved"] {
        loc.clear_caches();
        let f = frame(variant);
        let l = loc.locate(&f, &user_field(), &rec).unwrap();
        assert_eq!(l.strategy, Strategy::Exact, "{variant}");
        assert!(
            l.rect.w < at.w,
            "{variant}: the caption is no part of the field"
        );
        if variant == "baseline" {
            assert!(l.rect.iou(&USER) > 0.8, "{variant}: {:?}", l.rect);
        }
    }
    // A field under a caption the flow does not name is not it: no crop.
    let other = Target {
        text: Some("电话".into()),
        ..user_field()
    };
    assert_eq!(loc.crop_for(&base, &other, USER), None);
}

/// The password row (caption and field) drawn over the user-name row: the same empty box in
/// the same place, under another caption.
fn password_in_the_user_row() -> Frame {
    let mut f = frame("baseline");
    let row = |r: Rect| Rect::new(r.x - 200, r.y, r.w + 200, r.h);
    let (from, to) = (row(PASSWORD), row(USER));
    let patch = mend_vision::crop(&f.image, from).unwrap();
    image::imageops::replace(&mut f.image, &patch, to.x as i64, to.y as i64);
    f
}

#[test]
fn an_empty_field_under_another_caption_is_not_taken_for_its_pixels() {
    let mut loc = Locator::new("chi_sim+eng").expect("tesseract with chi_sim+eng");
    let base = frame("baseline");
    let swapped = password_in_the_user_row();
    let crops = [
        ("the field alone", Some(USER)),
        (
            "the field with its caption",
            loc.crop_for(&base, &user_field(), USER),
        ),
    ];
    for (what, at) in crops {
        let rec = Recorded {
            template: at.and_then(|r| mend_vision::crop(&base.image, r)),
        };
        loc.clear_caches();
        // A refusal is right; so is a field elsewhere — never the one in the user-name row.
        if let Ok(l) = loc.locate(&swapped, &user_field(), &rec) {
            assert!(
                l.rect.iou(&USER) < 0.5,
                "{what}: the password field, now in the user-name row, was taken by {} ({:?})",
                l.strategy.as_str(),
                l.rect
            );
        }
    }
}
