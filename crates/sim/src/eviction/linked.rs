//! The linked-list engine shared by FIFO, LRU and CLOCK (Caffeine's `LinkedPolicy`).
//!
//! Entries sit in one intrusive list in a `Vec` arena, newest at the front. A [`LinkedRule`]
//! says only what a hit does and whether the back entry gets a second chance; the engine
//! does the rest in `O(1)` per access (CLOCK's second chances are amortised `O(1)`).

use super::keymap::KeyMap;
use super::list::Lists;
use super::{Access, Policy};
use std::marker::PhantomData;

const Q: u8 = 0;

/// The behaviour that distinguishes one linked policy from another.
pub trait LinkedRule {
    /// Display name.
    const NAME: &'static str;
    /// Whom the policy evicts.
    const VICTIM_RULE: &'static str;
    /// A hit moves the entry to the front (LRU).
    const MOVE_ON_HIT: bool;
    /// A hit sets a reference bit; a referenced back entry is moved to the front with its
    /// bit cleared instead of being evicted (CLOCK / second chance).
    const SECOND_CHANCE: bool;
}

/// A cache run by the linked engine under rule `R`.
#[derive(Clone, Debug)]
pub struct Linked<R> {
    lists: Lists,
    map: KeyMap,
    referenced: Vec<bool>,
    capacity: u32,
    rule: PhantomData<R>,
}

impl<R: LinkedRule> Linked<R> {
    /// An empty cache holding at most `capacity` keys (at least 1).
    pub fn new(capacity: u32) -> Self {
        let capacity = capacity.max(1);
        Self {
            lists: Lists::new(1, capacity),
            map: KeyMap::new(),
            referenced: Vec::new(),
            capacity,
            rule: PhantomData,
        }
    }

    fn victim(&mut self) -> u32 {
        loop {
            let back = self
                .lists
                .back(Q)
                .expect("victim() runs only on a full cache");
            if R::SECOND_CHANCE && self.referenced[back as usize] {
                self.referenced[back as usize] = false;
                self.lists.push_front(Q, back);
            } else {
                return back;
            }
        }
    }
}

/// Sets a per-node flag, growing the vector with the node arena.
#[inline]
pub(crate) fn set_bit(bits: &mut Vec<bool>, node: u32, value: bool) {
    let i = node as usize;
    if i >= bits.len() {
        bits.resize(i + 1, false);
    }
    bits[i] = value;
}

impl<R: LinkedRule> Policy for Linked<R> {
    fn name(&self) -> &'static str {
        R::NAME
    }

    fn victim_rule(&self) -> &'static str {
        R::VICTIM_RULE
    }

    fn capacity(&self) -> u32 {
        self.capacity
    }

    fn len(&self) -> u32 {
        self.lists.len(Q)
    }

    fn contains(&self, key: u32) -> bool {
        self.map.contains(key)
    }

    #[inline]
    fn access(&mut self, key: u32) -> Access {
        if let Some(node) = self.map.get(key) {
            if R::MOVE_ON_HIT {
                self.lists.push_front(Q, node);
            }
            if R::SECOND_CHANCE {
                set_bit(&mut self.referenced, node, true);
            }
            return Access::Hit;
        }
        let mut evicted = None;
        let node = if self.lists.len(Q) >= self.capacity {
            let victim = self.victim();
            let old = self.lists.key(victim);
            self.map.remove(old);
            evicted = Some(old);
            self.lists.set_key(victim, key);
            victim
        } else {
            self.lists.alloc(key)
        };
        if R::SECOND_CHANCE {
            set_bit(&mut self.referenced, node, false);
        }
        self.lists.push_front(Q, node);
        self.map.insert(key, node);
        Access::Miss { evicted }
    }

    fn keys(&self) -> Vec<u32> {
        self.lists.keys(Q)
    }
}
