//! Whether a field holds the text just typed: a field's reading judged against the text — a
//! misreading forgiven, letters joined to it (what the field held before, a completion) or lost
//! from inside it told, a text wider than its field judged at its ends — each reader's verdict
//! and the readers' together.

/// What a field's reading says of the text just typed into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ReadBack {
    /// The reading is the text (or a misreading of it: one letter in five may differ).
    Holds,
    /// The reading holds the text with letters joined to it that were not typed: what the
    /// field held before the keys (`guest` + `admin`, `9` + `20`) or a completion.
    More(String),
    /// Nothing to tell from (a masked field, text wider than the field, OCR noise).
    Unsure,
    /// Another value than the text: two readers agree on a reading that is not it, or a
    /// reader reads it right but for a letter or two lost from inside it (an application's
    /// completion racing the keys: `/rot/` for `/root/`) and no reader reads a letter there.
    Other(String),
}

/// The readings of each reader, judged together: more seen by any reader is more; a letter
/// lost that no other reader gainsays, or two readers that read the same line, not the text,
/// hold another value; else the first reader's verdict, a misreading forgiven.
pub(super) fn read_back_by(readings: &[String], typed: &str) -> ReadBack {
    let verdicts: Vec<ReadBack> = readings.iter().map(|r| read_back(r, typed)).collect();
    if let Some(more) = verdicts.iter().find(|v| matches!(v, ReadBack::More(_))) {
        return more.clone();
    }
    // A reader that reads the text but for a letter or two missing from inside it (a lost
    // letter, as OCR seldom drops a glyph between two it reads right), where no other reader
    // reads a letter there.
    let ft = fold(typed);
    for (i, seen) in readings.iter().enumerate() {
        let Some(lost) = lost_inside(seen, typed) else {
            continue;
        };
        let gainsaid = readings.iter().enumerate().any(|(j, other)| {
            j != i && {
                let (missing, _) = aligned(&fold(&inner(other, typed)), &ft);
                lost.iter().any(|k| !missing.contains(k))
            }
        });
        if !gainsaid {
            return ReadBack::Other(seen.clone());
        }
    }
    // Two readers agree, on more than what both misread alike (case, 0 and O, 1 and l), and
    // only inside the text: a field that cut the text's ends (scrolled, clipped) is no witness.
    if let [a, b] = readings {
        let (fa, fb, ft) = (fold(&inner(a, typed)), fold(&inner(b, typed)), fold(typed));
        let same_ends = fa.first() == ft.first() && fa.last() == ft.last();
        if fa == fb && fa != ft && same_ends && verdicts[0] == ReadBack::Holds {
            return ReadBack::Other(a.clone());
        }
    }
    verdicts.into_iter().next().unwrap_or(ReadBack::Unsure)
}

/// The edit distances between the beginnings of `a` and of `b`: `d[i][j]` is how many
/// letters put in, left out or changed make `a[..i]` into `b[..j]`.
fn edits(a: &[char], b: &[char]) -> Vec<Vec<usize>> {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let same = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j - 1] + same)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
        }
    }
    d
}

/// Where the folded reading `seen` lacks letters of the folded text `t`, aligned letter by
/// letter: the indices of `t` it lacks (each moved to the start of its run of one letter:
/// either `o` of `oo` is the same loss), and how many other edits (a letter read as another,
/// one more) the alignment takes.
fn aligned(seen: &[char], t: &[char]) -> (Vec<usize>, usize) {
    let (n, m) = (t.len(), seen.len());
    let d = edits(t, seen);
    let (mut i, mut j) = (n, m);
    let (mut missing, mut other) = (Vec::new(), 0);
    while i > 0 || j > 0 {
        if i > 0 && j > 0 && t[i - 1] == seen[j - 1] && d[i][j] == d[i - 1][j - 1] {
            (i, j) = (i - 1, j - 1);
        } else if i > 0 && d[i][j] == d[i - 1][j] + 1 {
            let mut k = i - 1;
            while k > 0 && t[k - 1] == t[k] {
                k -= 1;
            }
            missing.push(k);
            i -= 1;
        } else {
            other += 1;
            if i > 0 && j > 0 && d[i][j] == d[i - 1][j - 1] + 1 {
                i -= 1;
            }
            j -= 1;
        }
    }
    missing.sort_unstable();
    missing.dedup();
    (missing, other)
}

