//! The labs' pure UI state machines — the timeline (play, pause, step, scrub, speed) and a
//! parameter form's state (what is typed, the last good values, the messages) — with no web
//! dependency, so they are tested natively; the app wraps them as Yew reducers.

use super::params::Params;
use std::collections::HashMap;

/// A timeline: `frames` positions, a cursor, play/pause and a speed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    /// Number of positions (at least 1).
    pub frames: usize,
    /// Current position.
    pub cursor: usize,
    /// Playing.
    pub playing: bool,
    /// Frames per tick.
    pub speed: usize,
}

/// What a timeline control does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeAction {
    /// Play or pause.
    Toggle,
    /// One back (pauses).
    Back,
    /// One forward (pauses).
    Forward,
    /// To a position (pauses).
    Seek(usize),
    /// Back to the start, paused.
    Reset,
    /// Frames per tick.
    Speed(usize),
    /// The timer fired.
    Tick,
    /// The run changed: new length, back to the start.
    Frames(usize),
    /// Jump to the end (show the result at once).
    End,
}

impl Timeline {
    /// A paused timeline of `frames` positions at the start, speed 1.
    pub fn new(frames: usize) -> Self {
        Timeline {
            frames: frames.max(1),
            cursor: 0,
            playing: false,
            speed: 1,
        }
    }

    /// The timeline after `a`.
    pub fn apply(&self, a: TimeAction) -> Timeline {
        let mut t = self.clone();
        let last = t.frames.saturating_sub(1);
        match a {
            TimeAction::Toggle => {
                if !t.playing && t.cursor >= last {
                    t.cursor = 0;
                }
                t.playing = !t.playing && t.frames > 1;
            }
            TimeAction::Back => {
                t.playing = false;
                t.cursor = t.cursor.saturating_sub(1);
            }
            TimeAction::Forward => {
                t.playing = false;
                t.cursor = (t.cursor + 1).min(last);
            }
            TimeAction::Seek(n) => {
                t.playing = false;
                t.cursor = n.min(last);
            }
            TimeAction::Reset => {
                t.playing = false;
                t.cursor = 0;
            }
            TimeAction::Speed(s) => t.speed = s.max(1),
            TimeAction::Tick => {
                if t.playing {
                    t.cursor = (t.cursor + t.speed).min(last);
                    t.playing = t.cursor < last;
                }
            }
            TimeAction::Frames(n) => {
                t.frames = n.max(1);
                t.cursor = t.cursor.min(t.frames - 1);
                t.playing = false;
            }
            TimeAction::End => {
                t.playing = false;
                t.cursor = last;
            }
        }
        t
    }
}

/// Where a lab's timeline opens when its run arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    /// At the start (or where the cursor was, for a new run of new parameters).
    Start,
    /// At the end: the whole run's result.
    End,
    /// At this position of the timeline (clamped to its last).
    At(usize),
}

impl Open {
    /// The timeline action that opens there, for a timeline of `frames` positions (none for
    /// [`Open::Start`]: the cursor stays).
    pub fn action(self) -> Option<TimeAction> {
        match self {
            Open::Start => None,
            Open::End => Some(TimeAction::End),
            Open::At(n) => Some(TimeAction::Seek(n)),
        }
    }

    /// The address' form: `end` or the position (the start as `0`).
    pub fn word(self) -> String {
        match self {
            Open::Start => "0".into(),
            Open::End => "end".into(),
            Open::At(n) => n.to_string(),
        }
    }
}

/// The key of a lab address that says where its timeline opens (`#/lab/lru?at=3`): not a
/// parameter of the lab (nothing in the run depends on it), so it is taken out of the query
/// before the parameters are read. "Show me" on a practice question opens the lab at the
/// moment that decides it this way.
pub use redislab_address::OPEN_KEY;

/// `query` without its `at=` pair, and where that pair says to open: `None` without one, a
/// Bengali message for a bad value (the lab then opens as it would without it).
pub fn split_open(query: &str) -> (String, Option<Result<Open, String>>) {
    let mut open = None;
    let mut rest = Vec::new();
    for pair in redislab_address::pieces(query) {
        match pair.split_once('=').unwrap_or((pair, "")) {
            (k, v) if k == OPEN_KEY => open = Some(parse_open(v)),
            _ => rest.push(pair),
        }
    }
    (rest.join("&"), open)
}

fn parse_open(v: &str) -> Result<Open, String> {
    let t = v.trim();
    if t.eq_ignore_ascii_case("end") || t == "শেষ" {
        return Ok(Open::End);
    }
    let ascii = crate::bn::ascii(t);
    match ascii.parse::<usize>() {
        Ok(n) => Ok(Open::At(n)),
        Err(_) => Err(format!(
            "`at={}` বোঝা গেল না: ধাপের জায়গায় ০ বা তার বেশি একটা পূর্ণ সংখ্যা দিন, বা `end` (শেষ ফল); ল্যাব শুরু থেকে খুলল",
            t.chars().filter(|c| !c.is_control()).take(12).collect::<String>()
        )),
    }
}

/// The state of a lab's parameter form.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamState {
    /// The last good parameters: what the lab shows.
    pub good: Params,
    /// What is typed in each field (may be bad).
    pub drafts: HashMap<&'static str, String>,
    /// Messages beside bad fields (and about unknown keys).
    pub errors: HashMap<String, String>,
}

impl ParamState {
    /// The form for a query (a link or a deck preset): the good values, each field showing
    /// its value, and the messages about what was bad in the query.
    pub fn from_query(lab: &'static super::lab::LabInfo, query: &str) -> Self {
        let (good, errs) = Params::from_query(lab, query);
        let drafts = lab
            .fields
            .iter()
            .map(|f| (f.key, good.get(f.key).to_string()))
            .collect();
        let errors = errs.into_iter().map(|e| (e.key, e.message)).collect();
        ParamState {
            good,
            drafts,
            errors,
        }
    }

