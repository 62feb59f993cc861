//! What the app's simulation worker does, and the messages it exchanges with the labs.
//!
//! A lab sends [`ToWorker::Start`] with a run id and a typed [`Job`]; the worker answers with
//! [`FromWorker`] messages carrying the same id: progress, partial results as they arrive
//! (table rows, curve points, sampling points, finished cases) and the final [`Output`]. A
//! changed parameter makes the lab send [`ToWorker::Cancel`] for the old id and start a new
//! run; the lab ignores every message whose id is not its current run's.
//!
//! Messages travel as JSON strings (serde_json) over `postMessage`, the worker's as one array
//! of [`FromWorker`] per slice of work. [`Work`] is the driver:
//! the worker calls [`Work::slice`] for a few milliseconds at a time and posts what it
//! returns, so a cancel or a new request is read between slices. Nothing here knows about
//! the web; the whole protocol runs natively in the tests.

use super::eviction::{
    CurvePoint, CurveRun, CurveSeries, LruWalk, Race, RaceRun, SamplingRun, TableRow, TableRun,
};
use super::jitter::{seed_cases, JitterChart, JitterSet, JitterWave};
use super::params::{EvictionParams, JitterParams, LruParams, SamplingParams, StampedeParams};
use super::stampede::{Counters, Mode, StampedeConfig, StampedeSet, StampedeSummary};
use crate::eviction::sampling::SamplingPoint;
use serde::{Deserialize, Serialize};

/// A piece of work a lab asks for.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Job {
    /// The LRU step-through.
    Lru(LruParams),
    /// The seed's eviction table (rows as they finish).
    EvictionTable(EvictionParams),
    /// The race on the shown trace, in timeline frames.
    EvictionRace(EvictionParams),
    /// Hit ratio against cache size (points as they finish).
    EvictionCurve(EvictionParams),
    /// The sampled-LRU experiment (a point per k).
    Sampling(SamplingParams),
    /// The chosen jitter case, binned for its chart.
    JitterChart(JitterParams),
    /// The seed's eight jitter cases with the chosen keys, TTL and seed (rows as they finish).
    JitterTable(JitterParams),
    /// The four stampede designs (a design as it finishes).
    Stampede(StampedeParams),
    /// The cache engine: every layer off beside the chosen layers, on the same seed.
    Cache(Box<super::params::CacheParams>),
    /// The lock race (the whole trace at the end).
    Lock(super::lock::LockParams),
    /// The lock race live, against a real Redis through the proxy at `url` (driven by the
    /// worker in real time, not by [`Work`]): [`Part::LiveStatus`] and [`Part::LiveLock`]
    /// as it goes, [`Output::Lock`] at the end.
    LockLive {
        /// The parameters (already slowed by the time scale).
        params: super::lock::LockParams,
        /// The proxy's WebSocket (`ws://…/ws`).
        url: String,
    },
    /// The cache engine live: the chosen layers' instances against a real Redis through the
    /// proxy at `url`, beside the simulation of the same config ([`Part::LiveCache`] as it
    /// goes, [`Output::Cache`] at the end: `off` is the prediction, `on` the real run).
    CacheLive {
        /// The config (already shaped by [`super::cache::CacheConfig::for_live`]).
        config: super::cache::CacheConfig,
        /// The proxy's WebSocket.
        url: String,
    },
    /// The streams lab (samples, counters and the command log at the end).
    Streams(super::streams::StreamsParams),
    /// The streams lab live: producers and the group's workers against a real Redis through
    /// the proxy at `url` ([`Part::LiveStreams`] as it goes, [`Output::Streams`] at the end).
    StreamsLive {
        /// The parameters (already shaped by [`super::streams::StreamsParams::for_live`]).
        params: super::streams::StreamsParams,
        /// The proxy's WebSocket.
        url: String,
    },
    /// The broadcast (seed 004): the naive loop or the queue.
    Broadcast(Box<super::broadcast::BroadcastParams>),
    /// The queue live: the API and the worker's slots against a real Redis through the proxy
    /// at `url` ([`Part::LiveBroadcast`] as it goes, [`Output::Broadcast`] at the end).
    BroadcastLive {
        /// The parameters (already shaped by
        /// [`super::broadcast::BroadcastParams::for_live`]).
        params: Box<super::broadcast::BroadcastParams>,
        /// The proxy's WebSocket.
        url: String,
    },
}

