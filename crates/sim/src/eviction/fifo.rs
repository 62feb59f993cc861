//! FIFO: first in, first out.
//!
//! The oldest admitted key leaves; a hit changes nothing, so reads need no writes (and no
//! lock). Classic; Bélády, Nelson & Shedler (CACM 1969) showed its anomaly: more frames can
//! mean more faults. In the seed this is `c.keys().next().value` on an insertion-ordered `Map`.

use super::linked::{Linked, LinkedRule};

/// FIFO's rule for the linked engine.
#[derive(Clone, Copy, Debug)]
pub struct FifoRule;

impl LinkedRule for FifoRule {
    const NAME: &'static str = "FIFO";
    const VICTIM_RULE: &'static str = "the oldest admitted key (hits do not matter)";
    const MOVE_ON_HIT: bool = false;
    const SECOND_CHANCE: bool = false;
}

/// First-in-first-out cache. `keys()` is newest … oldest.
pub type Fifo = Linked<FifoRule>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::{Access, Policy};

    #[test]
    fn hand_worked() {
        // A B C A D at size 2: A miss, B miss, C miss evicts A (oldest), A miss evicts B,
        // D miss evicts C → 0 hits, 5 misses, 3 evictions; final newest…oldest = D A.
        let mut p = Fifo::new(2);
        let got: Vec<Access> = [0, 1, 2, 0, 3].iter().map(|&k| p.access(k)).collect();
        assert_eq!(
            got,
            [
                Access::Miss { evicted: None },
                Access::Miss { evicted: None },
                Access::Miss { evicted: Some(0) },
                Access::Miss { evicted: Some(1) },
                Access::Miss { evicted: Some(2) },
            ]
        );
        assert_eq!(p.keys(), [3, 0]);
        // A hit does not refresh: A B A C at size 2 evicts A although it was just read.
        let mut p = Fifo::new(2);
        for k in [0, 1, 0] {
            p.access(k);
        }
        assert_eq!(p.access(2), Access::Miss { evicted: Some(0) });
    }
}
