//! What the lock labs (lock, redlock) draw alike on the kit's time chart: two clients (A and B,
//! each in its tone), their work, pauses and waits, the stretches in which each held the lock,
//! the stretches in which both believed they held it, and the writes the storage behind the
//! lock received — taken (✓), refused by their fencing token (✗), or taken though stale (a red
//! ✓: it overwrote newer data). A lab puts these on its own lanes (workers, servers, the lock
//! in Redis) and adds what is its own (commands, faults). The view wraps the chart in
//! `.lock-chart`, whose styles are in `static/labs/owners.css`.

use super::time_chart::{time_chart, Key, Lane, Mark, Seg, Shape, Tick, TimeChart, Tone};
use redislab_deck::bn;
use redislab_sim::labs::owners::Overlap;
use yew::prelude::*;

/// How a moment or a stretch is written (`১,৪০৪ ms`).
pub type Fmt = fn(u64) -> String;

/// Client `c`'s tone (0 = A, 1 = B): its work and its hold on the lock.
pub fn client_tone(c: usize) -> Tone {
    if c == 0 {
        Tone::Teal
    } else {
        Tone::Violet
    }
}

/// What a client does in a stretch of its lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doing {
    /// Working, believing it holds the lock.
    Work,
    /// Frozen (a GC pause, a slow query).
    Pause,
    /// Waiting to try the lock again.
    Wait,
}

/// Client `c`'s stretch `from`–`to` of `doing` (`what` says it in the tooltip).
pub fn stretch(c: usize, doing: Doing, from: u64, to: u64, what: &str, ms: Fmt) -> Seg {
    Seg {
        from_ms: from as f64,
        to_ms: to as f64,
        tone: match doing {
            Doing::Work => client_tone(c),
            Doing::Pause => Tone::Amber,
            Doing::Wait => Tone::Muted,
        },
        title: format!("{what} {}–{}", ms(from), ms(to)),
    }
}

/// Client `c`'s hold on the lock `from`–`to` as the cursor at `now` sees it: `what` names it
/// (`lock:reindex = A`), `how` says how it ended (said once it has).
pub fn hold(c: usize, from: u64, to: u64, now: u64, what: &str, how: &str, ms: Fmt) -> Seg {
    let ended = if to <= now {
        format!(" · {how}")
    } else {
        String::new()
    };
    Seg {
        from_ms: from as f64,
        to_ms: to as f64,
        tone: client_tone(c),
        title: format!("{what} · {}–{}{ended}", ms(from), ms(to.min(now))),
    }
}

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
    /// `who`'s write at trace index `step`, `at_ms`.
    pub fn new(
        step: usize,
        at_ms: u64,
        who: &'static str,
        fence: Option<i64>,
        stale: bool,
        accepted: bool,
    ) -> Self {
        WriteMark {
            step,
            at_ms,
            who,
            fence,
            stale,
            accepted,
        }
    }

    fn tick(&self, ms: Fmt) -> Tick {
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
    writes: impl Iterator<Item = WriteMark>,
    n: usize,
    ms: Fmt,
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
        ticks: writes.filter(|w| w.step < n).map(|w| w.tick(ms)).collect(),
    }
}

/// A lock lab's chart: `lanes` with `marks` across them over a run of `end_ms`, the cursor at
/// `now`; the legend names the clients' tones (`lock`: the lab's word for the lock), the
/// pause and the wait, the storage's marks, then `more`.
pub fn lock_chart(
    label: String,
    lanes: Vec<Lane>,
    marks: Vec<Mark>,
    lock: &str,
    more: Vec<Key>,
    end_ms: u64,
    now: u64,
) -> Html {
    let mut keys = vec![
        Key::new(format!("A-র {lock} / কাজ"), Tone::Teal, Shape::Box),
        Key::new(format!("B-র {lock} / কাজ"), Tone::Violet, Shape::Box),
        Key::new("থমকে থাকা (pause)", Tone::Amber, Shape::Box),
        Key::new("অপেক্ষা", Tone::Muted, Shape::Box),
        Key::new("দুই মালিক একসাথে", Tone::Red, Shape::Box),
        Key::new("লেখা গৃহীত", Tone::Green, Shape::Tick),
        Key::new("বাসি লেখা / ফেরত", Tone::Red, Shape::Tick),
    ];
    keys.extend(more);
    time_chart(&TimeChart {
        label,
        marks,
        lanes,
        keys,
        span_ms: end_ms.max(1) as f64,
        now_ms: Some(now as f64),
        ..TimeChart::default()
    })
}