/// A message to the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ToWorker {
    /// Start run `run` of `job`.
    Start {
        /// Run id, unique on the page.
        run: u32,
        /// What to compute.
        job: Job,
    },
    /// Stop run `run` (its parameters changed or its lab closed).
    Cancel {
        /// Run id.
        run: u32,
    },
}

/// A partial result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Part {
    /// A finished row of the eviction table.
    TableRow(TableRow),
    /// A new point of a curve.
    CurvePoint(CurvePoint),
    /// A measured k.
    SamplingPoint(SamplingPoint),
    /// A finished jitter case (without its histogram).
    JitterRow(JitterWave),
    /// A finished stampede design's counters (the seed's row; the chart series come with the
    /// result).
    StampedeRow(Mode, Counters),
    /// A live run's connection.
    LiveStatus(crate::live::LiveStatus),
    /// A live lock race so far (each replaces the one before).
    LiveLock(Box<super::lock::LockResult>),
    /// A live cache run so far beside its prediction (`off`: simulated, `on`: real).
    LiveCache(Box<super::cache::CacheView>),
    /// A live streams run so far (samples of the real XLEN and XPENDING).
    LiveStreams(Box<super::streams::StreamsResult>),
    /// A live queue run so far (its log rows carry the real round trips).
    LiveBroadcast(Box<super::broadcast::BroadcastResult>),
}

impl Part {
    /// A live run's result as the snapshot it finishes (`None`: not a live lab's output).
    pub fn from_output(o: Output) -> Option<Part> {
        match o {
            Output::Lock(r) => Some(Part::LiveLock(r)),
            Output::Cache(v) => Some(Part::LiveCache(v)),
            Output::Streams(r) => Some(Part::LiveStreams(r)),
            Output::Broadcast(r) => Some(Part::LiveBroadcast(r)),
            _ => None,
        }
    }
}

/// A run against a real Redis, in real time. Nothing here knows about sockets or clocks:
/// the driver (the simulation worker in the browser, a test natively) calls
/// [`LiveDriver::advance`] with the milliseconds since the start, sends the commands it
/// returns, each with its tag, and hands each reply back with [`LiveDriver::arrived`].
pub trait LiveDriver {
    /// Runs everything due by `now_ms`; the commands to send now: (tag, command).
    fn advance(&mut self, now_ms: u64) -> Vec<(usize, crate::world::Command)>;
    /// The reply to the command with `tag` arrived at `now_ms`, `rtt_us` after it was sent.
    fn arrived(&mut self, tag: usize, reply: crate::Reply, now_ms: u64, rtt_us: u32);
    /// When something is next due (`None`: waiting for replies only, or done).
    fn next_at(&self) -> Option<u64>;
    /// Over: nothing more to send, no reply outstanding.
    fn is_done(&self) -> bool;
    /// What the run shows so far.
    fn snapshot(&self) -> Part;
    /// The result at the end.
    fn output(&self) -> Output;
    /// Least time between two snapshots, ms.
    fn snapshot_ms(&self) -> f64;
}

/// [`LiveDriver`] for a live run type whose own methods have the trait's names: `$snap`
/// and `$out` make its snapshot and output from it, every `$ms` milliseconds at most.
macro_rules! live_driver {
    ($t:ty, $snap:expr, $out:expr, $ms:expr) => {
        impl LiveDriver for $t {
            fn advance(&mut self, now_ms: u64) -> Vec<(usize, crate::world::Command)> {
                <$t>::advance(self, now_ms)
            }
            fn arrived(&mut self, tag: usize, reply: crate::Reply, now_ms: u64, rtt_us: u32) {
                <$t>::arrived(self, tag, reply, now_ms, rtt_us);
            }
            fn next_at(&self) -> Option<u64> {
                <$t>::next_at(self)
            }
            fn is_done(&self) -> bool {
                <$t>::is_done(self)
            }
            fn snapshot(&self) -> Part {
                $snap(self)
            }
            fn output(&self) -> Output {
                $out(self)
            }
            fn snapshot_ms(&self) -> f64 {
                $ms
            }
        }
    };
}

