//! Ink: pixels far from their region's background. Used to tell where unread text is and
//! whether a field is empty, without reading it (a masked field reads as nothing useful, and
//! OCR of an empty box is not proof of emptiness).

use image::RgbaImage;
use mend_model::Rect;

/// Grey level of a pixel (Rec. 601 weights).
pub fn luma(img: &RgbaImage, x: i32, y: i32) -> i32 {
    let p = img.get_pixel(x as u32, y as u32).0;
    (p[0] as i32 * 299 + p[1] as i32 * 587 + p[2] as i32 * 114) / 1000
}

/// How far a colour is from grey: its largest channel minus its smallest. UI text is grey;
/// icons, marks and fills are not.
pub fn chroma(r: i32, g: i32, b: i32) -> i32 {
    r.max(g).max(b) - r.min(g).min(b)
}

/// Grey levels within this distance count as one shade of background: a gradient (a Metal
/// menu bar runs from 253 down to 242 over 12 rows) spreads its pixels over many levels, each
/// rarer than the text's one colour.
const SHADE: usize = 8;

/// The background of `r`: its most common shade, as the most common grey level within it.
/// The shade is the window of ±[`SHADE`] levels holding the most pixels, so a gradient
/// background outweighs the flat colour of the text on it. Only the part of `r` inside the
/// image counts (a caption on a window's last row, its box grown by a pixel: nano's shortcut
/// bar panicked a run); none inside is a background of 0.
pub fn background(img: &RgbaImage, r: Rect) -> i32 {
    let Some(r) = r.intersect(&Rect::new(0, 0, img.width() as i32, img.height() as i32)) else {
        return 0;
    };
    let mut hist = [0u32; 256];
    for y in r.y..r.bottom() {
        for x in r.x..r.right() {
            hist[luma(img, x, y) as usize] += 1;
        }
    }
    let window = |v: usize| v.saturating_sub(SHADE)..(v + SHADE + 1).min(256);
    let shade = (0..256)
        .max_by_key(|&v| hist[window(v)].iter().sum::<u32>())
        .unwrap_or(0);
    window(shade).max_by_key(|&i| hist[i]).unwrap_or(0) as i32
}

/// Ink: a grey level far from the background.
pub fn is_ink(grey: i32, bg: i32) -> bool {
    (grey - bg).abs() > 80
}

/// Where the text of strip `r` begins when a picture stands before it: a menu item's icon
/// read with its caption comes back as junk ("区End." for jEdit's magnifier beside "Find...",
/// issue 13). From the left, each run of drawn columns (ink, or colour: a pale icon is not dark)
/// with colour in over a tenth and under nine tenths of its drawn pixels is a picture, up to
/// the first other run — UI text is grey. Runs are parted by two empty columns. The first grey run's left edge comes
/// back, only if a picture stood before it; a strip all in colour (a link) is left as it is.
pub fn text_after_icon(img: &RgbaImage, r: Rect) -> Option<i32> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let r = r.intersect(&bounds)?;
    let bg = background(img, r);
    let at = |x: i32, y: i32| {
        let p = img.get_pixel(x as u32, y as u32).0;
        let colour = chroma(p[0] as i32, p[1] as i32, p[2] as i32) > 60;
        (colour || is_ink(luma(img, x, y), bg), colour)
    };
    // A row drawn across nearly all the strip is a rule (a menu's border, a separator), no
    // part of any run.
    let rows: Vec<i32> = (r.y..r.bottom())
        .filter(|&y| 5 * (r.x..r.right()).filter(|&x| at(x, y).0).count() < 4 * r.w as usize)
        .collect();
    // (drawn pixels, coloured pixels) of each column.
    let cols: Vec<(u32, u32)> = (r.x..r.right())
        .map(|x| {
            rows.iter().fold((0, 0), |(d, c), &y| {
                let (drawn, colour) = at(x, y);
                (d + drawn as u32, c + colour as u32)
            })
        })
        .collect();
    let mut x = 0;
    let mut picture = false;
    while x < cols.len() {
        if cols[x].0 == 0 {
            x += 1;
            continue;
        }
        // One run: drawn columns with at most one empty column inside.
        let start = x;
        let (mut drawn, mut colour) = (0, 0);
        while x < cols.len() && (cols[x].0 > 0 || cols.get(x + 1).is_some_and(|c| c.0 > 0)) {
            drawn += cols[x].0;
            colour += cols[x].1;
            x += 1;
        }
        // Grey is text; all colour may be text too (a link, a red asterisk): a picture has
        // both, a coloured body in a grey outline — or is all colour, no wider than the strip
        // is tall, with grey after it (LCL's glyph buttons: a blue arrow in a blue
        // outline before OK).
        let all_colour = colour * 10 > drawn * 9;
        let icon_sized = (x - start) as i32 <= r.h;
        // Grey drawn after it: the caption it stands before.
        let more_after = cols[x..].iter().any(|c| c.0 > 0 && c.1 * 10 < c.0);
        if colour * 10 < drawn
            || (all_colour && !(icon_sized && more_after))
            || letter_in_colour(img, r, &rows, start as i32..x as i32, bg)
        {
            return picture.then_some(r.x + start as i32);
        }
        picture = true;
    }
    None
}

/// Whether the run of columns `run` (relative to `r`) holds a letter drawn in a colour of its
/// own, not a picture: a menu's or a button's hot letter, which text UIs and DOS-era toolkits
/// draw in red or yellow instead of underlining it (Turbo Vision's `File` with a red F; taken
/// for an icon, the caption was read `ile`, `Compile` read `ile`). Its colour is one colour
/// (every coloured pixel on the way from that colour to the ground: a glyph's smoothed edge
/// blends, an icon's outline and body are two colours); it stands beside the grey letters,
/// not among them (at most one column holds both: an icon's body lies inside its grey
/// outline); and it stands inside the band of the grey text from the run on (its cap height
/// to its baseline or descenders, a pixel either way): a picture is taller than the text
/// beside it or has a second colour.
fn letter_in_colour(
    img: &RgbaImage,
    r: Rect,
    rows: &[i32],
    run: std::ops::Range<i32>,
    bg: i32,
) -> bool {
    let px = |x: i32, y: i32| img.get_pixel(x as u32, y as u32).0;
    let coloured = |p: [u8; 4]| chroma(p[0] as i32, p[1] as i32, p[2] as i32) > 60;
    let grey = |x: i32, y: i32| !coloured(px(x, y)) && is_ink(luma(img, x, y), bg);
    // The ground's colour: the first pixel of the strip at the ground's shade.
    let Some(ground) = rows.iter().find_map(|&y| {
        (r.x..r.right())
            .find(|&x| (luma(img, x, y) - bg).abs() <= 2)
            .map(|x| px(x, y))
    }) else {
        return false;
    };
    // The band of the grey text from the run on.
    let (mut top, mut bottom) = (i32::MAX, i32::MIN);
    for x in r.x + run.start..r.right() {
        for &y in rows {
            if grey(x, y) {
                top = top.min(y);
                bottom = bottom.max(y);
            }
        }
    }
    if top > bottom {
        return false;
    }
    let mut ink: Vec<[u8; 4]> = Vec::new();
    let mut shared = 0;
    for x in r.x + run.start..r.x + run.end {
        let (mut has_colour, mut has_grey) = (false, false);
        for &y in rows {
            let p = px(x, y);
            if coloured(p) {
                if y < top - 1 || y > bottom + 1 {
                    return false;
                }
                ink.push(p);
                has_colour = true;
            } else if grey(x, y) {
                has_grey = true;
            }
        }
        shared += (has_colour && has_grey) as u32;
    }
    if shared > 1 {
        return false;
    }
    // The colour: the coloured pixel farthest from the ground; every other one lies on the way
    // from it to the ground (each channel that differs by over 40 levels gives the same
    // fraction within 0.2, each that does not stays between the two, 8 levels either way).
    let far = |p: &[u8; 4]| {
        (0..3)
            .map(|k| (p[k] as i32 - ground[k] as i32).abs())
            .sum::<i32>()
    };
    let Some(c) = ink.iter().max_by_key(|p| far(p)).copied() else {
        return false;
    };
    ink.iter().all(|p| {
        let mut ts: Vec<f32> = Vec::new();
        for k in 0..3 {
            let (pk, ck, gk) = (p[k] as f32, c[k] as f32, ground[k] as f32);
            if (ck - gk).abs() > 40.0 {
                ts.push((pk - gk) / (ck - gk));
            } else if pk < ck.min(gk) - 8.0 || pk > ck.max(gk) + 8.0 {
                return false;
            }
        }
        let (lo, hi) = ts
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &t| (lo.min(t), hi.max(t)));
        !ts.is_empty() && hi - lo <= 0.2
    })
}

/// The shade just left and right of the text `line` (the same within 6 grey levels on both
/// sides, else `None`) and the box it fills around the text: out from the text on its middle
/// row while the shade holds, each side less than `reach` past the text's far end, and up and
/// down from just left of the text for at most three text heights. The ground a caption is
/// drawn on — a flat button's plate, a selection bar.
fn shade_around(img: &RgbaImage, line: Rect, reach: i32) -> Option<(Shade, Rect)> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let h = line.h.max(6);
    let y = line.center().y;
    let inside = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y });
    let (lx, rx) = (line.x - 3, line.right() + 2);
    if !inside(lx, y) || !inside(rx, y) {
        return None;
    }
    let p = img.get_pixel(lx as u32, y as u32).0;
    // In colour too: a green plate as grey as the slate ground around it ends where it does.
    let shade = Shade {
        grey: (luma(img, lx, y) + luma(img, rx, y)) / 2,
        colour: [p[0] as i32, p[1] as i32, p[2] as i32],
    };
    let same = |x: i32, y: i32| {
        inside(x, y) && (luma(img, x, y) - shade.grey).abs() <= 6 && shade.far(img, x, y) <= 24
    };
    if !same(lx, y) || !same(rx, y) {
        return None;
    }
    let mut left = lx;
    while same(left - 1, y) && line.right() - left < reach {
        left -= 1;
    }
    let mut right = rx;
    while same(right + 1, y) && right - line.x < reach {
        right += 1;
    }
    let (mut top, mut bottom) = (y, y);
    while same(lx, top - 1) && y - top < 3 * h {
        top -= 1;
    }
    while same(lx, bottom + 1) && bottom - y < 3 * h {
        bottom += 1;
    }
    Some((
        shade,
        Rect::new(left, top, right - left + 1, bottom - top + 1),
    ))
}

/// The plate a caption sits on when a button is drawn flat (GTK 4, libadwaita: a filled,
/// rounded box a few shades off the window's ground, no frame line). From the caption's line
/// `line`, the plate's shade is what lies just left and right of the text; the plate runs out
/// from the text in that shade until the ground comes back, on each side. It is a button's
/// plate only if it is all one shade (within 6 grey levels) around the text, at least 4 px
/// beyond the text left and right, 1 px above and below and 3 px the two together (a text
/// UI's button is one cell row tall: 2 px over the capitals, 1 under), at most four line
/// heights tall
/// (a reader's line may be as tight as the capitals)
/// and the text's width plus eight text heights wide (a text UI's button is ten cells
/// whatever its caption: `Ok` on 120 px at a 14-point terminal font), the text centred in it,
/// and the ground
/// outside it at least 8 grey levels off on both sides (a tinted panel or a selection bar runs
/// on far wider, and a plain label has no plate). `None` otherwise.
pub fn flat_plate(img: &RgbaImage, line: Rect) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let h = line.h.max(6);
    let y = line.center().y;
    let inside = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y });
    let lx = line.x - 3;
    let max_w = line.w + 8 * h;
    let (plate, r) = shade_around(img, line, max_w)?;
    let same = |x: i32, y: i32| {
        inside(x, y) && (luma(img, x, y) - plate.grey).abs() <= 6 && plate.far(img, x, y) <= 24
    };
    let (left, top, right, bottom) = (r.x, r.y, r.right() - 1, r.bottom() - 1);
    // The ground off the plate by its grey, or as grey by its colour (a dim palette's green
    // plate on slate grey).
    let ground_off = |x: i32, yy: i32| {
        inside(x, yy) && ((luma(img, x, yy) - plate.grey).abs() >= 8 || plate.far(img, x, yy) > 40)
    };
    let ok = line.x - left >= 4
        && right - line.right() >= 4
        && line.y - top >= 1
        && bottom - line.bottom() >= 1
        && (line.y - top) + (bottom - line.bottom()) >= 3
        && r.h <= 4 * h
        && r.w < max_w
        && (r.center().x - line.center().x).abs() <= (r.w / 8).max(3)
        && ground_off(left - 2, y)
        && ground_off(right + 2, y)
        && ground_off(lx, top - 2)
        && ground_off(lx, bottom + 2);
    if !ok {
        return None;
    }
    // All one shade around the text: the plate's rows above and below the line.
    let rows: Vec<i32> = (top..line.y).chain(line.bottom()..=bottom).collect();
    let (mut n, mut off) = (0, 0);
    for yy in rows {
        for x in (left + 2..right - 1).step_by(2) {
            n += 1;
            off += (!same(x, yy)) as usize;
        }
    }
    (n > 0 && off * 10 <= n).then_some(r)
}

