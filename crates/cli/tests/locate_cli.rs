//! `mend locate` on checked-in screenshots: the answer's shape and the exit codes
//! (0 found, 1 refused, 2 bad input). No X server needed.

use std::path::PathBuf;
use std::process::Command;

fn shot(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/screenshots")
        .join(rel)
}

fn mend(args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mend"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let json = serde_json::from_str(&stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code().unwrap(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_relabeled_button_is_found_with_window_and_screen_boxes() {
    let img = shot("zh/relabeled/main.png");
    let (code, j, _) = mend(&[
        "locate",
        "--window",
        "客户管理系统",
        "--text",
        "查询",
        "--role",
        "button",
        "--json",
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    assert_eq!(j["strategy"], "fuzzy_ocr");
    // The window's origin (121,144 on screen) separates the two boxes.
    assert_eq!(
        j["screen_box"]["x"].as_i64().unwrap() - j["box"]["x"].as_i64().unwrap(),
        121
    );
    assert!(j["confidence"].as_f64().unwrap() >= 0.8);
}

#[test]
fn a_decoy_is_refused_with_exit_1_and_its_code() {
    let img = shot("zh/decoy/main.png");
    let (code, j, _) = mend(&[
        "locate",
        "--window",
        ".*",
        "--text",
        "删除",
        "--role",
        "button",
        "--json",
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert_eq!(j["error"], "LOCATOR_NOT_FOUND");
}

#[test]
fn bad_arguments_exit_2_with_a_message() {
    let img = shot("zh/baseline/main.png");
    let (code, _, err) = mend(&[
        "locate",
        "--window",
        ".*",
        "--text",
        "查询",
        "--role",
        "knob",
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("INVALID_ARGUMENT") && err.contains("knob"),
        "{err}"
    );
    let (code, _, err) = mend(&[
        "locate",
        "--window",
        ".*",
        "--near",
        "用户名",
        "--offset",
        "ten,0",
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = mend(&["locate", "--text", "x"]);
    assert_eq!(code, 2, "missing --window is a usage error");
}

#[test]
fn a_missing_window_is_window_not_found() {
    let img = shot("zh/baseline/main.png");
    let (code, _, err) = mend(&[
        "locate",
        "--window",
        "Nope",
        "--text",
        "查询",
        "--image",
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(err.contains("WINDOW_NOT_FOUND"), "{err}");
}