/// Where the reading `seen` is the text `typed` with one or two letters or digits missing
/// from inside it and nothing else changed (but what OCR confuses alike: case, 0 and O, 1
/// and l): those letters' places in the folded text. A missing mark (`.`, `/`) is no sign:
/// OCR drops thin marks; a missing first or last letter neither: a field cuts its ends.
fn lost_inside(seen: &str, typed: &str) -> Option<Vec<usize>> {
    let (fs, ft) = (fold(&inner(seen, typed)), fold(typed));
    if ft.len() < 4 || fs.len() >= ft.len() || ft.len() - fs.len() > 2 {
        return None;
    }
    let (missing, other) = aligned(&fs, &ft);
    let inside = |&k: &usize| k > 0 && k + 1 < ft.len() && ft[k].is_alphanumeric();
    (other == 0 && !missing.is_empty() && missing.iter().all(inside)).then_some(missing)
}

/// A reading without a cursor or edge glyph at either end (see [`read_back`]).
fn inner(seen: &str, typed: &str) -> String {
    let t: Vec<char> = typed.trim().chars().collect();
    without_edges(seen.trim().chars().collect(), &t, false)
        .into_iter()
        .collect()
}

/// `chars` without one cursor or edge glyph at each end, where the typed text `t` does not
/// end so; with `only_longer`, only while the reading is longer than the text.
fn without_edges(mut chars: Vec<char>, t: &[char], only_longer: bool) -> Vec<char> {
    let room = |chars: &Vec<char>| !only_longer || chars.len() > t.len();
    if room(&chars) && chars.last().is_some_and(|&c| edge_glyph(c, t)) && t.last() != chars.last() {
        chars.pop();
    }
    if room(&chars)
        && chars.first().is_some_and(|&c| edge_glyph(c, t))
        && t.first() != chars.first()
    {
        chars.remove(0);
    }
    chars
}

/// A text as two readers may both misread it: no spaces, one case, 0 as o, 1 i | as l.
fn fold(s: &str) -> Vec<char> {
    s.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            '0' => 'o',
            '1' | 'i' | '|' | '!' => 'l',
            c => c,
        })
        .collect()
}

/// A glyph a text cursor or a field's edge reads as, beside the text: a bar, a bracket, a
/// drop-down's arrow — read as an ideograph by the Chinese model when the text has none
/// (a combo box's arrow glued to `copy.fodt` read `copy.fodt局`).
fn edge_glyph(c: char, typed: &[char]) -> bool {
    let ideograph = mend_ocr::is_ideograph;
    matches!(
        c,
        '|' | 'l' | 'I' | '1' | '!' | '[' | ']' | '(' | ')' | '\'' | '"' | '`' | '▼' | '▾' | '▽'
    ) || (ideograph(c) && !typed.iter().any(|&t| ideograph(t)))
}

/// Whether the letters touching the text on one side (up to a space) hold a letter or digit:
/// `.bak` after `copy.txt` does, a lone `.` of noise does not.
fn joined(side: impl Iterator<Item = char>) -> bool {
    side.take_while(|c| !c.is_whitespace())
        .any(|c| c.is_alphanumeric())
}

/// Judge a field's reading `seen` against the text `typed` into it. Only letters *joined* to
/// the typed text count as more (a drop-down's arrow or a caption beside the field reads as a
/// word apart); one cursor- or edge-like glyph at either end is not taken as a letter.
fn read_back(seen: &str, typed: &str) -> ReadBack {
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let (seen, typed) = (squash(seen), squash(typed));
    if typed.is_empty() || seen.is_empty() {
        return ReadBack::Unsure;
    }
    if seen == typed {
        return ReadBack::Holds;
    }
    let t: Vec<char> = typed.chars().collect();
    // One cursor or edge glyph at each end, if the text itself does not end so.
    let chars = without_edges(seen.chars().collect(), &t, true);
    let trimmed: String = chars.iter().collect();
    if trimmed == typed {
        return ReadBack::Holds;
    }
    let more = (0..chars.len().saturating_sub(t.len()) + 1)
        .filter(|&i| chars[i..].starts_with(&t))
        .any(|i| {
            joined(chars[..i].iter().rev().copied()) || joined(chars[i + t.len()..].iter().copied())
        });
    if more {
        return ReadBack::More(seen);
    }
    if mend_locate::text::similarity(&trimmed, &typed) >= mend_locate::text::FUZZY_MIN {
        return ReadBack::Holds;
    }
    ReadBack::Unsure
}