/// How far a key's badge is from its caption's ground: reverse video, not a tint.
const BADGE_OFF: i32 = 60;

/// A key's badge before a caption: a text UI's shortcut rows draw each key in reverse video (a
/// filled block one to four cells wide: `^O`, `M-U`, `F10`) and its caption a cell to the right
/// on the ground (GNU nano's `^O Write Out`; pico's, alpine's). The item is the badge and its
/// caption together, a button a click on either part presses.
///
/// From the caption's line `line`: at most a text height of ground columns to its left, then
/// a run of columns each at least 15 % off the ground by [`BADGE_OFF`] grey levels (over the
/// line's rows and two more each side), 0.6 to 4 text heights wide, with the ground back on
/// its left; over the line's rows, the run's pixels 55–97 % off the ground (a filled block
/// with glyphs of the ground's side in it), and those off it mostly of one shade (seven in
/// ten within 30 levels of their median: reverse video is one colour, but for a font's
/// smoothed edges; an icon is not). The badge and the caption's box, or `None`: a plain
/// label, a selection bar (far wider), a framed button.
pub fn key_badge(img: &RgbaImage, line: Rect) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let rows = line.intersect(&bounds)?;
    let h = line.h.max(6);
    let ground = background(img, rows);
    let off = |x: i32, y: i32| (luma(img, x, y) - ground).abs() >= BADGE_OFF;
    // A column's share off the ground over the caption's rows and two more each side: a
    // key's cell is taller than its glyphs, so a stroke of a glyph in it (the O of `^O`,
    // light from top to bottom of the text) still has the block's rows above and below.
    let tall = Rect::new(line.x, line.y - 2, line.w, line.h + 4).intersect(&bounds)?;
    let share = |x: i32| -> f32 {
        if x < 0 || x >= bounds.w {
            return 0.0;
        }
        let n = (tall.y..tall.bottom()).filter(|&y| off(x, y)).count();
        n as f32 / tall.h as f32
    };
    let block = |x: i32| share(x) >= 0.15;
    // The ground between: at least one clear column, at most a text height and two.
    let mut x = line.x - 1;
    while x >= 0 && line.x - x <= h + 2 && !block(x) {
        x -= 1;
    }
    if x < 0 || x == line.x - 1 || !block(x) {
        return None;
    }
    let right = x;
    while x >= 0 && block(x) && right - x < 4 * h {
        x -= 1;
    }
    let left = x + 1;
    let w = right - left + 1;
    if x < 0 || block(x) || (w as f32) < 0.6 * h as f32 || w > 4 * h {
        return None;
    }
    let mut shades: Vec<i32> = Vec::new();
    for y in rows.y..rows.bottom() {
        for x in left..=right {
            if off(x, y) {
                shades.push(luma(img, x, y));
            }
        }
    }
    let all = (w * rows.h) as usize;
    if shades.len() * 100 < all * 55 || shades.len() * 100 > all * 97 {
        return None;
    }
    shades.sort_unstable();
    let median = shades[shades.len() / 2];
    let one = shades.iter().filter(|&&s| (s - median).abs() <= 30).count();
    (one * 10 >= shades.len() * 7).then(|| Rect::new(left, line.y, line.right() - left, line.h))
}

/// How far a pixel must move (its largest channel) to count as lit by the pointer.
const LIT: i32 = 12;

/// The control the pointer lit up: `before` and `after` are one window's pixels without and
/// with the pointer over the caption `line` (a flat button drawn like a label — Tk's `relief
/// flat`, a toolbar's text button — takes its hover shade the moment the pointer enters it).
/// The box of what changed near the caption, if it is a button's: around the whole caption
/// and past it on every side (a face, not a glyph recoloured), a control's size (no more than
/// five text heights and 90 px tall — a tool button's icon above its caption makes it four and
/// more — and no wider than sixteen times its height), within reach of the caption (twelve text heights or 160 px along, four
/// or 40 px across) without touching that reach's edge (a row of a list lit whole, a panel
/// redrawn), and changed over two fifths of its area at least (a plate, not a glyph's colour
/// or an underline). `None` when nothing lit up so: the caption is no button the pixels show.
pub fn lit_by_hover(before: &RgbaImage, after: &RgbaImage, line: Rect) -> Option<Rect> {
    if before.dimensions() != after.dimensions() {
        return None;
    }
    let bounds = Rect::new(0, 0, before.width() as i32, before.height() as i32);
    let h = line.h.max(6);
    let (rx, ry) = ((12 * h).max(160), (4 * h).max(40));
    let near =
        Rect::new(line.x - rx, line.y - ry, line.w + 2 * rx, line.h + 2 * ry).intersect(&bounds)?;
    let lit = |x: i32, y: i32| {
        let (a, b) = (
            before.get_pixel(x as u32, y as u32).0,
            after.get_pixel(x as u32, y as u32).0,
        );
        (0..3).any(|i| (a[i] as i32 - b[i] as i32).abs() > LIT)
    };
    let (mut x0, mut y0, mut x1, mut y1, mut n) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN, 0usize);
    for y in near.y..near.bottom() {
        for x in near.x..near.right() {
            if lit(x, y) {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
                n += 1;
            }
        }
    }
    if n < 20 {
        return None;
    }
    let b = Rect::new(x0, y0, x1 - x0 + 1, y1 - y0 + 1);
    let inside =
        b.x > near.x && b.y > near.y && b.right() < near.right() && b.bottom() < near.bottom();
    // A face reaches past its caption on every side (a glyph recoloured does not).
    let sized = b.h >= line.h + 2 && b.w >= line.w + 4 && b.h <= (5 * h).min(90) && b.w <= 16 * b.h;
    (inside && sized && b.inflate(2).contains_rect(&line) && n * 5 >= b.area() as usize * 2)
        .then_some(b)
}

/// The bar a list draws behind its selected row: the text `line` lighter than a band of one
/// shade behind it (the highlight: white on blue, light on dark grey), the band reaching at
/// least four text heights past the text's end (a row runs to its list's edge, a plate or a
/// caption strip ends near its caption), between the text's height and four text heights tall
/// (a sidebar's rows are roomy), and another shade above and below it. The band's box, or `None`.
pub fn selection_bar(img: &RgbaImage, line: Rect) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let h = line.h.max(6);
    let inside = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y });
    let (lx, rx) = (line.x - 3, line.right() + 2);
    let (band, r) = shade_around(img, line, i32::MAX)?;
    let band = band.grey;
    let same = |x: i32, y: i32| inside(x, y) && (luma(img, x, y) - band).abs() <= 6;
    // The text's ink: pixels well off the band, mostly lighter than it.
    let (mut lighter, mut darker) = (0usize, 0usize);
    for yy in line.y..line.bottom() {
        for x in line.x..line.right() {
            if !inside(x, yy) {
                continue;
            }
            let d = luma(img, x, yy) - band;
            lighter += (d > 40) as usize;
            darker += (d < -40) as usize;
        }
    }
    if lighter < 4 || lighter < 3 * darker {
        return None;
    }
    let (top, right, bottom) = (r.y, r.right() - 1, r.bottom() - 1);
    if right - line.right() < 4 * h {
        return None;
    }
    let off = |x: i32, yy: i32| !inside(x, yy) || (luma(img, x, yy) - band).abs() >= 8;
    // Another shade above and below, past a separator line too: a dark theme's caption strip
    // (light text on a band between two lines) has the window's own shade beyond its lines.
    let ok = r.h >= line.h
        && r.h <= 4 * h
        && off(lx, top - 1)
        && off(lx, bottom + 1)
        && off(rx + 2 * h, top - 1)
        && off(rx + 2 * h, bottom + 1)
        && off(lx, top - 3)
        && off(lx, bottom + 3);
    if !ok {
        return None;
    }
    // One shade past the text, on the text's rows: no other words, no picture.
    let (mut n, mut other) = (0, 0);
    for yy in (top + 1..bottom).step_by(2) {
        for x in (line.right() + 2..(line.right() + 4 * h).min(right)).step_by(2) {
            n += 1;
            other += (!same(x, yy)) as usize;
        }
    }
    (n > 0 && other * 10 <= n).then_some(r)
}

/// The text area a caption strip heads: `label` on a band of its own shade (the strip) whose
/// lower edge — a line, or a step to another shade — comes within two text heights under it,
/// and under that edge an area of one shade, blank in its first rows, at least ten text heights
/// wide and three tall, reaching left to the caption's start and right past its end, in the
/// shade a text area has against the strip (lighter on a light window, darker on a dark one).
/// A text box drawn without a frame under its caption (wxGTK's, GTK's text views). The area's
/// box, or `None`.
pub fn area_under_strip(img: &RgbaImage, label: Rect) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let inside = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y });
    let h = label.h.max(6);
    let xs = label.right() + h;
    if !inside(xs, label.center().y) {
        return None;
    }
    let strip = luma(img, xs, label.center().y);
    let near = |x: i32, y: i32, v: i32| inside(x, y) && (luma(img, x, y) - v).abs() <= 6;
    // The strip runs on past the caption, on the caption's own row.
    if !(label.right() + 1..label.right() + 4 * h).all(|x| near(x, label.center().y, strip)) {
        return None;
    }
    let edge = (label.bottom()..label.bottom() + 2 * h).find(|&y| !near(xs, y, strip))?;
    // The edge runs across, past the caption's end: a text caret after a prompt (a console's
    // underline cursor) is a mark on the caption's row, no edge of a strip.
    let (from, to) = (label.x + h, label.right() + 4 * h);
    let off_strip = (from..to)
        .step_by(2)
        .filter(|&x| !near(x, edge, strip))
        .count();
    if off_strip * 10 < 8 * ((to - from).max(1) as usize).div_ceil(2) {
        return None;
    }
    // The area: from the edge or just past a line, four rows of one shade across the strip.
    let (top, area) = (edge..edge + 4).find_map(|y| {
        if !inside(xs, y + 4) {
            return None;
        }
        let a = luma(img, xs, y + 1);
        let rows_alike = (y..y + 4).all(|yy| {
            (label.x..label.right() + 4 * h)
                .step_by(2)
                .all(|x| near(x, yy, a))
        });
        rows_alike.then_some((y, a))
    })?;
    if top == edge && (area - strip).abs() < 8 {
        return None;
    }
    // A text area is the window's base: lighter than the strip on a light window, darker on a
    // dark one (a coloured bar under a toolbar is neither).
    if (area >= 128 && area < strip) || (area < 128 && area > strip) {
        return None;
    }
    let mut left = xs;
    while near(left - 1, top + 1, area) {
        left -= 1;
    }
    let mut right = xs;
    while near(right + 1, top + 1, area) {
        right += 1;
    }
    // Its bottom, down its right margin (text, if any, sits at the left).
    let mut bottom = top;
    while near(right - 2, bottom + 1, area) {
        bottom += 1;
    }
    let r = Rect::new(left, top, right - left + 1, bottom - top + 1);
    let ok = r.h >= 3 * h && r.w >= 10 * h && left <= label.x + h && right >= label.right();
    ok.then_some(r)
}

