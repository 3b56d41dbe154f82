use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

/// An axis-aligned box in pixels. `w`/`h` are never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl Rect {
    pub fn new(x: i32, y: i32, w: i32, h: i32) -> Self {
        Rect {
            x,
            y,
            w: w.max(0),
            h: h.max(0),
        }
    }

    pub fn right(&self) -> i32 {
        self.x + self.w
    }

    pub fn bottom(&self) -> i32 {
        self.y + self.h
    }

    pub fn area(&self) -> i64 {
        self.w as i64 * self.h as i64
    }

    pub fn center(&self) -> Point {
        Point {
            x: self.x + self.w / 2,
            y: self.y + self.h / 2,
        }
    }

    pub fn contains(&self, p: Point) -> bool {
        p.x >= self.x && p.x < self.right() && p.y >= self.y && p.y < self.bottom()
    }

    pub fn contains_rect(&self, o: &Rect) -> bool {
        o.x >= self.x && o.y >= self.y && o.right() <= self.right() && o.bottom() <= self.bottom()
    }

    pub fn intersect(&self, o: &Rect) -> Option<Rect> {
        let x = self.x.max(o.x);
        let y = self.y.max(o.y);
        let r = self.right().min(o.right());
        let b = self.bottom().min(o.bottom());
        (r > x && b > y).then(|| Rect::new(x, y, r - x, b - y))
    }

    pub fn union(&self, o: &Rect) -> Rect {
        let x = self.x.min(o.x);
        let y = self.y.min(o.y);
        Rect::new(
            x,
            y,
            self.right().max(o.right()) - x,
            self.bottom().max(o.bottom()) - y,
        )
    }

    /// Intersection over union, 0.0 ..= 1.0.
    pub fn iou(&self, o: &Rect) -> f64 {
        let inter = self.intersect(o).map(|r| r.area()).unwrap_or(0);
        let union = self.area() + o.area() - inter;
        if union <= 0 {
            0.0
        } else {
            inter as f64 / union as f64
        }
    }

    pub fn translate(&self, dx: i32, dy: i32) -> Rect {
        Rect::new(self.x + dx, self.y + dy, self.w, self.h)
    }

    /// Grow by `m` pixels on every side (shrink when negative).
    pub fn inflate(&self, m: i32) -> Rect {
        Rect::new(self.x - m, self.y - m, self.w + 2 * m, self.h + 2 * m)
    }

    /// Clamp into `bounds`; `None` when nothing is left.
    pub fn clamp_to(&self, bounds: &Rect) -> Option<Rect> {
        self.intersect(bounds)
    }

    /// Distance between centres, in pixels.
    pub fn center_distance(&self, o: &Rect) -> f64 {
        let (a, b) = (self.center(), o.center());
        (((a.x - b.x) as f64).powi(2) + ((a.y - b.y) as f64).powi(2)).sqrt()
    }

    pub fn scale(&self, f: f64) -> Rect {
        Rect::new(
            (self.x as f64 * f).round() as i32,
            (self.y as f64 * f).round() as i32,
            (self.w as f64 * f).round() as i32,
            (self.h as f64 * f).round() as i32,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iou_of_identical_half_and_disjoint_boxes() {
        let a = Rect::new(0, 0, 10, 10);
        assert_eq!(a.iou(&a), 1.0);
        let b = Rect::new(5, 0, 10, 10);
        assert!((a.iou(&b) - 50.0 / 150.0).abs() < 1e-9);
        assert_eq!(a.iou(&Rect::new(20, 20, 5, 5)), 0.0);
    }

    #[test]
    fn intersect_union_and_contains() {
        let a = Rect::new(0, 0, 10, 10);
        let b = Rect::new(8, 8, 10, 10);
        assert_eq!(a.intersect(&b), Some(Rect::new(8, 8, 2, 2)));
        assert_eq!(a.union(&b), Rect::new(0, 0, 18, 18));
        assert!(a.contains(Point { x: 9, y: 9 }));
        assert!(!a.contains(Point { x: 10, y: 9 }));
        assert!(a.inflate(1).contains_rect(&a));
        assert_eq!(Rect::new(0, 0, -3, 4).w, 0);
    }
}
