//! The exact rung: the recorded box, its crop and its text agree.

use super::*;

impl Locator {
    pub(super) fn exact(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        rec: Rect,
        tmpl: &RgbaImage,
    ) -> Result<Option<Candidate>, MendError> {
        // A field's crop may hold its caption to its left ([`Locator::crop_for`]): the field
        // is then the crop's right part, the recorded box's width.
        let (tw, th) = (tmpl.width() as i32, tmpl.height() as i32);
        let with_caption = target.role == Role::Field && tw > rec.w && th == rec.h;
        let at = if with_caption {
            Rect::new(rec.right() - tw, rec.y, tw, th)
        } else {
            rec
        };
        let region = at.inflate(48.max(at.h));
        let Some(hit) = find_template(&scene.frame.image, tmpl, region, &SCALES) else {
            return Ok(None);
        };
        // A place of the crop's tone but not its shape (a flat patch matched by a button's
        // flat face, a dark theme's panel) is not the crop: no reading is spent on it (a
        // reading of such a blank place took Tesseract 1.4 s), and the fuzzy rung reads the
        // region instead.
        if hit.score < TEMPLATE_MIN || hit.shape < SHAPE_MIN {
            return Ok(None);
        }
        let control = if with_caption {
            let w = ((rec.w as f32 * hit.scale).round() as i32).min(hit.rect.w);
            Rect::new(hit.rect.right() - w, hit.rect.y, w, hit.rect.h)
        } else {
            hit.rect
        };
        // A flat template (an empty field) correlates with any flat patch: the hit must be a
        // control the pixels frame, of the size the template was matched at.
        let framed = scene
            .boxes()
            .iter()
            .filter(|b| b.rect.contains(control.center()))
            .min_by_key(|b| b.rect.area())
            .map(|b| b.rect);
        let found = match framed {
            Some(b) if b.iou(&control) >= 0.7 => b,
            Some(_) => return Ok(None),
            None if target.role == Role::Field => return Ok(None),
            None => control,
        };
        let mut text = target.text.clone().unwrap_or_default();
        // The local patch check: the recorded crop's very pixels, in place. The crop was
        // recorded with its text, so identical pixels need no OCR to agree — except a field's
        // crop without its caption: one empty field is pixel for pixel another, and only its
        // caption, read, tells which it is.
        let shows_its_text = target.role != Role::Field || with_caption;
        if shows_its_text
            && hit.scale == 1.0
            && crop(&scene.frame.image, hit.rect).is_some_and(|here| pixel_diff(&here, tmpl) < 2.0)
        {
            return Ok(Some(Candidate {
                rect: found,
                text,
                role: target.role,
                score: 1.0,
            }));
        }
        let agrees = match target.text.as_deref() {
            None => true,
            Some(t) => {
                // A field's text is its label, to the left; a button's is inside it, and all
                // of it counts (two lines 删除 + 全部 are one caption).
                let read_at = if target.role == Role::Field {
                    caption_strip(found)
                } else {
                    found
                };
                // A field's caption is read sparsely, as in [`Locator::crop_for`].
                let opts = if target.role == Role::Field {
                    REGION_OCR
                } else {
                    line_ocr(read_at.h)
                };
                let mut read = scene.labels_in(&mut self.ocr, read_at, opts)?;
                if target.role == Role::Field {
                    read.retain(|l| label_match(t, &l.text) == Some(1.0));
                    read.first().map(|l| text = l.text.clone()).is_some()
                } else {
                    read.sort_by_key(|l| l.line.x);
                    let caption = read
                        .iter()
                        .map(|l| l.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ");
                    let ok = label_match(t, &caption) == Some(1.0);
                    if ok {
                        text = caption;
                    }
                    ok
                }
            }
        };
        Ok(agrees.then_some(Candidate {
            rect: found,
            text,
            role: target.role,
            score: hit.score as f64,
        }))
    }
}
