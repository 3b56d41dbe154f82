//! When do two labels mean the same control?
//!
//! Legacy relabels keep the meaning by adding a mnemonic (查询 → 查询(Q)), trailing punctuation
//! (用户名 → 用户名：, Edit → Edit…), or switching full-/half-width forms; those normalise away.
//! A *word* added changes the meaning (删除 → 删除全部, Save → Save as): after normalisation the
//! seen label contains the wanted one plus letters, and that is never a match, however similar.
//! Otherwise similarity is 1 − Levenshtein / longer length over characters, accepted from 0.8.

/// Full-width ASCII forms and the ideographic space → their half-width forms.
fn half_width(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        0x3000 => ' ',
        _ => match c {
            '：' => ':',
            '（' => '(',
            '）' => ')',
            '…' => '.',
            '。' => '.',
            _ => c,
        },
    }
}

/// Canonical form for comparing labels: half-width, lower case, mnemonics and trailing
/// punctuation removed, whitespace removed ("Log in" == "Login"). A caption that is nothing
/// but punctuation (a calculator's ".", "*", "-") is its own canonical form.
pub fn normalize(label: &str) -> String {
    let words = normalize_words(label);
    if !words.is_empty() {
        return words;
    }
    label
        .chars()
        .map(half_width)
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_lowercase()
}

