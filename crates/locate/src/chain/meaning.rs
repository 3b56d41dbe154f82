//! The meaning rung: a caption the flow's words mean (the offline matcher or a model), asked
//! only where nothing read could be the target's caption read in part.

use super::*;

impl Locator {
    /// The semantic rung over `labels`: the control the matcher means, resolved to its box.
    /// The matcher sees whole captions, and never a line that holds unread text.
    pub(super) fn semantic(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        text: &str,
        labels: &[SeenLabel],
    ) -> Result<Option<Candidate>, Refusal> {
        if self.no_meaning {
            return Ok(None);
        }
        // A caption the flow gives in words of its own (`要写入的文件名：` for `File Name to
        // Write:`) read with its value on one line: the part up to its colon.
        let wanted: Vec<&str> = std::iter::once(text)
            .chain(target.synonyms.iter().map(String::as_str))
            .collect();
        let labels = &wanted.iter().fold(
            with_colon_captions(labels, &wanted, &scene.frame.image),
            |ls, w| with_words_joined(ls, w),
        );
        let seen = without_twins(self.captions_to_ask(target, text, labels));
        let seen = self.as_acted_on(scene, target, seen);
        let chosen = self.choose_meant(scene, target, text, &seen)?;
        // A menu item that two places mean, each by the flow's own words (an item of the open
        // menu and the same command on a text UI's function-key bar: `建目录(M)` and
        // `7 建目录`): both are named, so that the caller can keep the one the menu's opening
        // showed.
        if chosen.is_none() && target.role == Role::Menu {
            let fits = self.menus_meant(scene, target, &seen, labels);
            match fits.len() {
                1 => return Ok(fits.into_iter().next()),
                2.. => return Err(ambiguous(text, fits)),
                _ => {}
            }
        }
        Ok(chosen.and_then(|(l, conf)| {
            let mut c = resolve(scene, &mut self.ocr, &l, target.role, conf)?;
            c.score = conf;
            Some(c)
        }))
    }

    /// The captions of `labels` the matcher is asked about for `target` (`text`): whole
    /// captions (a framed control's parts joined, [`caption`]), none too wide for its text, none
    /// another of the flow's names matches.
    fn captions_to_ask(&self, target: &Target, text: &str, labels: &[SeenLabel]) -> Vec<SeenLabel> {
        let others: Vec<&String> = self
            .flow_names
            .iter()
            .filter(|n| label_match(n, text).is_none())
            .collect();
        // A menu is one item of its bar, read on its own: a bar drawn as one box (a GTK 2 menu
        // bar's frame) would join them all into one caption (`文件(F) 编辑(E) 查看(V) …`) that
        // means nothing, and a box holding several items is no item's control ([`resolve`]
        // finds the item's own place).
        labels
            .iter()
            .filter(|l| !too_wide(l))
            .map(|l| match (target.role, &l.control) {
                (Role::Menu, Some(c))
                    if labels
                        .iter()
                        .any(|o| o.line != l.line && c.rect.contains(o.line.center())) =>
                {
                    SeenLabel {
                        control: None,
                        ..l.clone()
                    }
                }
                _ => SeenLabel {
                    text: caption(labels, l),
                    ..l.clone()
                },
            })
            .filter(|l| !others.iter().any(|n| label_match(n, &l.text).is_some()))
            .collect()
    }

    /// `seen` as the control it would be acted on as, for a `target` of its role. A field's
    /// label is the label of a field: a text with no field beside it (a list's column header
    /// 名称 above the file list, beside the label 名称(N): of the name field) is no answer, so it
    /// cannot make the label ambiguous. A wide box whose caption is centred in it is a button
    /// whatever its shape made of it (a Win32 dialog's 105×26 OK guessed a field), as the other
    /// rungs take it ([`resolve`]): the matcher sees the role the control will be acted on as.
    fn as_acted_on(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        seen: Vec<SeenLabel>,
    ) -> Vec<SeenLabel> {
        match target.role {
            Role::Field => seen
                .into_iter()
                .filter(|l| resolve(scene, &mut self.ocr, l, Role::Field, 0.0).is_some())
                .collect(),
            Role::Button => seen
                .into_iter()
                .map(|mut l| {
                    if l.role() == Role::Field && centred_caption(&l) {
                        if let Some(c) = l.control.as_mut() {
                            c.role = Role::Button;
                        }
                    }
                    l
                })
                .collect(),
            _ => seen,
        }
    }

