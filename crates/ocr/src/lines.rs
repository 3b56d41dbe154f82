use crate::Word;
use mend_model::Rect;
use serde::{Deserialize, Serialize};

/// Words joined into a visual line: what a label or a button caption reads as.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub text: String,
    #[serde(rename = "box")]
    pub rect: Rect,
    /// The lowest word confidence: a line is as sure as its weakest word.
    pub conf: f32,
    pub words: Vec<Word>,
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x303F | 0x3400..=0x9FFF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

/// A CJK ideograph (not the CJK punctuation or full-width forms [`is_cjk`] also holds).
pub fn is_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x9FFF | 0xF900..=0xFAFF)
}

fn v_overlap(a: &Rect, b: &Rect) -> f64 {
    let top = a.y.max(b.y);
    let bot = a.bottom().min(b.bottom());
    let o = (bot - top).max(0) as f64;
    o / (a.h.min(b.h).max(1) as f64)
}

/// A gap wider than a word space sets two texts apart: menu bars and toolbars space their
/// items by more than a space of their font ("File  Edit  Search" is three menus, issue 13).
/// A space is judged by the font's own size: the ink-to-ink gap of a space is about 1.4
/// average glyph widths in a monospaced font and under 1 in a proportional one, so the gap
/// must be over 1.45 times the two words' average glyph width and over 0.6 of the line's
/// height.
/// Two CJK ideographs are never split here: forms space out 姓　名 to align their labels. A
/// CJK glyph is as wide as two Latin ones, so it counts twice; a gap after a Chinese menu's
/// mnemonic ("文件(F)  编辑(E)") is judged like any other.
fn wider_than_a_space(line: &[&Word], next: &Word, gap: f64) -> bool {
    let Some(last) = line.last() else {
        return false;
    };
    let glyphs = |w: &Word| {
        w.text
            .chars()
            .filter(|c| !c.is_whitespace())
            .map(|c| if is_cjk(c) { 2 } else { 1 })
            .sum::<usize>()
    };
    let ends = (
        last.text.trim_end().chars().last(),
        next.text.trim_start().chars().next(),
    );
    if let (Some(a), Some(b)) = ends {
        if is_ideograph(a) && is_ideograph(b) {
            return false;
        }
    }
    let n = glyphs(last) + glyphs(next);
    if n == 0 {
        return false;
    }
    let advance = (last.rect.w + next.rect.w) as f64 / n as f64;
    let height = line
        .iter()
        .map(|w| w.rect.h)
        .max()
        .unwrap_or(0)
        .max(next.rect.h);
    // Menu bars measured: Motif 17 px gaps, Swing Metal 1.7 glyphs, Swing Nimbus 1.5 glyphs
    // and 0.71 of its line (14 px tall with the mnemonics' underlines), a wide bold Swing
    // font 1.58 glyphs. A monospaced space is about 1.4 glyphs, a proportional one under 1
    // and about 0.3 of the line; Nimbus's File and Edit are 0.64 of it apart.
    gap > 1.45 * advance && gap > 0.6 * height as f64
}

/// About how wide a glyph is, in ems, in the proportional sans fonts of UIs (DejaVu Sans,
/// Arial, Tahoma, Verdana: their advance widths rounded to four classes). Not a font's metrics:
/// enough to tell how many ems a word's ink spans, which no single glyph width can.
fn glyph_ems(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' | 'I' | '.' | ',' | ':' | ';' | '\'' | '!' | '|' => 0.28,
        'f' | 't' | 'r' => 0.38,
        'm' | 'w' | 'M' | 'W' => 0.88,
        'A'..='Z' => 0.68,
        '0'..='9' => 0.6,
        _ => 0.56,
    }
}