fn normalize_words(label: &str) -> String {
    let s: String = without_marks_below(&drop_cjk_underlines(label))
        .chars()
        .map(half_width)
        .collect::<String>()
        .to_lowercase();
    let s = dot_between_letters(&s);
    // A control's border read as '|' or '[' / ']' at either end of its caption is not part of
    // it ("[edit" for Edit… on a dark-theme button whose left bevel was read).
    let mut s = s
        .replace('&', "")
        .trim_start_matches(['|', '[', ' '])
        .to_string();
    // Mnemonic in parentheses at the end, closed or cut off by OCR: "(q)", "(q", "( q )".
    loop {
        let t = s
            .trim_end()
            .trim_end_matches([':', ';', '.', ' ', '>', '*', '…', '|', ']'])
            .to_string();
        let stripped = strip_mnemonic(&t);
        if stripped == s {
            break;
        }
        s = stripped;
    }
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A mnemonic's underline under a letter is read as a mark below it (Wine's `Import`, its I
/// underlined, read `Įmport`): a mark below a letter — ogonek, cedilla, dot, comma, line or
/// macron below — is left out, on both sides of a comparison (a caption that has one,
/// `Français`, is compared by its letters). Marks above (é, ü) stay.
fn without_marks_below(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    if s.is_ascii() {
        return s.to_string();
    }
    s.nfd()
        .filter(|c| {
            !matches!(
                c,
                '\u{0323}' | '\u{0326}' | '\u{0327}' | '\u{0328}' | '\u{0331}' | '\u{0332}'
            )
        })
        .nfc()
        .collect()
}

/// A comma between two letters is a dot: a small font's dot with a pixel under it reads as a
/// comma (`invoices,sc` for sc's `invoices.sc`), and no caption puts a comma inside a word.
/// Between digits the two differ (1,000 and 1.000 are other numbers) and stay as read.
fn dot_between_letters(s: &str) -> String {
    between(s, ',', '.', |c| {
        c.is_alphabetic() && !mend_ocr::is_ideograph(c)
    })
}

/// A zero in a word of Latin letters is the letter O: a reader takes a coloured or bold `O`
/// for `0` (a text UI's cyan O of `Ok` read `0k`), and no caption writes a zero inside a word.
/// A zero beside a digit (`F10`, `2.0`) stays, as does one standing alone. Applied to a
/// reading compared with a caption that has no digit ([`label_match`]).
fn o_among_letters(s: &str) -> String {
    if !s.contains('0') {
        return s.to_string();
    }
    let cs: Vec<char> = s.chars().collect();
    let letter = |c: Option<&char>| c.is_some_and(|c| c.is_ascii_alphabetic());
    let digit = |c: Option<&char>| c.is_some_and(|c| c.is_ascii_digit());
    cs.iter()
        .enumerate()
        .map(|(i, &c)| {
            let (before, after) = (i.checked_sub(1).and_then(|j| cs.get(j)), cs.get(i + 1));
            if c == '0' && (letter(before) || letter(after)) && !digit(before) && !digit(after) {
                'o'
            } else {
                c
            }
        })
        .collect()
}

/// `s` with each `from` standing between two characters `side` accepts read as `to`.
fn between(s: &str, from: char, to: char, side: impl Fn(char) -> bool) -> String {
    let cs: Vec<char> = s.chars().collect();
    let fits = |i: Option<usize>| i.and_then(|i| cs.get(i)).is_some_and(|c| side(*c));
    cs.iter()
        .enumerate()
        .map(|(i, &c)| {
            if c == from && fits(i.checked_sub(1)) && fits(Some(i + 1)) {
                to
            } else {
                c
            }
        })
        .collect()
}

/// A mnemonic underline under an ideograph (Tk's 文件&名：) is read as '_' beside it
/// ('文件名_：_'): an underscore next to an ideograph or a full-width mark is no character of
/// a caption. An underscore between Latin letters or digits (a file name) stays.
fn drop_cjk_underlines(s: &str) -> String {
    if !s.contains('_') {
        return s.to_string();
    }
    let cs: Vec<char> = s.chars().collect();
    let cjk = |c: Option<&char>| {
        c.is_some_and(|&c| {
            mend_ocr::is_ideograph(c)
                || ('\u{3000}'..='\u{303f}').contains(&c)
                || ('\u{ff00}'..='\u{ffef}').contains(&c)
        })
    };
    cs.iter()
        .enumerate()
        .filter(|(i, c)| {
            **c != '_' || !(cjk(i.checked_sub(1).and_then(|j| cs.get(j))) || cjk(cs.get(i + 1)))
        })
        .map(|(_, c)| *c)
        .collect()
}

fn strip_mnemonic(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    // "...(x)" or "...(x"
    for (open, tail) in [(n.wrapping_sub(3), 3), (n.wrapping_sub(2), 2)] {
        if n > tail && chars[open] == '(' && chars[open + 1].is_ascii_alphanumeric() {
            let rest = &chars[open + 2..];
            if rest.is_empty() || rest == [')'] {
                return chars[..open]
                    .iter()
                    .collect::<String>()
                    .trim_end()
                    .to_string();
            }
        }
    }
    s.to_string()
}

/// Letters OCR takes for each other because of how UI text is drawn: a mnemonic underline
/// under F reads as E (jEdit's "Find..." came back "Eind..."), a serif-less l or j as i.
/// Swapping one for the other costs half an edit.
fn look_alike(a: char, b: char) -> bool {
    matches!(
        (a, b),
        ('e', 'f') | ('f', 'e') | ('i', 'l') | ('l', 'i') | ('i', 'j') | ('j', 'i')
    )
}

fn levenshtein(a: &[char], b: &[char]) -> f64 {
    let mut prev: Vec<f64> = (0..=b.len()).map(|i| i as f64).collect();
    let mut cur = vec![0.0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = (i + 1) as f64;
        for (j, cb) in b.iter().enumerate() {
            let cost = if ca == cb {
                0.0
            } else if look_alike(*ca, *cb) {
                0.5
            } else {
                1.0
            };
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1.0).min(cur[j] + 1.0);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Whether `seen` is another caption than `wanted`, not a misreading of it: two or more
/// letters apart that do not look alike ("Export Registry File..." beside "Import Registry
/// File..."). OCR rarely changes two letters of one caption into other letters at once.
pub(crate) fn another_caption(wanted: &str, seen: &str) -> bool {
    let (w, s): (Vec<char>, Vec<char>) = (
        normalize(wanted).chars().collect(),
        normalize(seen).chars().collect(),
    );
    levenshtein(&w, &s) >= 2.0
}

/// Similarity of two already-normalised labels, 0.0 ..= 1.0.
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let n = a.len().max(b.len());
    if n == 0 {
        return 0.0;
    }
    1.0 - levenshtein(&a, &b) / n as f64
}

/// The minimum similarity for a fuzzy match.
pub const FUZZY_MIN: f64 = 0.8;

/// How well a seen label (OCR) matches the wanted one: `Some(score)` when it means the same
/// control, `None` when it does not (including every "word added" look-alike).
pub fn label_match(wanted: &str, seen: &str) -> Option<f64> {
    let seen = &space_for_underscore(wanted, seen);
    let (w, mut s) = (normalize(wanted), normalize(seen));
    // A caption without digits read with a zero among its letters: the zero is an O. A
    // wanted text with a digit (a value a check proves) is compared as read.
    if !w.chars().any(|c| c.is_ascii_digit()) {
        s = o_among_letters(&s);
    }
    if w.is_empty() || s.is_empty() {
        return None;
    }
    if other_case_of_one_letter(wanted, seen) {
        return None;
    }
    if w == s {
        return Some(1.0);
    }
    // Numbers are never near each other: Windows 8 is not Windows 7, 2008 not 2003, C003 not
    // C008. A label with a number matches only text with the same numbers.
    if numbers(&w).next().is_some() && !numbers(&w).eq(numbers(&s)) {
        return None;
    }
    // A word added (or removed) on either side changes the meaning.
    if (s.contains(&w) || w.contains(&s)) && adds_a_word(&w, &s) {
        return None;
    }
    let sim = similarity(&w, &s);
    (sim >= FUZZY_MIN).then_some(sim)
}

/// A reading's underscore between two letters or digits where the wanted caption has none is
/// a space: a terminal's font sets words a whole cell apart, and a reader may fill the cell
/// with `_` (PP-OCR read nano's `Write Out` as `Write_Out`). A caption that has an underscore
/// of its own (a file name) is compared as read.
fn space_for_underscore(wanted: &str, seen: &str) -> String {
    if wanted.contains('_') || !seen.contains('_') {
        return seen.to_string();
    }
    between(seen, '_', ' ', char::is_alphanumeric)
}

/// Whether two one-letter captions are the same letter in the other case, drawn differently:
/// on a keypad "e" and "E" are two keys (Euler's number and the hex digit). Letters whose two
/// cases share a shape (c, o, s, u, v, w, x, z) OCR cannot tell apart, so those still match.
fn other_case_of_one_letter(wanted: &str, seen: &str) -> bool {
    let one = |s: &str| {
        let mut cs = s.trim().chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) if c.is_alphabetic() => Some(c),
            _ => None,
        }
    };
    match (one(wanted), one(seen)) {
        (Some(a), Some(b)) if a != b => {
            let (la, lb) = (a.to_lowercase().next(), b.to_lowercase().next());
            la == lb && !la.is_some_and(|c| "cosuvwxz".contains(c))
        }
        _ => false,
    }
}

