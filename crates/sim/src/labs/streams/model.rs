//! The lab's actors as one [`Model`] on the engine: producers, the consumer group's
//! consumers, the Pub/Sub subscriber and the sampler — the same on SimRedis and on a real
//! Redis. Each actor has at most one command in flight and goes on when its reply comes;
//! the world runs in instant mode, so a chain of commands (read, save, XACK, read) runs
//! within its millisecond as the lab's story tells it.
//!
//! Actors, and Redis' client ids (actor + 1): producers `p1…`, then consumers `w1…` (in
//! order: Redis serves and times out blocked clients in client order on ties), then the
//! subscriber `sub`, the `setup` (XGROUP CREATE) and the sampler.
//!
//! What only the simulation can see it reads from SimRedis ([`Model::on_ran`]'s look): the
//! stream's length right after each XADD, for the entries a trim removed unread. A live run
//! has no Pub/Sub (nobody can SUBSCRIBE through the proxy), keeps the newest log lines, and
//! closes itself: once settled (or at the deadline) a last XLEN and XPENDING, then nothing.

use self::journal::Journal;
use self::replies::{integer, parse_autoclaim, read_entries, tree, Msg};
use super::output::{Counters, Sample};
use super::params::{StreamsParams, LIVE_DEADLINE_MS};
use super::{CHANNEL, DEAD, GROUP, STREAM};
use crate::labs::log::NoReply;
use crate::labs::params::Switch;
use crate::redis::{num, RawReply, Reply, SimRedis, StreamId};
use crate::rng::Mulberry32;
use crate::world::{cmd, ActorId, Command, Io, Model, OpId, Outcome, Ran};

pub(super) mod consumers;
pub mod journal;
pub(super) mod replies;
pub mod scenario;

/// The model's timers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// Message `i` is produced.
    Produce(u64),
    /// Consumer `k` goes on (reads, or its save or retry is done).
    Consumer(usize),
    /// The subscriber leaves or comes back.
    Subscriber,
    /// The sampler asks Redis for XLEN and XPENDING.
    Sample,
}

/// A message's fate, as the lab follows it.
const NEW: u8 = 0;
const DELIVERED: u8 = 1;
const SAVED: u8 = 2;
const DEAD_LETTERED: u8 = 3;

/// The producers' names.
const PRODUCERS: [&str; 16] = [
    "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11", "p12", "p13", "p14", "p15",
    "p16",
];

const SUBSCRIBER: &str = "sub";
const SETUP: &str = "setup";

/// Why a dead-lettered message never saves.
const POISON: &str = "poison: অর্ডারের টাকা ঋণাত্মক, সেভ হবে না";

#[derive(Clone, Debug)]
enum State {
    /// Ready to read (its timer is due).
    Idle,
    /// XAUTOCLAIM on its way.
    Claiming,
    /// XREADGROUP on its way: blocked in Redis until entries come or the block times out.
    Reading,
    /// Saving a batch; done when its timer fires.
    Saving(Vec<Msg>),
    /// XACK of a saved batch on its way.
    Acking,
    /// Saving one message at a time: the batch and the next one (its timer).
    Retrying(Vec<Msg>, usize),
    /// That message's dead-letter XADD on its way.
    DeadLettering(Vec<Msg>, usize),
    /// That message's XACK on its way.
    AckingOne(Vec<Msg>, usize),
    /// Gone.
    Crashed,
}

struct Consumer {
    state: State,
    next_claim: u64,
    cursor: StreamId,
    name: String,
    /// Its `XREADGROUP GROUP savers w<k> COUNT … BLOCK … STREAMS orders >` (see [`Buf`]).
    read: Command,
}

/// What an actor's command in flight is logged as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Rule {
    /// Never (the sampler's).
    #[default]
    Quiet,
    /// By the journal's rule (the first commands, the noted ones).
    Usual,
    /// XAUTOCLAIM: when it took something over.
    Claim,
}

/// The commands sent most (millions of times in a long run) go out in buffers that come
/// back with their replies: only the words that change are written again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Buf {
    /// A command of its own.
    #[default]
    Own,
    /// `XADD orders [MAXLEN ~ m] * n <i>`.
    Add,
    /// `PUBLISH orders.live <i>`.
    Publish,
    /// `XACK orders savers <id> …`.
    Ack,
    /// Consumer `k`'s `XREADGROUP`.
    Read(usize),
}