/// A text caret drawn as a block whose left column is `x`, met within the rows `rows` (end
/// exclusive) on ground `bg`: a run of ink down column `x` between `min_h` and `max_h` tall
/// starts a box of the same rows, at least 3 px and a quarter of its height wide and no wider
/// than tall, nine tenths ink or more, with no ink in the column before it or the one after
/// it, nor on the rows just above and below it but for a line drawn across (a border it
/// touches). A glyph has gaps or strokes of unequal
/// length; a selected letter has the letter cut out of it. The block's box, if it is one.
fn block_caret(
    img: &RgbaImage,
    x: i32,
    rows: (i32, i32),
    bg: i32,
    (min_h, max_h): (i32, i32),
    bar: Option<(i32, i32)>,
) -> Option<Rect> {
    // On a bar one cell tall (rows `bar`, end exclusive) whose rows above and below are
    // another ground, the block ends with the bar, and what lies beyond it says nothing.
    let (lo, hi) = bar.unwrap_or((0, i32::MAX));
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let ink =
        |x: i32, y: i32| bounds.contains(mend_model::Point { x, y }) && is_ink(luma(img, x, y), bg);
    let mut y = rows.0;
    while y < rows.1 {
        if !ink(x, y) {
            y += 1;
            continue;
        }
        // The run's own extent, past the rows looked at if it goes on, but not into a line
        // drawn across it (a border the block touches: inked left of the block too).
        let mut t = y;
        while t > lo.max(0) && ink(x, t - 1) && !ink(x - 1, t - 1) {
            t -= 1;
        }
        let start = y;
        while y < hi && ink(x, y) && !ink(x - 1, y) {
            y += 1;
        }
        if y == start {
            y += 1;
            continue;
        }
        let h = y - t;
        if h < min_h || h > max_h {
            continue;
        }
        // As wide as the rows stay inked, all but a row or two.
        let full = |xx: i32| (t..y).filter(|&yy| ink(xx, yy)).count() as i32 >= h - 2;
        let mut e = x;
        while e - x <= h && full(e) {
            e += 1;
        }
        let b = Rect::new(x, t, e - x, h);
        let clear = |xx: i32| (t..y).all(|yy| !ink(xx, yy));
        // Above and below it: no ink, or a line running on past both its sides.
        let open = |yy: i32| (x..e).all(|xx| !ink(xx, yy)) || (ink(x - 2, yy) && ink(e + 1, yy));
        let ring_clear = clear(x - 1) && clear(e) && (bar.is_some() || (open(t - 1) && open(y)));
        let filled = (x..e)
            .flat_map(|xx| (t..y).map(move |yy| (xx, yy)))
            .filter(|&(xx, yy)| ink(xx, yy))
            .count() as i32;
        if b.w >= 3 && 4 * b.w >= h && b.w <= h && 10 * filled >= 9 * b.area() as i32 && ring_clear
        {
            return Some(b);
        }
    }
    None
}

/// A text caret drawn as an underline whose left column is `x`, within the rows `rows` (end
/// exclusive) on ground `bg`, for text `h` tall: a bar one pixel to half `h` thick in the
/// lower half of the rows, half `h` to twice `h` wide, nine tenths ink or more, with nothing
/// on its columns for `h` rows above it (an empty cell: an underlined letter or a mnemonic
/// has its letter there), nor in the column before or after it, nor in the row under it.
/// The Windows console's cursor (a quarter of its cell, at the bottom), a terminal's
/// underline cursor. The bar's box, if it is one.
fn underline_caret(img: &RgbaImage, x: i32, rows: (i32, i32), bg: i32, h: i32) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let ink =
        |x: i32, y: i32| bounds.contains(mend_model::Point { x, y }) && is_ink(luma(img, x, y), bg);
    let mid = (rows.0 + rows.1) / 2;
    let t = (mid..rows.1).find(|&y| ink(x, y) && !ink(x - 1, y))?;
    let mut y = t;
    while ink(x, y) {
        y += 1;
    }
    let thick = y - t;
    if thick > (h / 2).max(2) {
        return None;
    }
    let full = |xx: i32| (t..y).all(|yy| ink(xx, yy));
    let mut e = x;
    while e - x <= 2 * h && full(e) {
        e += 1;
    }
    let w = e - x;
    let clear_col = |xx: i32| (t..y).all(|yy| !ink(xx, yy));
    let empty_above = (t - h..t).all(|yy| (x..e).all(|xx| !ink(xx, yy)));
    let open_below = (x..e).all(|xx| !ink(xx, y));
    (2 * w >= h && w <= 2 * h && clear_col(x - 1) && clear_col(e) && empty_above && open_below)
        .then(|| Rect::new(x, t, w, thick))
}

/// The input of a prompt drawn with no box: the rest of the caption `label`'s line on its
/// ground, as a terminal, a command line or an editor's minibuffer asks ("Write file: ~/"
/// followed by what the user types). A line of text after a caption is no field by itself
/// (`Status: Active`), so the input is taken only where a text caret stands in it: a block
/// cursor, nothing after it, on the line right of the caption or, when the line's text runs
/// on unbroken to the ground's right edge (wrapped), on the line it wraps onto. The box is from just past the caption to
/// the ground's right edge, on the caption's rows with 3 px beyond them (as a field's box has
/// its frame); it comes back with whether a caret was seen (a blinking one is off in every
/// other frame), or `None` where the caption's line is no open ground four text heights long.
pub fn prompt_input(img: &RgbaImage, label: Rect) -> Option<Prompt> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let inside = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y });
    let h = label.h.max(6);
    let pad = h / 3 + 1;
    if !inside(label.right() + 2, label.y) || label.x >= bounds.right() {
        return None;
    }
    // The ground: what lies just past the caption, on the line's middle rows (where the input
    // begins: a space, then what was typed or the caret). Rows above and below may be another
    // ground when the prompt is a bar of its own.
    let mid = label.center().y;
    let ground = background(
        img,
        Rect::new(label.right() + 2, mid - h / 3, h, 2 * (h / 3) + 1),
    );
    let is_ground = |x: i32, y: i32| inside(x, y) && (luma(img, x, y) - ground).abs() <= 6;
    // The first clear column past the caption (a caption's box may end on its colon's ink).
    let clear = |x: i32| (mid - h / 4..=mid + h / 4).all(|y| !inside(x, y) || is_ground(x, y));
    let x0 = (label.right() + 2..=label.right() + 2 + h / 2).find(|&x| clear(x))?;
    // The band: the caption's rows and up to `pad` more each way while the ground holds just
    // past the caption. A prompt on a window's last line has no room below it; one drawn in
    // reverse video (nano's `File Name to Write:`) is a bar one cell tall, another ground
    // above and below it.
    // A reader's box may be taller than such a bar: the band is grown from the line's middle.
    if !is_ground(x0, mid) {
        return None;
    }
    let mut top = mid;
    while top > (label.y - pad).max(0) && is_ground(x0, top - 1) {
        top -= 1;
    }
    let mut bottom = mid;
    while bottom < (label.bottom() + pad).min(bounds.bottom() - 1) && is_ground(x0, bottom + 1) {
        bottom += 1;
    }
    // The text's height within it, two thirds at least.
    if 3 * (bottom - top + 1) < 2 * label.h.min(h + 2 * pad) {
        return None;
    }
    // The ground's right edge, along the row under the line: a descender breaks it for a few
    // pixels, a frame, a bar or another panel for longer. Ground goes on only where two
    // pixels side by side are ground: a stippled scroll bar (Athena's, every other pixel
    // ink) is no ground, though half its pixels are the ground's shade.
    let mut edge = label.right();
    let mut off = 0;
    for x in label.right() + 1..bounds.right() {
        if is_ground(x, bottom) && is_ground(x - 1, bottom) {
            edge = x;
            off = 0;
        } else {
            off += 1;
            if off > h {
                break;
            }
        }
    }
    if edge - label.right() < 4 * h {
        return None;
    }
    let inked_col = |x: i32, y0: i32, y1: i32| {
        (y0..y1).any(|y| inside(x, y) && is_ink(luma(img, x, y), ground))
    };
    // A caret ends what was typed: a block cursor with no ink after it on its rows, up to the
    // edge (a picture or a cell among other text is none).
    let min_h = (label.h * 3 / 4).max(6);
    // Or an underline cursor, in the cell after the text typed.
    // A bar: the band's rows above and below are another ground (reverse video).
    let off_ground = |y: i32| inside(x0, y) && !is_ground(x0, y);
    let bar = (off_ground(top - 1) && off_ground(bottom + 1)).then_some((top, bottom + 1));
    let caret_in = |x0: i32, x1: i32, y0: i32, y1: i32| {
        (x0.max(0)..x1).any(|x| {
            block_caret(
                img,
                x,
                (y0, y1),
                ground,
                (min_h, 3 * min_h),
                bar.filter(|_| y0 == top),
            )
            .or_else(|| underline_caret(img, x, (y0, y1), ground, label.h.max(6)))
            .is_some_and(|b| {
                let rows = ((b.bottom() - b.h.max(label.h)).max(top), b.bottom());
                !(b.right() + 1..edge).any(|xx| inked_col(xx, rows.0, rows.1))
            })
        })
    };
    let on_line = caret_in(label.right() + 2, edge, top, bottom);
    // Wrapped: the line's text runs on, with no gap wider than two text heights (a word
    // space is a third of one; columns of a list's header stand far apart), to within two
    // text heights of the edge; the next line holds the rest.
    let (mut run, mut widest, mut last) = (0, 0, label.right());
    for x in label.right() + h..=edge {
        if inked_col(x, top, bottom) {
            widest = widest.max(run);
            run = 0;
            last = x;
        } else {
            run += 1;
        }
    }
    let wraps = widest <= 2 * h && last >= edge - 2 * h;
    let below = wraps && {
        let y1 = (label.bottom() + 3 * h).min(bounds.bottom());
        caret_in(label.x - 2 * h, edge, label.bottom() + 1, y1)
    };
    // 3 px beyond the caption's rows, within a pixel of the band (a bar's own rows).
    let (y0, y1) = (
        (label.y - 3).max(top - 1),
        (label.bottom() + 3).min(bottom + 2),
    );
    let input = Rect::new(label.right() - 1, y0, edge - label.right() + 4, y1 - y0);
    Some(Prompt {
        input: input.intersect(&bounds)?,
        caret: on_line || below,
    })
}

/// A caption's line read as a prompt's input ([`prompt_input`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prompt {
    /// The input's box: the rest of the caption's line.
    pub input: Rect,
    /// Whether a text caret was seen in it. Without one the line is no input in this frame;
    /// a blinking caret may be off in it and on in the next.
    pub caret: bool,
}

/// The inside of box `r`, 3 px in from its frame and within the image (at least 4×4), and
/// its background.
fn inside_border(img: &RgbaImage, r: Rect) -> Option<(Rect, i32)> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let inner = r.inflate(-3).intersect(&bounds)?;
    (inner.w >= 4 && inner.h >= 4).then(|| (inner, background(img, inner)))
}

/// The box around every ink pixel of `r` (on background `bg`), if there is any.
fn ink_box(img: &RgbaImage, r: Rect, bg: i32) -> Option<Rect> {
    let mut ink: Option<Rect> = None;
    for y in r.y..r.bottom() {
        for x in r.x..r.right() {
            if is_ink(luma(img, x, y), bg) {
                let p = Rect::new(x, y, 1, 1);
                ink = Some(ink.map_or(p, |i| i.union(&p)));
            }
        }
    }
    ink
}

/// Does the box `r` hold ink centred across it, as a button holds its caption? A field's
/// text starts at its left edge and an empty field holds none. Looks 3 px inside the frame;
/// ink spanning most of the width (a border, a focus line) is no caption.
pub fn centred_ink(img: &RgbaImage, r: Rect) -> bool {
    let Some((inner, bg)) = inside_border(img, r).filter(|(i, _)| i.w >= 8) else {
        return false;
    };
    let Some(ink) = ink_box(img, inner, bg) else {
        return false;
    };
    let off_centre = (ink.center().x - inner.center().x).abs();
    ink.w * 10 < inner.w * 9
        && ink.x - inner.x >= 8.max(inner.w / 10)
        && off_centre <= 3.max(inner.w / 12)
}

/// The ink of one glyph inside `r` (clamped to the image): a mask over its tight ink box,
/// ink being far from the box's background.
fn glyph_mask(img: &RgbaImage, r: Rect) -> Option<(Rect, Vec<bool>)> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let mut r = r.intersect(&bounds)?;
    // The ground is judged on the middle third of the rows: a word's box reaches past the bar
    // its glyph sits on, into what is around the bar, above and below.
    let bg = background(img, Rect::new(r.x, r.y + r.h / 3, r.w, (r.h / 3).max(1)));
    // Edges that are ink all along (the bar or panel the glyph sits in, a frame) are no glyph.
    let full = |r: Rect, row: bool, at: i32| {
        let n = if row { r.w } else { r.h };
        n > 0
            && (0..n).all(|k| {
                let (x, y) = if row { (r.x + k, at) } else { (at, r.y + k) };
                is_ink(luma(img, x, y), bg)
            })
    };
    while r.h > 0 && full(r, true, r.y) {
        r = Rect::new(r.x, r.y + 1, r.w, r.h - 1);
    }
    while r.h > 0 && full(r, true, r.bottom() - 1) {
        r = Rect::new(r.x, r.y, r.w, r.h - 1);
    }
    while r.w > 0 && full(r, false, r.x) {
        r = Rect::new(r.x + 1, r.y, r.w - 1, r.h);
    }
    while r.w > 0 && full(r, false, r.right() - 1) {
        r = Rect::new(r.x, r.y, r.w - 1, r.h);
    }
    let ink = ink_box(img, r, bg)?;
    let mask = (ink.y..ink.bottom())
        .flat_map(|y| (ink.x..ink.right()).map(move |x| (x, y)))
        .map(|(x, y)| is_ink(luma(img, x, y), bg))
        .collect();
    Some((ink, mask))
}

