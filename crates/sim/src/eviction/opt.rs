//! Bélády's OPT (MIN): the offline optimum.
//!
//! Evicts the key whose next use lies furthest in the future; no policy can miss less.
//! László Bélády, "A study of replacement algorithms for a virtual-storage computer", IBM
//! Systems Journal 5(2), 1966. It needs the future, so it is built from the whole trace and
//! replays it in order.
//!
//! Semantics follow the seed exactly: a miss first admits the key (remembering its next
//! use), and if the cache is then over capacity evicts the entry with the furthest next use
//! — which may be the new key itself (bypass); ties (keys never used again) go to the oldest
//! admission, because the seed scans its `Map` in insertion order with a strict `>`. A hit
//! updates the key's next use.
//!
//! Data structure: next-use positions of resident keys are distinct trace positions, so they
//! live in a hierarchical bitset (the victim is its maximum, and the key at position `p` is
//! `trace[p]`); keys never used again live in a second bitset indexed by admission position
//! (the victim among them is its minimum). Every access is `O(log₆₄ n)`.

use super::bitset::LevelBits;
use super::keymap::KeyMap;
use super::{Access, Policy};

const NEVER: u64 = u64::MAX;

const NONE: u32 = u32::MAX;

/// Bélády's optimal policy replaying a known trace. `keys()` is soonest … furthest next use
/// (keys never used again last, oldest admission last).
#[derive(Clone, Debug)]
pub struct Opt {
    trace: Vec<u32>,
    next_use: Vec<u64>,
    pos: u32,
    /// Resident key → its admission position.
    map: KeyMap,
    /// Per admission position: the key admitted there.
    adm_key: Vec<u32>,
    /// Per admission position: the resident key's next-use position (`NONE`: never).
    cur: Vec<u32>,
    /// Per next-use position: the admission position of the key that will be used there.
    owner: Vec<u32>,
    /// Next-use positions of resident keys that will be used again.
    future: LevelBits,
    /// Admission positions of resident keys that will not be used again.
    never: LevelBits,
    capacity: u32,
}

/// For each position, the position of the next request of the same key (`u64::MAX`: never).
pub fn next_uses(trace: &[u32]) -> Vec<u64> {
    let mut next = vec![NEVER; trace.len()];
    let mut seen = KeyMap::new();
    for i in (0..trace.len()).rev() {
        let k = trace[i];
        // Positions are stored +1 so that slot u32::MAX stays free.
        if let Some(p) = seen.get(k) {
            next[i] = u64::from(p - 1);
        }
        seen.insert(k, i as u32 + 1);
    }
    next
}

impl Opt {
    /// OPT with room for `capacity` keys (at least 1) that will be asked for `trace`, in
    /// order (traces up to `u32::MAX - 1` requests). An access that does not match the trace
    /// (or comes after its end) is treated as never used again.
    pub fn new(capacity: u32, trace: &[u32]) -> Self {
        let capacity = capacity.max(1);
        let n = trace.len() as u32;
        Self {
            trace: trace.to_vec(),
            next_use: next_uses(trace),
            pos: 0,
            map: KeyMap::new(),
            adm_key: vec![0; trace.len()],
            cur: vec![NONE; trace.len()],
            owner: vec![NONE; trace.len()],
            future: LevelBits::new(n),
            never: LevelBits::new(n),
            capacity,
        }
    }

    /// Position in the trace of the next access.
    pub fn position(&self) -> usize {
        self.pos as usize
    }

    /// Makes room for admission position `i` past the end of the trace.
    fn grow_to(&mut self, i: u32) {
        if i as usize >= self.adm_key.len() {
            self.adm_key.resize(i as usize + 1, 0);
            self.cur.resize(i as usize + 1, NONE);
        }
        if i >= self.never.bound() {
            let mut never = LevelBits::new(i.saturating_mul(2).max(64));
            for a in self.never.iter() {
                never.insert(a);
            }
            self.never = never;
        }
    }