/// An actor's command in flight.
#[derive(Clone, Copy, Debug, Default)]
struct Flight {
    /// Its number among the commands sent.
    no: u64,
    note: &'static str,
    rule: Rule,
    /// Logged when it ran (a simulation); live, when its reply comes.
    logged: bool,
    buf: Buf,
}

/// A message on its way: XADD, then (simulated) PUBLISH.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Add,
    Publish,
}

/// The sampler's round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sampling {
    Len,
    Pending(u64),
}

/// The producers, consumers, subscriber and sampler (see the module doc).
pub struct Streams {
    pub(super) p: StreamsParams,
    /// Against a real Redis.
    pub(super) live: bool,
    rng: Mulberry32,
    consumers: Vec<Consumer>,
    /// Per message: [`NEW`], [`DELIVERED`], [`SAVED`] or [`DEAD_LETTERED`].
    state: Vec<u8>,
    /// Messages below this one have been trimmed off the stream.
    trim_front: u64,
    away: bool,
    /// The commands sent most, between two trips (see [`Buf`]); the message number is the
    /// last word of `xadd` and `publish`.
    xadd: Command,
    publish: Command,
    xack: Command,
    /// Words an `XACK` did not need, for the next one.
    spare: Vec<Vec<u8>>,
    count: Vec<u8>,
    idle: Vec<u8>,
    /// The counters (`stuck` is counted when the run ends).
    pub(super) c: Counters,
    /// The group's pending entries as the consumers count them: read, less acknowledged,
    /// less dropped by XAUTOCLAIM.
    pub(super) pending: u64,
    pub(super) samples: Vec<Sample>,
    sample_every: u64,
    pub(super) log: Journal,
    pub(super) crash_ms: Option<u64>,
    /// Timers scheduled and not yet fired, the sampler's left out.
    pub(super) timers: u64,
    producing: Option<(u64, Stage)>,
    /// The message number the last word of `xadd` holds.
    n_of: Option<u64>,
    flights: Vec<Flight>,
    sampling: Option<Sampling>,
    /// Replies that came (a live line's round trip is `rtts[its number]`).
    replies: usize,
    /// Live: the last sample was asked for; the one after it is the end.
    closing: bool,
    last_round: bool,
    last_wanted: bool,
    /// Live: settled when it closed.
    pub(super) settled_at_close: bool,
    /// Live: the last sample came at this time; nothing more happens.
    pub(super) over_ms: Option<u64>,
}

impl Streams {
    /// The actors of `p`; `live`: against a real Redis.
    pub fn new(p: &StreamsParams, live: bool) -> Self {
        let span = p.messages.saturating_mul(1000) / p.rate.max(1);
        let mut sample_every = (span / 300).max(100);
        if live {
            // Two round trips a sample: no more than four a second.
            sample_every = sample_every.max(250);
        }
        let cast = p.producers as usize + p.workers as usize + 3;
        Streams {
            p: p.clone(),
            live,
            rng: Mulberry32::new(p.seed ^ 0x5eed_57e4),
            consumers: (0..p.workers)
                .map(|k| {
                    let name = format!("w{}", k + 1);
                    let (count, block) = (p.count.to_string(), p.block.to_string());
                    Consumer {
                        state: State::Idle,
                        next_claim: p.claim_every,
                        cursor: StreamId::MIN,
                        read: cmd(&[
                            "XREADGROUP",
                            "GROUP",
                            GROUP,
                            &name,
                            "COUNT",
                            &count,
                            "BLOCK",
                            &block,
                            "STREAMS",
                            STREAM,
                            ">",
                        ]),
                        name,
                    }
                })
                .collect(),
            state: vec![NEW; p.messages as usize],
            trim_front: 0,
            away: false,
            xadd: Vec::new(),
            publish: Vec::new(),
            xack: Vec::new(),
            spare: Vec::new(),
            count: p.count.to_string().into_bytes(),
            idle: p.claim_idle.to_string().into_bytes(),
            c: Counters::default(),
            pending: 0,
            samples: Vec::new(),
            sample_every,
            log: Journal::new(live),
            crash_ms: None,
            timers: 0,
            producing: None,
            n_of: None,
            flights: vec![Flight::default(); cast],
            sampling: None,
            replies: 0,
            closing: false,
            last_round: false,
            last_wanted: false,
            settled_at_close: false,
            over_ms: None,
        }
    }

