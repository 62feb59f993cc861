//! What a lab is, for everything that lists, runs or draws labs.
//!
//! * [`LabInfo`]: what a lab is without running it — id, title, fields, presets, the rules
//!   between fields, its runs. Light (data and one small function), so the app's home page,
//!   the labs' views and the deck parser read it without linking any simulation.
//! * [`Lab`]: how a lab runs — start a step-able [`Run`] from a [`Job`], its live driver, its
//!   command line. Only the simulation worker and `labsim` link these.
//! * [`Run`]: a computation the worker drives a unit at a time; typed partial results and a
//!   typed output, which travel as JSON ([`Json`]) and are read back by the lab's view with
//!   the same types.
//!
//! Both lists come from one line per lab in [`super::registry`].

use super::params::{Field, Params};
use super::preset::Preset;
use crate::cli::{Args, CliError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A rule between fields that the values broke: the field to put back, and why.
pub type Broken = (&'static str, String);

/// What a lab is (see the module doc).
#[derive(Debug)]
pub struct LabInfo {
    /// Id in addresses (`#/lab/<id>`), deck directives (`:::lab <id>`) and `labsim <id>`.
    pub id: &'static str,
    /// Title, in Bengali.
    pub title: &'static str,
    /// One line on what a student sees (the home page's card), in Bengali.
    pub blurb: &'static str,
    /// Its parameters, with the seed's defaults.
    pub fields: &'static [Field],
    /// Named sets of values: each is the defaults plus its pairs.
    pub presets: &'static [Preset],
    /// The rules between fields (e.g. warm-up shorter than the run).
    pub rules: fn(&Params) -> Result<(), Broken>,
    /// The runs a view can ask for ([`Job::run`]); the first is the lab's main run.
    pub runs: &'static [&'static str],
    /// Whether it can run against a real Redis through the proxy.
    pub live: bool,
}

impl PartialEq for LabInfo {
    fn eq(&self, o: &Self) -> bool {
        self.id == o.id
    }
}

/// No rules between fields.
pub fn no_rules(_: &Params) -> Result<(), Broken> {
    Ok(())
}

/// A piece of work a view asks the simulation worker for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// The lab's id.
    pub lab: String,
    /// Which of its runs ([`LabInfo::runs`]); empty: the main one.
    #[serde(default)]
    pub run: String,
    /// The parameters, as the address writes them (`alpha=0.9&cache=300`).
    pub query: String,
    /// Shaped for a live run slowed `k` times ([`Lab::start`] and the live run use the same
    /// shaping, so the simulation predicts the live run).
    #[serde(default)]
    pub live_scale: Option<u64>,
    /// Against a real Redis through the proxy at this WebSocket address (`ws://…/ws`).
    #[serde(default)]
    pub live_url: Option<String>,
}

impl Job {
    /// The main run of `lab` with `params`.
    pub fn new(lab: &LabInfo, params: &Params) -> Self {
        Job {
            lab: lab.id.into(),
            run: String::new(),
            query: params.to_query(),
            live_scale: None,
            live_url: None,
        }
    }

    /// The same job, for run `run`.
    pub fn run(mut self, run: &str) -> Self {
        self.run = run.into();
        self
    }

    /// The same job, shaped for a live run slowed `k` times.
    pub fn scaled(mut self, k: u64) -> Self {
        self.live_scale = Some(k);
        self
    }

    /// The same job, run live against the proxy at `url`.
    pub fn live(mut self, url: String) -> Self {
        self.live_url = Some(url);
        self
    }

    /// A run against a real Redis (driven in real time, not by [`super::work::Work`]).
    pub fn is_live(&self) -> bool {
        self.live_url.is_some()
    }
}

/// A value as JSON text, typed at both ends: the worker writes a lab's typed part or output,
/// the lab's view reads it back as the same type.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Json(Box<RawValue>);

impl Json {
    /// `v` as JSON.
    ///
    /// # Panics
    /// If `v` cannot be written as JSON (a map with non-string keys: a programming error the
    /// registry test would catch).
    pub fn of<T: Serialize + ?Sized>(v: &T) -> Json {
        Json(serde_json::value::to_raw_value(v).expect("lab values serialise"))
    }