/// The runs of digits in a label, in order.
fn numbers(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|r| !r.is_empty())
}

/// Whether the longer of two labels, one containing the other, carries extra letters or
/// ideographs (a word), not just digits or symbols from a misread.
pub(crate) fn adds_a_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let extra = long.replacen(short, "", 1);
    let cjk = extra.chars().filter(|c| (*c as u32) >= 0x3400).count();
    let letters = extra.chars().filter(|c| c.is_ascii_alphabetic()).count();
    cjk >= 1 || letters >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_underlined_f_read_as_e_still_matches_but_other_letters_do_not() {
        assert!(label_match("Find...", "Eind...").is_some());
        assert!(label_match("File", "Eile").is_some());
        assert_eq!(label_match("Find", "Bind"), None);
        assert_eq!(label_match("Find", "End"), None);
    }

    #[test]
    fn a_mnemonic_underline_read_beside_an_ideograph_is_no_character() {
        // Tk's 文件&名： read with its underline as '_' on both sides of the colon.
        assert_eq!(label_match("文件名：", "文件名_：_"), Some(1.0));
        assert_eq!(label_match("保存", "保_存"), Some(1.0));
        // Between Latin letters an underscore is a character (a file name).
        assert_ne!(label_match("copy_1", "copy1"), Some(1.0));
        assert_ne!(normalize("my_file"), normalize("myfile"));
    }

    #[test]
    fn an_underscore_read_in_a_terminals_word_gap_is_a_space() {
        assert_eq!(label_match("Write Out", "Write_Out"), Some(1.0));
        assert_eq!(label_match("Go To Line", "Go_To_Line"), Some(1.0));
        // A caption with an underscore of its own is compared as read; one at a word's end
        // is no gap.
        assert_ne!(label_match("copy_1", "copy 1"), Some(1.0));
        assert_ne!(label_match("Write", "Write_"), Some(1.0));
    }

    #[test]
    fn a_comma_inside_a_word_is_a_dot_and_between_digits_it_is_not() {
        assert_eq!(
            label_match(
                "File \"invoices.sc\" written",
                "File \"invoices,sc\" written"
            ),
            Some(1.0)
        );
        assert_ne!(label_match("1.000", "1,000"), Some(1.0));
        assert_ne!(label_match("Total 1.5", "Total 1,5"), Some(1.0));
        // A comma after a word, before a space, stays a comma.
        assert_ne!(normalize("Yes, save"), normalize("Yes. save"));
    }

    #[test]
    fn a_letter_underlined_for_its_mnemonic_is_that_letter() {
        assert_eq!(
            label_match("Import Registry File...", "Įmport Registry File..."),
            Some(1.0)
        );
        assert_ne!(
            label_match("Import Registry File...", "Export Registry File..."),
            Some(1.0)
        );
        assert_eq!(label_match("Français", "Francais"), Some(1.0));
        // Marks above are letters of their own word.
        assert_ne!(normalize("Résumé"), normalize("Resume"));
        assert_eq!(normalize("文件"), "文件");
    }

    #[test]
    fn a_zero_in_a_word_of_letters_is_an_o_and_beside_digits_a_zero() {
        assert_eq!(label_match("Ok", "0k"), Some(1.0));
        assert_eq!(label_match("Open", "0pen"), Some(1.0));
        assert_eq!(label_match("Zoom", "Zo0m"), Some(1.0));
        assert_eq!(o_among_letters("f10"), "f10");
        assert_eq!(o_among_letters("2.0"), "2.0");
        assert_eq!(o_among_letters("0"), "0");
        // A wanted text with a digit is compared as read: a check's value `A0B` is not
        // proven by a screen showing `AOB`, nor `AOB` by `A0B`.
        assert_ne!(label_match("A0B 7", "AOB 7"), Some(1.0));
        assert_ne!(label_match("Order AOB 7", "Order A0B 7"), Some(1.0));
    }

    #[test]
    fn a_one_letter_caption_in_the_other_case_is_another_key() {
        assert_eq!(label_match("e", "E"), None);
        assert_eq!(label_match("E", "e"), None);
        assert_eq!(label_match("A", "a"), None);
        // Same shape in both cases: OCR cannot tell, so the case is not held against it.
        assert_eq!(label_match("C", "c"), Some(1.0));
        assert_eq!(label_match("x", "X"), Some(1.0));
        assert_eq!(label_match("E", "E"), Some(1.0));
        assert_eq!(label_match("Edit", "edit"), Some(1.0));
    }

    #[test]
    fn labels_with_different_numbers_never_match() {
        assert_eq!(label_match("Windows 8", "Windows 7"), None);
        assert_eq!(label_match("Windows 2008", "Windows 2003"), None);
        assert_eq!(label_match("Windows 8", "Windows 8.1"), None);
        assert_eq!(label_match("C003", "C008"), None);
        assert_eq!(label_match("Windows 2008", "Windows 2008"), Some(1.0));
        assert!(label_match("Windows 2008 R2", "Windovvs 2008 R2").is_some());
    }

    #[test]
    fn relabels_that_keep_the_meaning_match() {
        for (want, seen) in [
            ("查询", "查询(Q)"),
            ("查询", "查询（Q）"),
            ("查询", "查询(Q"),
            ("保存", "保存(S)"),
            ("用户名", "用户名："),
            ("Login", "Log in"),
            ("Edit", "Edit…"),
            ("Edit", "Edit..."),
            ("Customer ID", "Customer ID:"),
            ("Save", "Save (S)"),
            ("OK", "ＯＫ"),
            ("Delete", "&Delete"),
            // A button's bevel read as a bracket at the caption's edge.
            ("Edit", "[edit"),
            ("查询", "|查询(Q)]"),
            // A caption of punctuation alone is compared as it is.
            (".", "."),
            ("*", " * "),
        ] {
            assert_eq!(label_match(want, seen), Some(1.0), "{want} vs {seen}");
        }
    }

    #[test]
    fn a_word_added_never_matches() {
        for (want, seen) in [
            ("删除", "删除全部"),
            ("保存", "另存为"),
            ("Delete", "Delete all"),
            ("Save", "Save as"),
            ("Search", "Search history"),
            ("客户编号", "编号"),
            // One glyph is never another: the minus key is not the +/- key.
            ("-", "+/-"),
            (".", "+"),
            ("+", "."),
            ("1", "1/x"),
        ] {
            assert_eq!(label_match(want, seen), None, "{want} vs {seen}");
        }
    }

    #[test]
    fn small_misreads_match_with_less_confidence() {
        let s = label_match("Password", "Passwcrd").unwrap();
        assert!((0.8..1.0).contains(&s));
        // A zero among letters is an O, no misread (a_zero_in_a_word_of_letters_is_an_o…).
        assert_eq!(label_match("Password", "Passw0rd"), Some(1.0));
        assert_eq!(label_match("Submit", "Sia"), None);
        assert_eq!(label_match("", "x"), None);
    }
}
