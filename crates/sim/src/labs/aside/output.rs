//! What the cache-aside run gives the view and `labsim aside --json` alike ([`AsideOutput`]):
//! every command with its reply, the database's reads and commits, the cache keys' values over
//! time, the stale windows and the counters; the page's part ([`AsidePage`]: the readers'
//! answers, the pause) rides along for the lanes and the counters up to the cursor. Its
//! timeline walks the commands: position `n` is the run after its first `n` commands.

use super::params::{AsideParams, Setup};
use super::{key, FIRST_PRICE, PRODUCT};
use crate::labs::def::{Figure, Figures};
use crate::labs::log::{CmdLine, CmdSteps, NoReply};
use crate::redis::Reply;
use serde::{Deserialize, Serialize};

/// What the database did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DbKind {
    /// A reader's `SELECT` (its snapshot is the committed row when it starts).
    Read,
    /// A writer's `UPDATE` committed.
    Commit,
}

/// One database event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DbEvent {
    /// Trace index.
    pub step: usize,
    /// When, ms.
    pub at_ms: u64,
    /// Who (an actor index: readers first, then writers).
    pub actor: usize,
    /// What.
    pub kind: DbKind,
    /// Which product.
    pub product: u32,
    /// The price read or committed (`None`: no such row).
    pub price: Option<u32>,
}

/// Where a reader's answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// The row, from Redis (a hit).
    Cache,
    /// "none" from Redis: the product does not exist (a negative hit).
    Negative,
    /// The database (after a miss, or with Redis down).
    Db,
}

/// A reader's answer to one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// Trace index.
    pub step: usize,
    /// Answered at, ms.
    pub at_ms: u64,
    /// Asked at, ms.
    pub started_ms: u64,
    /// Reader (0 = r1).
    pub reader: usize,
    /// Which product.
    pub product: u32,
    /// From where.
    pub source: Source,
    /// The price answered (`None`: not found).
    pub price: Option<u32>,
}

/// An actor frozen by the injected pause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PauseSeg {
    /// Trace index.
    pub step: usize,
    /// Who.
    pub actor: usize,
    /// From, ms.
    pub from_ms: u64,
    /// To, ms.
    pub to_ms: u64,
}

/// What a command is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CmdKind {
    /// A reader's `GET`.
    Get,
    /// A reader's `SET` of the row after a miss.
    Fill,
    /// A reader's `SET … none` after a miss of the missing product.
    Negative,
    /// A writer's `SET` of its row (update in place).
    Update,
    /// A writer's `DEL`.
    Del,
}

/// One command as Redis ran it (or refused it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CmdRow {
    /// Trace index.
    pub step: usize,
    /// When Redis ran it, ms (live: when its reply came).
    pub at_ms: u64,
    /// Who sent it.
    pub actor: usize,
    /// The command's words.
    pub cmd: Vec<String>,
    /// Redis' reply, or why none.
    pub reply: Result<Reply, NoReply>,
    /// What it is for.
    pub kind: CmdKind,
    /// A `GET` of product 99 answered with a price the database no longer had.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// Live runs: the round trip through the proxy, µs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt_us: Option<u32>,
}

impl CmdRow {
    /// The command as redis-cli echoes it.
    pub fn cmd_text(&self) -> String {
        self.line(String::new()).cmd_text()
    }

    /// The row as a line of the command log, its sender named `who`.
    pub fn line(&self, who: String) -> CmdLine {
        CmdLine {
            at_ms: self.at_ms,
            actor: who,
            cmd: self.cmd.clone(),
            reply: self.reply.clone(),
            note: String::new(),
            rtt_us: self.rtt_us,
        }
    }

    /// The key it touches.
    pub fn key(&self) -> &str {
        self.cmd.get(1).map_or("", String::as_str)
    }

    /// A `GET` that found a value (the row or "none").
    pub fn hit(&self) -> bool {
        self.kind == CmdKind::Get && matches!(self.reply, Ok(Reply::Bulk(_)))
    }

    /// A `GET` that found nothing.
    pub fn miss(&self) -> bool {
        self.kind == CmdKind::Get && self.reply == Ok(Reply::Nil)
    }

    /// Refused: Redis is down.
    pub fn refused(&self) -> bool {
        matches!(self.reply, Err(NoReply::Refused))
    }
}

/// How a value of a cache key ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SpanEnd {
    /// Its TTL ran out.
    Expired,
    /// A writer's `DEL` removed it.
    Deleted,
    /// A `SET` replaced it.
    Replaced,
    /// Still there when the run ended.
    Held,
}

