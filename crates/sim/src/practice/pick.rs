//! Seeded draws for a question's parameters.

use super::Answer;
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

/// The first draw of `seed` that `make` accepts (it returns `None` for a draw that does not
/// fit the question). Every kind's condition holds for most draws; `tries` misses in a row
/// would be a bug in the kind.
///
/// # Panics
/// When no draw fits in `tries`.
pub fn until<T>(
    seed: u32,
    salt: u32,
    tries: u32,
    mut make: impl FnMut(&mut Draw) -> Option<T>,
) -> T {
    let mut d = Draw::new(seed, salt);
    for _ in 0..tries {
        if let Some(t) = make(&mut d) {
            return t;
        }
    }
    panic!("question {salt}: no fitting draw for seed {seed}")
}

/// A multiple choice of counts: the right one and the likely wrong ones, each with why it is
/// wrong, shown smallest first in Bengali digits. A wrong count equal to the right one or to
/// an earlier wrong one is left out, so no option is the answer twice.
pub fn counts(right: i64, wrong: Vec<(i64, String)>) -> Answer {
    let mut opts: Vec<(i64, String)> = vec![(right, String::new())];
    for (v, h) in wrong {
        if !opts.iter().any(|(o, _)| *o == v) {
            opts.push((v, h));
        }
    }
    opts.sort_by_key(|(v, _)| *v);
    let right = opts
        .iter()
        .position(|(v, _)| *v == right)
        .expect("the right count is an option");
    Answer::Choice {
        options: opts.iter().map(|(v, _)| int(*v)).collect(),
        right,
        hints: opts.into_iter().map(|(_, h)| h).collect(),
    }
}

/// The hints of a count question: those that are not the right count, each count once (the
/// first hint given for it).
pub fn only_wrong(mut hints: Vec<(i64, String)>, right: i64) -> Vec<(i64, String)> {
    hints.retain(|(v, _)| *v != right);
    let mut seen = Vec::new();
    hints.retain(|(v, _)| {
        let new = !seen.contains(v);
        seen.push(*v);
        new
    });
    hints
}

/// A multiple choice of fixed options (`(text, why it is wrong)`), the one at `right` right:
/// its hint is left empty.
pub fn options(all: &[(&str, String)], right: usize) -> Answer {
    Answer::Choice {
        options: all.iter().map(|(o, _)| o.to_string()).collect(),
        right,
        hints: all
            .iter()
            .enumerate()
            .map(|(i, (_, h))| if i == right { String::new() } else { h.clone() })
            .collect(),
    }
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
