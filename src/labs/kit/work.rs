//! A lab's runs in the simulation worker, followed as they go, and the same lab against a
//! real Redis beside the simulation.

use super::{now, LabState};
use crate::live::bar::{use_live_switch, LivePanel, LiveSwitch};
use crate::live::{use_live, ws_url, LiveRun};
use redislab_sim::labs::def::RunDef;
use redislab_sim::labs::work::{Body, Job};
use serde::de::DeserializeOwned;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// What a lab knows about one of its runs in the simulation worker: its progress, the
/// partial results (`P`) and the result (`O`), read as the lab's own types.
#[derive(PartialEq)]
pub struct RunState<P, O> {
    /// Which run this is about (a new job starts a new run).
    run: u64,
    job: Option<Job>,
    started: f64,
    /// How far along, 0.0..=1.0.
    pub progress: f64,
    /// Partial results so far, in arrival order.
    pub parts: Rc<Vec<P>>,
    /// The result, once done.
    pub done: Option<Rc<O>>,
    /// Why the run failed, if it did.
    pub failed: Option<String>,
    /// Milliseconds from the request to the result (0 until done).
    pub millis: f64,
}

impl<P, O> Clone for RunState<P, O> {
    fn clone(&self) -> Self {
        RunState {
            run: self.run,
            job: self.job.clone(),
            started: self.started,
            progress: self.progress,
            parts: self.parts.clone(),
            done: self.done.clone(),
            failed: self.failed.clone(),
            millis: self.millis,
        }
    }
}

impl<P, O> Default for RunState<P, O> {
    fn default() -> Self {
        RunState {
            run: 0,
            job: None,
            started: 0.0,
            progress: 0.0,
            parts: Rc::new(Vec::new()),
            done: None,
            failed: None,
            millis: 0.0,
        }
    }
}

impl<P, O> RunState<P, O> {
    /// Still computing.
    pub fn busy(&self) -> bool {
        self.job.is_some() && self.done.is_none() && self.failed.is_none()
    }

    /// The result, once done.
    pub fn result(&self) -> Option<&O> {
        self.done.as_deref()
    }
}

/// What happens to a run.
pub enum RunAction {
    /// A new run of this job started.
    Start(u64, Job),
    /// Run `.0` said something.
    Body(u64, Body),
}

impl<P, O> Reducible for RunState<P, O>
where
    P: DeserializeOwned + Clone + 'static,
    O: DeserializeOwned + 'static,
{
    type Action = RunAction;

    fn reduce(self: Rc<Self>, action: RunAction) -> Rc<Self> {
        match action {
            RunAction::Start(run, job) => Rc::new(RunState {
                run,
                job: Some(job),
                started: now(),
                ..RunState::default()
            }),
            // A message of an older run: never shown.
            RunAction::Body(run, _) if run != self.run => self,
            RunAction::Body(_, body) => {
                let mut s = (*self).clone();
                let unreadable = |e: String| format!("সিমুলেটরের উত্তর পড়া গেল না: {e}");
                match body {
                    Body::Progress(p) => s.progress = p,
                    Body::Part(part) => match part.read::<P>() {
                        Ok(p) => Rc::make_mut(&mut s.parts).push(p),
                        Err(e) => s.failed = Some(unreadable(e)),
                    },
                    Body::Done(out) => match out.read::<O>() {
                        Ok(o) => {
                            s.progress = 1.0;
                            s.millis = now() - s.started;
                            s.done = Some(Rc::new(o));
                        }
                        Err(e) => s.failed = Some(unreadable(e)),
                    },
                    Body::Failed(why) => s.failed = Some(why),
                    Body::Status(_) | Body::Ready => {}
                }
                Rc::new(s)
            }
        }
    }
}