/// How a view of one end of a text wider than its field reads against the text: `seen` is
/// what the field shows with the caret walked to the text's start (`start`) or to its end.
/// `Other` when the text does not begin (end) there — three letters or digits in a row that
/// were not typed, or typed ones missing in a row, inside the view (a completion left `/tmp`
/// before `/work/…`); `Holds` when it does, a misreading forgiven (one edit in four); else
/// `Unsure` (too little read to tell). The view's far side is cut by the field: the text
/// runs on past it, and its last glyph may be half shown.
pub(super) fn ends_view(seen: &str, typed: &str, start: bool) -> ReadBack {
    let t: Vec<char> = typed.trim().chars().collect();
    let seen_inner: String = without_edges(seen.trim().chars().collect(), &t, false)
        .into_iter()
        .collect();
    let (mut s, mut ft) = (fold(&seen_inner), fold(typed));
    if !start {
        s.reverse();
        ft.reverse();
    }
    let (n, m) = (s.len(), ft.len());
    if n < 6 || m < 6 {
        return ReadBack::Unsure;
    }
    // Where the view and the text share their longest run of letters: a view that begins
    // three letters or more inside the text is no view of its end (the key did not scroll
    // the field there: Motif's text field, the view as typing left it) and tells nothing.
    match longest_common_run(&s, &ft) {
        Some((i, j, len)) if len >= 6 && j < i + 3 => {}
        _ => return ReadBack::Unsure,
    }
    // The whole view against a beginning of the text (the text goes on past the view).
    let d = edits(&s, &ft);
    let Some(end) = (0..=m).min_by_key(|&j| (d[n][j], j.abs_diff(n))) else {
        return ReadBack::Unsure;
    };
    // The edits in order from the view's own end: `+` a letter read that was not typed, `-`
    // a typed letter not read, `~` a letter read as another, each with the letter.
    let (mut i, mut j, mut ops) = (n, end, Vec::new());
    while i > 0 || j > 0 {
        if i > 0 && j > 0 && d[i][j] == d[i - 1][j - 1] + usize::from(s[i - 1] != ft[j - 1]) {
            (i, j) = (i - 1, j - 1);
            ops.push((s[i] != ft[j]).then_some(('~', s[i])));
        } else if i > 0 && d[i][j] == d[i - 1][j] + 1 {
            i -= 1;
            ops.push(Some(('+', s[i])));
        } else {
            j -= 1;
            ops.push(Some(('-', ft[j])));
        }
    }
    ops.reverse();
    // Letters or digits in a row that one side has and the other not, or that differ (thin
    // marks aside: OCR drops and adds those), the view's last glyph aside: OCR misreads a
    // letter here and there, never three in a row of a clean field (`draft` for `copy`).
    let mut longest = 0;
    let mut run = 0;
    for op in &ops[..ops.len().saturating_sub(1)] {
        match op {
            Some((_, c)) => run += usize::from(c.is_alphanumeric()),
            None => run = 0,
        }
        longest = longest.max(run);
    }
    if longest >= 3 {
        ReadBack::Other(seen.to_string())
    } else if d[n][end] * 4 <= n {
        ReadBack::Holds
    } else {
        ReadBack::Unsure
    }
}

/// The longest run of letters `a` and `b` share: where it starts in each, and its length.
fn longest_common_run(a: &[char], b: &[char]) -> Option<(usize, usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None;
    let mut prev = vec![0usize; b.len() + 1];
    for i in 1..=a.len() {
        let mut row = vec![0usize; b.len() + 1];
        for j in 1..=b.len() {
            if a[i - 1] == b[j - 1] {
                row[j] = prev[j - 1] + 1;
                if best.is_none_or(|(_, _, l)| row[j] > l) {
                    best = Some((i - row[j], j - row[j], row[j]));
                }
            }
        }
        prev = row;
    }
    best
}

/// Whether a field's readings show less of the text than was typed: a window of it, the text
/// wider than the field (each reading at least three letters short of it).
pub(super) fn wider_than_field(readings: &[String], typed: &str) -> bool {
    let ft = fold(typed).len();
    readings
        .iter()
        .any(|r| (6..ft.saturating_sub(2)).contains(&fold(&inner(r, typed)).len()))
}

#[cfg(test)]
mod tests {
    use super::{ends_view, read_back, read_back_by, wider_than_field, ReadBack};