live_driver!(
    super::lock::LockLive,
    |r: &super::lock::LockLive| Part::LiveLock(Box::new(r.result())),
    |r: &super::lock::LockLive| Output::Lock(Box::new(r.result())),
    100.0
);
live_driver!(
    super::cache::CacheLive,
    |r: &super::cache::CacheLive| Part::LiveCache(Box::new(r.view())),
    |r: &super::cache::CacheLive| Output::Cache(Box::new(r.view())),
    250.0
);
live_driver!(
    super::streams::StreamsLive,
    |r: &super::streams::StreamsLive| Part::LiveStreams(Box::new(r.result())),
    |r: &super::streams::StreamsLive| Output::Streams(Box::new(r.result())),
    250.0
);
live_driver!(
    super::broadcast::BroadcastLive,
    |r: &super::broadcast::BroadcastLive| Part::LiveBroadcast(Box::new(r.result())),
    |r: &super::broadcast::BroadcastLive| Output::Broadcast(Box::new(r.result())),
    250.0
);

impl Job {
    /// A run against a real Redis (driven by [`Job::into_live`], not by [`Work`]).
    pub fn is_live(&self) -> bool {
        matches!(
            self,
            Job::LockLive { .. }
                | Job::CacheLive { .. }
                | Job::StreamsLive { .. }
                | Job::BroadcastLive { .. }
        )
    }

    /// A live job's driver and the proxy's address (`None`: not a live job).
    pub fn into_live(self) -> Option<(Box<dyn LiveDriver>, String)> {
        match self {
            Job::LockLive { params, url } => {
                Some((Box::new(super::lock::LockLive::new(&params)), url))
            }
            Job::CacheLive { config, url } => {
                Some((Box::new(super::cache::CacheLive::new(&config)), url))
            }
            Job::StreamsLive { params, url } => {
                Some((Box::new(super::streams::StreamsLive::new(&params)), url))
            }
            Job::BroadcastLive { params, url } => {
                Some((Box::new(super::broadcast::BroadcastLive::new(&params)), url))
            }
            _ => None,
        }
    }
}

/// A finished result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Output {
    /// The step-through.
    Lru(LruWalk),
    /// The table as the seed prints it.
    EvictionTable {
        /// The seed's text layout.
        text: String,
    },
    /// The race.
    EvictionRace(Race),
    /// The curves.
    EvictionCurve(Vec<CurveSeries>),
    /// Every k.
    Sampling(Vec<SamplingPoint>),
    /// The chosen case's chart.
    JitterChart(JitterChart),
    /// The eight cases (without histograms).
    JitterTable(Vec<JitterWave>),
    /// The four designs, with the config they ran with (bucket width included).
    Stampede {
        /// What ran.
        config: StampedeConfig,
        /// One summary per design.
        runs: Vec<StampedeSummary>,
    },
    /// The cache engine's pair, drawn-size.
    Cache(Box<super::cache::CacheView>),
    /// The lock race.
    Lock(Box<super::lock::LockResult>),
    /// The streams lab.
    Streams(Box<super::streams::StreamsResult>),
    /// The broadcast.
    Broadcast(Box<super::broadcast::BroadcastResult>),
}

/// What one message from the worker says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Body {
    /// How far along, 0.0..=1.0.
    Progress(f64),
    /// A partial result.
    Part(Part),
    /// The result; no more messages for this run.
    Done(Output),
    /// The run could not be made (never expected: the parameters are checked).
    Failed(String),
    /// The worker is listening (sent once, with run 0, when it has started): messages
    /// posted before it would be lost, so the app holds them until then.
    Ready,
}