    // --- who is who -----------------------------------------------------------------------

    fn producers(&self) -> usize {
        self.p.producers as usize
    }

    fn consumer_actor(&self, k: usize) -> ActorId {
        self.producers() + k
    }

    fn subscriber(&self) -> ActorId {
        self.producers() + self.consumers.len()
    }

    fn setup_actor(&self) -> ActorId {
        self.subscriber() + 1
    }

    fn sampler(&self) -> ActorId {
        self.subscriber() + 2
    }

    fn name(&self, actor: ActorId) -> &str {
        let p = self.producers();
        if actor < p {
            PRODUCERS[actor]
        } else if actor < self.subscriber() {
            &self.consumers[actor - p].name
        } else if actor == self.subscriber() {
            SUBSCRIBER
        } else if actor == self.setup_actor() {
            SETUP
        } else {
            ""
        }
    }

    /// Pub/Sub runs beside the stream (only simulated: nobody can SUBSCRIBE through the
    /// proxy).
    fn pubsub(&self) -> bool {
        !self.live
    }

    // --- the run's state ------------------------------------------------------------------

    /// Entries in crashed consumers' pending lists when nobody will claim them.
    pub(super) fn stuck(&self) -> u64 {
        let claimer = self.p.autoclaim == Switch::On
            && self
                .consumers
                .iter()
                .any(|w| !matches!(w.state, State::Crashed));
        if claimer {
            0
        } else {
            self.pending
        }
    }

    /// Every message saved, dead-lettered or lost, every acknowledgement in, and the
    /// consumers waiting (or gone).
    pub(super) fn settled(&self) -> bool {
        let c = &self.c;
        c.produced == self.p.messages
            && c.saved + c.dead + c.lost_trim >= self.p.messages
            && self.pending == self.stuck()
            && self.producing.is_none()
            && self
                .consumers
                .iter()
                .all(|w| matches!(w.state, State::Idle | State::Reading | State::Crashed))
    }

    /// How far along, 0..1 (an estimate).
    pub(super) fn progress(&self) -> f64 {
        let total = self.p.messages.max(1) as f64;
        (self.c.produced as f64 + self.c.saved as f64 + self.c.dead as f64) / (2.0 * total)
    }

    fn over(&self) -> bool {
        self.over_ms.is_some()
    }

    // --- sending and logging --------------------------------------------------------------

    fn at(&mut self, io: &mut Io<Timer>, t: u64, timer: Timer) {
        if timer != Timer::Sample {
            self.timers += 1;
        }
        io.at(t, timer);
    }

    /// `actor` sends `words`; counted (but the sampler's), logged by `rule`.
    fn send<A: AsRef<[u8]>>(
        &mut self,
        io: &mut Io<Timer>,
        actor: ActorId,
        words: &[A],
        note: &'static str,
        rule: Rule,
    ) {
        self.count_send(actor, note, rule);
        io.send_words(actor, words);
    }

    /// The command `actor` sends next: counted (but the sampler's), logged by `rule`.
    fn count_send(&mut self, actor: ActorId, note: &'static str, rule: Rule) {
        if rule != Rule::Quiet {
            self.c.commands += 1;
        }
        self.flights[actor] = Flight {
            no: self.c.commands,
            note,
            rule,
            logged: false,
            buf: Buf::Own,
        };
    }

    /// `actor` sends `cmd`, one of the reused buffers (`buf`), counted and logged as usual.
    fn send_buf(
        &mut self,
        io: &mut Io<Timer>,
        actor: ActorId,
        cmd: Command,
        buf: Buf,
        note: &'static str,
    ) {
        self.count_send(actor, note, Rule::Usual);
        self.flights[actor].buf = buf;
        io.send(actor, cmd);
    }

    /// The reply to `actor`'s command `op` came: its buffer back where it lives.
    fn buf_back(&mut self, io: &mut Io<Timer>, op: OpId, actor: ActorId) {
        let slot = match self.flights[actor].buf {
            Buf::Own => return,
            Buf::Add => &mut self.xadd,
            Buf::Publish => &mut self.publish,
            Buf::Ack => &mut self.xack,
            Buf::Read(k) => &mut self.consumers[k].read,
        };
        *slot = io.take_cmd(op);
    }

