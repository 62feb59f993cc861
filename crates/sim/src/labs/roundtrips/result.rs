//! What a run of the round-trips lab shows, typed to the screen.

use super::RoundTripsParams;
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

/// One way's run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WayRun {
    /// The way's id (`one-by-one`, …).
    pub mode: String,
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
pub struct RoundTripsResult {
    /// The parameters.
    pub params: RoundTripsParams,
    /// When each client started, ms.
    pub starts: Vec<u64>,
    /// One per way, in [`super::MODES`]' order.
    pub ways: Vec<WayRun>,
}

impl RoundTripsResult {
    /// The run of way `mode`.
    pub fn way(&self, mode: &str) -> Option<&WayRun> {
        self.ways.iter().find(|w| w.mode == mode)
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
    pub fn shown(&self) -> &WayRun {
        self.way(&self.params.mode).unwrap_or(&self.ways[0])
    }
}