/// A message from the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FromWorker {
    /// The run it belongs to.
    pub run: u32,
    /// What it says.
    pub body: Body,
}

/// Generator draws per jitter unit of work.
const DRAWS: u32 = 65_536;
/// Arrivals per stampede unit of work.
const EVENTS: usize = 32_768;
/// Cache-engine events per unit of work.
const CACHE_EVENTS: usize = 16_384;
/// World events per lock-race unit of work.
const LOCK_EVENTS: usize = 4_096;
/// Streams-lab events per unit of work.
const STREAM_EVENTS: usize = 8_192;
/// World events per broadcast unit of work.
const BROADCAST_EVENTS: usize = 8_192;

enum Runner {
    Ready(Option<Output>),
    Table(Box<TableRun>),
    Race(Box<RaceRun>),
    Curve(Box<CurveRun>),
    Sampling(SamplingRun),
    JitterChart(JitterSet),
    JitterTable(JitterSet, Vec<JitterWave>),
    Stampede(StampedeSet, StampedeConfig),
    Cache(Box<super::cache::PairRun>),
    Lock(Box<super::lock::LockRun>),
    Streams(Box<super::streams::StreamsRun>),
    Broadcast(Box<super::broadcast::BroadcastRun>),
}

/// One job being worked through, a unit at a time.
pub struct Work {
    run: Runner,
}

impl Work {
    /// Starts `job`.
    ///
    /// # Errors
    /// A message when the job cannot be made (an unknown policy, malformed operations).
    pub fn new(job: Job) -> Result<Self, String> {
        let e = |e: crate::UnknownPolicy| e.to_string();
        let run = match job {
            Job::Lru(p) => Runner::Ready(Some(Output::Lru(LruWalk::new(&p)?))),
            Job::EvictionTable(p) => Runner::Table(Box::new(TableRun::new(p.config()).map_err(e)?)),
            Job::EvictionRace(p) => Runner::Race(Box::new(RaceRun::new(&p).map_err(e)?)),
            Job::EvictionCurve(p) => Runner::Curve(Box::new(CurveRun::new(&p).map_err(e)?)),
            Job::Sampling(p) => Runner::Sampling(SamplingRun::new(p)),
            Job::JitterChart(p) => {
                Runner::JitterChart(JitterSet::new(p.config(), vec![p.case()], true))
            }
            Job::JitterTable(p) => {
                Runner::JitterTable(JitterSet::new(p.config(), seed_cases(), false), Vec::new())
            }
            Job::Stampede(p) => Runner::Stampede(StampedeSet::new(p.config()), p.config()),
            Job::Cache(p) => Runner::Cache(Box::new(super::cache::PairRun::new(&p.config()))),
            Job::Lock(p) => Runner::Lock(Box::new(super::lock::LockRun::new(&p))),
            Job::LockLive { .. }
            | Job::CacheLive { .. }
            | Job::StreamsLive { .. }
            | Job::BroadcastLive { .. } => return Err("a live run is driven in real time".into()),
            Job::Streams(p) => Runner::Streams(Box::new(super::streams::StreamsRun::new(&p))),
            Job::Broadcast(p) => {
                Runner::Broadcast(Box::new(super::broadcast::BroadcastRun::new(&p)))
            }
        };
        Ok(Work { run })
    }