    fn note(&mut self, io: &Io<Timer>, actor: ActorId, what: &str, alarm: bool) {
        if self.log.fits() {
            let line = journal::note(io.now(), self.name(actor), what);
            self.log.push(line, alarm, None);
        }
    }

    /// Logs `actor`'s command `op` with its reply (or that it blocked), by its rule.
    fn log_command(
        &mut self,
        io: &Io<Timer>,
        op: OpId,
        actor: ActorId,
        reply: Result<&RawReply, NoReply>,
        reply_no: Option<usize>,
    ) {
        let f = self.flights[actor];
        let (note, alarm) = match f.rule {
            Rule::Quiet => return,
            Rule::Usual => {
                if !self.log.wants(f.no, !f.note.is_empty()) {
                    return;
                }
                (f.note.to_string(), f.note == UNHEARD)
            }
            Rule::Claim => {
                let Ok(r) = reply else { return };
                let (_, taken, deleted) = parse_autoclaim(&tree(r));
                if (taken.is_empty() && deleted.is_empty()) || !self.log.fits() {
                    return;
                }
                (claim_note(taken.len(), deleted.len()), !deleted.is_empty())
            }
        };
        let reply = reply.map(|r| tree(r));
        let line = journal::line(
            io.now(),
            self.name(actor),
            io.cmd(op),
            reply.as_ref().map(|r| r.as_ref()).map_err(|e| *e),
            &note,
        );
        self.log.push(line, alarm, reply_no);
    }

    // --- the start ------------------------------------------------------------------------

    /// The group first (`$`: nothing goes out before it exists, or an XADD Redis ran first
    /// would never reach the group).
    pub(super) fn start(&mut self, io: &mut Io<Timer>) {
        let setup = self.setup_actor();
        let args = ["XGROUP", "CREATE", STREAM, GROUP, "$", "MKSTREAM"];
        self.send(io, setup, &args, "", Rule::Usual);
    }

    /// The group exists: the subscriber, then every actor's first timer.
    fn begin(&mut self, io: &mut Io<Timer>) {
        let t = io.now();
        if self.pubsub() {
            let sub = self.subscriber();
            self.send(io, sub, &["SUBSCRIBE", CHANNEL], "", Rule::Usual);
        }
        self.at(io, t, Timer::Sample);
        for k in 0..self.consumers.len() {
            self.at(io, t, Timer::Consumer(k));
        }
        if self.p.messages > 0 {
            self.at(io, t, Timer::Produce(0));
        }
        if self.p.away_ms > 0 && self.pubsub() {
            let at = self.p.away_at;
            self.at(io, at, Timer::Subscriber);
        }
    }

    // --- producers ------------------------------------------------------------------------

    /// `XADD orders [MAXLEN ~ m] * n <i>` from producer `i % producers`.
    fn produce(&mut self, io: &mut Io<Timer>, i: u64) {
        let actor = (i % self.p.producers.max(1) as u64) as ActorId;
        let mut xadd = std::mem::take(&mut self.xadd);
        if xadd.is_empty() {
            xadd = if self.p.maxlen > 0 {
                let m = self.p.maxlen.to_string();
                cmd(&["XADD", STREAM, "MAXLEN", "~", &m, "*", "n", ""])
            } else {
                cmd(&["XADD", STREAM, "*", "n", ""])
            };
            self.n_of = None;
        }
        if let Some(n) = xadd.last_mut() {
            set_decimal(n, &mut self.n_of, i);
        }
        self.send_buf(io, actor, xadd, Buf::Add, "");
        self.c.produced += 1;
        self.producing = Some((i, Stage::Add));
    }

    /// Simulated: the stream holds exactly the last XLEN messages; the rest were trimmed,
    /// and those nobody had read are lost.
    fn count_trimmed(&mut self, io: &Io<Timer>, actor: ActorId, redis: &SimRedis) {
        let len = redis.stream_len(STREAM.as_bytes());
        let front = self.c.produced - len;
        while self.trim_front < front {
            if self.state[self.trim_front as usize] == NEW {
                self.c.lost_trim += 1;
                if self.c.lost_trim == 1 {
                    let m = format!(
                        "ছাঁটাই: #{} কেউ পড়ার আগেই মুছে গেল (MAXLEN ~ {})",
                        self.trim_front, self.p.maxlen
                    );
                    self.note(io, actor, &m, true);
                }
            }
            self.trim_front += 1;
        }
    }

