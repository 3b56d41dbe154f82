//! X text properties to Rust strings. Window names come in three encodings: `UTF8_STRING`
//! (`_NET_WM_NAME`, modern toolkits), `STRING` (ISO 8859-1: Athena, Motif and most 1990s
//! clients set only `WM_NAME` this way) and `COMPOUND_TEXT` (ISO 2022 with X's extensions,
//! used when a name does not fit Latin-1).

/// How a property's bytes are encoded (from its X type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextType {
    Utf8,
    Latin1,
    Compound,
    /// Any other type: UTF-8 when it is valid UTF-8, else Latin-1.
    Unknown,
}

/// Decode a text property. A trailing NUL (some clients count it in) is dropped.
pub(crate) fn decode(kind: TextType, bytes: &[u8]) -> String {
    let bytes = match bytes.iter().rposition(|&b| b != 0) {
        Some(last) => &bytes[..=last],
        None => return String::new(),
    };
    match kind {
        TextType::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
        TextType::Latin1 => latin1(bytes),
        TextType::Compound => compound_text(bytes),
        TextType::Unknown => match std::str::from_utf8(bytes) {
            Ok(s) => s.to_string(),
            Err(_) => latin1(bytes),
        },
    }
}

/// ISO 8859-1: every byte is the code point of the same number.
pub(crate) fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| b as char).collect()
}

/// What a graphic half (GL: 0x20–0x7F, GR: 0xA0–0xFF) currently holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Set {
    Ascii,
    Latin1High,
    /// A 94² CJK set, two bytes per character, decoded as its EUC form (the bytes with their
    /// high bit set).
    Cjk(&'static encoding_rs::Encoding),
    /// A set this decoder does not know: `n` bytes per character, each shown as U+FFFD.
    Unknown(usize),
}

/// The 94² set named by an escape's final byte: A GB 2312, B JIS X 0208, C KS C 5601.
fn cjk_set(f: u8) -> Set {
    match f {
        b'A' => Set::Cjk(encoding_rs::GBK),
        b'B' => Set::Cjk(encoding_rs::EUC_JP),
        b'C' => Set::Cjk(encoding_rs::EUC_KR),
        _ => Set::Unknown(2),
    }
}

