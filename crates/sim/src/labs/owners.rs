//! Two owners and fencing: the analysis the lock labs share (`lock`, `redlock`).
//!
//! * A *two-owner moment* is a stretch in which two clients were both working in their
//!   critical section, each believing it held the lock ([`overlaps`]); a paused client does
//!   nothing, so a pause is not work.
//! * The resource (the database the job writes to) sits outside Redis. A *stale write* is
//!   one made under an older lock grant than a write the resource already accepted: it would
//!   overwrite newer data. With fencing the resource keeps the newest fencing token it
//!   accepted and rejects a write that carries an older one, or none ([`judge`]).

use serde::{Deserialize, Serialize};

/// A stretch with two owners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overlap {
    /// Trace index when it became known (the later of the two pieces of work began).
    pub step: usize,
    /// Start, ms.
    pub from_ms: u64,
    /// End, ms.
    pub to_ms: u64,
}

/// A piece of one client's work: (trace index it began at, from ms, to ms).
pub type Span = (usize, u64, u64);

/// The pieces of work of two clients that overlap, merged into moments. Each list is in
/// time order and its pieces never overlap each other, so one sweep finds every pair.
pub fn overlaps(a: &[Span], b: &[Span]) -> Vec<Overlap> {
    let (a, b): (Vec<&Span>, Vec<&Span>) = (
        a.iter().filter(|s| s.2 > s.1).collect(),
        b.iter().filter(|s| s.2 > s.1).collect(),
    );
    let mut out: Vec<Overlap> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        let (from, to) = (x.1.max(y.1), x.2.min(y.2));
        if from < to {
            let step = x.0.max(y.0);
            match out.last_mut() {
                Some(l) if from <= l.to_ms => {
                    l.to_ms = l.to_ms.max(to);
                    l.step = l.step.min(step);
                }
                _ => out.push(Overlap {
                    step,
                    from_ms: from,
                    to_ms: to,
                }),
            }
        }
        if x.2 <= y.2 {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// How the resource took one write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    /// Made under an older grant than a write already accepted.
    pub stale: bool,
    /// The resource took it.
    pub accepted: bool,
}

/// The resource's verdict on each write, in the order they reached it: `(fencing token it
/// carried, the grant it was made under — 1 for the first lock granted)`. Without fencing
/// every write is accepted; with it, a write whose token is older than the newest accepted,
/// or that carries none, is rejected.
pub fn judge(fencing: bool, writes: impl IntoIterator<Item = (Option<i64>, u32)>) -> Vec<Judged> {
    let mut newest_fence: Option<i64> = None;
    let mut newest_gen = 0;
    writes
        .into_iter()
        .map(|(fence, generation)| {
            let accepted = !fencing
                || match (fence, newest_fence) {
                    (None, _) => false,
                    (Some(f), Some(n)) => f >= n,
                    (Some(_), None) => true,
                };
            let stale = generation < newest_gen;
            if accepted {
                newest_gen = newest_gen.max(generation);
                if let Some(f) = fence {
                    newest_fence = Some(newest_fence.map_or(f, |n| n.max(f)));
                }
            }
            Judged { stale, accepted }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_work_merges_into_moments() {
        let a = [(0, 0, 100), (5, 300, 400)];
        let b = [(2, 50, 150), (6, 350, 360), (7, 380, 500)];
        // B's two pieces meet A's second apart: two moments there.
        let o = overlaps(&a, &b);
        assert_eq!(
            o.iter()
                .map(|o| (o.step, o.from_ms, o.to_ms))
                .collect::<Vec<_>>(),
            vec![(2, 50, 100), (6, 350, 360), (7, 380, 400)]
        );
        assert!(overlaps(&a, &[(1, 100, 300)]).is_empty());
    }

    #[test]
    fn fencing_rejects_the_older_token() {
        // B (grant 2, token 2) writes, then A (grant 1, token 1) wakes and writes.
        let w = [(Some(2), 2), (Some(1), 1)];
        let j = |f| {
            judge(f, w)
                .iter()
                .map(|j| (j.stale, j.accepted))
                .collect::<Vec<_>>()
        };
        assert_eq!(j(false), vec![(false, true), (true, true)]);
        assert_eq!(j(true), vec![(false, true), (true, false)]);
        // With fencing, a write without a token is rejected.
        assert!(!judge(true, [(None, 1)])[0].accepted);
    }
}
