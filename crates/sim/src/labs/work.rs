//! What the app's simulation worker does, and the messages it exchanges with the labs.
//!
//! A lab's view sends [`ToWorker::Start`] with a run id and a [`Job`] (the lab, which of its
//! runs, the parameters as a query); the worker answers with [`FromWorker`] messages carrying
//! the same id: progress, partial results as they arrive (table rows, curve points, finished
//! cases) and the final output, each as JSON of the lab's own types. A changed parameter makes
//! the view send [`ToWorker::Cancel`] for the old id and start a new run; the view ignores
//! every message whose id is not its current run's.
//!
//! Messages travel as JSON strings (serde_json) over `postMessage`, the worker's as one array
//! of [`FromWorker`] per slice of work. [`Work`] is the driver: the worker calls
//! [`Work::step`] for a few milliseconds at a time and posts what it returns, so a cancel or a
//! new request is read between slices. Nothing here knows about the web; the whole protocol
//! runs natively in the tests.

use super::lab::AnyRun;
pub use super::lab::{Body, Job, Json, LiveDriver};
use super::params::Params;
use super::registry;
use serde::{Deserialize, Serialize};

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

/// A message from the worker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FromWorker {
    /// The run it belongs to.
    pub run: u32,
    /// What it says.
    pub body: Body,
}

/// The lab of `job` and its checked parameters.
fn resolve(job: &Job) -> Result<(&'static dyn super::lab::Lab, Params), String> {
    let lab = registry::lab(&job.lab).ok_or_else(|| format!("no lab `{}`", job.lab))?;
    let (p, errors) = Params::from_query(lab.info(), &job.query);
    match errors.first() {
        Some(e) => Err(format!("{}: {}", e.key, e.message)),
        None => Ok((lab, p)),
    }
}

/// The live run of `job` (driven in real time by the worker, not by [`Work`]).
///
/// # Errors
/// A message when the job is not live, names no lab, or the lab has no live mode.
pub fn live(job: &Job) -> Result<Box<dyn LiveDriver>, String> {
    let (lab, p) = resolve(job)?;
    if !job.is_live() {
        return Err("not a live job".into());
    }
    // `LabInfo::live` says whether a lab has a live mode (the views read it to show the
    // switch); the driver answers only for the labs that say so.
    if !lab.info().live {
        return Err(format!("lab `{}` has no live mode", job.lab));
    }
    lab.live(job, &p)
        .ok_or_else(|| format!("lab `{}` has no live mode", job.lab))
}

/// One job being worked through, a unit at a time.
pub struct Work {
    run: Box<dyn AnyRun>,
}

impl Work {
    /// Starts `job`.
    ///
    /// # Errors
    /// A message when the job cannot be made (no such lab or run, a bad parameter, a live
    /// job).
    pub fn new(job: Job) -> Result<Self, String> {
        if job.is_live() {
            return Err("a live run is driven in real time".into());
        }
        if job.lab == crate::practice::set::JOB_LAB {
            // A practice set: its questions, each made by running its lab.
            let run = crate::practice::set::SetRun::new(&job.query)?;
            return Ok(Work {
                run: super::lab::erase(run),
            });
        }
        let (lab, p) = resolve(&job)?;
        Ok(Work {
            run: lab.start(&job, &p)?,
        })
    }

    /// Does one unit of work (a few milliseconds at most, natively well under one);
    /// returns what to tell the lab: partial results, and the output once done.
    pub fn step(&mut self) -> Vec<Body> {
        self.run.step()
    }