/// The font of a line's words, told from their widths: in a monospaced font each glyph takes
/// one cell, so a word's ink is about its glyph count in cells; in a proportional one it is
/// the sum of its glyphs' widths ([`glyph_ems`]). Whichever model fits the words closer
/// (least spread of the per-word estimates) is the font's; for a proportional font the
/// median estimate of its em in pixels comes back. Three words of three letters or more, of
/// about the row's height, are needed, and the proportional model must fit with under half
/// the other's spread and within 8 %; else None (no judgement).
fn proportional_em(line: &[&Word]) -> Option<f64> {
    // A word boxed far off the row's height was read wrong (its box is no measure).
    let mut hs: Vec<i32> = line.iter().map(|w| w.rect.h).collect();
    hs.sort_unstable();
    let mid = *hs.get(hs.len() / 2)?;
    let words: Vec<(f64, f64, f64)> = line
        .iter()
        .filter(|w| {
            let n = w.text.chars().count();
            n >= 3
                && w.text.chars().all(|c| c.is_ascii_graphic())
                && 4 * w.rect.h >= 3 * mid
                && 3 * w.rect.h <= 4 * mid
        })
        .map(|w| {
            let ems: f64 = w.text.chars().map(glyph_ems).sum();
            // Ink spans the advances less the first and last glyphs' side bearings.
            let ink = w.rect.w as f64;
            (ink / (ems - 0.1), ink / w.text.chars().count() as f64, ems)
        })
        .collect();
    if words.len() < 3 {
        return None;
    }
    let spread = |xs: &[f64]| {
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        var.sqrt() / mean
    };
    let mut em: Vec<f64> = words.iter().map(|w| w.0).collect();
    let cell: Vec<f64> = words.iter().map(|w| w.1).collect();
    // Clearly the better model, and a close fit: a misread box can make either look right
    // on a few words, and a monospaced line cut at its spaces could match a part of it.
    let (e, c) = (spread(&em), spread(&cell));
    if 2.0 * e >= c || e > 0.08 {
        return None;
    }
    em.sort_by(f64::total_cmp);
    Some(em[em.len() / 2])
}

/// Items of a menu bar or a toolbar set apart by little more than a word space (Swing's
/// Nimbus: 8–10 px between items whose em is 13 px) join into one line under the glyph-width
/// test of [`wider_than_a_space`], which has to keep a monospaced space whole. A strip of lines
/// side by side (each within two line heights of the next) is one font's row: when its words
/// show a proportional font, its em is known, and each line's gaps are measured in it. A word
/// space with its side bearings is at most 0.45 em in the UI fonts (Verdana's, the widest:
/// 0.35 em of advance), so a gap over 0.56 em (a condensed font's space, read 0.82 times as
/// wide, stays under) sets two items apart. Lines are only ever cut here, never joined.
fn split_at_item_gaps(mut lines: Vec<Vec<&Word>>) -> Vec<Vec<&Word>> {
    lines.sort_by_key(|l| l[0].rect.x);
    let mut strips: Vec<Vec<Vec<&Word>>> = Vec::new();
    'line: for l in lines {
        for strip in strips.iter_mut() {
            let prev = strip.last().unwrap().last().unwrap();
            let h = prev.rect.h.max(l[0].rect.h);
            let gap = l[0].rect.x - prev.rect.right();
            if v_overlap(&prev.rect, &l[0].rect) >= 0.5 && (0..=2 * h).contains(&gap) {
                strip.push(l);
                continue 'line;
            }
        }
        strips.push(vec![l]);
    }
    let mut out = Vec::new();
    for strip in strips {
        let words: Vec<&Word> = strip.iter().flatten().copied().collect();
        let Some(em) = proportional_em(&words) else {
            out.extend(strip);
            continue;
        };
        for line in strip {
            let mut cur: Vec<&Word> = Vec::new();
            for w in line {
                let apart = cur
                    .last()
                    .is_some_and(|p| (w.rect.x - p.rect.right()) as f64 > 0.56 * em);
                if apart {
                    out.push(std::mem::take(&mut cur));
                }
                cur.push(w);
            }
            out.push(cur);
        }
    }
    out
}