/// Is the glyph in `a` the mirror image (left for right) of the glyph in `b`? Brackets come in
/// mirrored pairs — `<` `>`, `[` `]`, `(` `)` — whatever OCR took one of them for: a thin `<`
/// of a terminal's bold font reads "K". The two ink boxes must be of a size (heights within a
/// fifth, widths within a third, at least 4 px tall) and the mirrored masks, laid over each
/// other on `a`'s box, must overlap by at least 0.6 of their union. A glyph that is its own
/// mirror (`O`, `H`, `|`) passes too: callers ask only of a lone glyph facing a bracket.
pub fn mirrors(img: &RgbaImage, a: Rect, b: Rect) -> bool {
    let (Some((ra, ma)), Some((rb, mb))) = (glyph_mask(img, a), glyph_mask(img, b)) else {
        return false;
    };
    let close = |p: i32, q: i32, tenths: i32| (p - q).abs() * 10 <= tenths * p.max(q);
    if ra.h < 4 || !close(ra.h, rb.h, 2) || !close(ra.w, rb.w, 3) {
        return false;
    }
    let (mut both, mut either) = (0usize, 0usize);
    for y in 0..ra.h {
        for x in 0..ra.w {
            let ia = ma[(y * ra.w + x) as usize];
            // The point of b's box at the same place, read right to left.
            let bx = rb.w - 1 - x * rb.w / ra.w;
            let by = y * rb.h / ra.h;
            let ib = mb[(by * rb.w + bx) as usize];
            both += (ia && ib) as usize;
            either += (ia || ib) as usize;
        }
    }
    either > 0 && both * 10 >= either * 6
}

/// A bar filled with a colour of its own right of the text line `label`, within `reach`
/// pixels: a field drawn without a frame, as a terminal form draws its one-row fields in cell
/// colours. The bar starts where the label's ground gives way on the label's middle row and
/// runs on (text typed into it included) until the ground comes back; it must be at least four
/// text heights wide, between a text height and three tall, and mostly one shade — a word
/// gives way to the ground between its glyphs, a picture is not one shade.
pub fn filled_bar(img: &RgbaImage, label: Rect, reach: i32) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let around = label.inflate(2).intersect(&bounds)?;
    let ground = Shade::of(img, around);
    let off = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y }) && ground.off(img, x, y);
    let y = label.center().y;
    let x_end = (label.right() + reach).min(bounds.right() - 1);
    let x0 = (label.right() + 1..=x_end).find(|&x| off(x, y))?;
    bar_from(img, x0, y, ground, label.h.max(8))
}

/// A ground's shade: its grey level and its colour. A bar is off it by its grey (24 levels)
/// or, as grey as it, by its colour (40 in a channel: a dim palette's green input on a slate
/// grey dialog, two greys one level apart); a pixel is of it within 16 grey levels and 24 in
/// each channel.
#[derive(Clone, Copy)]
struct Shade {
    grey: i32,
    colour: [i32; 3],
}

impl Shade {
    /// The most common shade of `r` ([`background`]), its colour the most common among the
    /// pixels of that grey.
    fn of(img: &RgbaImage, r: Rect) -> Shade {
        let grey = background(img, r);
        let mut counts: std::collections::HashMap<[u8; 3], u32> = Default::default();
        if let Some(r) = r.intersect(&Rect::new(0, 0, img.width() as i32, img.height() as i32)) {
            for y in r.y..r.bottom() {
                for x in r.x..r.right() {
                    if luma(img, x, y) == grey {
                        let p = img.get_pixel(x as u32, y as u32).0;
                        *counts.entry([p[0], p[1], p[2]]).or_default() += 1;
                    }
                }
            }
        }
        let c = counts
            .into_iter()
            .max_by_key(|(c, n)| (*n, *c))
            .map_or([grey as u8; 3], |(c, _)| c);
        Shade {
            grey,
            colour: [c[0] as i32, c[1] as i32, c[2] as i32],
        }
    }

    fn far(&self, img: &RgbaImage, x: i32, y: i32) -> i32 {
        colour_far(img.get_pixel(x as u32, y as u32).0, self.colour)
    }

    fn off(&self, img: &RgbaImage, x: i32, y: i32) -> bool {
        (luma(img, x, y) - self.grey).abs() > 24 || self.far(img, x, y) > 40
    }

    fn holds(&self, img: &RgbaImage, x: i32, y: i32) -> bool {
        (luma(img, x, y) - self.grey).abs() <= 16 && self.far(img, x, y) <= 24
    }
}

/// How far the pixel `p` is from the colour `c`: its largest channel's difference.
pub(crate) fn colour_far(p: [u8; 4], c: [i32; 3]) -> i32 {
    (0..3)
        .map(|k| (p[k] as i32 - c[k]).abs())
        .max()
        .unwrap_or(0)
}

/// Whether `r` of `img` is one shade: 97 % of its pixels within 24 levels, in each channel, of
/// its middle pixel (a gradient drifts less than that over a few text heights). None of it in
/// the image is not.
pub fn one_shade(img: &RgbaImage, r: Rect) -> bool {
    let Some(r) = r.intersect(&Rect::new(0, 0, img.width() as i32, img.height() as i32)) else {
        return false;
    };
    let m = img
        .get_pixel((r.x + r.w / 2) as u32, (r.y + r.h / 2) as u32)
        .0;
    let m = [m[0] as i32, m[1] as i32, m[2] as i32];
    let (mut n, mut off) = (0usize, 0usize);
    for y in r.y..r.bottom() {
        for x in r.x..r.right() {
            n += 1;
            if colour_far(img.get_pixel(x as u32, y as u32).0, m) > 24 {
                off += 1;
            }
        }
    }
    n > 0 && off * 100 <= n * 3
}

/// The bar of its own colour under the caption `label` (a text UI's dialog sets its one-row
/// input on the row below the prompt: `Enter directory name:` over a cyan bar): met going
/// down from the caption's middle column within a text height, reaching left to within two
/// text heights of the caption's start, held to the same shape as [`filled_bar`].
pub fn filled_bar_below(img: &RgbaImage, label: Rect) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let around = label.inflate(2).intersect(&bounds)?;
    let ground = Shade::of(img, around);
    let off = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y }) && ground.off(img, x, y);
    let text_h = label.h.max(8);
    let x = label.center().x;
    // The caption's own glyphs end at its box; the bar starts within a text height below.
    let top = (label.bottom()..label.bottom() + text_h).find(|&y| off(x, y))?;
    // Its middle row: down while off the ground, at most three text heights.
    let mut bottom = top;
    while bottom - top < 3 * text_h && off(x, bottom + 1) {
        bottom += 1;
    }
    let y = (top + bottom) / 2;
    // Its left end: left along that row through two pixels of ground at most.
    let (mut x0, mut gap, mut xx) = (x, 0, x);
    while xx > bounds.x && gap <= 2 {
        xx -= 1;
        if off(xx, y) {
            x0 = xx;
            gap = 0;
        } else {
            gap += 1;
        }
    }
    if (x0 - label.x).abs() > 2 * text_h {
        return None;
    }
    bar_from(img, x0, y, ground, text_h)
}

/// The bar of one shade starting at `x0` on row `y` (off the `ground` around it): its extent
/// right, its top and bottom, and its shape (at least four text heights wide, between a text
/// height and three tall, mostly one shade).
fn bar_from(img: &RgbaImage, x0: i32, y: i32, ground: Shade, text_h: i32) -> Option<Rect> {
    let bounds = Rect::new(0, 0, img.width() as i32, img.height() as i32);
    let off = |x: i32, y: i32| bounds.contains(mend_model::Point { x, y }) && ground.off(img, x, y);
    // Runs on through two pixels of ground at most (a light glyph typed into it).
    let (mut x1, mut gap) = (x0, 0);
    let mut x = x0;
    while x < bounds.right() && gap <= 2 {
        if off(x, y) {
            x1 = x;
            gap = 0;
        } else {
            gap += 1;
        }
        x += 1;
    }
    let w = x1 - x0 + 1;
    if w < 4 * text_h {
        return None;
    }
    // Its top and bottom: the median, over columns across it, of how far its own shade goes
    // (a bar of another colour may adjoin it: the next field of the form).
    let shade = Shade::of(img, Rect::new(x0, y, w, 1));
    let own =
        |x: i32, y: i32| bounds.contains(mend_model::Point { x, y }) && shade.holds(img, x, y);
    let mut tops = Vec::new();
    let mut bottoms = Vec::new();
    for cx in (x0 + 2..x1 - 1).step_by(3) {
        if !own(cx, y) {
            continue;
        }
        let mut t = y;
        while t > y - 2 * text_h && own(cx, t - 1) {
            t -= 1;
        }
        let mut b = y;
        while b < y + 2 * text_h && own(cx, b + 1) {
            b += 1;
        }
        tops.push(t);
        bottoms.push(b);
    }
    tops.sort_unstable();
    bottoms.sort_unstable();
    let (top, bottom) = (*tops.get(tops.len() / 2)?, *bottoms.get(bottoms.len() / 2)?);
    let bar = Rect::new(x0, top, w, bottom - top + 1);
    if bar.h * 10 < text_h * 8 || bar.h > 3 * text_h {
        return None;
    }
    // Mostly one shade.
    let total = (bar.w * bar.h) as usize;
    let near = (bar.y..bar.bottom())
        .flat_map(|yy| (bar.x..bar.right()).map(move |xx| (xx, yy)))
        .filter(|&(xx, yy)| shade.holds(img, xx, yy))
        .count();
    (near * 10 >= total * 6).then_some(bar)
}