    /// The value, as `T`.
    ///
    /// # Errors
    /// When the text is not a `T` (a message for the lab's error line).
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, String> {
        serde_json::from_str(self.0.get()).map_err(|e| e.to_string())
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for Json {
    fn eq(&self, o: &Self) -> bool {
        self.0.get() == o.0.get()
    }
}

/// A computation a lab's view asks for, stepped a unit at a time by the worker.
pub trait Run {
    /// A partial result (a finished table row, a curve point).
    type Part: Serialize;
    /// The result.
    type Output: Serialize;
    /// One unit of work (well under a few milliseconds natively); a partial result when one
    /// is finished.
    fn step(&mut self) -> Option<Self::Part>;
    /// Nothing more to do: [`Run::output`] is ready.
    fn is_done(&self) -> bool;
    /// How far along, 0.0..=1.0.
    fn progress(&self) -> f64;
    /// The result (asked once, when done).
    fn output(&mut self) -> Self::Output;
}

/// What one message from the worker says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Body {
    /// How far along, 0.0..=1.0.
    Progress(f64),
    /// A partial result (the run's [`Run::Part`]; a live run's snapshot).
    Part(Json),
    /// The result (the run's [`Run::Output`]); no more messages for this run.
    Done(Json),
    /// The run could not be made (a bad job: the view checks its parameters first).
    Failed(String),
    /// A live run's connection to the proxy.
    Status(crate::wire::LiveStatus),
    /// The worker is listening (sent once, with run 0, when it has started): messages
    /// posted before it would be lost, so the app holds them until then.
    Ready,
}

/// A [`Run`] with its parts and output written as JSON: what the worker drives.
pub trait AnyRun {
    /// One unit of work; what to tell the view (a part, and the output once done).
    fn step(&mut self) -> Vec<Body>;
    /// How far along, 0.0..=1.0.
    fn progress(&self) -> f64;
}

struct Erased<R: Run> {
    run: R,
    done: bool,
}

impl<R: Run> AnyRun for Erased<R> {
    fn step(&mut self) -> Vec<Body> {
        if self.done {
            return Vec::new();
        }
        let mut out: Vec<Body> = self
            .run
            .step()
            .map(|p| Body::Part(Json::of(&p)))
            .into_iter()
            .collect();
        if self.run.is_done() {
            self.done = true;
            out.push(Body::Done(Json::of(&self.run.output())));
        }
        out
    }

    fn progress(&self) -> f64 {
        if self.done {
            1.0
        } else {
            self.run.progress()
        }
    }
}

/// `run` as the worker drives it.
pub fn erase<R: Run + 'static>(run: R) -> Box<dyn AnyRun> {
    Box::new(Erased { run, done: false })
}

/// The figures of run `R`'s output `out` (a lab's, through [`super::registry::figures`]).
///
/// # Errors
/// When `out` is not an `R::Output`.
pub fn figures_of<R: super::def::RunDef>(out: &Json) -> Result<Vec<super::def::Figure>, String>
where
    R::Output: super::def::Figures,
{
    use super::def::Figures;
    Ok(out.read::<R::Output>()?.figures())
}

/// A run whose result is ready at once (e.g. the LRU step-through, a few dozen operations).
pub struct Ready<T>(Option<T>);

impl<T> Ready<T> {
    /// The result.
    pub fn new(v: T) -> Self {
        Ready(Some(v))
    }
}

impl<T: Serialize> Run for Ready<T> {
    type Part = ();
    type Output = T;
    fn step(&mut self) -> Option<()> {
        None
    }
    fn is_done(&self) -> bool {
        true
    }
    fn progress(&self) -> f64 {
        1.0
    }
    fn output(&mut self) -> T {
        self.0.take().expect("output asked once")
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
    /// What the run shows so far (the lab's output type, as JSON).
    fn snapshot(&self) -> Json;
    /// Least time between two snapshots, ms.
    fn snapshot_ms(&self) -> f64;
}

/// How `labsim <id>` reads its options beyond the lab's fields.
#[derive(Clone, Copy, Debug)]
pub struct CliSpec {
    /// Another name the command answers to (`lru-trace` for `lru`).
    pub alias: Option<&'static str>,
    /// One line for `labsim help`, in English (the command line's language).
    pub summary: &'static str,
    /// Fields that are not options here (they only choose what a view shows).
    pub skip: &'static [&'static str],
    /// Options of its own, with a value (`--traces zipf,scan`).
    pub more: &'static [&'static str],
    /// Switches of its own besides `--json` (`--series`).
    pub switches: &'static [&'static str],
    /// Its own options as `labsim help` shows them, one group each (the fields are listed
    /// from the lab's table).
    pub usage: &'static [&'static str],
}

impl CliSpec {
    /// A command with its summary and nothing else of its own (no alias, every field an
    /// option, no options or switches besides them); the rest is given with `..`.
    pub const fn new(summary: &'static str) -> CliSpec {
        CliSpec {
            alias: None,
            summary,
            skip: &[],
            more: &[],
            switches: &[],
            usage: &[],
        }
    }
}

/// How a lab runs (see the module doc). One unit struct per lab implements it; the registry
/// lists them.
pub trait Lab: Sync {
    /// What the lab is.
    fn info(&self) -> &'static LabInfo;

    /// Starts `job` with its (checked) parameters `p`.
    ///
    /// # Errors
    /// A message when the job names a run the lab does not have, or cannot be made.
    fn start(&self, job: &Job, p: &Params) -> Result<Box<dyn AnyRun>, String>;

    /// The live run of `job` (`None`: the lab has no live mode).
    fn live(&self, _job: &Job, _p: &Params) -> Option<Box<dyn LiveDriver>> {
        None
    }

    /// The parameters that make the most work its fields allow (a query; empty: its
    /// defaults are the heaviest). The long-task tests and `browser-bench` open every lab
    /// with these.
    fn heaviest(&self) -> &'static str {
        ""
    }

    /// Its kinds of practice question (`crate::practice`; empty: none yet).
    fn questions(&self) -> &'static [crate::practice::QuestionKind] {
        &[]
    }

    /// How `labsim` reads its options.
    fn cli_spec(&self) -> CliSpec;

    /// What `labsim <id>` prints for `p` (text, or JSON with `--json`).
    ///
    /// # Errors
    /// A message naming the option at fault.
    fn cli(&self, p: &Params, a: &Args) -> Result<String, CliError>;
}
