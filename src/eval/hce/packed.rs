//! A middlegame/endgame score pair packed in one `i32`, so that adding up terms is one add.
//!
//! ```text
//! bits 31..16: middlegame (plus the borrow from the endgame half)   bits 15..0: endgame
//! ```
//! The endgame half is signed; reading the middlegame half adds the borrow back.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct S(i32);

impl S {
    pub const ZERO: S = S(0);

    #[inline(always)]
    pub const fn new(mg: i32, eg: i32) -> S {
        S(((mg as u32) << 16) as i32 + eg)
    }

    #[inline(always)]
    pub const fn mg(self) -> i32 {
        ((self.0 as u32).wrapping_add(0x8000) >> 16) as u16 as i16 as i32
    }

    #[inline(always)]
    pub const fn eg(self) -> i32 {
        self.0 as u16 as i16 as i32
    }
}

impl Add for S {
    type Output = S;
    #[inline(always)]
    fn add(self, o: S) -> S {
        S(self.0.wrapping_add(o.0))
    }
}

impl Sub for S {
    type Output = S;
    #[inline(always)]
    fn sub(self, o: S) -> S {
        S(self.0.wrapping_sub(o.0))
    }
}

impl AddAssign for S {
    #[inline(always)]
    fn add_assign(&mut self, o: S) {
        self.0 = self.0.wrapping_add(o.0);
    }
}

impl SubAssign for S {
    #[inline(always)]
    fn sub_assign(&mut self, o: S) {
        self.0 = self.0.wrapping_sub(o.0);
    }
}

impl Neg for S {
    type Output = S;
    #[inline(always)]
    fn neg(self) -> S {
        S(self.0.wrapping_neg())
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline(always)]
    fn mul(self, n: i32) -> S {
        S(self.0.wrapping_mul(n))
    }
}

impl std::fmt::Debug for S {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "S({}, {})", self.mg(), self.eg())
    }
}

#[cfg(test)]
mod tests {
    use super::S;

    #[test]
    fn halves_survive_packing_and_arithmetic() {
        for (a, b) in [
            (0, 0),
            (1, -1),
            (-1, 1),
            (-300, -10000),
            (9000, 5),
            (-7, -7),
        ] {
            let s = S::new(a, b);
            assert_eq!((s.mg(), s.eg()), (a, b));
            assert_eq!(((s * 3).mg(), (s * 3).eg()), (3 * a, 3 * b));
            assert_eq!(((-s).mg(), (-s).eg()), (-a, -b));
            let t = s + S::new(5, -9) - S::new(2, 2);
            assert_eq!((t.mg(), t.eg()), (a + 3, b - 11));
        }
    }
}
