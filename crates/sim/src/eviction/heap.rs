//! An indexed binary min-heap: ids `0..n` with `(u64, u64)` priorities that can be raised,
//! lowered or removed in `O(log n)`. LFU (`(count, admission)`) and OPT
//! (`(!next_use, admission)`) use it as their victim index.

/// Priority: compared lexicographically, smallest first.
pub type Priority = (u64, u64);
const NOWHERE: u32 = u32::MAX;

/// Min-heap over small integer ids.
#[derive(Clone, Debug, Default)]
pub struct IndexedHeap {
    heap: Vec<u32>,
    pos: Vec<u32>,
    prio: Vec<Priority>,
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
        self.heap.first().copied()
    }

    /// The priority of `id` (meaningful only while it is in the heap).
    #[inline]
    pub fn priority(&self, id: u32) -> Priority {
        self.prio[id as usize]
    }

    /// Inserts `id` or changes its priority.
    pub fn set(&mut self, id: u32, p: Priority) {
        let i = id as usize;
        if i >= self.pos.len() {
            self.pos.resize(i + 1, NOWHERE);
            self.prio.resize(i + 1, (0, 0));
        }
        let old = self.prio[i];
        self.prio[i] = p;
        match self.pos[i] {
            NOWHERE => {
                self.heap.push(id);
                let at = self.heap.len() - 1;
                self.pos[i] = at as u32;
                self.sift_up(at);
            }
            at if p < old => self.sift_up(at as usize),
            at => self.sift_down(at as usize),
        }
    }

    /// Removes `id` if present.
    pub fn remove(&mut self, id: u32) {
        let Some(&at) = self.pos.get(id as usize) else {
            return;
        };
        if at == NOWHERE {
            return;
        }
        let at = at as usize;
        let last = self.heap.len() - 1;
        self.heap.swap(at, last);
        self.pos[self.heap[at] as usize] = at as u32;
        self.heap.pop();
        self.pos[id as usize] = NOWHERE;
        if at < self.heap.len() {
            self.sift_down(at);
            self.sift_up(at);
        }
    }

    /// Removes and returns the smallest id.
    pub fn pop(&mut self) -> Option<u32> {
        let id = self.peek()?;
        self.remove(id);
        Some(id)
    }

    #[inline]
    fn less(&self, a: usize, b: usize) -> bool {
        self.prio[self.heap[a] as usize] < self.prio[self.heap[b] as usize]
    }

    #[inline]
    fn swap(&mut self, a: usize, b: usize) {
        self.heap.swap(a, b);
        self.pos[self.heap[a] as usize] = a as u32;
        self.pos[self.heap[b] as usize] = b as u32;
    }

    fn sift_up(&mut self, mut at: usize) {
        while at > 0 {
            let parent = (at - 1) / 2;
            if !self.less(at, parent) {
                break;
            }
            self.swap(at, parent);
            at = parent;
        }
    }

    fn sift_down(&mut self, mut at: usize) {
        let n = self.heap.len();
        loop {
            let l = 2 * at + 1;
            if l >= n {
                break;
            }
            let r = l + 1;
            let child = if r < n && self.less(r, l) { r } else { l };
            if !self.less(child, at) {
                break;
            }
            self.swap(at, child);
            at = child;
        }
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
            match r.below(3) {
                0 | 1 => {
                    let p = (u64::from(r.below(20)), u64::from(r.below(1000)));
                    h.set(id, p);
                    reference[id as usize] = Some(p);
                }
                _ => {
                    h.remove(id);
                    reference[id as usize] = None;
                }
            }
            let best = reference
                .iter()
                .enumerate()
                .filter_map(|(i, p)| p.map(|p| (p, i as u32)))
                .min();
            assert_eq!(h.peek().map(|i| h.priority(i)), best.map(|b| b.0));
            assert_eq!(h.len(), reference.iter().flatten().count());
        }
    }
}