/// COMPOUND_TEXT, best effort: ASCII and Latin-1 (the initial state), the CJK 94² sets (GB
/// 2312, JIS X 0208, KS C 5601 — what Xlib writes for Chinese, Japanese and Korean titles),
/// UTF-8 segments (`ESC % G … ESC % @`) and extended segments named "utf-8" are decoded;
/// characters of other designated sets (other ISO 8859 parts) come out as U+FFFD, one per
/// character, so a pattern can still match the rest of the title.
pub(crate) fn compound_text(bytes: &[u8]) -> String {
    const ESC: u8 = 0x1b;
    const CSI: u8 = 0x9b;
    let mut out = String::new();
    let (mut gl, mut gr) = (Set::Ascii, Set::Latin1High);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == ESC {
            let rest = &bytes[i + 1..];
            match rest {
                // UTF-8 until ESC % @.
                [b'%', b'G', ..] => {
                    let start = i + 3;
                    let end = find(&bytes[start..], &[ESC, b'%', b'@'])
                        .map_or(bytes.len(), |p| start + p);
                    out.push_str(&String::from_utf8_lossy(&bytes[start..end]));
                    i = (end + 3).min(bytes.len());
                    continue;
                }
                // Extended segment: ESC % / [0-4] M L name STX data, (M-128)*128 + (L-128) bytes
                // counted from the name.
                [b'%', b'/', _, m, l, ..] if *m >= 0x80 && *l >= 0x80 => {
                    let len = (*m as usize - 0x80) * 128 + (*l as usize - 0x80);
                    let start = i + 6;
                    let end = (start + len).min(bytes.len());
                    let seg = &bytes[start..end];
                    match seg.iter().position(|&c| c == 0x02) {
                        Some(stx) => {
                            let name = String::from_utf8_lossy(&seg[..stx]).to_ascii_lowercase();
                            let data = &seg[stx + 1..];
                            if name == "utf-8" || name == "utf8" {
                                out.push_str(&String::from_utf8_lossy(data));
                            } else if name == "iso8859-1" {
                                out.push_str(&latin1(data));
                            } else {
                                out.push('\u{FFFD}');
                            }
                        }
                        None => out.push('\u{FFFD}'),
                    }
                    i = end;
                    continue;
                }
                // 94-character set into GL / GR.
                [b'(', f, ..] => {
                    gl = if matches!(f, b'B' | b'J') {
                        Set::Ascii
                    } else {
                        Set::Unknown(1)
                    };
                    i += 3;
                    continue;
                }
                [b')', _, ..] => {
                    gr = Set::Unknown(1);
                    i += 3;
                    continue;
                }
                // 96-character set into GR: Latin-1 or another ISO 8859 part.
                [b'-', f, ..] => {
                    gr = if *f == b'A' {
                        Set::Latin1High
                    } else {
                        Set::Unknown(1)
                    };
                    i += 3;
                    continue;
                }
                // 94² sets (GB 2312, JIS X 0208, KS C 5601) into GL / GR.
                [b'$', b'(', f, ..] => {
                    gl = cjk_set(*f);
                    i += 4;
                    continue;
                }
                [b'$', b')', f, ..] => {
                    gr = cjk_set(*f);
                    i += 4;
                    continue;
                }
                _ => {
                    // An escape this decoder does not know: skip its intermediates and final.
                    let mut j = i + 1;
                    while j < bytes.len() && (0x20..0x30).contains(&bytes[j]) {
                        j += 1;
                    }
                    i = (j + 1).min(bytes.len());
                    continue;
                }
            }
        }
        if b == CSI {
            // Direction changes (CSI 1 ], CSI 2 ], CSI ]): no glyphs.
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b']' {
                j += 1;
            }
            i = (j + 1).min(bytes.len());
            continue;
        }
        let set = if b >= 0xa0 {
            gr
        } else if (0x20..0x80).contains(&b) {
            gl
        } else {
            // C0 controls (tab, newline) pass; C1 ones carry nothing here.
            if b == b'\t' || b == b'\n' {
                out.push(b as char);
            }
            i += 1;
            continue;
        };
        match set {
            // ASCII designated into GR reads as its GL twin.
            Set::Ascii => out.push((b & 0x7f) as char),
            Set::Latin1High => out.push(b as char),
            Set::Cjk(enc) => {
                let pair = [b | 0x80, bytes.get(i + 1).map_or(0, |c| c | 0x80)];
                let (text, _) = enc.decode_without_bom_handling(&pair);
                out.push_str(&text);
                i += 2;
                continue;
            }
            Set::Unknown(n) => {
                out.push('\u{FFFD}');
                i += n;
                continue;
            }
        }
        i += 1;
    }
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `WM_CLASS`: "instance\0class\0" in Latin-1.
pub(crate) fn wm_class(bytes: &[u8]) -> (String, String) {
    let mut parts = bytes.split(|&b| b == 0).map(latin1);
    let instance = parts.next().unwrap_or_default();
    let class = parts.next().unwrap_or_default();
    (instance, class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_is_latin1_and_a_trailing_nul_is_dropped() {
        assert_eq!(decode(TextType::Latin1, b"xfontsel\0"), "xfontsel");
        assert_eq!(decode(TextType::Latin1, b"Caf\xe9"), "Café");
        assert_eq!(decode(TextType::Latin1, b""), "");
    }

    #[test]
    fn utf8_and_unknown_types() {
        assert_eq!(
            decode(TextType::Utf8, "客户管理系统".as_bytes()),
            "客户管理系统"
        );
        assert_eq!(decode(TextType::Unknown, "Ärger".as_bytes()), "Ärger");
        assert_eq!(decode(TextType::Unknown, b"\xc4rger"), "Ärger");
    }

    #[test]
    fn compound_text_ascii_latin1_and_utf8_segments() {
        // The initial state: ASCII in GL, Latin-1's upper half in GR.
        assert_eq!(compound_text(b"Caf\xe9 menu"), "Café menu");
        // ESC - A designates Latin-1 again; ESC ( B is ASCII.
        assert_eq!(compound_text(b"\x1b-A\xc4\x1b(Bx"), "Äx");
        // A UTF-8 segment.
        let mut ct = b"Title \x1b%G".to_vec();
        ct.extend_from_slice("客户".as_bytes());
        ct.extend_from_slice(b"\x1b%@ end");
        assert_eq!(compound_text(&ct), "Title 客户 end");
    }

    #[test]
    fn compound_text_unknown_sets_keep_the_rest() {
        // GB 2312 in GR (two bytes a character), as Xlib writes a Chinese title.
        let ct = b"ab\x1b$)A\xbf\xcd\xbb\xa7\x1b-Acd";
        assert_eq!(compound_text(ct), "ab客户cd");
        // JIS X 0208 in GL (7-bit bytes), KS C 5601 in GR.
        assert_eq!(compound_text(b"\x1b$(B\x35\x52\x1b(B!"), "客!");
        assert_eq!(compound_text(b"\x1b$)C\xc7\xd1"), "한");
        // A set this decoder does not know keeps the rest readable.
        assert_eq!(compound_text(b"a\x1b-L\xc0\x1b-Ab"), "a\u{FFFD}b");
        // An extended segment named utf-8.
        let data = "编号".as_bytes();
        let len = "utf-8\x02".len() + data.len();
        let mut ct = vec![
            0x1b,
            b'%',
            b'/',
            b'1',
            0x80 + (len / 128) as u8,
            0x80 + (len % 128) as u8,
        ];
        ct.extend_from_slice(b"utf-8\x02");
        ct.extend_from_slice(data);
        ct.extend_from_slice(b"!");
        assert_eq!(compound_text(&ct), "编号!");
        // Direction marks carry no glyphs.
        assert_eq!(compound_text(b"\x9b1]ab\x9b]"), "ab");
    }

    #[test]
    fn wm_class_has_instance_then_class() {
        assert_eq!(
            wm_class(b"xfontsel\0XFontSel\0"),
            ("xfontsel".to_string(), "XFontSel".to_string())
        );
        assert_eq!(wm_class(b""), (String::new(), String::new()));
    }
}
