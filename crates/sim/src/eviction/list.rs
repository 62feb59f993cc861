//! Intrusive doubly linked lists over `u32` indices, several lists sharing one node arena.
//!
//! Policies that move entries between queues (SLRU, 2Q, ARC, W-TinyLFU) keep every entry,
//! resident or ghost, as one node here; the list a node sits in is its state. Nodes `0..n`
//! are the sentinels of lists `0..n`, so linking and unlinking never test for "no neighbour".
//! Convention everywhere: the *front* is the newest / most recently used end, the *back* the
//! oldest / next victim.

const DETACHED: u8 = u8::MAX;

/// A node arena holding a fixed number of lists.
#[derive(Clone, Debug)]
pub struct Lists {
    prev: Vec<u32>,
    next: Vec<u32>,
    key: Vec<u32>,
    list: Vec<u8>,
    len: Vec<u32>,
    free: Vec<u32>,
    sentinels: u32,
}

impl Lists {
    /// An arena with `lists` empty lists (at most 254) and room reserved for `nodes` nodes.
    pub fn new(lists: u8, nodes: u32) -> Self {
        assert!(lists < DETACHED, "too many lists");
        let n = u32::from(lists);
        // Reserve for small caches only; big ones grow as keys arrive.
        let total = n as usize + super::reserve_hint(nodes);
        let mut s = Self {
            prev: Vec::with_capacity(total),
            next: Vec::with_capacity(total),
            key: Vec::with_capacity(total),
            list: Vec::with_capacity(total),
            len: vec![0; lists as usize],
            free: Vec::new(),
            sentinels: n,
        };
        for i in 0..n {
            s.prev.push(i);
            s.next.push(i);
            s.key.push(u32::MAX);
            s.list.push(i as u8);
        }
        s
    }

    /// A detached node carrying `key` (reuses a freed node when there is one).
    #[inline]
    pub fn alloc(&mut self, key: u32) -> u32 {
        if let Some(n) = self.free.pop() {
            self.key[n as usize] = key;
            return n;
        }
        let n = self.prev.len() as u32;
        self.prev.push(n);
        self.next.push(n);
        self.key.push(key);
        self.list.push(DETACHED);
        n
    }

    /// Unlinks `node` (if linked) and returns it to the free pool.
    #[inline]
    pub fn free(&mut self, node: u32) {
        self.unlink(node);
        self.free.push(node);
    }

    /// The key a node carries.
    #[inline]
    pub fn key(&self, node: u32) -> u32 {
        self.key[node as usize]
    }

    /// Re-labels a detached or linked node with a new key.
    #[inline]
    pub fn set_key(&mut self, node: u32, key: u32) {
        self.key[node as usize] = key;
    }

    /// The list `node` is linked into, if any.
    #[inline]
    pub fn list_of(&self, node: u32) -> Option<u8> {
        let l = self.list[node as usize];
        (l != DETACHED).then_some(l)
    }

    /// Number of nodes in `list`.
    #[inline]
    pub fn len(&self, list: u8) -> u32 {
        self.len[list as usize]
    }

    /// Removes `node` from whichever list holds it (no-op when detached).
    #[inline]
    pub fn unlink(&mut self, node: u32) {
        let i = node as usize;
        let l = self.list[i];
        if l == DETACHED {
            return;
        }
        let (p, n) = (self.prev[i], self.next[i]);
        self.next[p as usize] = n;
        self.prev[n as usize] = p;
        self.list[i] = DETACHED;
        self.len[l as usize] -= 1;
    }

    #[inline]
    fn link_after(&mut self, at: u32, node: u32, list: u8) {
        let i = node as usize;
        let n = self.next[at as usize];
        self.prev[i] = at;
        self.next[i] = n;
        self.next[at as usize] = node;
        self.prev[n as usize] = node;
        self.list[i] = list;
        self.len[list as usize] += 1;
    }

    /// Moves `node` to the front (newest end) of `list`, unlinking it first if needed.
    #[inline]
    pub fn push_front(&mut self, list: u8, node: u32) {
        self.unlink(node);
        self.link_after(u32::from(list), node, list);
    }

    /// Moves `node` to the back (oldest end) of `list`, unlinking it first if needed.
    #[inline]
    pub fn push_back(&mut self, list: u8, node: u32) {
        self.unlink(node);
        let last = self.prev[list as usize];
        self.link_after(last, node, list);
    }

    /// The newest node of `list`.
    #[inline]
    pub fn front(&self, list: u8) -> Option<u32> {
        let n = self.next[list as usize];
        (n >= self.sentinels).then_some(n)
    }

    /// The oldest node of `list`.
    #[inline]
    pub fn back(&self, list: u8) -> Option<u32> {
        let n = self.prev[list as usize];
        (n >= self.sentinels).then_some(n)
    }

    /// The neighbour of `node` towards the front of its list.
    #[inline]
    pub fn toward_front(&self, node: u32) -> Option<u32> {
        let n = self.prev[node as usize];
        (n >= self.sentinels).then_some(n)
    }

    /// The neighbour of `node` towards the back of its list.
    #[inline]
    pub fn toward_back(&self, node: u32) -> Option<u32> {
        let n = self.next[node as usize];
        (n >= self.sentinels).then_some(n)
    }

    /// The keys of `list`, front to back.
    pub fn keys(&self, list: u8) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len(list) as usize);
        let mut n = self.front(list);
        while let Some(x) = n {
            out.push(self.key(x));
            n = self.toward_back(x);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_unlink_and_move_between_lists() {
        let mut l = Lists::new(2, 4);
        let a = l.alloc(10);
        let b = l.alloc(20);
        let c = l.alloc(30);
        l.push_front(0, a);
        l.push_front(0, b);
        l.push_back(0, c);
        assert_eq!(l.keys(0), [20, 10, 30]);
        l.push_front(1, a);
        assert_eq!(l.keys(0), [20, 30]);
        assert_eq!(l.keys(1), [10]);
        assert_eq!((l.len(0), l.len(1)), (2, 1));
        assert_eq!(l.back(0), Some(c));
        assert_eq!(l.toward_front(c), Some(b));
        assert_eq!(l.toward_front(b), None);
        l.free(b);
        assert_eq!(l.keys(0), [30]);
        let d = l.alloc(40);
        assert_eq!(d, b);
        assert_eq!(l.list_of(d), None);
    }
}