thread_local! {
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

/// Runs `R`, one of the lab's runs (`redislab_sim::labs::def::RunDef`), of the lab's current
/// parameters in the simulation worker: its parts and output are `R`'s own types, so the view
/// and the simulator agree by the compiler's check. `on` false: nothing runs.
#[hook]
pub fn use_run<R: RunDef>(lab: &LabState, on: bool) -> RunState<R::Part, R::Output>
where
    R::Part: Clone + PartialEq,
    R::Output: PartialEq,
{
    use_work::<R::Part, R::Output>(on.then(|| lab.job().run(R::NAME)))
}

/// Runs `job` in the simulation worker and follows it: progress, partial results (`P`) and
/// the result (`O`) — the types of the lab's run (`None`: nothing runs, and the state is
/// idle). A new `job` cancels the run in flight; what a cancelled run still sends is dropped,
/// and until the new run answers the state is the new run's, busy and empty (nothing stale
/// shows).
#[hook]
pub fn use_work<P, O>(job: Option<Job>) -> RunState<P, O>
where
    P: DeserializeOwned + Clone + PartialEq + 'static,
    O: DeserializeOwned + PartialEq + 'static,
{
    let state = use_reducer(RunState::<P, O>::default);
    {
        let d = state.dispatcher();
        use_effect_with(job.clone(), move |job| {
            let id = job.clone().map(|job| {
                let run = RUNS.with(|r| {
                    r.set(r.get() + 1);
                    r.get()
                });
                d.dispatch(RunAction::Start(run, job.clone()));
                crate::labs::worker::start(job, move |b| d.dispatch(RunAction::Body(run, b)))
            });
            move || {
                if let Some(id) = id {
                    crate::labs::worker::cancel(id);
                }
            }
        });
    }
    if job.is_some() && state.job == job {
        (*state).clone()
    } else {
        // Not started yet (busy), or no job at all (idle).
        RunState {
            job,
            ..RunState::default()
        }
    }
}

/// A lab that speaks Redis, run in simulation and — on its own page, with the switch on —
/// against a real Redis through the proxy, the simulation of the same (scaled) parameters
/// beside it as the prediction.
pub struct SimLive<O> {
    /// The switch.
    pub switch: LiveSwitch,
    /// Live mode is on for this lab here.
    pub on: bool,
    /// The simulation (the prediction, while live).
    pub sim: RunState<(), O>,
    /// The live run.
    pub live: LiveRun<O>,
}

impl<O> SimLive<O> {
    /// Still computing or still running live.
    pub fn busy(&self) -> bool {
        self.sim.busy() || (self.on && !self.live.done)
    }

    /// The simulation's result.
    pub fn predicted(&self) -> Option<&O> {
        self.sim.result()
    }

    /// The real run so far (live only).
    pub fn real(&self) -> Option<&O> {
        self.on.then(|| self.live.get()).flatten()
    }

    /// What the lab draws: the real run when there is one, the simulation otherwise (also
    /// when live mode found no proxy: the lab stays usable).
    pub fn shown(&self) -> Option<&O> {
        self.real().or(self.predicted())
    }
}

/// [`SimLive`] for `lab`'s run `R` (`redislab_sim::labs::def::RunDef`, the compiler's check of
/// the view against the simulator): `live_ok` says whether these parameters speak Redis at all
/// (the broadcast lab's naive loop does not); `predict_scaled` runs the simulation on the live
/// run's scaled parameters while live (off for a lab whose live output carries its own
/// prediction). A live run that could not start leaves the lab simulating its own numbers.
#[hook]
pub fn use_sim_live<R>(lab: &LabState, live_ok: bool, predict_scaled: bool) -> SimLive<R::Output>
where
    R: RunDef<Part = ()>,
    R::Output: PartialEq,
{
    let switch = use_live_switch();
    let on = *switch.on && !lab.embedded && lab.info.live && live_ok;
    let job = lab.job().run(R::NAME);
    let scaled = job.clone().scaled(*switch.scale);
    let live = use_live::<R::Output>(on.then(|| scaled.clone().live(ws_url())), *switch.attempt);
    let sim_job = if on && predict_scaled && (live.failed.is_none() || live.got) {
        scaled
    } else {
        job
    };
    let sim = use_work::<(), R::Output>(Some(sim_job));
    SimLive {
        switch,
        on,
        sim,
        live,
    }
}

/// The live panel of a [`SimLive`] lab (nothing inside a slide).
pub fn live_panel<O>(lab: &LabState, s: &SimLive<O>, note: Option<String>) -> Html {
    if lab.embedded {
        return Html::default();
    }
    html! {
        <LivePanel switch={s.switch.clone()} live={s.live.state.clone()} note={note.map(AttrValue::from)} />
    }
}
