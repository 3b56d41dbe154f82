//! `mend validate`: the sample flows are valid; every file of the malformed corpus is
//! FLOW_INVALID with file:line:col, exit 2, and no panic.

use std::path::PathBuf;
use std::process::Command;

fn flows() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/flows")
}

fn validate(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mend"))
        .arg("validate")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sample_flows_are_valid() {
    let dir = flows();
    // The Chinese sample flows, and their English UI's copies (`en/`, the bench's).
    for f in [
        "login_edit_save.toml",
        "delete_with_confirm.toml",
        "en/login_edit_save.toml",
        "en/delete_with_confirm.toml",
    ] {
        let (code, out, err) = validate(&[dir.join(f).to_str().unwrap()]);
        assert_eq!(code, 0, "{f}: {err}");
        assert!(out.contains("valid"), "{out}");
    }
    // The work-list flow needs its data file for ${name}, ${phone}, ${balance}.
    let wl = dir.join("new_customers.toml");
    let (code, _, err) = validate(&[wl.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("${name}") && err.contains("--data"), "{err}");
    for wl in [wl, dir.join("en/new_customers.toml")] {
        let (code, _, err) = validate(&[
            wl.to_str().unwrap(),
            "--data",
            dir.join("customers.csv").to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{}: {err}", wl.display());
    }
}

#[test]
fn every_malformed_flow_is_flow_invalid_with_a_position() {
    let mut n = 0;
    for e in std::fs::read_dir(flows().join("invalid")).unwrap() {
        let p = e.unwrap().path();
        let (code, _, err) = validate(&[p.to_str().unwrap()]);
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains("FLOW_INVALID"), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        if name != "not_utf8.toml" {
            let pos = regex_like_position(&err, &name);
            assert!(pos, "{name}: no file:line:col in '{err}'");
        }
        n += 1;
    }
    assert!(n >= 14, "corpus has {n} files");
}

/// "<path>/name.toml:L:C:" somewhere in the message.
fn regex_like_position(err: &str, name: &str) -> bool {
    err.split(name).skip(1).any(|rest| {
        let mut parts = rest.trim_start_matches(':').splitn(3, ':');
        matches!((parts.next(), parts.next()), (Some(l), Some(c)) if l.parse::<u32>().is_ok() && c.parse::<u32>().is_ok())
    })
}

#[test]
fn a_step_that_cannot_be_redone_safely_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("w.toml");
    std::fs::write(
        &p,
        r#"version = 1
name = "w"
[window]
title = "T"
[[step]]
action = "type"
target = { text = "Notes" }
text = "x"
[[step]]
id = "save"
action = "click"
target = { text = "Save", role = "button" }
risk = "write"
"#,
    )
    .unwrap();
    let (code, out, err) = validate(&[p.to_str().unwrap()]);
    assert_eq!(code, 0, "valid, with warnings: {err}");
    assert!(out.contains("valid"), "{out}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 2, "{err}");
    assert!(warnings[0].contains("step 1") && warnings[0].contains("role = \"field\""));
    assert!(warnings[1].contains("step 2 ('save')") && warnings[1].contains("RESUME_UNVERIFIED"));
    // The sample flows give none.
    let (_, _, err) = validate(&[flows().join("login_edit_save.toml").to_str().unwrap()]);
    assert!(!err.contains("warning"), "{err}");
}
