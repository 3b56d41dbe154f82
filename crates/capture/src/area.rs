//! Which screen area a window's frame shows, and which window is in front of the focused one:
//! pure geometry over what the X server reports, so the rules are tested without a display.
//!
//! Menus, drop-downs and tooltips are override-redirect windows of their own, often hanging
//! outside the window that opened them. A frame is what the operator sees: the window's area
//! grown by the popups of the same client that overlap or adjoin it (or adjoin one of those: a
//! submenu beside its menu). A popup of another client over the window is in the picture too
//! (the operator sees it), but it does not grow the frame, and it is what is in front.

use mend_model::Rect;

/// A popup this close to the window (or to one of its popups already taken) belongs to it.
pub(crate) const ADJOIN_PX: i32 = 4;

/// A viewable override-redirect window on the screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Popup {
    pub id: u32,
    /// Screen pixels, border included.
    pub rect: Rect,
    /// Created by the same X client (or process) as the window in question.
    pub same_client: bool,
}

fn touches(a: &Rect, b: &Rect) -> bool {
    a.inflate(ADJOIN_PX).intersect(b).is_some()
}

/// The window's own popups that belong to its frame: same client, and connected to the window
/// through overlap or adjacency. Indices into `popups`.
pub(crate) fn attached(window: Rect, popups: &[Popup]) -> Vec<usize> {
    let mut taken: Vec<usize> = Vec::new();
    loop {
        let next = popups.iter().enumerate().position(|(i, p)| {
            p.same_client
                && !taken.contains(&i)
                && (touches(&window, &p.rect)
                    || taken.iter().any(|&t| touches(&popups[t].rect, &p.rect)))
        });
        match next {
            Some(i) => taken.push(i),
            None => break,
        }
    }
    taken.sort_unstable();
    taken
}

/// The frame's screen area: the window's rect and its attached popups, clipped to the screen.
/// `None` when none of it is on the screen.
pub(crate) fn frame_area(window: Rect, popups: &[Popup], screen: Rect) -> Option<Rect> {
    attached(window, popups)
        .into_iter()
        .fold(window, |area, i| area.union(&popups[i].rect))
        .clamp_to(&screen)
}

/// The popup of another client that covers part of `focused`, if any: the topmost one.
/// `above` are the popups stacked above the focused window's top-level frame, bottom to top.
pub(crate) fn foreign_in_front(focused: Rect, above: &[Popup]) -> Option<&Popup> {
    above
        .iter()
        .rev()
        .find(|p| !p.same_client && p.rect.intersect(&focused).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCREEN: Rect = Rect {
        x: 0,
        y: 0,
        w: 1280,
        h: 800,
    };

    fn p(id: u32, x: i32, y: i32, w: i32, h: i32, same_client: bool) -> Popup {
        Popup {
            id,
            rect: Rect::new(x, y, w, h),
            same_client,
        }
    }

    #[test]
    fn a_menu_hanging_below_grows_the_frame() {
        let window = Rect::new(100, 100, 400, 120);
        // A menu opened from the menu bar, hanging 150 px below the window.
        let menu = p(1, 110, 140, 120, 230, true);
        assert_eq!(
            frame_area(window, &[menu], SCREEN),
            Some(Rect::new(100, 100, 400, 270))
        );
        // Without popups the frame is the window.
        assert_eq!(frame_area(window, &[], SCREEN), Some(window));
    }

    #[test]
    fn a_popup_above_and_left_moves_the_origin() {
        let window = Rect::new(300, 300, 200, 100);
        let menu = p(1, 250, 40, 100, 700, true);
        assert_eq!(
            frame_area(window, &[menu], SCREEN),
            Some(Rect::new(250, 40, 250, 700))
        );
    }

    #[test]
    fn adjoining_popups_and_submenus_belong_far_ones_and_foreign_ones_do_not() {
        let window = Rect::new(100, 100, 400, 100);
        let dropdown = p(1, 120, 202, 150, 80, true); // 2 px below the bottom edge
        let submenu = p(2, 272, 240, 100, 60, true); // beside the drop-down, outside the window
        let far = p(3, 900, 600, 50, 50, true); // the same app's tooltip elsewhere
        let foreign = p(4, 480, 150, 100, 200, false); // another client's popup over the window
        let all = [dropdown, submenu, far, foreign];
        assert_eq!(attached(window, &all), vec![0, 1]);
        assert_eq!(
            frame_area(window, &all, SCREEN),
            Some(Rect::new(100, 100, 400, 200))
        );
    }

    #[test]
    fn the_frame_is_clipped_to_the_screen() {
        let window = Rect::new(1100, 700, 400, 200);
        assert_eq!(
            frame_area(window, &[], SCREEN),
            Some(Rect::new(1100, 700, 180, 100))
        );
        assert_eq!(frame_area(Rect::new(1300, 0, 10, 10), &[], SCREEN), None);
    }

    #[test]
    fn only_another_clients_popup_over_the_window_is_in_front() {
        let focused = Rect::new(100, 100, 400, 300);
        let own_menu = p(1, 120, 120, 100, 200, true);
        let foreign_elsewhere = p(2, 900, 100, 100, 100, false);
        assert_eq!(
            foreign_in_front(focused, std::slice::from_ref(&own_menu)),
            None
        );
        assert_eq!(
            foreign_in_front(focused, &[own_menu.clone(), foreign_elsewhere.clone()]),
            None
        );
        let foreign_over = p(3, 450, 350, 100, 100, false);
        let topmost_foreign = p(4, 110, 110, 20, 20, false);
        assert_eq!(
            foreign_in_front(focused, &[foreign_over.clone(), own_menu.clone()]).map(|p| p.id),
            Some(3)
        );
        assert_eq!(
            foreign_in_front(focused, &[foreign_over, own_menu, topmost_foreign]).map(|p| p.id),
            Some(4)
        );
    }
}
