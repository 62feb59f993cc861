//! What the lock labs (lock, redlock) draw alike on the kit's time chart: the stretches in
//! which two clients each believed they held the lock, and the writes the storage behind the
//! lock received — taken (✓), refused by their fencing token (✗), or taken though stale (a red
//! ✓: it overwrote newer data). The labs' own lanes (workers, servers, the lock in Redis) stay
//! theirs.

use super::time_chart::{Key, Lane, Seg, Shape, Tick, Tone};
use redislab_deck::bn;
use redislab_sim::labs::owners::Overlap;

/// A write the storage received, as the chart draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteMark {
    /// Trace index (drawn from the position after it).
    pub step: usize,
    /// When, ms.
    pub at_ms: u64,
    /// Who wrote (`A`, `B`).
    pub who: &'static str,
    /// Its fencing token, if it carried one.
    pub fence: Option<i64>,
    /// Older than a write already taken.
    pub stale: bool,
    /// The storage took it.
    pub accepted: bool,
}

impl WriteMark {
    fn tick(&self, ms: fn(u64) -> String) -> Tick {
        let (tone, glyph) = match (self.accepted, self.stale) {
            (true, false) => (Tone::Green, "✓"),
            (true, true) => (Tone::Red, "✓"),
            (false, _) => (Tone::Red, "✗"),
        };
        let token = self.fence.map_or(String::new(), |f| {
            format!(" (fencing token {})", bn::int(f))
        });
        Tick {
            at_ms: self.at_ms as f64,
            tone,
            title: format!(
                "{} · {}-র লেখা{token}{} · {}",
                ms(self.at_ms),
                self.who,
                if self.stale { " (বাসি)" } else { "" },
                if self.accepted {
                    "গৃহীত"
                } else {
                    "ফিরিয়ে দিল"
                }
            ),
            glyph: Some(glyph),
        }
    }
}

/// The storage's lane at position `n`: the two-owner stretches and the writes known by then.
pub fn storage_lane(
    name: &str,
    overlaps: &[Overlap],
    writes: &[WriteMark],
    n: usize,
    ms: fn(u64) -> String,
) -> Lane {
    Lane {
        name: name.into(),
        segs: overlaps
            .iter()
            .filter(|o| o.step < n)
            .map(|o| Seg {
                from_ms: o.from_ms as f64,
                to_ms: o.to_ms as f64,
                tone: Tone::Red,
                title: format!("দুই মালিক: {}–{}", ms(o.from_ms), ms(o.to_ms)),
            })
            .collect(),
        ticks: writes
            .iter()
            .filter(|w| w.step < n)
            .map(|w| w.tick(ms))
            .collect(),
    }
}

/// The legend keys of [`storage_lane`].
pub fn storage_keys() -> [Key; 3] {
    [
        Key::new("দুই মালিক একসাথে", Tone::Red, Shape::Box),
        Key::new("লেখা গৃহীত", Tone::Green, Shape::Tick),
        Key::new("বাসি লেখা / ফেরত", Tone::Red, Shape::Tick),
    ]
}
