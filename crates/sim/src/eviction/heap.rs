//! An indexed binary min-heap: ids `0..n` with `(u64, u64)` priorities that can be raised,
//! lowered or removed in `O(log n)`. LFU (`(count, admission)`) and OPT
//! (`(!next_use, admission)`) use it as their victim index.
//!
//! Priorities live inline in the heap array (one cache line holds several entries) and
//! sifting moves a hole instead of swapping, so an update touches each level once.

/// Priority: compared lexicographically, smallest first.
pub type Priority = (u64, u64);
const NOWHERE: u32 = u32::MAX;

/// Min-heap over small integer ids.
#[derive(Clone, Debug, Default)]
pub struct IndexedHeap {
    heap: Vec<(Priority, u32)>,
    pos: Vec<u32>,
}

impl IndexedHeap {
    /// An empty heap.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of ids in the heap.
    #[inline]
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether the heap is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// The id with the smallest priority.
    #[inline]
    pub fn peek(&self) -> Option<u32> {
        self.heap.first().map(|e| e.1)
    }

    /// Whether `id` is in the heap.
    #[inline]
    pub fn contains(&self, id: u32) -> bool {
        self.pos.get(id as usize).is_some_and(|&p| p != NOWHERE)
    }

    /// The priority of `id`, which must be in the heap.
    #[inline]
    pub fn priority(&self, id: u32) -> Priority {
        self.heap[self.pos[id as usize] as usize].0
    }

    /// Inserts `id` or changes its priority.
    #[inline]
    pub fn set(&mut self, id: u32, p: Priority) {
        let i = id as usize;
        if i >= self.pos.len() {
            self.pos.resize(i + 1, NOWHERE);
        }
        match self.pos[i] {
            NOWHERE => {
                self.heap.push((p, id));
                self.sift_up(self.heap.len() - 1, (p, id));
            }
            at => {
                let at = at as usize;
                if p < self.heap[at].0 {
                    self.sift_up(at, (p, id));
                } else {
                    self.sift_down(at, (p, id));
                }
            }
        }
    }

    /// Removes `id` if present.
    pub fn remove(&mut self, id: u32) {
        if !self.contains(id) {
            return;
        }
        let at = self.pos[id as usize] as usize;
        self.pos[id as usize] = NOWHERE;
        let last = self.heap.pop().expect("non-empty");
        if at < self.heap.len() {
            if last.0 < self.heap[at].0 {
                self.sift_up(at, last);
            } else {
                self.sift_down(at, last);
            }
        }
    }

    /// Removes and returns the smallest id.
    pub fn pop(&mut self) -> Option<u32> {
        let id = self.peek()?;
        self.remove(id);
        Some(id)
    }

    /// Places `e` at the hole `at`, moving it up past larger parents.
    #[inline]
    fn sift_up(&mut self, mut at: usize, e: (Priority, u32)) {
        while at > 0 {
            let parent = (at - 1) / 2;
            let p = self.heap[parent];
            if e.0 >= p.0 {
                break;
            }
            self.heap[at] = p;
            self.pos[p.1 as usize] = at as u32;
            at = parent;
        }
        self.heap[at] = e;
        self.pos[e.1 as usize] = at as u32;
    }

    /// Places `e` at the hole `at`, moving it down past smaller children.
    #[inline]
    fn sift_down(&mut self, mut at: usize, e: (Priority, u32)) {
        let n = self.heap.len();
        loop {
            let l = 2 * at + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let c = if r < n && self.heap[r].0 < self.heap[l].0 {
                r
            } else {
                l
            };
            let child = self.heap[c];
            if child.0 >= e.0 {
                break;
            }
            self.heap[at] = child;
            self.pos[child.1 as usize] = at as u32;
            at = c;
        }
        self.heap[at] = e;
        self.pos[e.1 as usize] = at as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Mulberry32;

    #[test]
    fn matches_a_sorted_reference() {
        let mut h = IndexedHeap::new();
        let mut reference: Vec<Option<Priority>> = vec![None; 50];
        let mut r = Mulberry32::new(3);
        for _ in 0..5000 {
            let id = r.below(50);
            match r.below(4) {
                0 | 1 => {
                    let p = (u64::from(r.below(20)), u64::from(r.below(1000)));
                    h.set(id, p);
                    reference[id as usize] = Some(p);
                }
                2 => {
                    h.remove(id);
                    reference[id as usize] = None;
                }
                _ => {
                    let popped = h.pop();
                    let best = reference
                        .iter()
                        .enumerate()
                        .filter_map(|(i, p)| p.map(|p| (p, i as u32)))
                        .min();
                    assert_eq!(popped.is_some(), best.is_some());
                    if let Some(id) = popped {
                        assert_eq!(reference[id as usize], best.map(|b| b.0));
                        reference[id as usize] = None;
                    }
                }
            }
            let best = reference
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.map(|p| (p, i as u32)))
                .min();
            assert_eq!(h.peek().map(|i| h.priority(i)), best.map(|b| b.0));
            assert_eq!(h.len(), reference.iter().flatten().count());
            for (i, p) in reference.iter().enumerate() {
                assert_eq!(h.contains(i as u32), p.is_some());
            }
        }
    }
}