    fn produced(&mut self, io: &mut Io<Timer>, actor: ActorId, reply: &RawReply) {
        let Some((i, stage)) = self.producing else {
            return;
        };
        if stage == Stage::Add && self.pubsub() {
            // The same message on the channel: whoever listens now gets it, nobody else.
            let note = if self.away && self.c.pubsub_lost == 0 {
                UNHEARD
            } else {
                ""
            };
            let mut publish = std::mem::take(&mut self.publish);
            if publish.is_empty() {
                publish = cmd(&["PUBLISH", CHANNEL, ""]);
            }
            if let (Some(to), Some(from)) = (publish.last_mut(), self.xadd.last()) {
                to.clear();
                to.extend_from_slice(from);
            }
            self.send_buf(io, actor, publish, Buf::Publish, note);
            self.producing = Some((i, Stage::Publish));
            return;
        }
        if stage == Stage::Publish {
            if integer(reply) == Some(0) {
                self.c.pubsub_lost += 1;
            } else {
                self.c.pubsub_delivered += 1;
                // The subscriber reads what it got; the lab only counts it.
                let sub = self.subscriber();
                io.discard_pushes(sub);
            }
        }
        self.producing = None;
        if i + 1 < self.p.messages {
            let t = (i + 1) * 1000 / self.p.rate.max(1);
            self.at(io, t, Timer::Produce(i + 1));
        }
    }

    // --- the subscriber -------------------------------------------------------------------

    fn subscriber_turn(&mut self, io: &mut Io<Timer>) {
        let sub = self.subscriber();
        if self.away {
            self.away = false;
            self.send(io, sub, &["SUBSCRIBE", CHANNEL], "ফিরে এল", Rule::Usual);
        } else {
            self.away = true;
            io.disconnect(sub);
            self.note(io, sub, "subscriber চলে গেল (সংযোগ নেই)", false);
            let t = io.now() + self.p.away_ms;
            self.at(io, t, Timer::Subscriber);
        }
    }

    // --- the sampler ----------------------------------------------------------------------

    fn sample_turn(&mut self, io: &mut Io<Timer>) {
        if self.closing {
            return;
        }
        if self.sampling.is_none() {
            self.ask_len(io);
        }
        let t = io.now() + self.sample_every;
        self.at(io, t, Timer::Sample);
    }

    fn ask_len(&mut self, io: &mut Io<Timer>) {
        let s = self.sampler();
        self.send(io, s, &["XLEN", STREAM], "", Rule::Quiet);
        self.sampling = Some(Sampling::Len);
    }

    fn sampled(&mut self, io: &mut Io<Timer>, reply: &RawReply) {
        let value = |r: Option<&Reply>| r.and_then(Reply::as_int).map_or(0, |n| n.max(0) as u64);
        match self.sampling {
            Some(Sampling::Len) => {
                let xlen = value(reply.as_tree());
                let s = self.sampler();
                self.send(io, s, &["XPENDING", STREAM, GROUP], "", Rule::Quiet);
                self.sampling = Some(Sampling::Pending(xlen));
            }
            Some(Sampling::Pending(xlen)) => {
                self.sampling = None;
                let pending = match reply.as_tree() {
                    Some(Reply::Array(a)) => value(a.first()),
                    _ => 0,
                };
                let mut counters = self.c;
                if self.last_round {
                    counters.stuck = self.stuck();
                    self.c.stuck = counters.stuck;
                    self.over_ms = Some(io.now());
                }
                self.samples.push(Sample {
                    t: io.now(),
                    xlen,
                    pending,
                    counters,
                });
                if self.last_wanted && !self.last_round {
                    self.last_round = true;
                    self.ask_len(io);
                }
            }
            None => {}
        }
    }

    /// Live: once settled (or at the deadline) the last sample is asked for.
    #[inline]
    fn maybe_close(&mut self, io: &mut Io<Timer>) {
        if self.live && !self.closing {
            self.close_if_done(io);
        }
    }