/// Does the field in `r` hold nothing? Looks inside its border (3 px in) for ink, ignoring
/// rows inked across most of the width (a border or focus line the box included), columns
/// near either edge inked down nearly all the rows and runs of ink touching the left or right
/// edge (a vertical border). Empty means no ink at all, or one
/// run at most 2 px wide or one solid block (a terminal's or an editor's block cursor): the
/// text caret. Placeholder text, bullets of a masked field and a
/// single glyph all count as content.
pub fn field_is_blank(img: &RgbaImage, r: Rect) -> bool {
    let Some((inner, bg)) = inside_border(img, r) else {
        return false;
    };
    let inner = without_drop_button(img, inner, bg);
    let rows: Vec<i32> = (inner.y..inner.bottom())
        .filter(|&y| {
            let n = (inner.x..inner.right())
                .filter(|&x| is_ink(luma(img, x, y), bg))
                .count() as i32;
            n * 5 < inner.w * 4
        })
        .collect();
    // A column inked down nearly all the rows near either edge is a vertical border.
    let counts: Vec<usize> = (inner.x..inner.right())
        .map(|x| {
            rows.iter()
                .filter(|&&y| is_ink(luma(img, x, y), bg))
                .count()
        })
        .collect();
    let border_like = |x: i32| counts[(x - inner.x) as usize] * 100 > rows.len() * 85;
    let inked: Vec<bool> = (inner.x..inner.right())
        .map(|x| {
            let edge = x - inner.x < 4 || inner.right() - 1 - x < 4;
            counts[(x - inner.x) as usize] > 0 && !(edge && border_like(x))
        })
        .collect();
    // Runs of inked columns as (start, end) offsets, end exclusive.
    let mut runs = Vec::new();
    let mut start = None;
    for (i, &ink) in inked.iter().chain(std::iter::once(&false)).enumerate() {
        match (ink, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    // A terminal's block cursor in the field's first cell (a one-row field of cells, as a
    // text UI draws it): solid columns from the field's left edge, about a cell wide, and no
    // other ink. The edge rule above took its first columns for a border; a glyph under the
    // cursor (drawn in reverse) is no solid block, so a character there is content.
    let solid = |x: i32| !rows.is_empty() && rows.iter().all(|&y| is_ink(luma(img, x, y), bg));
    let lead = (inner.x..inner.right()).take_while(|&x| solid(x)).count();
    if lead >= 5 && lead as i32 <= inner.h + 3 && inked.iter().skip(lead).all(|&ink| !ink) {
        return true;
    }
    runs.retain(|&(s, e)| s > 0 && e < inked.len());
    // A combo box's drop arrow drawn in the field with no line before it (KDE's Breeze): the
    // last run, at the right end, shaped as an arrow pointing down.
    if let Some(&(s, e)) = runs.last() {
        let arrow = Rect::new(inner.x + s as i32, inner.y, (e - s) as i32, inner.h);
        if inner.right() - arrow.right() <= inner.h && drop_arrow(img, arrow, bg) {
            runs.pop();
        }
    }
    match runs.as_slice() {
        [] => true,
        [(s, e)] => {
            let mut cols = (inner.x + *s as i32, inner.x + *e as i32);
            // A block a few pixels in had its first columns taken by the edge rule for a
            // border: they are the block's (inked down the rows the edge rule counts, whether
            // or not the block is as tall as the field: Athena's Text draws its cursor 14 px
            // tall in a 16 px inside, two pixels in from its frame).
            while cols.0 > inner.x && (solid(cols.0 - 1) || border_like(cols.0 - 1)) {
                cols.0 -= 1;
            }
            e - s <= 2
                // The block as tall as the field's box at most: a text UI's one-row field is
                // a bar one cell tall, its cursor the whole cell (Free Vision's input line).
                || block_caret(
                    img,
                    cols.0,
                    (inner.y, inner.bottom()),
                    bg,
                    (inner.h * 2 / 3, (inner.h * 2).max(r.h + 2)),
                    None,
                )
                    .is_some_and(|b| b.right() == cols.1)
        }
        _ => false,
    }
}

/// Whether the ink in the columns `r` is a drop-down arrow: a chevron or triangle pointing
/// down, wider by a third than it is tall, no taller than half the field, symmetric about its
/// middle, each row's ink no wider than the row above and the last row at most half the first.
/// A letter `v` is about as tall as it is wide; a digit or `_` is no such shape.
fn drop_arrow(img: &RgbaImage, r: Rect, bg: i32) -> bool {
    // Themes draw it light: its strokes are taken at a fainter contrast than text's ink, over
    // the columns around the inked ones (only its tip may be dark enough to be ink).
    let faint = |x: i32, y: i32| {
        x >= 0
            && (x as u32) < img.width()
            && y >= 0
            && (y as u32) < img.height()
            && (luma(img, x, y) - bg).abs() > 40
    };
    let column = |x: i32| (r.y..r.bottom()).any(|y| faint(x, y));
    let (mut left, mut right) = (r.x, r.right() - 1);
    while left > r.x - r.h && column(left - 1) {
        left -= 1;
    }
    while right < r.right() + r.h && column(right + 1) {
        right += 1;
    }
    let spans: Vec<(i32, i32)> = (r.y..r.bottom())
        .filter_map(|y| {
            let xs: Vec<i32> = (left..=right).filter(|&x| faint(x, y)).collect();
            Some((*xs.first()?, *xs.last()?))
        })
        .collect();
    let (Some(first), Some(last)) = (spans.first(), spans.last()) else {
        return false;
    };
    let (w, h) = (first.1 - first.0 + 1, spans.len() as i32);
    let middle = |s: &(i32, i32)| s.0 + s.1;
    let narrowing = spans.windows(2).all(|p| p[1].1 - p[1].0 <= p[0].1 - p[0].0);
    let symmetric = spans.iter().all(|s| (middle(s) - middle(first)).abs() <= 2);
    h >= 3
        && h * 2 <= r.h
        && 3 * w >= 4 * h
        && narrowing
        && symmetric
        && 2 * (last.1 - last.0 + 1) <= w
}

/// A combo box's field and its drop button share one frame: a full-height line splits off a
/// part at the right end no wider than about one and a half box heights, holding the arrow.
/// The field is what lies left of that line. A line is a column differing from the
/// background, faintly (themes draw it light), down nearly every row and in one steady grey
/// (a few rows apart: a spinner's up and down buttons meet mid-line);
/// text never spans the whole height, so a glyph at the right end is not taken for one.
/// A dark theme may draw the line a few grey levels off its ground (GTK 3's spin button parts
/// its − and + that way): a line that faint must be one grey from top to bottom, one or two
/// pixels wide with the ground beside it (a gradient is not a line).
fn without_drop_button(img: &RgbaImage, inner: Rect, bg: i32) -> Rect {
    let widest = inner.h * 8 / 5 + 6;
    let column =
        |x: i32| -> Vec<i32> { (inner.y..inner.bottom()).map(|y| luma(img, x, y)).collect() };
    let ground_at = |x: i32| {
        let g = column(x);
        g.iter().filter(|&&v| (v - bg).abs() <= 2).count() * 10 >= g.len() * 9
    };
    let faint_line = |x: i32, greys: &[i32]| {
        let mut sorted = greys.to_vec();
        sorted.sort_unstable();
        let mid = sorted[sorted.len() / 2];
        (mid - bg).abs() >= 4
            && greys.iter().filter(|&&g| (g - mid).abs() <= 2).count() * 10 >= greys.len() * 9
            && (ground_at(x - 1) || ground_at(x - 2))
            && (ground_at(x + 1) || ground_at(x + 2))
    };
    for x in (inner.right() - widest).max(inner.x + inner.w / 2)..inner.right() - 4 {
        let greys = column(x);
        if !greys.is_empty() && faint_line(x, &greys) {
            return Rect::new(inner.x, inner.y, x - inner.x, inner.h);
        }
        let off: Vec<i32> = greys
            .iter()
            .copied()
            .filter(|g| (g - bg).abs() >= 16)
            .collect();
        // One grey down the line, but for a row or two where it meets another part (a
        // spinner's two arrow buttons part at its middle, in the ground's shade).
        let mut sorted = off.clone();
        sorted.sort_unstable();
        let steady = sorted.get(sorted.len() / 2).is_some_and(|&mid| {
            off.iter().filter(|&&g| (g - mid).abs() <= 20).count() * 100 >= greys.len() * 85
        });
        if off.len() * 10 >= greys.len() * 9 && steady {
            return Rect::new(inner.x, inner.y, x - inner.x, inner.h);
        }
    }
    inner
}

/// The inside of a dotted focus ring drawn in box `r` (Win32's `DrawFocusRect` on the focused
/// or default button: every other pixel of a rectangle a few pixels in from the frame), or
/// `None` when there is none. OCR reads nothing of a caption with the ring around it in view
/// (a default button's "Yes" at 120 DPI); read inside it, the caption is plain.
pub fn inside_focus_ring(img: &RgbaImage, r: Rect) -> Option<Rect> {
    let inner =
        r.inflate(-1)
            .clamp_to(&Rect::new(0, 0, img.width() as i32, img.height() as i32))?;
    if inner.w < 12 || inner.h < 10 {
        return None;
    }
    let bg = background(img, inner);
    // A dotted line: inked pixels with no two side by side, at least four in ten over its
    // extent, and running over most of the box. Text never is: its strokes touch.
    let dotted = |pixels: &mut dyn Iterator<Item = bool>, len: i32| {
        let inked: Vec<i32> = pixels
            .enumerate()
            .filter(|(_, i)| *i)
            .map(|(k, _)| k as i32)
            .collect();
        let (Some(&first), Some(&last)) = (inked.first(), inked.last()) else {
            return false;
        };
        let extent = last - first + 1;
        inked.len() >= 5
            && extent * 10 >= len * 6
            && inked.len() as i32 * 10 >= extent * 4
            && inked.windows(2).all(|p| p[1] - p[0] >= 2)
    };
    let row = |y: i32| {
        dotted(
            &mut (inner.x..inner.right()).map(|x| is_ink(luma(img, x, y), bg)),
            inner.w,
        )
    };
    let col = |x: i32| {
        dotted(
            &mut (inner.y..inner.bottom()).map(|y| is_ink(luma(img, x, y), bg)),
            inner.h,
        )
    };
    // The ring's sides: the outermost dotted lines, each within a quarter of its edge.
    let near = |n: i32| (n / 4).max(2);
    let top = (inner.y..inner.y + near(inner.h)).find(|&y| row(y))?;
    let bottom = (inner.bottom() - near(inner.h)..inner.bottom())
        .rev()
        .find(|&y| row(y))?;
    let left = (inner.x..inner.x + near(inner.w)).find(|&x| col(x))?;
    let right = (inner.right() - near(inner.w)..inner.right())
        .rev()
        .find(|&x| col(x))?;
    let inside = Rect::new(left + 1, top + 1, right - left - 1, bottom - top - 1);
    (inside.w >= 4 && inside.h >= 4).then_some(inside)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draw a glyph from rows of '#' at (x, y), white on the image's ground.
    fn glyph(img: &mut RgbaImage, x: u32, y: u32, rows: &[&str]) {
        for (dy, row) in rows.iter().enumerate() {
            for (dx, c) in row.chars().enumerate() {
                if c == '#' {
                    img.put_pixel(x + dx as u32, y + dy as u32, image::Rgba([255; 4]));
                }
            }
        }
    }

    /// A terminal's bold `<` (which OCR read "K") is the mirror of its `>`, on a bar that its
    /// word box runs past; an `L` and a `K` are not.
    #[test]
    fn a_bracket_is_known_by_its_mirror() {
        let mut img = RgbaImage::from_pixel(120, 30, image::Rgba([229, 229, 229, 255]));
        for y in 6..19 {
            for x in 2..118 {
                img.put_pixel(x, y, image::Rgba([0, 0, 238, 255]));
            }
        }
        let open = [
            "....##", "...##.", "..##..", ".##...", "##....", ".##...", "..##..", "...##.",
            "....##",
        ];
        let close: Vec<String> = open.iter().map(|r| r.chars().rev().collect()).collect();
        let close: Vec<&str> = close.iter().map(|s| s.as_str()).collect();
        let ell = [
            "##....", "##....", "##....", "##....", "##....", "##....", "##....", "##....",
            "######",
        ];
        let kay = [
            "##..##", "##.##.", "####..", "###...", "##....", "###...", "####..", "##.##.",
            "##..##",
        ];
        glyph(&mut img, 5, 8, &open);
        glyph(&mut img, 40, 8, &close);
        glyph(&mut img, 60, 8, &ell);
        glyph(&mut img, 80, 8, &kay);
        // Word boxes as OCR gives them: the line's height, past the bar above and below.
        let word = |x: i32| Rect::new(x - 1, 3, 8, 21);
        assert!(mirrors(&img, word(5), word(40)));
        assert!(!mirrors(&img, word(60), word(40)), "an L is no bracket");
        assert!(!mirrors(&img, word(80), word(40)), "nor is a K");
    }

    /// A terminal form's field: a bar in a colour of its own right of its label, a second bar
    /// of another colour right under it. The bar is found at its own rows; a word right of a
    /// label (gaps between its glyphs) is no bar.
    #[test]
    fn a_filled_bar_right_of_a_label_is_a_field() {
        let grey = image::Rgba([229, 229, 229, 255]);
        let mut img = RgbaImage::from_pixel(400, 80, grey);
        let bar = Rect::new(158, 20, 180, 13);
        for (r, c) in [
            (bar, [0, 0, 238, 255]),
            (bar.translate(0, 13), [0, 205, 205, 255]),
        ] {
            for y in r.y..r.bottom() {
                for x in r.x..r.right() {
                    img.put_pixel(x as u32, y as u32, image::Rgba(c));
                }
            }
        }
        // The label "Name:" as glyph strokes.
        let label = Rect::new(104, 22, 28, 10);
        for k in 0..5 {
            for y in label.y..label.bottom() {
                img.put_pixel(
                    (label.x + 6 * k) as u32,
                    y as u32,
                    image::Rgba([0, 0, 0, 255]),
                );
            }
        }
        assert_eq!(filled_bar(&img, label, 300), Some(bar));
        // Text right of a label is no bar.
        let mut words = RgbaImage::from_pixel(400, 80, grey);
        for k in 0..30 {
            for y in 22..32 {
                words.put_pixel(160 + 6 * k, y, image::Rgba([0, 0, 0, 255]));
            }
        }
        assert_eq!(filled_bar(&words, label, 300), None);
    }

    /// `r` of `img` filled with `c`.
    fn paint(img: &mut RgbaImage, r: Rect, c: [u8; 4]) {
        for y in r.y..r.bottom() {
            for x in r.x..r.right() {
                img.put_pixel(x as u32, y as u32, image::Rgba(c));
            }
        }
    }

    /// A text UI's dialog: its prompt, and under it the input, a bar of cyan cells with the
    /// grey block cursor in its first cell. The bar is found below the prompt, cursor and all;
    /// a line of words under a caption, or a bar starting far right of the caption's start,
    /// is none.
    #[test]
    fn a_filled_bar_under_a_prompt_is_its_field() {
        let grey = image::Rgba([229, 229, 229, 255]);
        let mut img = RgbaImage::from_pixel(400, 80, grey);
        let label = Rect::new(20, 10, 126, 9);
        for k in 0..21 {
            paint(&mut img, Rect::new(20 + 6 * k, 10, 2, 9), [0, 0, 0, 255]);
        }
        let mut prompt = img.clone();
        let field = Rect::new(20, 21, 264, 13);
        paint(&mut prompt, field, [0, 205, 205, 255]);
        paint(&mut prompt, Rect::new(20, 21, 6, 13), [127, 127, 127, 255]);
        assert_eq!(filled_bar_below(&prompt, label), Some(field));
        let mut words = img.clone();
        for k in 0..30 {
            paint(&mut words, Rect::new(20 + 6 * k, 22, 2, 9), [0, 0, 0, 255]);
        }
        assert_eq!(filled_bar_below(&words, label), None);
        let mut far = img.clone();
        paint(&mut far, Rect::new(100, 21, 264, 13), [0, 205, 205, 255]);
        assert_eq!(filled_bar_below(&far, label), None);
    }

    /// A dim palette's input: a green bar on a slate grey dialog, one grey level apart
    /// (63,127,63 on 92,99,107), under its prompt and right of a label — off the ground by its
    /// colour; the same bar in the ground's own colour is none.
    #[test]
    fn a_bar_as_grey_as_its_ground_is_told_by_its_colour() {
        let slate = image::Rgba([92, 99, 107, 255]);
        let mut img = RgbaImage::from_pixel(400, 80, slate);
        let label = Rect::new(20, 10, 24, 9);
        for k in 0..4 {
            paint(
                &mut img,
                Rect::new(20 + 6 * k, 10, 2, 9),
                [255, 255, 255, 255],
            );
        }
        let mut green = img.clone();
        let field = Rect::new(20, 21, 180, 13);
        paint(&mut green, field, [63, 127, 63, 255]);
        assert_eq!(filled_bar_below(&green, label), Some(field));
        let beside = Rect::new(60, 8, 180, 13);
        let mut right = img.clone();
        paint(&mut right, beside, [63, 127, 63, 255]);
        assert_eq!(filled_bar(&right, label, 100), Some(beside));
        let mut none = img.clone();
        paint(&mut none, field, [92, 99, 107, 255]);
        assert_eq!(filled_bar_below(&none, label), None);
    }

    /// A 200×26 field: white inside a 2 px grey sunken border.
    fn field() -> RgbaImage {
        RgbaImage::from_fn(200, 26, |x, y| {
            if x < 2 || y < 2 || x >= 198 || y >= 24 {
                image::Rgba([128, 128, 128, 255])
            } else {
                image::Rgba([255, 255, 255, 255])
            }
        })
    }

    fn ink(img: &mut RgbaImage, x0: u32, w: u32) {
        for x in x0..x0 + w {
            for y in 6..20 {
                img.put_pixel(x, y, image::Rgba([0, 0, 0, 255]));
            }
        }
    }

    #[test]
    fn a_caption_centred_in_a_box_is_a_button_s_and_text_at_the_left_a_field_s() {
        let r = Rect::new(0, 0, 200, 26);
        let mut f = field();
        assert!(!centred_ink(&f, r), "an empty box holds no caption");
        ink(&mut f, 6, 60);
        assert!(!centred_ink(&f, r), "text from the left edge is a field's");
        let mut b = field();
        ink(&mut b, 70, 60);
        assert!(centred_ink(&b, r), "a caption in the middle is a button's");
    }

    #[test]
    fn a_gradient_is_the_background_and_the_text_on_it_is_ink() {
        // 12 rows from 253 down to 242 (a Metal menu bar), one dark word of 20×8 on it: each
        // grey level of the gradient is rarer than the text's one colour.
        let mut img = RgbaImage::from_fn(40, 12, |_, y| {
            let g = 253 - y as u8;
            image::Rgba([g, g, g, 255])
        });
        for x in 10..30 {
            for y in 2..10 {
                img.put_pixel(x, y, image::Rgba([51, 51, 51, 255]));
            }
        }
        let bg = background(&img, Rect::new(0, 0, 40, 12));
        assert!((242..=253).contains(&bg), "background {bg}");
        assert!(is_ink(51, bg));
        // A flat background is its own colour exactly.
        assert_eq!(background(&field(), Rect::new(2, 2, 196, 22)), 255);
    }

    #[test]
    fn an_empty_field_is_blank_with_or_without_its_caret() {
        let r = Rect::new(0, 0, 200, 26);
        let mut f = field();
        assert!(field_is_blank(&f, r));
        ink(&mut f, 6, 1);
        assert!(field_is_blank(&f, r), "a caret is not content");
        // The box found a little larger than the field: its border inside the inset.
        let wide = RgbaImage::from_fn(210, 36, |x, y| {
            if (5..205).contains(&x) && (5..31).contains(&y) {
                *f.get_pixel(x - 5, y - 5)
            } else {
                image::Rgba([212, 208, 200, 255])
            }
        });
        assert!(field_is_blank(&wide, Rect::new(1, 1, 208, 34)));
    }

    /// A terminal's or an editor's block cursor (a cell of solid ink) is the caret, not
    /// content; a selected letter (a block with the letter cut out), a block and a glyph, or a
    /// block wider than tall are content.
    #[test]
    fn a_block_cursor_is_a_caret_but_a_selected_letter_is_content() {
        let r = Rect::new(0, 0, 200, 26);
        let mut block = field();
        ink(&mut block, 6, 8);
        assert!(field_is_blank(&block, r), "a block cursor");
        let mut selected = block.clone();
        for y in 9..17 {
            selected.put_pixel(9, y, image::Rgba([255; 4]));
            selected.put_pixel(10, y, image::Rgba([255; 4]));
        }
        assert!(!field_is_blank(&selected, r), "a selected 'l'");
        let mut and_glyph = block.clone();
        ink(&mut and_glyph, 20, 2);
        assert!(!field_is_blank(&and_glyph, r), "a block and a glyph");
        let mut bar = field();
        ink(&mut bar, 6, 30);
        assert!(!field_is_blank(&bar, r), "a filled bar wider than tall");
    }

    #[test]
    fn an_athena_texts_block_cursor_two_pixels_in_is_the_caret() {
        // x3270's File Name box (Athena's Text): a 2 px frame, 2 px of ground, the cursor a
        // 6x14 block in a 16 px inside; emptied, the cursor alone at the start.
        let (w, h) = (304u32, 22u32);
        let field = RgbaImage::from_fn(w, h, |x, y| {
            if x < 2 || y < 2 || x >= w - 2 || y >= h - 2 {
                image::Rgba([0, 0, 0, 255])
            } else {
                image::Rgba([230, 230, 250, 255])
            }
        });
        let r = Rect::new(0, 0, w as i32, h as i32);
        let black = [0, 0, 0, 255];
        let mut empty = field.clone();
        paint(&mut empty, Rect::new(4, 4, 6, 14), black);
        assert!(field_is_blank(&empty, r), "the cursor alone");
        let mut after = empty.clone();
        paint(&mut after, Rect::new(14, 7, 2, 9), black);
        assert!(
            !field_is_blank(&after, r),
            "the cursor and a glyph after it"
        );
    }

    /// A text UI's one-row field (cells of one colour, no border) with the terminal's cursor
    /// in its first cell: the block starts at the field's edge, so it is no run inside it —
    /// still the caret. A letter under it, or a glyph after it, is content.
    #[test]
    fn a_block_cursor_in_a_terminal_fields_first_cell_is_the_caret() {
        let r = Rect::new(0, 0, 200, 24);
        let bar = RgbaImage::from_fn(200, 24, |x, _| {
            if x < 12 {
                image::Rgba([0, 0, 0, 255])
            } else {
                image::Rgba([0, 205, 205, 255])
            }
        });
        assert!(field_is_blank(&bar, r), "the cursor in the first cell");
        let mut letter = bar.clone();
        for y in 6..18 {
            letter.put_pixel(6, y, image::Rgba([0, 205, 205, 255]));
        }
        assert!(!field_is_blank(&letter, r), "an 'l' under the cursor");
        let mut after = bar.clone();
        for y in 6..18 {
            for x in 16..18 {
                after.put_pixel(x, y, image::Rgba([0, 0, 0, 255]));
            }
        }
        assert!(
            !field_is_blank(&after, r),
            "the cursor and a glyph after it"
        );
        let wide = RgbaImage::from_fn(200, 24, |x, _| {
            if x < 40 {
                image::Rgba([0, 0, 0, 255])
            } else {
                image::Rgba([0, 205, 205, 255])
            }
        });
        assert!(!field_is_blank(&wide, r), "a block wider than a cell");
    }

    /// Free Vision's input line: a one-row bar (13 px, no frame) of blue cells on the dialog's
    /// light grey, its first cell a margin, the white block cursor in the second cell, the
    /// whole cell tall — an empty field. A letter after the cursor is content.
    #[test]
    fn a_block_cursor_a_cell_in_on_a_one_row_bar_is_the_caret() {
        let fill = |img: &mut RgbaImage, x0: u32, y0: u32, w: u32, h: u32, c: [u8; 4]| {
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    img.put_pixel(x, y, image::Rgba(c));
                }
            }
        };
        let mut img = RgbaImage::from_pixel(240, 40, image::Rgba([229, 229, 229, 255]));
        fill(&mut img, 20, 10, 168, 13, [0, 0, 238, 255]);
        fill(&mut img, 26, 10, 6, 13, [255, 255, 255, 255]);
        let field = Rect::new(20, 10, 168, 13);
        assert!(field_is_blank(&img, field), "the cursor alone: empty");
        fill(&mut img, 40, 13, 1, 7, [255, 255, 255, 255]);
        fill(&mut img, 43, 13, 1, 7, [255, 255, 255, 255]);
        assert!(
            !field_is_blank(&img, field),
            "a glyph after the cursor: content"
        );
    }

    #[test]
    fn text_a_glyph_or_bullets_are_content() {
        let r = Rect::new(0, 0, 200, 26);
        let mut one = field();
        ink(&mut one, 8, 3);
        assert!(!field_is_blank(&one, r), "one glyph 3 px wide");
        let mut glyph_and_caret = field();
        ink(&mut glyph_and_caret, 8, 1);
        ink(&mut glyph_and_caret, 11, 1);
        assert!(!field_is_blank(&glyph_and_caret, r), "an 'l' and the caret");
        let mut bullets = field();
        for i in 0..5 {
            ink(&mut bullets, 8 + i * 9, 6);
        }
        assert!(!field_is_blank(&bullets, r));
    }

    #[test]
    fn a_combo_box_arrow_is_not_content_but_text_at_the_right_end_is() {
        let r = Rect::new(0, 0, 200, 26);
        let mut combo = field();
        // A faint divider 26 px from the right, and the arrow right of it.
        for y in 2..24 {
            combo.put_pixel(172, y, image::Rgba([220, 220, 220, 255]));
        }
        ink(&mut combo, 181, 8);
        assert!(field_is_blank(&combo, r), "the arrow is the drop button's");
        ink(&mut combo, 150, 3);
        assert!(!field_is_blank(&combo, r), "a glyph in the field part");
        // Right-aligned text with no divider: content. The digit is drawn with its counter
        // (a `0`): a cell of solid ink is a block cursor, no glyph.
        let mut amount = field();
        ink(&mut amount, 186, 6);
        for y in 8..18 {
            for x in 188..190 {
                amount.put_pixel(x, y, image::Rgba([255; 4]));
            }
        }
        assert!(!field_is_blank(&amount, r));
    }

    #[test]
    fn a_spinner_whose_buttons_meet_mid_line_is_not_content() {
        // A history field's spinner (Swing at twice the scale): its dividing line is grey
        // but for the row where its up and down buttons meet, drawn in a lighter shade.
        let r = Rect::new(0, 0, 200, 26);
        let mut spin = field();
        for y in 2..24 {
            let g = if y == 12 { 238 } else { 138 };
            spin.put_pixel(176, y, image::Rgba([g, g, g, 255]));
        }
        ink(&mut spin, 184, 8);
        assert!(field_is_blank(&spin, r), "the arrows are the spinner's");
        ink(&mut spin, 8, 3);
        assert!(!field_is_blank(&spin, r), "a glyph in the field part");
    }

    #[test]
    fn a_dark_spin_buttons_plus_past_a_faint_line_is_not_content() {
        // GTK 3's spin button on Adwaita dark (YAD's form): ground 45, its − and + parted from
        // the entry by lines of 40, five grey levels off; the + bright, the − dim.
        let dark = |w: u32| {
            let mut f = RgbaImage::from_fn(w, 34, |x, y| {
                let g = if x == 0 || y == 0 || x == w - 1 || y == 33 {
                    90
                } else {
                    45
                };
                image::Rgba([g, g, g, 255])
            });
            for x in [w - 66, w - 31] {
                paint(&mut f, Rect::new(x as i32, 1, 1, 32), [40, 40, 40, 255]);
            }
            // The +: a bright cross in the last part.
            let plus = [218, 218, 218, 255];
            paint(&mut f, Rect::new(w as i32 - 22, 17, 13, 1), plus);
            paint(&mut f, Rect::new(w as i32 - 16, 11, 1, 13), plus);
            f
        };
        let (w, r) = (163, Rect::new(0, 0, 163, 34));
        let mut spin = dark(w);
        assert!(field_is_blank(&spin, r), "the + is the spin button's");
        for x in [60, 66] {
            paint(&mut spin, Rect::new(x, 10, 1, 14), [220, 220, 220, 255]);
        }
        assert!(!field_is_blank(&spin, r), "a digit in the entry");
        // A gradient across the field is no line.
        let mut ramp = dark(w);
        for x in 1..w - 1 {
            for y in 1..33 {
                let g = 45 + (x as u8 / 8);
                ramp.put_pixel(x, y, image::Rgba([g, g, g, 255]));
            }
        }
        for x in [140, 146] {
            paint(&mut ramp, Rect::new(x, 10, 1, 14), [230, 230, 230, 255]);
        }
        assert!(
            !field_is_blank(&ramp, r),
            "ink at the right of a shaded field"
        );
    }

    #[test]
    fn a_dark_field_is_judged_the_same() {
        let r = Rect::new(0, 0, 200, 26);
        let mut f = RgbaImage::from_pixel(200, 26, image::Rgba([30, 30, 30, 255]));
        assert!(field_is_blank(&f, r));
        for x in 10..40 {
            for y in 8..18 {
                if x % 4 != 0 {
                    f.put_pixel(x, y, image::Rgba([230, 230, 230, 255]));
                }
            }
        }
        assert!(!field_is_blank(&f, r));
    }

    /// A 60×28 button: a 1 px frame, a dotted ring 3 px in, a caption in the middle.
    fn button(ring: bool) -> RgbaImage {
        let mut img = RgbaImage::from_fn(60, 28, |x, y| {
            if x == 0 || y == 0 || x == 59 || y == 27 {
                image::Rgba([100, 100, 100, 255])
            } else {
                image::Rgba([240, 240, 240, 255])
            }
        });
        if ring {
            // A checkerboard pattern along the ring, as DrawFocusRect draws it.
            let on_ring = |x: u32, y: u32| {
                (x == 4 || x == 55) && (4..24).contains(&y)
                    || (y == 4 || y == 23) && (4..56).contains(&x)
            };
            for y in 0..28 {
                for x in 0..60 {
                    if on_ring(x, y) && (x + y) % 2 == 0 {
                        img.put_pixel(x, y, image::Rgba([0, 0, 0, 255]));
                    }
                }
            }
        }
        // "Yes": three glyphs of solid strokes.
        for (x0, w) in [(20, 6), (28, 5), (35, 5)] {
            for x in x0..x0 + w {
                for y in 10..18 {
                    if x == x0 || y == 10 || y == 17 || x == x0 + w - 1 {
                        img.put_pixel(x, y, image::Rgba([0, 0, 0, 255]));
                    }
                }
            }
        }
        img
    }

    #[test]
    fn a_dotted_focus_ring_is_found_and_a_caption_is_no_ring() {
        let r = Rect::new(0, 0, 60, 28);
        assert_eq!(
            inside_focus_ring(&button(true), r),
            Some(Rect::new(5, 5, 50, 18))
        );
        assert_eq!(inside_focus_ring(&button(false), r), None);
        // A solid frame line is no dotted ring either.
        let mut solid = button(false);
        for x in 4..56 {
            solid.put_pixel(x, 4, image::Rgba([0, 0, 0, 255]));
            solid.put_pixel(x, 23, image::Rgba([0, 0, 0, 255]));
        }
        assert_eq!(inside_focus_ring(&solid, r), None);
    }
}