    /// The caption of `seen` the matcher means for `target` (`text`), with its confidence: asked first
    /// among the likelier ones where some are likelier. A field's caption that ends in a colon
    /// is a label's: where some caption read keeps one, the matcher is asked among those first
    /// (GTK 2's Save dialog: `名称(N):` before the input and the file list's column header `名称`
    /// over its first row both mean Name). A menu item sought while a menu is open is asked
    /// among that menu's items first (as the fuzzy rung prefers them, [`among_menus`]): KWrite's
    /// 文件 menu holds 另存为(A)... under the toolbar's own 另存为 button, both meaning Save As.
    fn choose_meant(
        &self,
        scene: &Scene,
        target: &Target,
        text: &str,
        seen: &[SeenLabel],
    ) -> Result<Option<(SeenLabel, f64)>, Refusal> {
        let popups = &scene.frame.info.popups;
        let narrower: Vec<SeenLabel> = match target.role {
            Role::Field if has_colon(text) => seen
                .iter()
                .filter(|l| has_colon(&l.text))
                .cloned()
                .collect(),
            Role::Menu => seen
                .iter()
                .filter(|l| popups.iter().any(|p| p.contains(l.line.center())))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        let first = if !narrower.is_empty() && narrower.len() < seen.len() {
            self.semantic
                .choose(target, &narrower)
                .map_err(Refusal::from)?
                .map(|(i, conf)| (narrower[i].clone(), conf))
        } else {
            None
        };
        Ok(match first {
            Some(c) => Some(c),
            None => self
                .semantic
                .choose(target, seen)
                .map_err(Refusal::from)?
                .map(|(i, conf)| (seen[i].clone(), conf)),
        })
    }

    /// The places of `seen` a menu `target` is, each by the flow's own words, resolved: checked
    /// place by place offline, never by asking a model once per caption. Among them the one
    /// that is an item among items (of `labels`), as the fuzzy rung keeps it (TuxGuitar's 乐曲
    /// menu on its bar and its 乐曲 tool group).
    fn menus_meant(
        &mut self,
        scene: &mut Scene,
        target: &Target,
        seen: &[SeenLabel],
        labels: &[SeenLabel],
    ) -> Vec<Candidate> {
        let fits: Vec<Candidate> = seen
            .iter()
            .filter(|l| {
                matches!(
                    OfflineMatcher.choose(target, std::slice::from_ref(*l)),
                    Ok(Some(_))
                )
            })
            .filter_map(|l| resolve(scene, &mut self.ocr, l, target.role, 0.85))
            .collect();
        among_menus(fits, labels, &scene.frame.info.popups)
    }
}

/// `seen` less a caption read twice at one place: one caption read twice there (a window's
/// reading and a strip's, or two passes; `文件(F)` and `文件`, its mnemonic dropped) is one
/// label, not two controls that both fit. The first reading is kept.
fn without_twins(mut seen: Vec<SeenLabel>) -> Vec<SeenLabel> {
    let mut i = 0;
    while i < seen.len() {
        let (a, b) = (seen[i].line, &seen);
        let twin = (0..i).any(|j| {
            (b[j].line.contains(a.center()) || a.contains(b[j].line.center()))
                && normalize(&b[j].text) == normalize(&b[i].text)
        });
        if twin {
            seen.remove(i);
        } else {
            i += 1;
        }
    }
    seen
}

/// Whether nothing read on the window could be the target's caption, read in part: the
/// dearer looks (each strip again, the window by quarters) exist to read a caption the window
/// pass misread, and on such a window they would look for what is not there. A target with
/// ideographs: no line read shares one of them (a Chinese flow on an English screen whose data
/// holds Chinese names: 张三 is no part of 删除; chi_sim's stray ideographs read off icons are
/// none either). A Latin target: no line holds a Latin word (two letters or more together; a
/// Chinese menu's mnemonic "(S)" or an id's "C" in "C001" is none). A target of digits and
/// signs has no script; a window that read nothing tells nothing.
pub(super) fn speaks_another_script(text: &str, labels: &[SeenLabel]) -> bool {
    if labels.is_empty() {
        return false;
    }
    if text.chars().any(is_ideograph) {
        let own: Vec<char> = text.chars().filter(|&c| is_ideograph(c)).collect();
        !labels
            .iter()
            .any(|l| l.text.chars().any(|c| own.contains(&c)))
    } else if text.chars().any(|c| c.is_ascii_alphabetic()) {
        !labels.iter().any(|l| {
            l.text
                .chars()
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_alphabetic())
        })
    } else {
        false
    }
}