    /// A path wider than its field, seen at its start and at its end. FLTK's file chooser
    /// completed `/t` to `/tmp/` as the keys came in and left `/tmp` before the path: the
    /// start shows four letters that were not typed. Views that are the text's ends (a glyph
    /// misread, the far glyph cut, a thin mark dropped) hold; too little read tells nothing.
    #[test]
    fn a_text_wider_than_its_field_is_judged_at_its_ends() {
        let path = "/work/main/target/real-apps/dillo-default-save_page-kSysp8/work/copy.html";
        assert_eq!(
            ends_view("/tmp/work/main/target/real-apps/dillo-d", path, true),
            ReadBack::Other("/tmp/work/main/target/real-apps/dillo-d".into())
        );
        assert_eq!(
            ends_view("/work/main/target/real-apps/dillo-d", path, true),
            ReadBack::Holds
        );
        assert_eq!(
            ends_view("|/work/rnain/target/real-apps/di", path, true),
            ReadBack::Holds,
            "a misread letter and the caret"
        );
        assert_eq!(
            ends_view("efault-save_page-kSysp8/work/copy.html", path, false),
            ReadBack::Holds
        );
        assert_eq!(
            ends_view("efault-save_page-kSysp8work/copy.html", path, false),
            ReadBack::Holds,
            "a slash dropped"
        );
        assert_eq!(
            ends_view("ault-save_page-kSysp8/work/copy.html/tmp", path, false),
            ReadBack::Other("ault-save_page-kSysp8/work/copy.html/tmp".into()),
            "a completion after the text"
        );
        assert_eq!(
            ends_view("ault-save_page-kSysp8/work/copy.h", path, false),
            ReadBack::Unsure,
            "a view ending three letters short of the text's end: a key that did not scroll, or letters lost — no verdict"
        );
        assert_eq!(ends_view("/wo", path, true), ReadBack::Unsure);
        // Another file's name at the end, as long as the text's: letters that differ in a row
        // (Motif's selection box put the list's last file into the box on End).
        assert_eq!(
            ends_view("ult-save_page-kSysp8/work/draft.html", path, false),
            ReadBack::Other("ult-save_page-kSysp8/work/draft.html".into())
        );
        // Keys that did not scroll the field: the view is the one typing left, its end — no
        // view of the start, and no verdict on it.
        assert_eq!(
            ends_view("efault-save_page-kSysp8/work/copy.html", path, true),
            ReadBack::Unsure
        );
        assert!(wider_than_field(
            &["k/main/target/real-apps/dil".into()],
            path
        ));
        assert!(!wider_than_field(&[path.into()], path));
        assert!(!wider_than_field(&["copy".into()], "copy.txt"));
    }

    #[test]
    fn a_reading_with_letters_joined_to_the_text_is_more() {
        assert_eq!(read_back("920", "20"), ReadBack::More("920".into()));
        assert_eq!(
            read_back("guestadmin", "admin"),
            ReadBack::More("guestadmin".into())
        );
        assert_eq!(
            read_back("adminadmin", "admin"),
            ReadBack::More("adminadmin".into())
        );
        assert_eq!(
            read_back("copy.txt.bak", "copy.txt"),
            ReadBack::More("copy.txt.bak".into())
        );
        assert_eq!(
            read_back("旧值新值", "新值"),
            ReadBack::More("旧值新值".into())
        );
    }

    #[test]
    fn the_text_misread_or_beside_a_cursor_holds() {
        assert_eq!(read_back("admin", "admin"), ReadBack::Holds);
        assert_eq!(read_back("  copy  of.txt ", "copy of.txt"), ReadBack::Holds);
        assert_eq!(read_back("admin|", "admin"), ReadBack::Holds);
        assert_eq!(read_back("|admin", "admin"), ReadBack::Holds);
        assert_eq!(read_back("20l", "20"), ReadBack::Holds);
        // A drop-down's arrow glued to the text, read as an ideograph the text does not have.
        assert_eq!(read_back("copy.fodt局", "copy.fodt"), ReadBack::Holds);
        assert_eq!(
            read_back("旧值新值", "新值"),
            ReadBack::More("旧值新值".into())
        );
        assert_eq!(read_back("adm1n", "admin"), ReadBack::Holds);
        assert_eq!(read_back("admin.", "admin"), ReadBack::Holds);
    }

