use mend_model::Rect;
use serde::{Deserialize, Serialize};

/// One word (for chi_sim: usually one character) as Tesseract read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Word {
    pub text: String,
    /// In the pixels of the image handed to [`crate::OcrEngine::read`].
    #[serde(rename = "box")]
    pub rect: Rect,
    /// 0–100.
    pub conf: f32,
    /// Tesseract's (block, paragraph, line) numbers, used only as a hint when joining.
    pub line_key: (u32, u32, u32),
}

/// Parse Tesseract's TSV output, keeping level-5 (word) rows with text.
/// Rows that do not parse are skipped: a garbled row must not lose the rest of the page.
pub fn parse_tsv(tsv: &str) -> Vec<Word> {
    parse_tsv_with(tsv, false)
}

/// [`parse_tsv`], optionally keeping words made only of punctuation. A page read drops them
/// (control borders come back as "|", "_" or "["); a glyph read inside a frame keeps them,
/// because there "-", "." or "(" is the caption.
pub fn parse_tsv_with(tsv: &str, keep_marks: bool) -> Vec<Word> {
    let mut out = Vec::new();
    for row in tsv.lines() {
        let cols: Vec<&str> = row.split('\t').collect();
        if cols.len() < 12 || cols[0] != "5" {
            continue;
        }
        let text = cols[11].trim();
        // Control borders read as "|", "_" or "[": ink, not words.
        if text.is_empty()
            || (!keep_marks && text.chars().all(|c| "|!_-—[](){}/\\'`\".,:;~".contains(c)))
        {
            continue;
        }
        let num = |i: usize| cols[i].trim().parse::<i64>().ok();
        let (Some(b), Some(p), Some(l), Some(x), Some(y), Some(w), Some(h)) =
            (num(2), num(3), num(4), num(6), num(7), num(8), num(9))
        else {
            continue;
        };
        let conf = cols[10].trim().parse::<f32>().unwrap_or(-1.0);
        if conf < 0.0 {
            continue;
        }
        out.push(Word {
            text: text.to_string(),
            rect: Rect::new(x as i32, y as i32, w as i32, h as i32),
            conf,
            line_key: (b as u32, p as u32, l as u32),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_word_rows_and_skips_garbage() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
1\t1\t0\t0\t0\t0\t0\t0\t800\t560\t-1\t\n\
5\t1\t1\t1\t1\t1\t10\t20\t30\t16\t96.5\t登\n\
5\t1\t1\t1\t1\t2\t42\t20\t30\t16\t95.0\t录\n\
5\t1\t2\t1\t1\t1\tx\t20\t30\t16\t95.0\tbroken\n\
5\t1\t2\t1\t1\t2\t1\t2\t3\t4\t90\t   \n";
        let words = parse_tsv(tsv);
        assert_eq!(words.len(), 2);
        assert_eq!(words[0].text, "登");
        assert_eq!(words[1].rect, Rect::new(42, 20, 30, 16));
        assert_eq!(words[1].line_key, (1, 1, 1));
    }
}