    /// The form after a preset's button ([`Params::choose_preset`]): every field shows its
    /// new value and no message is left. An unknown preset changes nothing.
    pub fn preset(&self, id: &str) -> ParamState {
        let Some(good) = self.good.choose_preset(id) else {
            return self.clone();
        };
        ParamState {
            drafts: good
                .fields()
                .iter()
                .map(|f| (f.key, good.get(f.key).to_string()))
                .collect(),
            errors: HashMap::new(),
            good,
        }
    }

    /// The form after `value` was typed into field `key`: the field shows it; a good value
    /// becomes the lab's, a bad one gets its message and changes nothing else.
    pub fn apply(&self, key: &'static str, value: String) -> ParamState {
        let mut s = self.clone();
        match s.good.set(key, &value) {
            Ok(()) => {
                s.errors.remove(key);
            }
            Err(m) => {
                s.errors.insert(key.to_string(), m);
            }
        }
        s.drafts.insert(key, value);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const EVICTION: &crate::labs::lab::LabInfo = &crate::labs::eviction::INFO;
    const LRU: &crate::labs::lab::LabInfo = &crate::labs::lru::INFO;

    #[test]
    fn the_opening_is_taken_out_of_the_query() {
        assert_eq!(
            split_open("preset=lock&at=3&seed=2"),
            ("preset=lock&seed=2".to_string(), Some(Ok(Open::At(3))))
        );
        assert_eq!(split_open("at=end").1, Some(Ok(Open::End)));
        assert_eq!(split_open("at=৫").1, Some(Ok(Open::At(5))));
        assert_eq!(split_open("at=0").1, Some(Ok(Open::At(0))));
        assert_eq!(split_open("seed=1"), ("seed=1".to_string(), None));
        for bad in ["at=x", "at=-1", "at=", "at", "at=2.5"] {
            let (rest, open) = split_open(bad);
            assert_eq!(rest, "");
            let msg = open.unwrap().unwrap_err();
            assert!(msg.contains("end"), "{bad}: {msg}");
        }
        // A position past the end is the last one.
        let t = Timeline::new(4);
        let a = Open::At(9).action().unwrap();
        assert_eq!(t.apply(a).cursor, 3);
        assert_eq!(Open::Start.action(), None);
    }

    #[test]
    fn the_timeline_plays_steps_and_stops_at_the_end() {
        use TimeAction::*;
        let t = Timeline::new(5);
        assert_eq!((t.cursor, t.playing), (0, false));
        let t = t.apply(Toggle);
        assert!(t.playing);
        let t = t.apply(Speed(2)).apply(Tick);
        assert_eq!(t.cursor, 2);
        let t = t.apply(Tick).apply(Tick);
        assert_eq!((t.cursor, t.playing), (4, false), "stops at the end");
        // ▶ at the end replays from the start.
        let t = t.apply(Toggle);
        assert_eq!((t.cursor, t.playing), (0, true));
        // Any manual move pauses.
        for a in [Back, Forward, Seek(3), Reset, End] {
            assert!(!t.apply(a).playing, "{a:?}");
        }
        assert_eq!(t.apply(Seek(99)).cursor, 4);
        assert_eq!(t.apply(Back).cursor, 0);
        assert_eq!(t.apply(End).apply(Forward).cursor, 4);
        assert_eq!(t.apply(Speed(0)).speed, 1);
        // A new run keeps the cursor inside it.
        let t = Timeline::new(10).apply(Seek(8)).apply(Frames(3));
        assert_eq!((t.frames, t.cursor), (3, 2));
        // A timeline of one position never plays.
        assert!(!Timeline::new(1).apply(Toggle).playing);
        assert_eq!(Timeline::new(0).frames, 1);
    }

    #[test]
    fn a_bad_value_gets_its_message_and_changes_nothing_else() {
        let s = ParamState::from_query(EVICTION, "alpha=abc&cache=500");
        assert_eq!(s.good.get("alpha"), "0.9");
        assert_eq!(s.good.get("cache"), "500");
        assert!(s.errors["alpha"].contains("সংখ্যা"));
        let bad = s.apply("cache", "-5".into());
        assert_eq!(bad.good, s.good);
        assert_eq!(bad.drafts["cache"], "-5");
        assert!(bad.errors["cache"].contains("পূর্ণসংখ্যা"));
        // A good value clears the message and becomes the lab's.
        let good = bad.apply("cache", "600".into());
        assert_eq!(good.good.get("cache"), "600");
        assert!(!good.errors.contains_key("cache"));
        // Two changes in a row both count.
        let two = good.apply("alpha", "1.2".into()).apply("seed", "8".into());
        assert_eq!((two.good.get("alpha"), two.good.get("seed")), ("1.2", "8"));
        // A preset's button: the defaults plus its values, the seed kept, no message left.
        let lock = &crate::labs::lock::INFO;
        let s = ParamState::from_query(lock, "seed=9&ttl=5").preset("fencing");
        assert!(s.errors.is_empty());
        assert_eq!((s.good.get("fencing"), s.good.get("seed")), ("on", "9"));
        assert_eq!(s.good.get("ttl"), "1000");
        assert_eq!(s.drafts["fencing"], "on");
        assert_eq!(s.good.preset().map(|p| p.id), Some("fencing"));
        assert_eq!(s.preset("nope"), s);
        let lru = ParamState::from_query(LRU, "").apply("ops", "fly A".into());
        assert_eq!(lru.good, Params::defaults(LRU));
    }
}
