//! What every question kind needs: seeded draws for its parameters, and the options of a
//! multiple-choice answer — the right one among plausible wrong ones, none equal to it, none
//! repeated.

use super::Answer;
use crate::bn;
use crate::rng::Mulberry32;

/// Most options a question shows.
pub const OPTIONS: usize = 4;

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

    /// A fresh 32-bit seed.
    pub fn seed(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// The generator itself.
    pub fn rng(&mut self) -> &mut Mulberry32 {
        &mut self.0
    }
}

/// A multiple-choice answer: `right` and the first distractors of `pool` that differ from
/// it and from each other, up to [`OPTIONS`] options in all, in a seeded order.
///
/// # Panics
/// If fewer than two distinct distractors come from `pool` (a kind must always offer a
/// choice; the 1,000-seed tests check every kind).
pub fn choice(
    d: &mut Draw,
    right: String,
    pool: impl IntoIterator<Item = String>,
) -> Answer {
    let mut options = vec![right.clone()];
    for o in pool {
        if options.len() == OPTIONS {
            break;
        }
        if !options.contains(&o) {
            options.push(o);
        }
    }
    assert!(options.len() >= 3, "too few distractors for `{right}`");
    for i in (1..options.len()).rev() {
        let j = d.0.below(i as u32 + 1) as usize;
        options.swap(i, j);
    }
    let correct = options.iter().position(|o| *o == right).expect("kept");
    Answer::Choice { options, correct }
}

/// A multiple-choice answer over whole numbers, shown with `show` in ascending order: `right`
/// and the first distinct values of `likely` (the mistakes a student would make), then
/// neighbours of `right`, none below `min`.
pub fn numbers(right: i64, likely: &[i64], min: i64, show: impl Fn(i64) -> String) -> Answer {
    let mut values = vec![right];
    let step = (right.abs() / 5).max(1);
    let near = [
        right + step,
        right - step,
        right + 2 * step,
        right - 2 * step,
        right + 3 * step,
        right * 2,
    ];
    for &v in likely.iter().chain(&near) {
        if values.len() == OPTIONS {
            break;
        }
        if v >= min && !values.contains(&v) {
            values.push(v);
        }
    }
    values.sort_unstable();
    let options: Vec<String> = values.iter().map(|&v| show(v)).collect();
    let correct = values.iter().position(|&v| v == right).expect("kept");
    Answer::Choice { options, correct }
}

/// `n` in Bengali digits with grouping (the usual way to show a count).
pub fn int(n: i64) -> String {
    bn::int(n)
}

/// A number typed as a percentage, right within `within` points.
pub fn percent(value: f64, within: f64) -> Answer {
    Answer::Number {
        value,
        within,
        places: 1,
        unit: "%".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_unique_and_hold_the_right_one() {
        let mut d = Draw::new(7, 1);
        let a = choice(
            &mut d,
            "B".into(),
            ["B", "A", "A", "C", "D", "E"].map(String::from),
        );
        let Answer::Choice { options, correct } = a else {
            panic!()
        };
        assert_eq!(options.len(), 4);
        assert_eq!(options[correct], "B");
        let mut s = options.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), 4);
        // 0 as the answer: neighbours never go below the floor.
        let Answer::Choice { options, correct } = numbers(0, &[0, 1], 0, int) else {
            panic!()
        };
        assert_eq!(options[correct], "০");
        assert_eq!(options, ["০", "১", "২", "৩"]);
    }
}