    /// Does one unit of work (a few milliseconds at most, natively well under one);
    /// returns what to tell the lab: partial results, and the output once done.
    pub fn step(&mut self) -> Vec<Body> {
        let mut out = Vec::new();
        match &mut self.run {
            Runner::Ready(o) => out.extend(o.take().map(Body::Done)),
            Runner::Table(r) => {
                out.extend(r.step().map(|row| Body::Part(Part::TableRow(row))));
                if r.is_done() {
                    out.push(Body::Done(Output::EvictionTable {
                        text: r.table().to_text(),
                    }));
                }
            }
            Runner::Race(r) => out.extend(r.step().map(|x| Body::Done(Output::EvictionRace(x)))),
            Runner::Curve(r) => {
                out.extend(r.step().map(|p| Body::Part(Part::CurvePoint(p))));
                if r.is_done() {
                    out.push(Body::Done(Output::EvictionCurve(r.series().to_vec())));
                }
            }
            Runner::Sampling(r) => {
                out.extend(r.step().map(|p| Body::Part(Part::SamplingPoint(p))));
                if r.is_done() {
                    out.push(Body::Done(Output::Sampling(r.points().to_vec())));
                }
            }
            Runner::JitterChart(s) => {
                if let Some(w) = s.step(DRAWS) {
                    out.push(Body::Done(Output::JitterChart(JitterChart::new(w))));
                }
            }
            Runner::JitterTable(s, rows) => {
                if let Some(w) = s.step(DRAWS) {
                    rows.push(w.clone());
                    out.push(Body::Part(Part::JitterRow(w)));
                }
                if s.is_done() {
                    out.push(Body::Done(Output::JitterTable(std::mem::take(rows))));
                }
            }
            Runner::Stampede(s, cfg) => {
                if let Some(m) = s.step(EVENTS) {
                    out.push(Body::Part(Part::StampedeRow(m.mode, m.counters)));
                }
                if s.is_done() {
                    out.push(Body::Done(Output::Stampede {
                        config: *cfg,
                        runs: s.summaries().to_vec(),
                    }));
                }
            }
            Runner::Cache(r) => {
                if let Some(lab) = r.step(CACHE_EVENTS) {
                    let view = super::cache::CacheView::new(&lab);
                    out.push(Body::Done(Output::Cache(Box::new(view))));
                }
            }
            Runner::Lock(r) => {
                if r.steps(LOCK_EVENTS) {
                    out.push(Body::Done(Output::Lock(Box::new(r.result()))));
                }
            }
            Runner::Streams(r) => {
                if r.steps(STREAM_EVENTS) {
                    out.push(Body::Done(Output::Streams(Box::new(r.result()))));
                }
            }
            Runner::Broadcast(r) => {
                if r.steps(BROADCAST_EVENTS) {
                    out.push(Body::Done(Output::Broadcast(Box::new(r.result()))));
                }
            }
        }
        if out.iter().any(|b| matches!(b, Body::Done(_))) {
            self.run = Runner::Ready(None);
        }
        out
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        match &self.run {
            Runner::Ready(_) => 1.0,
            Runner::Table(r) => r.progress(),
            Runner::Race(r) => r.progress(),
            Runner::Curve(r) => r.progress(),
            Runner::Sampling(r) => r.progress(),
            Runner::JitterChart(s) | Runner::JitterTable(s, _) => s.progress(),
            Runner::Stampede(s, _) => s.progress(),
            Runner::Cache(r) => r.progress(),
            Runner::Lock(r) => r.progress(),
            Runner::Streams(r) => r.progress(),
            Runner::Broadcast(r) => r.progress(),
        }
    }