/// A cache key holding one value, from when to when.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// Trace index of the `SET`.
    pub step: usize,
    /// Which product's key.
    pub product: u32,
    /// The price it held (`None`: the "none" marker).
    pub price: Option<u32>,
    /// From, ms.
    pub from_ms: u64,
    /// To, ms (the run's end while held).
    pub to_ms: u64,
    /// How it ended.
    pub end: SpanEnd,
}

/// A stretch in which `cache:product:99` held a price the database no longer had.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaleWindow {
    /// Trace index when it began (the later of the `SET` and the commit).
    pub step: usize,
    /// From, ms.
    pub from_ms: u64,
    /// To, ms.
    pub to_ms: u64,
    /// The price in the cache.
    pub cached: u32,
    /// The database's price when it ended.
    pub db: u32,
    /// How it ended (the cached value's end).
    pub end: SpanEnd,
}

/// The lab's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Counters {
    /// Requests answered.
    pub requests: u32,
    /// `GET`s that found the row.
    pub hits: u32,
    /// `GET`s that found "none".
    pub negative_hits: u32,
    /// `GET`s that found nothing.
    pub misses: u32,
    /// Commands refused (Redis down).
    pub refused: u32,
    /// Database reads.
    pub db_reads: u32,
    /// Database writes committed.
    pub db_writes: u32,
    /// Reads served a price the database no longer had.
    pub stale_reads: u32,
    /// The stalest of them: how long the database had had a newer price, ms.
    pub stalest_read_ms: u64,
    /// Stale windows begun.
    pub stale_windows: u32,
    /// Their total length, ms.
    pub stale_ms: u64,
    /// The longest, ms.
    pub longest_stale_ms: u64,
    /// Sum of the answers' latencies, ms (÷ requests: the mean).
    pub answer_ms: u64,
    /// Commands sent.
    pub commands: u32,
}

impl Counters {
    /// Mean answer time, ms.
    pub fn mean_ms(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.answer_ms as f64 / f64::from(self.requests)
        }
    }
}

/// How a run ended, in the terms a live run is compared with its simulation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    /// Stale windows longer than [`LASTING_MS`] (a write's own gap between its commit and
    /// its `DEL` is a round trip: shorter).
    pub lasting: u32,
    /// How the longest of them ended.
    pub longest_end: Option<SpanEnd>,
    /// The database's final price.
    pub final_price: u32,
    /// The cache still held a stale price when the run ended.
    pub stale_at_end: bool,
    /// Every answer came from the database (Redis down).
    pub all_from_db: bool,
}

/// A finished (or prefix) run: what the view draws and `labsim aside --json` prints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AsideOutput {
    /// The parameters.
    pub params: AsideParams,
    /// What ran (live: the shaped times).
    pub setup: Setup,
    /// Counters over the whole run.
    pub counters: Counters,
    /// The mean answer time, ms.
    pub mean_ms: f64,
    /// The stale windows of `cache:product:99`.
    pub windows: Vec<StaleWindow>,
    /// The cache keys' values over time.
    pub spans: Vec<Span>,
    /// Every command with its reply.
    pub commands: Vec<CmdRow>,
    /// The database's reads and commits.
    pub db: Vec<DbEvent>,
    /// When the run ended, ms.
    pub end_ms: u64,
    /// What only the page draws (`labsim aside --json` prints it with `--page`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<AsidePage>,
}

/// What only the lab's page draws: the readers' answers and the pause.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AsidePage {
    /// Every answer.
    pub answers: Vec<Answer>,
    /// The pause.
    pub pauses: Vec<PauseSeg>,
}

impl AsideOutput {
    /// The readers' answers (empty when printed without the page's part).
    pub fn answers(&self) -> &[Answer] {
        self.page.as_ref().map_or(&[], |p| &p.answers)
    }

    /// The pause (empty when printed without the page's part).
    pub fn pauses(&self) -> &[PauseSeg] {
        self.page.as_ref().map_or(&[], |p| &p.pauses)
    }

    /// The output without its page's part: what `labsim aside --json` prints.
    pub fn printed(self) -> Self {
        AsideOutput { page: None, ..self }
    }

    /// The counters at position `n`: equal to the counters of the same run stopped there.
    pub fn so_far(&self, n: usize) -> Counters {
        count(
            self,
            self.cut(n),
            self.time_at(n),
            n.min(self.commands.len()),
        )
    }

    /// The actor's name (`r1`…, `A`…).
    pub fn name(&self, actor: usize) -> String {
        self.setup.name(actor)
    }