    /// How far along, 0.0..=1.0.
    pub fn progress(&self) -> f64 {
        self.run.progress()
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
    use crate::labs::eviction::{EvictionOutput, EvictionRow};
    use crate::labs::jitter::{
        seed_cases, table, JitterCases, JitterOutput, JitterParams, JitterRow,
    };
    use crate::labs::stampede::{table as stampede_table, Mode, StampedeOutput, StampedeRow};
    use crate::labs::{eviction, jitter, lru, sampling, stampede, streams};

    fn done<T: serde::de::DeserializeOwned>(msgs: &[Body]) -> T {
        match msgs.last() {
            Some(Body::Done(o)) => o.read().expect("the lab's output type"),
            other => panic!("no output: {other:?}"),
        }
    }

    fn job(lab: &'static crate::labs::lab::LabInfo, q: &str) -> Job {
        Job::new(lab, &Params::from_query(lab, q).0)
    }

    #[test]
    fn messages_round_trip_as_json() {
        let msg = ToWorker::Start {
            run: 7,
            job: job(&eviction::INFO, "").run("table"),
        };
        let s = serde_json::to_string(&msg).unwrap();
        assert_eq!(serde_json::from_str::<ToWorker>(&s).unwrap(), msg);
        for body in Work::new(job(&lru::INFO, "")).unwrap().run_to_end() {
            let m = FromWorker { run: 3, body };
            let s = serde_json::to_string(&m).unwrap();
            assert_eq!(serde_json::from_str::<FromWorker>(&s).unwrap(), m);
        }
    }

    #[test]
    fn the_seed_table_through_the_worker_protocol() {
        let msgs = Work::new(job(&eviction::INFO, "").run("table"))
            .unwrap()
            .run_to_end();
        let out: EvictionOutput = done(&msgs);
        let lru = out
            .rows
            .iter()
            .find(|r| r.policy == "LRU")
            .expect("LRU's row");
        assert_eq!(format!("{:.1}", lru.results[0].hit_percent), "39.1");
        let rows = msgs
            .iter()
            .filter(|b| matches!(b, Body::Part(p) if p.read::<EvictionRow>().is_ok()))
            .count();
        assert_eq!(rows, 5);
    }

    #[test]
    fn jitter_and_stampede_through_the_protocol_equal_their_tables() {
        let j = job(&jitter::INFO, "keys=2000");
        let p: JitterParams = Params::from_query(&jitter::INFO, "keys=2000").0.read();
        let msgs = Work::new(j.clone().run("table")).unwrap().run_to_end();
        let cases: JitterCases = done(&msgs);
        let (want, _) = table(&p.config(), &seed_cases());
        let want: Vec<JitterRow> = want.iter().map(|w| JitterRow::of(w, false)).collect();
        assert_eq!(cases.rows, want);
        let msgs = Work::new(j.run("chart")).unwrap().run_to_end();
        let c: JitterOutput = done(&msgs);
        assert_eq!(c.row.max_per_s, want[3].max_per_s);

        let msgs = Work::new(job(&stampede::INFO, "")).unwrap().run_to_end();
        let out: StampedeOutput = done(&msgs);
        let (want, text) = stampede_table(&out.config(), Mode::ALL);
        let want: Vec<StampedeRow> = want.iter().map(|s| StampedeRow::of(s, true)).collect();
        assert_eq!(out.rows, want);
        assert!(text.contains("none              503      503       0       117"));
        assert_eq!(msgs.len(), 5);
    }

    #[test]
    fn the_streams_lab_through_the_protocol_equals_its_run() {
        let q = "crash_worker=2";
        let msgs = Work::new(job(&streams::INFO, q)).unwrap().run_to_end();
        let r: streams::StreamsOutput = done(&msgs);
        let p = Params::from_query(&streams::INFO, q).0.read();
        assert_eq!(r, streams::run(&p));
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
        let e = job(&eviction::INFO, "warmup=100&requests=5000");
        for job in [
            job(&lru::INFO, ""),
            e.clone().run("race"),
            e.run("curve"),
            job(&sampling::INFO, "trials=100"),
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
        let bad = Job {
            query: "ops=fly+A".into(),
            ..job(&lru::INFO, "")
        };
        assert!(Work::new(bad).is_err());
        let nope = Job {
            lab: "nope".into(),
            ..job(&lru::INFO, "")
        };
        assert!(Work::new(nope).is_err());
        assert!(Work::new(job(&eviction::INFO, "").run("nope")).is_err());
    }
}