    /// Records that the key admitted at `a` is next used at `next`.
    #[inline]
    fn place(&mut self, a: u32, next: u64) {
        if next == NEVER {
            self.cur[a as usize] = NONE;
            self.never.insert(a);
        } else {
            let p = next as u32;
            self.cur[a as usize] = p;
            self.owner[p as usize] = a;
            self.future.insert(p);
        }
    }
}

impl Policy for Opt {
    fn name(&self) -> &'static str {
        "OPT"
    }

    fn victim_rule(&self) -> &'static str {
        "the key needed furthest in the future (maybe the new key itself)"
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.future.len() + self.never.len()
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    fn access(&mut self, key: u32) -> Access {
        let i = self.pos;
        self.pos += 1;
        let next = match self.trace.get(i as usize) {
            Some(&k) if k == key => self.next_use[i as usize],
            _ => NEVER,
        };
        if i as usize >= self.trace.len() {
            self.grow_to(i);
        }
        if let Some(a) = self.map.get(key) {
            match self.cur[a as usize] {
                NONE => self.never.remove(a),
                p => self.future.remove(p),
            }
            self.place(a, next);
            return Access::Hit;
        }
        self.map.insert(key, i);
        self.adm_key[i as usize] = key;
        self.place(i, next);
        let mut evicted = None;
        if self.len() > self.capacity {
            let a = match self.never.min() {
                Some(a) => {
                    self.never.remove(a);
                    a
                }
                None => {
                    let p = self.future.max().expect("over capacity");
                    self.future.remove(p);
                    self.owner[p as usize]
                }
            };
            let k = self.adm_key[a as usize];
            self.map.remove(k);
            evicted = Some(k);
        }
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .future
            .iter()
            .map(|p| self.adm_key[self.owner[p as usize] as usize])
            .collect();
        let mut never: Vec<u32> = self
            .never
            .iter()
            .map(|a| self.adm_key[a as usize])
            .collect();
        never.reverse();
        v.extend(never);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked() {
        // A B C A B at size 2: A miss, B miss, C miss → C is never used again, so C itself
        // is dropped (bypass); A hit, B hit → 2 hits, 3 misses, 1 eviction (C).
        let t = [0, 1, 2, 0, 1];
        let mut p = Opt::new(2, &t);
        let got: Vec<Access> = t.iter().map(|&k| p.access(k)).collect();
        assert_eq!(
            got,
            [
                Access::Miss { evicted: None },
                Access::Miss { evicted: None },
                Access::Miss { evicted: Some(2) },
                Access::Hit,
                Access::Hit,
            ]
        );
        // A B C B at size 2: at C, A is never used again (ties with C broken towards the
        // older admission) → A is evicted, then B hits.
        let t = [0, 1, 2, 1];
        let mut p = Opt::new(2, &t);
        let ev: Vec<_> = t.iter().map(|&k| p.access(k)).collect();
        assert_eq!(ev[2].evicted(), Some(0));
        assert!(ev[3].is_hit());
        assert_eq!(p.keys(), [2, 1]);
    }

    #[test]
    fn off_trace_accesses_are_never_used_again() {
        // Trace says A B, caller asks A C D E at size 2: C, D, E are "never again" keys.
        let mut p = Opt::new(2, &[0, 1]);
        assert!(!p.access(0).is_hit());
        assert!(!p.access(2).is_hit());
        // A (never used again after position 0) and C tie; A is older → evicted.
        assert_eq!(p.access(3).evicted(), Some(0));
        assert_eq!(p.access(4).evicted(), Some(2));
        for k in [10, 11, 10, 10, 12, 11, 3, 3] {
            p.access(k);
            assert!(p.len() <= 2);
            assert_eq!(p.keys().len(), p.len() as usize);
        }
        // Straying inside the trace: trace A B A, caller A A A.
        let mut p = Opt::new(2, &[0, 1, 0]);
        for _ in 0..3 {
            p.access(0);
            assert_eq!(p.len(), 1);
        }
    }

    #[test]
    fn next_uses_are_positions() {
        assert_eq!(next_uses(&[5, 6, 5, 5]), [2, NEVER, 3, NEVER]);
    }
}