    /// The database's price at `t` ms.
    pub fn db_price_at(&self, t: u64) -> u32 {
        db_price_at(&self.db, t)
    }

    /// The first stale window.
    pub fn first_window(&self) -> Option<&StaleWindow> {
        self.windows.first()
    }

    /// How the run ended.
    pub fn outcome(&self) -> Outcome {
        let lasting = || {
            self.windows
                .iter()
                .filter(|w| w.to_ms - w.from_ms > LASTING_MS)
        };
        let longest = lasting().max_by_key(|w| (w.to_ms - w.from_ms, std::cmp::Reverse(w.from_ms)));
        Outcome {
            lasting: lasting().count() as u32,
            longest_end: longest.map(|w| w.end),
            final_price: self.db_price_at(self.end_ms),
            stale_at_end: self.windows.iter().any(|w| w.end == SpanEnd::Held),
            all_from_db: !self.answers().is_empty()
                && self.answers().iter().all(|a| a.source == Source::Db),
        }
    }
}

crate::cmd_steps!(AsideOutput, CmdRow);

impl Figures for AsideOutput {
    fn figures(&self) -> Vec<Figure> {
        let c = &self.counters;
        vec![
            Figure::count("requests", u64::from(c.requests)),
            Figure::count("hits", u64::from(c.hits + c.negative_hits)),
            Figure::count("misses", u64::from(c.misses)),
            Figure::count("db-reads", u64::from(c.db_reads)),
            Figure::count("stale-reads", u64::from(c.stale_reads)),
            Figure::count("longest-stale", c.longest_stale_ms),
            Figure::count("refused", u64::from(c.refused)),
            Figure::new("mean", c.mean_ms()),
        ]
    }
}

/// A stale window longer than this lasts (ms): more than a write's own round trip between its
/// commit and its `DEL`.
pub const LASTING_MS: u64 = 20;

/// The database's committed price of product 99 at `t` ms (a commit at `t` counts).
pub(super) fn db_price_at(db: &[DbEvent], t: u64) -> u32 {
    db.iter()
        .filter(|e| e.kind == DbKind::Commit && e.at_ms <= t)
        .filter_map(|e| e.price)
        .next_back()
        .unwrap_or(FIRST_PRICE)
}

/// The counters over what happened before trace index `cut`, at time `now`, with the first
/// `n` commands.
pub(super) fn count(r: &AsideOutput, cut: usize, now: u64, n: usize) -> Counters {
    let cmds = &r.commands[..n];
    let c = |it: usize| it as u32;
    let answers = || r.answers().iter().filter(|a| a.step < cut);
    let db = || r.db.iter().filter(|e| e.step < cut);
    let windows: Vec<(u64, u64)> = r
        .windows
        .iter()
        .filter(|w| w.step < cut && w.from_ms < now)
        .map(|w| (w.from_ms, w.to_ms.min(now)))
        .collect();
    let stale_reads: Vec<&CmdRow> = cmds.iter().filter(|x| x.stale).collect();
    Counters {
        requests: c(answers().count()),
        hits: c(cmds
            .iter()
            .filter(|x| x.hit() && x.key() == key(PRODUCT))
            .count()),
        negative_hits: c(cmds
            .iter()
            .filter(|x| x.hit() && x.key() != key(PRODUCT))
            .count()),
        misses: c(cmds.iter().filter(|x| x.miss()).count()),
        refused: c(cmds.iter().filter(|x| x.refused()).count()),
        db_reads: c(db().filter(|e| e.kind == DbKind::Read).count()),
        db_writes: c(db().filter(|e| e.kind == DbKind::Commit).count()),
        stale_reads: c(stale_reads.len()),
        stalest_read_ms: stale_reads
            .iter()
            .map(|x| stale_age(r, x.at_ms))
            .max()
            .unwrap_or(0),
        stale_windows: c(windows.len()),
        stale_ms: windows.iter().map(|(a, b)| b - a).sum(),
        longest_stale_ms: windows.iter().map(|(a, b)| b - a).max().unwrap_or(0),
        answer_ms: answers().map(|a| a.at_ms - a.started_ms).sum(),
        commands: c(n),
    }
}

/// How long before `t` the stale window holding `t` began, ms.
pub(super) fn stale_age(r: &AsideOutput, t: u64) -> u64 {
    r.windows
        .iter()
        .find(|w| w.from_ms <= t && t <= w.to_ms)
        .map_or(0, |w| t - w.from_ms)
}