    fn close_if_done(&mut self, io: &mut Io<Timer>) {
        if !(self.settled() || io.now() >= LIVE_DEADLINE_MS) {
            return;
        }
        self.closing = true;
        self.settled_at_close = self.settled();
        self.last_wanted = true;
        if self.sampling.is_none() {
            self.last_round = true;
            self.ask_len(io);
        }
    }
}

/// `n` in decimal in `text`, which holds `*of`: the next number is an increment in place
/// (the producers count 0, 1, 2, …).
pub(super) fn set_decimal(text: &mut Vec<u8>, of: &mut Option<u64>, n: u64) {
    if *of == Some(n.wrapping_sub(1)) && n > 0 {
        let mut i = text.len();
        loop {
            if i == 0 {
                text.insert(0, b'1');
                break;
            }
            i -= 1;
            if text[i] == b'9' {
                text[i] = b'0';
            } else {
                text[i] += 1;
                break;
            }
        }
    } else {
        text.clear();
        text.extend_from_slice(num::decimal(n, &mut [0u8; 20]));
    }
    *of = Some(n);
}

/// The note on a PUBLISH nobody heard.
const UNHEARD: &str = "কেউ শুনছে না";

fn claim_note(taken: usize, deleted: usize) -> String {
    format!(
        "দখল: {taken}টা (আগে অন্য worker পেয়েছিল){}",
        if deleted == 0 {
            String::new()
        } else {
            format!(", {deleted}টা ছাঁটাই হয়ে গেছে")
        }
    )
}

impl Model for Streams {
    type Timer = Timer;

    fn on_timer(&mut self, timer: Timer, io: &mut Io<Timer>) {
        if timer != Timer::Sample {
            self.timers -= 1;
        }
        if self.over() {
            return;
        }
        match timer {
            Timer::Produce(i) => self.produce(io, i),
            Timer::Consumer(k) => self.consumer_turn(io, k),
            Timer::Subscriber => self.subscriber_turn(io),
            Timer::Sample => self.sample_turn(io),
        }
        self.maybe_close(io);
    }

    fn on_reply(&mut self, op: OpId, actor: ActorId, outcome: Outcome, io: &mut Io<Timer>) {
        // No timeouts and no link down here; should one come, it reads as an error reply.
        let reply = match outcome {
            Outcome::Reply(r) => r,
            Outcome::Refused => Reply::err("ECONNREFUSED"),
            Outcome::TimedOut => Reply::err("timeout"),
        };
        self.on_raw_reply(op, actor, RawReply::Tree(reply), io);
    }

    fn on_raw_reply(&mut self, op: OpId, actor: ActorId, reply: RawReply, io: &mut Io<Timer>) {
        let no = self.replies;
        self.replies += 1;
        if self.over() {
            return;
        }
        if !self.flights[actor].logged {
            self.flights[actor].logged = true;
            self.log_command(io, op, actor, Ok(&reply), Some(no));
        }
        self.buf_back(io, op, actor);
        let p = self.producers();
        if actor < p {
            self.produced(io, actor, &reply);
        } else if actor < self.subscriber() {
            self.consumer_reply(io, actor - p, &reply);
        } else if actor == self.setup_actor() {
            self.begin(io);
        } else if actor == self.sampler() {
            self.sampled(io, &reply);
        }
        self.maybe_close(io);
    }

    /// A simulation logs a command the moment Redis runs it (a blocked read as blocked),
    /// and counts what the trim removed right after each XADD.
    fn on_ran(
        &mut self,
        op: OpId,
        actor: ActorId,
        ran: Ran<'_>,
        sim: Option<&SimRedis>,
        io: &mut Io<Timer>,
    ) {
        let reply = match ran {
            Ran::Queued => return,
            Ran::Replied(r) => Ok(r),
            Ran::Blocked => Err(NoReply::Blocked),
        };
        self.flights[actor].logged = true;
        let f = self.flights[actor];
        let log = match f.rule {
            Rule::Quiet => false,
            Rule::Usual => self.log.wants(f.no, !f.note.is_empty()),
            Rule::Claim => true,
        };
        if log {
            self.log_command(io, op, actor, reply, None);
        }
        if f.buf == Buf::Add {
            if let Some(redis) = sim {
                self.count_trimmed(io, actor, redis);
            }
        }
    }

    fn actor_name(&self, actor: ActorId) -> String {
        match self.name(actor) {
            "" => "sampler".into(),
            n => n.into(),
        }
    }
}