    /// Runs to the end; every message in order (the native form of what the worker posts,
    /// without progress).
    pub fn run_to_end(mut self) -> Vec<Body> {
        let mut all = Vec::new();
        loop {
            let out = self.step();
            let done = out.iter().any(|b| matches!(b, Body::Done(_)));
            all.extend(out);
            if done {
                return all;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::jitter::{table, JitterWave};
    use crate::labs::params::{Params, EVICTION, JITTER, LRU, SAMPLING, STAMPEDE};
    use crate::labs::stampede::table as stampede_table;

    fn done(msgs: &[Body]) -> &Output {
        match msgs.last() {
            Some(Body::Done(o)) => o,
            other => panic!("no output: {other:?}"),
        }
    }

    #[test]
    fn messages_round_trip_as_json() {
        let job = Job::EvictionTable(Params::defaults(EVICTION).typed());
        let msg = ToWorker::Start { run: 7, job };
        let s = serde_json::to_string(&msg).unwrap();
        assert_eq!(serde_json::from_str::<ToWorker>(&s).unwrap(), msg);
        for body in Work::new(Job::Lru(Params::defaults(LRU).typed()))
            .unwrap()
            .run_to_end()
        {
            let m = FromWorker { run: 3, body };
            let s = serde_json::to_string(&m).unwrap();
            assert_eq!(serde_json::from_str::<FromWorker>(&s).unwrap(), m);
        }
    }

    #[test]
    fn the_seed_table_through_the_worker_protocol() {
        let msgs = Work::new(Job::EvictionTable(Params::defaults(EVICTION).typed()))
            .unwrap()
            .run_to_end();
        let Output::EvictionTable { text } = done(&msgs) else {
            panic!()
        };
        assert!(
            text.contains("LRU          39.1%     31.9%     39.0%"),
            "{text}"
        );
        let rows = msgs
            .iter()
            .filter(|b| matches!(b, Body::Part(Part::TableRow(_))))
            .count();
        assert_eq!(rows, 5);
    }

    #[test]
    fn jitter_and_stampede_through_the_protocol_equal_their_tables() {
        let p: JitterParams = Params::from_query(JITTER, "keys=2000").0.typed();
        let msgs = Work::new(Job::JitterTable(p)).unwrap().run_to_end();
        let Output::JitterTable(waves) = done(&msgs) else {
            panic!()
        };
        let (want, _) = table(&p.config(), &seed_cases());
        let want: Vec<JitterWave> = want
            .into_iter()
            .map(|w| JitterWave {
                histogram: Vec::new(),
                ..w
            })
            .collect();
        assert_eq!(waves, &want);
        let msgs = Work::new(Job::JitterChart(p)).unwrap().run_to_end();
        let Output::JitterChart(c) = done(&msgs) else {
            panic!()
        };
        assert_eq!(c.wave.max, want[3].max);

        let p: StampedeParams = Params::defaults(STAMPEDE).typed();
        let msgs = Work::new(Job::Stampede(p)).unwrap().run_to_end();
        let Output::Stampede { config, runs } = done(&msgs) else {
            panic!()
        };
        let (want, text) = stampede_table(config, &Mode::ALL);
        assert_eq!(runs, &want);
        assert!(text.contains("none              503      503       0       117"));
        assert_eq!(msgs.len(), 5);
    }

    #[test]
    fn the_streams_lab_through_the_protocol_equals_its_run() {
        let p = crate::labs::streams::StreamsParams {
            crash_worker: 2,
            ..Default::default()
        };
        let msgs = Work::new(Job::Streams(p.clone())).unwrap().run_to_end();
        let Output::Streams(r) = done(&msgs) else {
            panic!()
        };
        assert_eq!(**r, crate::labs::streams::run(&p));
        assert!(r.counters.reclaimed > 0);
        let s = serde_json::to_string(&FromWorker {
            run: 1,
            body: msgs[0].clone(),
        })
        .unwrap();
        assert_eq!(
            serde_json::from_str::<FromWorker>(&s).unwrap().body,
            msgs[0]
        );
    }

    #[test]
    fn every_job_finishes_and_reports_progress() {
        let e: EvictionParams = Params::from_query(EVICTION, "warmup=100&requests=5000")
            .0
            .typed();
        for job in [
            Job::Lru(Params::defaults(LRU).typed()),
            Job::EvictionRace(e.clone()),
            Job::EvictionCurve(e),
            Job::Sampling(Params::from_query(SAMPLING, "trials=100").0.typed()),
        ] {
            let mut w = Work::new(job.clone()).unwrap();
            let mut last = 0.0;
            loop {
                let p = w.progress();
                assert!((last..=1.0).contains(&p), "{job:?}: {p} after {last}");
                last = p;
                if w.step().iter().any(|b| matches!(b, Body::Done(_))) {
                    break;
                }
            }
            assert_eq!(w.progress(), 1.0);
            assert!(w.step().is_empty(), "{job:?} said more after done");
        }
        let bad = LruParams {
            policy: "nope".into(),
            ..Params::defaults(LRU).typed()
        };
        assert!(Work::new(Job::Lru(bad)).is_err());
    }
}