/// Join words by position, not by Tesseract's numbering: chi_sim returns one "word" per
/// character and sparse mode splits one caption into several blocks. Two words belong to one
/// line when they overlap vertically by half the smaller height and the gap between them is
/// under `gap_factor` × the line height (or the second starts inside the first's box). CJK neighbours join without a space.
pub fn join_lines(words: &[Word], gap_factor: f64) -> Vec<Line> {
    let mut ws: Vec<&Word> = words.iter().collect();
    // Left to right, so a line's last word is always the left neighbour of the next one.
    ws.sort_by_key(|w| (w.rect.x, w.rect.y));
    let mut lines: Vec<Vec<&Word>> = Vec::new();
    'next: for w in ws {
        for line in lines.iter_mut() {
            let last = line.last().unwrap();
            let h = last.rect.h.max(w.rect.h) as f64;
            let gap = (w.rect.x - last.rect.right()) as f64;
            // A word may start inside its left neighbour's box: chi_sim boxes a line's first
            // CJK word from the line's start and at times over the words after it (另存 over
            // 为(A)… in a menu item). One reading never repeats a word, so it is the same line.
            if v_overlap(&last.rect, &w.rect) >= 0.5
                && gap >= -(h.max(last.rect.w as f64))
                && gap <= h * gap_factor
                && !wider_than_a_space(line, w, gap)
            {
                line.push(w);
                continue 'next;
            }
        }
        lines.push(vec![w]);
    }
    let lines = split_at_item_gaps(lines);
    let mut out: Vec<Line> = lines
        .into_iter()
        .map(|ws| {
            let mut text = String::new();
            let mut rect = ws[0].rect;
            let mut conf = f32::MAX;
            for (i, w) in ws.iter().enumerate() {
                if i > 0 {
                    let prev = ws[i - 1];
                    let gap = w.rect.x - prev.rect.right();
                    let cjk_join = prev.text.chars().last().is_some_and(is_cjk)
                        || w.text.chars().next().is_some_and(is_cjk);
                    if !cjk_join || gap as f64 > 0.6 * prev.rect.h.max(w.rect.h) as f64 {
                        text.push(' ');
                    }
                }
                text.push_str(&w.text);
                rect = rect.union(&w.rect);
                conf = conf.min(w.conf);
            }
            Line {
                text,
                rect,
                conf,
                words: ws.into_iter().cloned().collect(),
            }
        })
        .collect();
    out.sort_by_key(|l| (l.rect.y, l.rect.x));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(t: &str, x: i32, y: i32, wd: i32) -> Word {
        Word {
            text: t.into(),
            rect: Rect::new(x, y, wd, 16),
            conf: 90.0,
            line_key: (0, 0, 0),
        }
    }

    #[test]
    fn chinese_characters_join_without_spaces_and_latin_with() {
        let words = vec![
            w("录", 30, 10, 16),
            w("登", 12, 10, 16),
            w("User", 200, 11, 36),
            w("name", 242, 10, 40),
            w("查", 12, 80, 16),
        ];
        let lines = join_lines(&words, 1.5);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts, vec!["登录", "User name", "查"]);
        assert_eq!(lines[0].rect, Rect::new(12, 10, 34, 16));
    }

    /// A GTK menu bar in Chinese (measured on mousepad under zh_CN, 13 px text): items 17 px
    /// apart after their mnemonics are set apart; a spaced-out form label (姓　名) and a Latin
    /// word in a Chinese sentence stay whole.
    #[test]
    fn chinese_menu_items_are_split_after_their_mnemonics_and_sentences_stay_whole() {
        let h = |mut w: Word, h: i32| {
            w.rect.h = h;
            w
        };
        let bar = [
            h(w("文件", 9, 6, 28), 13),
            h(w("(F)", 38, 5, 12), 15),
            h(w("编辑", 67, 6, 28), 13),
            h(w("(E)", 96, 5, 12), 15),
        ];
        let texts: Vec<String> = join_lines(&bar, 1.2).into_iter().map(|l| l.text).collect();
        assert_eq!(texts, vec!["文件(F)", "编辑(E)"]);
        let form = [w("姓", 10, 7, 16), w("名", 44, 7, 16)];
        assert_eq!(join_lines(&form, 1.2).len(), 1, "姓　名 is one label");
        let mixed = [
            w("使用", 10, 7, 26),
            w("root", 40, 7, 26),
            w("帐户", 70, 7, 26),
        ];
        assert_eq!(join_lines(&mixed, 1.2).len(), 1, "one sentence");
    }

    /// chi_sim may box a line's first word from the line's start and over the next words
    /// (另存 boxed 0..95 over 为 at 61 and (A) at 71): one line still, in reading order.
    #[test]
    fn a_word_boxed_over_its_neighbours_is_still_one_line() {
        let ws = [
            w("另存", 0, 0, 95),
            w("为", 61, 0, 11),
            w("(A)...", 71, 0, 24),
            w("Shift+Ctrl+S", 211, 2, 80),
        ];
        let texts: Vec<String> = join_lines(&ws, 1.2).into_iter().map(|l| l.text).collect();
        assert_eq!(texts, vec!["另存为(A)...", "Shift+Ctrl+S"]);
    }

    #[test]
    fn menu_bar_items_are_split_and_word_spaces_kept() {
        // A Motif menu bar at 15 px: items 17 px apart (measured on nedit).
        let bar = [
            w("File", 12, 7, 20),
            w("Edit", 49, 7, 22),
            w("Search", 88, 7, 44),
            w("Preferences", 149, 7, 76),
        ];
        let texts: Vec<String> = join_lines(&bar, 1.2).into_iter().map(|l| l.text).collect();
        assert_eq!(texts, vec!["File", "Edit", "Search", "Preferences"]);
        // Swing menu bars measured on jEdit: Nimbus (9 px gaps, 14 px tall with mnemonic
        // underlines) and a wide bold font (14 px gaps at 8.9 px a glyph, 15 px tall).
        let h = |mut w: Word, h: i32| {
            w.rect.h = h;
            w
        };
        let nimbus = [
            h(w("File", 10, 5, 20), 14),
            h(w("Edit", 39, 5, 23), 14),
            h(w("Search", 72, 5, 43), 14),
        ];
        let texts: Vec<String> = join_lines(&nimbus, 1.2)
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(texts, vec!["File", "Edit", "Search"]);
        let bold = [
            h(w("Search", 84, 5, 53), 15),
            h(w("Markers", 151, 5, 62), 15),
        ];
        let texts: Vec<String> = join_lines(&bold, 1.2).into_iter().map(|l| l.text).collect();
        assert_eq!(texts, vec!["Search", "Markers"]);
        // A proportional sentence (space ~5 px) and a monospaced one (9 px cells: ink-to-ink
        // gap about 1.4 cells) stay whole.
        let prose = [
            w("Replace", 10, 7, 52),
            w("all", 67, 7, 16),
            w("in:", 88, 7, 16),
        ];
        assert_eq!(join_lines(&prose, 1.2)[0].text, "Replace all in:");
        let mono = [
            w("Invoice", 10, 7, 61),
            w("4711", 83, 7, 34),
            w("paid", 129, 7, 34),
        ];
        assert_eq!(join_lines(&mono, 1.2)[0].text, "Invoice 4711 paid");
    }

    #[test]
    fn a_proportional_menu_bar_is_split_by_its_em_and_sentences_stay_whole() {
        // Swing Nimbus's menu bar as the window pass reads it at 2x (jEdit): items 8-10 px
        // apart, just over a word space; the glyph-width test alone joined "File Edit Search
        // Markers" (issue 13: the File menu was never found).
        let bar = [
            ("File", 10, 21),
            ("Edit", 39, 24),
            ("Search", 72, 44),
            ("Markers", 125, 50),
            ("Folding", 185, 44),
            ("View", 237, 29),
            ("Utilities", 274, 46),
            ("Macros", 330, 44),
            ("Plugins", 382, 45),
            ("Help", 435, 28),
        ];
        let words: Vec<Word> = bar.iter().map(|&(t, x, wd)| w(t, x, 5, wd)).collect();
        let texts: Vec<String> = join_lines(&words, 1.2)
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(texts, bar.iter().map(|b| b.0).collect::<Vec<_>>());
        // A sentence in a wide-spaced proportional font (13 px em, 6 px spaces: Verdana's
        // 0.35 em and bearings) and in a condensed one (0.82 as wide, the same 6 px spaces) stays one.
        let wide = [
            w("Delete", 10, 5, 42),
            w("All", 58, 5, 17),
            w("Messages", 81, 5, 66),
        ];
        assert_eq!(join_lines(&wide, 1.2)[0].text, "Delete All Messages");
        let narrow = [
            w("Delete", 10, 5, 34),
            w("All", 50, 5, 14),
            w("Messages", 70, 5, 54),
        ];
        assert_eq!(join_lines(&narrow, 1.2)[0].text, "Delete All Messages");
        assert!(proportional_em(&narrow.iter().collect::<Vec<_>>()).is_some());
        // A monospaced line is judged monospaced and left to the glyph-width test.
        let mono = [
            w("Invoice", 10, 7, 61),
            w("4711", 83, 7, 34),
            w("paid", 129, 7, 34),
        ];
        assert_eq!(proportional_em(&mono.iter().collect::<Vec<_>>()), None);
    }

    #[test]
    fn far_apart_words_stay_separate() {
        let lines = join_lines(&[w("Save", 10, 10, 40), w("Back", 200, 10, 40)], 1.5);
        assert_eq!(lines.len(), 2);
    }
}
