//! What the round-trips lab's run gives the view and `labsim --json` alike: every way's
//! commands in Redis' order, its round trips and how each client ended. The timeline walks
//! the shown way's commands: position `k` is the run after Redis ran its first `k`.

use super::params::{RoundTripsParams, Way};
use crate::labs::def::{Figure, Figures, Steps};
use crate::labs::log::CmdLine;
use crate::redis::Reply;
use serde::{Deserialize, Serialize};

/// One command as Redis ran it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ran {
    /// When Redis ran it, virtual ms.
    pub at_ms: u64,
    /// The client (0-based); the observer that reads the room at the end is `clients`.
    pub client: u32,
    /// Which of the client's batches (round trips) it came in, 0-based.
    pub batch: u32,
    /// The command's words.
    pub cmd: Vec<String>,
    /// Redis' reply.
    pub reply: Reply,
    /// Another client's command ran between this client's first and last command of the same
    /// update (so the update was not atomic).
    #[serde(default)]
    pub between: bool,
    /// Members this command added to the room's sorted set: a `ZADD` answering 1, an `EXEC`
    /// whose array holds such a `ZADD`'s 1, the script answering 1.
    #[serde(default)]
    pub adds: u8,
}

impl Ran {
    /// As a command-log line (`A`, `B`, … for the clients).
    pub fn line(&self) -> CmdLine {
        CmdLine {
            at_ms: self.at_ms,
            actor: client_name(self.client),
            cmd: self.cmd.clone(),
            reply: Ok(self.reply.clone()),
            note: String::new(),
            rtt_us: None,
        }
    }
}

/// A client's name: `A`, `B`, …; the observer is `পাঠক`.
pub fn client_name(c: u32) -> String {
    if c < 26 {
        char::from(b'A' + c as u8).to_string()
    } else {
        "পাঠক".into()
    }
}

/// One round trip of a client: a batch of commands sent together, and when all replies were
/// back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trip {
    /// The client.
    pub client: u32,
    /// Sent, virtual ms.
    pub sent_ms: u64,
    /// The last reply back, virtual ms.
    pub back_ms: u64,
    /// Commands in it.
    pub cmds: u32,
}

/// What one client's update came to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientEnd {
    /// The client.
    pub client: u32,
    /// Round trips it took.
    pub trips: u32,
    /// From its first send to its last reply, ms.
    pub took_ms: u64,
    /// Its viewer is in the room's sorted set at the end.
    pub in_set: bool,
    /// It stopped at an error reply (the client's code throws).
    pub failed: bool,
    /// EXEC answered nil (WATCH saw a change) this many times.
    pub aborted: u32,
}

/// What one way came to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WayOutcome {
    /// The way.
    pub mode: Way,
    /// Every command in the order Redis ran it.
    pub ran: Vec<Ran>,
    /// Every round trip.
    pub trips: Vec<Trip>,
    /// Each client's end.
    pub clients: Vec<ClientEnd>,
    /// `ZCARD` of the room at the end (`None`: the key is not a sorted set).
    pub room_after: Option<i64>,
    /// `PFCOUNT` of the HyperLogLog at the end.
    pub hll_after: i64,
    /// `TTL` of the room's key at the end (-1 none, -2 gone).
    pub room_ttl: i64,
    /// Members over the limit at the end.
    pub over: i64,
    /// Commands of other clients that ran inside an update (between its first and last).
    pub between: u32,
    /// Error replies (inside `EXEC`'s array and a script's error included).
    pub errors: u32,
    /// Round trips, all clients.
    pub trips_total: u32,
    /// The slowest client's time, ms.
    pub slowest_ms: u64,
}

/// The run: every way on the same seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundTripsOutput {
    /// The parameters.
    pub params: RoundTripsParams,
    /// When each client started, ms.
    pub starts: Vec<u64>,
    /// One per way, in [`Way::ALL`]'s order.
    pub ways: Vec<WayOutcome>,
}

impl RoundTripsOutput {
    /// What way `mode` came to.
    pub fn way(&self, mode: Way) -> &WayOutcome {
        self.ways
            .iter()
            .find(|w| w.mode == mode)
            .expect("every way runs")
    }

    /// The room's size once Redis has run the shown way's first `k` commands (`None`: the
    /// room's key is not a sorted set).
    pub fn room_at(&self, k: usize) -> Option<i64> {
        (!self.params.broken_room()).then(|| {
            let w = self.shown();
            i64::from(self.params.room)
                + w.ran[..k.min(w.ran.len())]
                    .iter()
                    .map(|r| i64::from(r.adds))
                    .sum::<i64>()
        })
    }

    /// The way the picture shows.
    pub fn shown(&self) -> &WayOutcome {
        self.way(self.params.mode)
    }

    /// The position after the shown way's first command that leaves the room over its limit
    /// (`None`: it never is).
    pub fn position_over_limit(&self) -> Option<usize> {
        let limit = i64::from(self.params.limit);
        (1..=self.steps()).find(|&k| self.room_at(k).is_some_and(|n| n > limit))
    }

    /// The position after the shown way's first error reply (`None`: there is none).
    pub fn position_of_error(&self) -> Option<usize> {
        self.shown()
            .ran
            .iter()
            .position(|x| x.reply.is_error())
            .map(|i| i + 1)
    }
}

impl WayOutcome {
    /// `EXEC` answered nil (WATCH saw a change), all clients.
    pub fn aborted(&self) -> u32 {
        self.clients.iter().map(|c| c.aborted).sum()
    }

    /// Commands of another client that ran inside an update, among the first `k`.
    pub fn between_so_far(&self, k: usize) -> u32 {
        self.ran[..k.min(self.ran.len())]
            .iter()
            .filter(|r| r.between)
            .count() as u32
    }
}

impl Steps for RoundTripsOutput {
    /// The shown way's commands, in the order Redis ran them.
    fn steps(&self) -> usize {
        self.shown().ran.len()
    }
}

impl Figures for RoundTripsOutput {
    fn figures(&self) -> Vec<Figure> {
        let w = self.shown();
        vec![
            Figure::count("trips", u64::from(w.trips_total)),
            Figure::count("slowest", w.slowest_ms),
            Figure::count("between", u64::from(w.between_so_far(self.steps()))),
            Figure::count("over", w.over.max(0) as u64),
            Figure::count("aborted", u64::from(w.aborted())),
            Figure::count("errors", u64::from(w.errors)),
            Figure::count("hll", w.hll_after.max(0) as u64),
        ]
    }
}
