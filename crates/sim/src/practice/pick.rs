//! Seeded draws for a question's parameters.

use crate::rng::Mulberry32;

/// The seeded draws of one question.
pub struct Draw(Mulberry32);

impl Draw {
    /// The draws of `seed` (each kind mixes in its own salt, so two kinds with the same seed
    /// do not draw the same numbers).
    pub fn new(seed: u32, salt: u32) -> Self {
        Draw(Mulberry32::new(seed ^ salt.wrapping_mul(0x85EB_CA6B)))
    }

    /// A whole number in `lo..=hi`.
    pub fn int(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.0.below(hi - lo + 1)
    }

    /// One of `items`.
    pub fn one<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.0.below(items.len() as u32) as usize]
    }

    /// True with chance `pct` percent.
    pub fn chance(&mut self, pct: u32) -> bool {
        self.0.below(100) < pct
    }
}

/// `n` in Bengali digits with grouping (the usual way to show a count).
pub fn int(n: i64) -> String {
    crate::bn::int(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_range_and_repeat_with_the_seed() {
        let mut a = Draw::new(7, 1);
        let mut b = Draw::new(7, 1);
        let mut c = Draw::new(7, 2);
        let xs: Vec<u32> = (0..200).map(|_| a.int(2, 4)).collect();
        assert!(xs.iter().all(|x| (2..=4).contains(x)));
        assert!((2..=4).all(|v| xs.contains(&v)), "every value drawn");
        assert_eq!(xs, (0..200).map(|_| b.int(2, 4)).collect::<Vec<_>>());
        assert_ne!(xs, (0..200).map(|_| c.int(2, 4)).collect::<Vec<_>>());
    }
}