    #[test]
    fn two_readers_that_agree_on_a_lost_letter_say_another_value() {
        let typed = "/root/work/copy.fodt";
        let rot = "/rot/work/copy.fodt".to_string();
        assert_eq!(
            read_back_by(&[rot.clone(), rot.clone()], typed),
            ReadBack::Other(rot.clone())
        );
        // One reader alone that reads every other letter right is a witness too; another
        // reader that reads the letter there gainsays it (a misreading).
        assert_eq!(
            read_back_by(std::slice::from_ref(&rot), typed),
            ReadBack::Other(rot.clone())
        );
        assert_eq!(
            read_back_by(&[rot.clone(), typed.to_string()], typed),
            ReadBack::Holds
        );
        assert_eq!(
            read_back_by(&[typed.to_string(), rot.clone()], typed),
            ReadBack::Holds
        );
        // What both readers misread alike, and a cursor one of them saw, is the text.
        assert_eq!(
            read_back_by(&["KVuSF3|".into(), "KVUSF3".into()], "KVUSF3"),
            ReadBack::Holds
        );
        assert!(!matches!(
            read_back_by(&["C0O2".into(), "COO2".into()], "C002"),
            ReadBack::Other(_)
        ));
        // The LibreOffice reading: one reader saw the combo box's arrow as 局 as well.
        let typed = "/root/.cache/work/copy.fodt";
        assert_eq!(
            read_back_by(
                &[
                    "/rot/.cache/work/copy.fodt".into(),
                    "/rot/.cache/work/copy.fodt局".into()
                ],
                typed
            ),
            ReadBack::Other("/rot/.cache/work/copy.fodt".into())
        );
        // Ends cut off (a scrolled field) or a masked field: no verdict from agreement.
        assert_eq!(
            read_back_by(&["opy.txt".into(), "opy.txt".into()], "copy.txt"),
            ReadBack::Holds
        );
        assert_eq!(
            read_back_by(&["●●●●●".into(), "●●●●●".into()], "admin"),
            ReadBack::Unsure
        );
        // More seen by either reader is more.
        assert_eq!(
            read_back_by(&["920".into(), "20".into()], "20"),
            ReadBack::More("920".into())
        );
    }

    #[test]
    fn a_letter_lost_is_seen_through_what_both_readers_misread() {
        // LibreOffice's file name box, read live: the first reader reads `I` as `l`, the
        // witness `/` as `f` and drops the `.`; both lack an `o` of `root`.
        let typed = "/root/.cache/real-apps/lowriter-default-save_as-voVIuE/work/copy.fodt";
        let first = "/rot/.cache/real-apps/lowriter-default-save_as-voVluE/work/copy.fodt";
        let witness = "frot/.cache/real-apps/lowriter-default-save_as-voVIuE/work/copyfodt";
        assert_eq!(
            read_back_by(&[first.into(), witness.into()], typed),
            ReadBack::Other(first.into())
        );
        // A half-painted field cut at its end tells nothing.
        assert_eq!(
            read_back_by(
                &["I /rot/.cache/real-ap".into(), "frot/.cache/real-ap".into()],
                typed
            ),
            ReadBack::Unsure
        );
        // A lost mark (OCR drops thin ones), a letter read as another, a first letter cut by
        // the field's edge: no lost letter.
        for (seen, typed) in [
            ("copyfodt", "copy.fodt"),
            ("adrnin", "admin"),
            ("dmin", "admin"),
        ] {
            let v = read_back_by(&[seen.into()], typed);
            assert!(!matches!(v, ReadBack::Other(_)), "{seen}: {v:?}");
        }
        assert_eq!(
            read_back_by(&["amin".into()], "admin"),
            ReadBack::Other("amin".into())
        );
        // The witness reads the letter where the first lost it, though it misreads another.
        assert_eq!(
            read_back_by(&["amin".into(), "adm1n".into()], "admin"),
            ReadBack::Holds
        );
    }

    #[test]
    fn a_reading_that_cannot_tell_is_unsure() {
        // A masked field, text wider than the field, an arrow or caption apart from it.
        assert_eq!(read_back("●●●●●", "admin"), ReadBack::Unsure);
        assert_eq!(read_back("py.xpm", "copy.xpm"), ReadBack::Unsure);
        assert_eq!(read_back("20 v", "20"), ReadBack::Unsure);
        assert_eq!(read_back("", "20"), ReadBack::Unsure);
        // A cursor glyph is not taken as a letter; a leftover "1" beside it cannot be told.
        assert_eq!(read_back("201", "20"), ReadBack::Holds);
    }
}
