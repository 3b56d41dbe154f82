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
/// CJK neighbours are never split here: forms space out 姓　名 to align their labels.
fn wider_than_a_space(line: &[&Word], next: &Word, gap: f64) -> bool {
    let Some(last) = line.last() else {
        return false;
    };
    let glyphs = |w: &Word| w.text.chars().filter(|c| !c.is_whitespace()).count();
    if last.text.chars().chain(next.text.chars()).any(is_cjk) {
        return false;
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

/// Join words by position, not by Tesseract's numbering: chi_sim returns one "word" per
/// character and sparse mode splits one caption into several blocks. Two words belong to one
/// line when they overlap vertically by half the smaller height and the gap between them is
/// under `gap_factor` × the line height. CJK neighbours join without a space.
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
            if v_overlap(&last.rect, &w.rect) >= 0.5
                && gap >= -h
                && gap <= h * gap_factor
                && !wider_than_a_space(line, w, gap)
            {
                line.push(w);
                continue 'next;
            }
        }
        lines.push(vec![w]);
    }
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
    fn far_apart_words_stay_separate() {
        let lines = join_lines(&[w("Save", 10, 10, 40), w("Back", 200, 10, 40)], 1.5);
        assert_eq!(lines.len(), 2);
    }
}
