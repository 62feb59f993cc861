//! What a student has practised, kept in the browser (`localStorage`, [`KEY`]) as JSON:
//! per topic and kind, how many questions were answered and how many right. The practice
//! page shows it per lab and suggests what to practise next ([`Progress::next_kind`]).

use super::{topic, Question};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where the browser keeps it.
pub const KEY: &str = "redislab.practice.progress";

/// Answered and right, for one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Questions answered.
    pub asked: u32,
    /// Of them, right.
    pub right: u32,
}

/// Every topic's tallies, by kind.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress(pub BTreeMap<String, BTreeMap<String, Tally>>);

impl Progress {
    /// Reads what the browser kept; anything unreadable (an older form, an edit by hand)
    /// starts afresh.
    pub fn read(json: Option<&str>) -> Self {
        json.and_then(|j| serde_json::from_str(j).ok())
            .unwrap_or_default()
    }

    /// As JSON, to keep.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Counts an answer to `q`.
    pub fn record(&mut self, q: &Question, right: bool) {
        let t = self
            .0
            .entry(q.topic.clone())
            .or_default()
            .entry(q.kind.clone())
            .or_default();
        t.asked += 1;
        t.right += u32::from(right);
    }

    /// A topic's tallies summed.
    pub fn topic(&self, id: &str) -> Tally {
        self.0
            .get(id)
            .map(|m| {
                m.values().fold(Tally::default(), |a, t| Tally {
                    asked: a.asked + t.asked,
                    right: a.right + t.right,
                })
            })
            .unwrap_or_default()
    }

    /// The kind of topic `id` to practise next: one never answered (in the topic's order),
    /// else the one with the smallest share right (ties: the fewest answered); `None` when
    /// the topic is unknown.
    pub fn next_kind(&self, id: &str) -> Option<&'static str> {
        let t = topic(id)?;
        let of = |k: &str| {
            self.0
                .get(id)
                .and_then(|m| m.get(k))
                .copied()
                .unwrap_or_default()
        };
        if let Some(k) = t.kinds.iter().find(|k| of(k.id).asked == 0) {
            return Some(k.id);
        }
        t.kinds
            .iter()
            .min_by(|a, b| {
                let (x, y) = (of(a.id), of(b.id));
                // right/asked compared without division: x.r/x.a < y.r/y.a.
                (u64::from(x.right) * u64::from(y.asked))
                    .cmp(&(u64::from(y.right) * u64::from(x.asked)))
                    .then(x.asked.cmp(&y.asked))
            })
            .map(|k| k.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::generate;

    #[test]
    fn tallies_and_the_kind_to_practise_next() {
        let mut p = Progress::default();
        let kinds: Vec<&str> = topic("lru").unwrap().kinds.iter().map(|k| k.id).collect();
        assert_eq!(p.next_kind("lru"), Some(kinds[0]));
        for (i, k) in kinds.iter().enumerate() {
            let q = generate("lru", k, 1).unwrap();
            p.record(&q, true);
            p.record(&q, i != 1);
        }
        // Every kind tried; the one with a wrong answer comes next.
        assert_eq!(p.next_kind("lru"), Some(kinds[1]));
        assert_eq!(
            p.topic("lru"),
            Tally {
                asked: 2 * kinds.len() as u32,
                right: 2 * kinds.len() as u32 - 1
            }
        );
        let again = Progress::read(Some(&p.to_json()));
        assert_eq!(again, p);
        assert_eq!(Progress::read(Some("{oops")), Progress::default());
        assert_eq!(p.next_kind("nope"), None);
    }
}
