//! CLOCK (second chance).
//!
//! FIFO plus one reference bit per entry: a hit sets the bit; the hand looks at the oldest
//! entry and, if its bit is set, clears it and gives it another trip round the clock (moves
//! it to the front) instead of evicting it. Corbató, "A paging experiment with the Multics
//! system" (MIT Project MAC report, 1968). Amortised `O(1)`: every second chance consumes a
//! bit that only a hit can set again.

use super::linked::{Linked, LinkedRule};

/// CLOCK's rule for the linked engine.
#[derive(Clone, Copy, Debug)]
pub struct ClockRule;

impl LinkedRule for ClockRule {
    const NAME: &'static str = "CLOCK";
    const VICTIM_RULE: &'static str = "the oldest key not referenced since the hand last passed it";
    const MOVE_ON_HIT: bool = false;
    const SECOND_CHANCE: bool = true;
}

/// CLOCK cache. `keys()` is in hand order: the hand's next candidate is last.
pub type Clock = Linked<ClockRule>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::Policy;

    #[test]
    fn hand_worked() {
        // A B A C at size 2: A miss, B miss, A hit (A's bit set), C miss: the hand finds A
        // referenced, clears it and passes on, then evicts B → 1 hit, 3 misses, 1 eviction.
        // D then evicts A (its bit was cleared and it was not read again).
        let mut p = Clock::new(2);
        let ev: Vec<_> = [0, 1, 0, 2, 3].iter().map(|&k| p.access(k)).collect();
        assert!(ev[2].is_hit());
        assert_eq!(ev[3].evicted(), Some(1));
        assert_eq!(ev[4].evicted(), Some(0));
        assert_eq!(p.keys(), [3, 2]);
    }
}