#[cfg(test)]
mod icon_tests {
    use super::*;

    fn fill(img: &mut RgbaImage, x0: u32, y0: u32, w: u32, h: u32, c: [u8; 4]) {
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                img.put_pixel(x, y, image::Rgba(c));
            }
        }
    }

    /// A menu item's icon (a pale blue lens in a grey outline) before its grey caption: the
    /// caption's left edge comes back. Grey text alone, or text all in one colour (a link),
    /// has no picture before it: None.
    #[test]
    fn the_text_after_a_menu_icon_is_found_and_plain_text_is_left_alone() {
        let ground = [238, 238, 238, 255];
        let grey = [40, 40, 40, 255];
        let mut img = RgbaImage::from_pixel(120, 20, image::Rgba(ground));
        // The icon: a 12x12 outline with a coloured body, at x 4..16.
        fill(&mut img, 4, 4, 12, 12, grey);
        fill(&mut img, 5, 5, 10, 10, [120, 170, 240, 255]);
        // The caption: three grey glyph bars from x 24 on, a column apart.
        for i in 0..3 {
            fill(&mut img, 24 + 6 * i, 6, 4, 9, grey);
        }
        let strip = Rect::new(0, 0, 120, 20);
        assert_eq!(text_after_icon(&img, strip), Some(24));
        // The caption alone.
        assert_eq!(text_after_icon(&img, Rect::new(20, 0, 100, 20)), None);
        // A caption all in colour (a link) is not a picture.
        let mut link = RgbaImage::from_pixel(80, 20, image::Rgba(ground));
        for i in 0..3 {
            fill(&mut link, 10 + 6 * i, 6, 4, 9, [20, 60, 220, 255]);
        }
        assert_eq!(text_after_icon(&link, Rect::new(0, 0, 80, 20)), None);
    }

    /// A flat button (GTK 4): a caption on a plate a few shades darker than the window's
    /// ground is known by its plate; the same caption on the ground has none, nor does one on a
    /// tinted bar running across the window.
    #[test]
    fn a_flat_button_is_known_by_its_plate() {
        let ground = [250, 250, 250, 255];
        let plate = [228, 228, 228, 255];
        let mut img = RgbaImage::from_pixel(300, 60, image::Rgba(ground));
        fill(&mut img, 100, 15, 70, 30, plate);
        for i in 0..4 {
            fill(&mut img, 120 + 8 * i, 25, 5, 10, [40, 40, 40, 255]);
        }
        let line = Rect::new(119, 24, 32, 12);
        assert_eq!(flat_plate(&img, line), Some(Rect::new(100, 15, 70, 30)));
        // On the ground: no plate.
        let bare = RgbaImage::from_pixel(300, 60, image::Rgba(ground));
        assert_eq!(flat_plate(&bare, line), None);
        // A bar across the window: too wide to be a button.
        let mut bar = RgbaImage::from_pixel(300, 60, image::Rgba(ground));
        fill(&mut bar, 0, 15, 300, 30, plate);
        assert_eq!(flat_plate(&bar, line), None);
        // A text UI's button: a green plate one cell row tall (13 px), the caption's capitals
        // 2 px under its top and its baseline 1 px over its bottom, a shadow beside it.
        let mut cell = RgbaImage::from_pixel(300, 60, image::Rgba([229, 229, 229, 255]));
        fill(&mut cell, 100, 20, 60, 13, [0, 205, 0, 255]);
        fill(&mut cell, 160, 24, 6, 13, [0, 0, 0, 255]);
        fill(&mut cell, 126, 22, 4, 9, [0, 255, 255, 255]);
        fill(&mut cell, 131, 22, 4, 9, [255, 255, 0, 255]);
        let ok = Rect::new(126, 22, 9, 9);
        assert_eq!(flat_plate(&cell, ok), Some(Rect::new(100, 20, 60, 13)));
        // Flush with the plate's bottom: no plate around the text.
        let tight = Rect::new(126, 22, 9, 10);
        assert_eq!(flat_plate(&cell, tight), None);
    }

    /// A list's selected row: light text on a blue bar that runs on to the list's edge is on a
    /// selection bar; the same text dark on the window's ground, a caption on a plate of its
    /// own size, and dark text on a grey strip (a caption strip, a header) are not.
    #[test]
    fn a_selected_row_is_known_by_its_bar() {
        let ground = [255, 255, 255, 255];
        let blue = [53, 132, 228, 255];
        let mut img = RgbaImage::from_pixel(400, 80, image::Rgba(ground));
        fill(&mut img, 0, 30, 400, 22, blue);
        for i in 0..5 {
            fill(&mut img, 20 + 8 * i, 35, 5, 11, [255, 255, 255, 255]);
        }
        let line = Rect::new(20, 35, 37, 11);
        assert_eq!(selection_bar(&img, line), Some(Rect::new(0, 30, 400, 22)));
        // Dark text on the white ground: no bar.
        let mut bare = RgbaImage::from_pixel(400, 80, image::Rgba(ground));
        for i in 0..5 {
            fill(&mut bare, 20 + 8 * i, 35, 5, 11, [30, 30, 30, 255]);
        }
        assert_eq!(selection_bar(&bare, line), None);
        // A plate just round the caption (a button): the band ends near the text.
        let mut plate = RgbaImage::from_pixel(400, 80, image::Rgba(ground));
        fill(&mut plate, 12, 30, 56, 22, blue);
        for i in 0..5 {
            fill(&mut plate, 20 + 8 * i, 35, 5, 11, [255, 255, 255, 255]);
        }
        assert_eq!(selection_bar(&plate, line), None);
        // Dark text on a grey strip across the window: a caption strip, not a selection.
        let mut strip = RgbaImage::from_pixel(400, 80, image::Rgba(ground));
        fill(&mut strip, 0, 30, 400, 22, [230, 230, 230, 255]);
        for i in 0..5 {
            fill(&mut strip, 20 + 8 * i, 35, 5, 11, [30, 30, 30, 255]);
        }
        assert_eq!(selection_bar(&strip, line), None);
        // A tall blue panel (a page's background): not a row's height.
        let mut panel = RgbaImage::from_pixel(400, 80, image::Rgba(ground));
        fill(&mut panel, 0, 0, 400, 80, blue);
        for i in 0..5 {
            fill(&mut panel, 20 + 8 * i, 35, 5, 11, [255, 255, 255, 255]);
        }
        assert_eq!(selection_bar(&panel, line), None);
        // A dark window's caption strip: light text on a band a shade off the ground, a line
        // above and below it, the ground beyond them.
        let mut dark = RgbaImage::from_pixel(400, 80, image::Rgba([45, 45, 45, 255]));
        fill(&mut dark, 0, 29, 400, 1, [80, 80, 80, 255]);
        fill(&mut dark, 0, 30, 400, 22, [48, 48, 48, 255]);
        fill(&mut dark, 0, 52, 400, 1, [80, 80, 80, 255]);
        for i in 0..5 {
            fill(&mut dark, 20 + 8 * i, 35, 5, 11, [230, 230, 230, 255]);
        }
        assert_eq!(selection_bar(&dark, line), None);
    }

    /// An editable combo box drawn as one field with its drop arrow inside (KDE's Breeze): the
    /// field holding only the arrow at its right end is blank; a `v` or a `7` there is not.
    #[test]
    fn a_drop_arrow_inside_a_field_is_no_content() {
        let white = [255, 255, 255, 255];
        let dark = [40, 40, 40, 255];
        let frame = |img: &mut RgbaImage| {
            fill(img, 0, 0, 300, 1, [150, 150, 150, 255]);
            fill(img, 0, 29, 300, 1, [150, 150, 150, 255]);
            fill(img, 0, 0, 1, 30, [150, 150, 150, 255]);
            fill(img, 299, 0, 1, 30, [150, 150, 150, 255]);
        };
        let field = Rect::new(0, 0, 300, 30);
        // A chevron 11 wide, 6 tall: two strokes meeting at the bottom.
        let mut img = RgbaImage::from_pixel(300, 30, image::Rgba(white));
        frame(&mut img);
        for i in 0..6 {
            fill(&mut img, 280 + i, 12 + i, 1, 1, dark);
            fill(&mut img, 290 - i, 12 + i, 1, 1, dark);
        }
        assert!(field_is_blank(&img, field));
        // A `v` as tall as it is wide: a letter.
        let mut v = RgbaImage::from_pixel(300, 30, image::Rgba(white));
        frame(&mut v);
        for i in 0..7 {
            fill(&mut v, 282 + i / 2, 10 + i, 1, 1, dark);
            fill(&mut v, 288 - i / 2, 10 + i, 1, 1, dark);
        }
        assert!(!field_is_blank(&v, field));
        // A `7`, right-aligned: content.
        let mut seven = RgbaImage::from_pixel(300, 30, image::Rgba(white));
        frame(&mut seven);
        fill(&mut seven, 282, 9, 8, 2, dark);
        for i in 0..10 {
            fill(&mut seven, 289 - i / 2, 11 + i, 2, 1, dark);
        }
        assert!(!field_is_blank(&seven, field));
        // Text at the left and the arrow: content.
        let mut text = img.clone();
        fill(&mut text, 10, 10, 6, 10, dark);
        assert!(!field_is_blank(&text, field));
    }

    /// KDE's file dialog's Name box (KWrite, batch E), emptied: a caret and the light drop
    /// arrow are blank; holding `draft.txt` (its file icon, the clear button) it is not.
    #[test]
    fn kdes_emptied_name_combo_is_blank() {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/real-apps/fields/"
        );
        let load = |f: &str| image::open(format!("{dir}{f}")).unwrap().to_rgba8();
        let empty = load("kde_name_combo_empty.png");
        let r = Rect::new(0, 0, empty.width() as i32, empty.height() as i32);
        assert!(field_is_blank(&empty, r));
        assert!(!field_is_blank(&load("kde_name_combo_filled.png"), r));
    }

    /// A text area under its caption strip: the caption on a grey strip, a line under it, a
    /// white area below is the area; the same caption on the window's ground with nothing under
    /// it, or over a coloured bar darker than the strip (an info bar under a toolbar), is none.
    #[test]
    fn a_text_area_under_its_caption_strip_is_found() {
        let grey = [240, 240, 240, 255];
        let mut img = RgbaImage::from_pixel(400, 200, image::Rgba(grey));
        fill(&mut img, 0, 40, 400, 1, [200, 200, 200, 255]);
        fill(&mut img, 0, 41, 380, 150, [255, 255, 255, 255]);
        for i in 0..5 {
            fill(&mut img, 6 + 8 * i, 22, 5, 11, [30, 30, 30, 255]);
        }
        let label = Rect::new(6, 22, 37, 11);
        assert_eq!(
            area_under_strip(&img, label),
            Some(Rect::new(0, 41, 380, 150))
        );
        // Nothing under the caption: the window's ground.
        let mut bare = RgbaImage::from_pixel(400, 200, image::Rgba(grey));
        for i in 0..5 {
            fill(&mut bare, 6 + 8 * i, 22, 5, 11, [30, 30, 30, 255]);
        }
        assert_eq!(area_under_strip(&bare, label), None);
        // An orange bar under the strip: darker than it on a light window.
        let mut bar = RgbaImage::from_pixel(400, 200, image::Rgba(grey));
        fill(&mut bar, 0, 40, 400, 150, [250, 170, 60, 255]);
        for i in 0..5 {
            fill(&mut bar, 6 + 8 * i, 22, 5, 11, [30, 30, 30, 255]);
        }
        assert_eq!(area_under_strip(&bar, label), None);
        // A console's prompt on black, its underline cursor after it: the cursor is no edge
        // of a strip, the black under it no text area.
        let mut console = RgbaImage::from_pixel(400, 200, image::Rgba([0, 0, 0, 255]));
        for i in 0..5 {
            fill(&mut console, 6 + 8 * i, 22, 5, 11, [200, 200, 200, 255]);
        }
        fill(&mut console, 52, 31, 8, 3, [200, 200, 200, 255]);
        assert_eq!(area_under_strip(&console, label), None);
        // A caption at the window's bottom edge: nothing under it, and no look outside.
        let low = Rect::new(6, 190, 37, 9);
        assert_eq!(area_under_strip(&bare, low), None);
    }

    /// A box grown past the image's edge (a caption on the last row, inflated) has the
    /// background of its part inside; a box wholly outside has none. No panic either way.
    #[test]
    fn the_background_of_a_box_past_the_edge_is_its_part_inside() {
        let img = RgbaImage::from_pixel(100, 40, image::Rgba([200, 200, 200, 255]));
        assert_eq!(background(&img, Rect::new(80, 30, 40, 20)), 200);
        assert_eq!(background(&img, Rect::new(-5, -5, 10, 10)), 200);
        assert_eq!(background(&img, Rect::new(200, 200, 10, 10)), 0);
    }

    /// A flat button lit by the pointer: its whole face takes the hover shade around its
    /// caption. A caption whose glyphs only change colour, a row lit across the whole reach,
    /// and nothing changed are no button.
    #[test]
    fn a_flat_button_lit_by_the_pointer_is_the_box_that_lit() {
        let ground = [217, 217, 217, 255];
        let mut before = RgbaImage::from_pixel(400, 200, image::Rgba(ground));
        let line = Rect::new(190, 60, 14, 10);
        fill(&mut before, 190, 60, 14, 10, [0, 0, 0, 255]);
        let mut after = before.clone();
        fill(&mut after, 130, 55, 141, 20, [236, 236, 236, 255]);
        fill(&mut after, 190, 60, 14, 10, [0, 0, 0, 255]);
        assert_eq!(
            lit_by_hover(&before, &after, line),
            Some(Rect::new(130, 55, 141, 20))
        );
        assert_eq!(lit_by_hover(&before, &before, line), None);
        // A tool button: its icon above the caption, the face lit around both (45 px over a
        // caption 11 px tall).
        let mut tool = before.clone();
        fill(&mut tool, 175, 25, 45, 45, [236, 236, 236, 255]);
        fill(&mut tool, 185, 30, 24, 24, [40, 120, 40, 255]);
        let caption = Rect::new(184, 58, 28, 11);
        fill(&mut tool, 184, 58, 28, 11, [0, 0, 0, 255]);
        let mut plain = before.clone();
        fill(&mut plain, 185, 30, 24, 24, [40, 120, 40, 255]);
        fill(&mut plain, 184, 58, 28, 11, [0, 0, 0, 255]);
        assert_eq!(
            lit_by_hover(&plain, &tool, caption),
            Some(Rect::new(175, 25, 45, 45)),
            "a tool button's icon and caption lit together"
        );
        let mut recoloured = before.clone();
        fill(&mut recoloured, 190, 60, 14, 10, [0, 0, 200, 255]);
        assert_eq!(
            lit_by_hover(&before, &recoloured, line),
            None,
            "a glyph's colour only"
        );
        let mut row = before.clone();
        fill(&mut row, 0, 55, 400, 20, [236, 236, 236, 255]);
        fill(&mut row, 190, 60, 14, 10, [0, 0, 0, 255]);
        assert_eq!(
            lit_by_hover(&before, &row, line),
            None,
            "a row lit across the reach"
        );
    }

    #[test]
    fn a_stippled_scroll_bar_ends_a_prompts_line() {
        // A 3270 emulator's screen (x3270): green text on black, a block cursor after the
        // prompt, and at the window's right edge Athena's scroll bar, every other pixel ink.
        let green = [0, 255, 0, 255];
        let mut img = RgbaImage::from_pixel(420, 120, image::Rgba([0, 0, 0, 255]));
        for i in 0..18 {
            fill(&mut img, 7 * i + 1, 36, 5, 10, green);
        }
        let label = Rect::new(1, 36, 125, 10);
        fill(&mut img, 134, 34, 7, 14, green);
        for y in 0..120 {
            for x in 400..420 {
                if (x + y) % 2 == 0 {
                    img.put_pixel(x, y, image::Rgba([190, 190, 190, 255]));
                }
            }
        }
        let p = prompt_input(&img, label).expect("the rest of the line");
        assert!(p.caret, "the block after the prompt is its caret: {p:?}");
        assert!(
            p.input.right() <= 404,
            "the input ends at the scroll bar: {p:?}"
        );
    }

    /// A console's prompt on black with Windows' underline cursor after it (a bar a quarter
    /// of the cell tall at its bottom, nothing above it): the rest of the line is an input
    /// with a caret. The same bar under a letter (an underlined letter) is no caret; with the
    /// cursor off the line is no input in this frame.
    #[test]
    fn an_underline_cursor_after_a_prompt_is_its_caret() {
        let grey = [200, 200, 200, 255];
        let mut img = RgbaImage::from_pixel(400, 120, image::Rgba([0, 0, 0, 255]));
        for i in 0..10 {
            fill(&mut img, 8 * i + 1, 34, 6, 11, grey);
        }
        let label = Rect::new(1, 34, 79, 11);
        let off = prompt_input(&img, label).expect("the rest of the line");
        assert!(!off.caret, "no cursor drawn: {off:?}");
        let mut on = img.clone();
        fill(&mut on, 88, 44, 8, 4, grey);
        let p = prompt_input(&on, label).expect("the rest of the line");
        assert!(p.caret, "{p:?}");
        assert!(p.input.x <= 82 && p.input.right() >= 300, "{p:?}");
        let mut under_letter = on.clone();
        fill(&mut under_letter, 89, 34, 6, 2, grey);
        fill(&mut under_letter, 91, 34, 2, 9, grey);
        assert!(!prompt_input(&under_letter, label).is_some_and(|p| p.caret));
    }

    /// A hot letter drawn in colour (Turbo Vision's menu bar: a red F before a grey `ile`, a
    /// yellow N before `ame`), its glyph inside the band of the grey letters after it, is
    /// text: no picture before the caption. A red picture taller than the text, or a glyph of
    /// two colours, is still one.
    #[test]
    fn a_hot_letter_in_colour_is_no_picture() {
        let ground = [229, 229, 229, 255];
        let grey = [0, 0, 0, 255];
        let red = [205, 0, 0, 255];
        let mut img = RgbaImage::from_pixel(60, 13, image::Rgba(ground));
        // F: a stem and two arms, rows 2..11, columns 2..6.
        fill(&mut img, 2, 2, 1, 9, red);
        fill(&mut img, 2, 2, 4, 1, red);
        fill(&mut img, 2, 6, 3, 1, red);
        // `ile` two columns after it: strokes within rows 2..11.
        fill(&mut img, 9, 4, 1, 7, grey);
        fill(&mut img, 9, 2, 1, 1, grey);
        fill(&mut img, 13, 2, 1, 9, grey);
        fill(&mut img, 16, 5, 3, 6, grey);
        let strip = Rect::new(0, 0, 60, 13);
        assert_eq!(text_after_icon(&img, strip), None, "the red F is a letter");
        // A yellow letter on the same ground.
        let mut yellow = img.clone();
        fill(&mut yellow, 2, 2, 1, 9, [255, 255, 0, 255]);
        fill(&mut yellow, 2, 2, 4, 1, [255, 255, 0, 255]);
        fill(&mut yellow, 2, 6, 3, 1, [255, 255, 0, 255]);
        assert_eq!(
            text_after_icon(&yellow, strip),
            None,
            "the yellow F is a letter"
        );
        // The red letter glued to its word (one column apart: one run), a descender in the
        // word (`Comp`): still a letter.
        let mut glued = img.clone();
        fill(&mut glued, 5, 7, 1, 4, grey);
        fill(&mut glued, 7, 5, 1, 8, grey);
        assert_eq!(
            text_after_icon(&glued, strip),
            None,
            "a hot letter glued to its word"
        );
        // The same red mark standing taller than the text: a picture.
        let mut tall = img.clone();
        fill(&mut tall, 2, 0, 1, 13, red);
        assert_eq!(
            text_after_icon(&tall, strip),
            Some(9),
            "a taller red mark is a picture"
        );
        // Two colours in one small glyph-sized run (an outline and a body): a picture.
        let mut two = img.clone();
        fill(&mut two, 3, 3, 3, 3, [40, 90, 220, 255]);
        assert_eq!(
            text_after_icon(&two, strip),
            Some(9),
            "two colours are a picture"
        );
    }

    /// LCL's glyph button: an arrow all in colour (a light body in a dark blue outline, no
    /// grey) before the grey caption is a picture too — no wider than the strip is tall, with
    /// the caption after it. A word all in colour with nothing after it stays text.
    #[test]
    fn an_icon_all_in_colour_before_a_caption_is_a_picture() {
        let ground = [212, 208, 200, 255];
        let grey = [20, 20, 20, 255];
        let mut img = RgbaImage::from_pixel(120, 24, image::Rgba(ground));
        fill(&mut img, 4, 4, 16, 14, [30, 60, 170, 255]);
        fill(&mut img, 5, 5, 14, 12, [130, 180, 240, 255]);
        for i in 0..2 {
            fill(&mut img, 26 + 8 * i, 7, 6, 10, grey);
        }
        assert_eq!(text_after_icon(&img, Rect::new(0, 0, 120, 24)), Some(26));
        let mut word = RgbaImage::from_pixel(80, 24, image::Rgba(ground));
        fill(&mut word, 4, 4, 16, 14, [30, 60, 170, 255]);
        assert_eq!(text_after_icon(&word, Rect::new(0, 0, 80, 24)), None);
    }
}
