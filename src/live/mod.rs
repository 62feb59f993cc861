//! Server mode in the app: the labs' "real Redis" switch and the console.
//!
//! A live lab run happens in the simulation worker, which already holds the actors: the lab
//! asks for a live job ([`use_live`]) and the worker opens its own WebSocket to the proxy
//! beside the page ([`redislab_sim::wire::ws_url`]), drives the same actors in real time and
//! sends back its connection state and the run so far. [`bar::LivePanel`] is every lab's
//! switch, time scale and indicator. The console ([`console`]) talks to
//! the proxy from the page through [`socket`]. [`Indicator`] shows either connection's state.
//! With no proxy (a static host, `trunk serve`) both say so and the lab stays in simulation.

pub mod bar;
pub mod console;
pub mod socket;

use crate::labs::worker;
use redislab_sim::labs::work::{Body, Job};
use redislab_sim::wire::LiveStatus;
use serde::de::DeserializeOwned;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// The proxy's WebSocket for this page.
pub fn ws_url() -> String {
    redislab_sim::wire::ws_url(&crate::dom::window().location().href().unwrap_or_default())
}

/// What a lab knows about its live run, whatever the lab: the connection and how it ended.
#[derive(Clone, PartialEq, Default)]
pub struct LiveState {
    run: u64,
    /// The connection, once the worker has said.
    pub status: Option<LiveStatus>,
    /// Something of the run has come (a snapshot or the result).
    pub got: bool,
    /// It ended.
    pub done: bool,
    /// Why it stopped early (no proxy, Redis gone), in Bengali.
    pub failed: Option<String>,
}

/// A live run: its state and the run so far as the lab's output type `O`.
#[derive(PartialEq)]
pub struct LiveRun<O> {
    /// The connection and how it ended.
    pub state: LiveState,
    /// The run so far (the last snapshot, or the result).
    pub part: Option<Rc<O>>,
}

impl<O> Clone for LiveRun<O> {
    fn clone(&self) -> Self {
        LiveRun {
            state: self.state.clone(),
            part: self.part.clone(),
        }
    }
}

impl<O> Default for LiveRun<O> {
    fn default() -> Self {
        LiveRun {
            state: LiveState::default(),
            part: None,
        }
    }
}

impl<O> std::ops::Deref for LiveRun<O> {
    type Target = LiveState;
    fn deref(&self) -> &LiveState {
        &self.state
    }
}

impl<O> LiveRun<O> {
    /// The run so far.
    pub fn get(&self) -> Option<&O> {
        self.part.as_deref()
    }
}

/// What happens to a live run.
pub enum LiveAction {
    /// A new run started.
    Start(u64),
    /// Run `.0` said something.
    Body(u64, Body),
}

impl<O: DeserializeOwned + 'static> Reducible for LiveRun<O> {
    type Action = LiveAction;

    fn reduce(self: Rc<Self>, action: LiveAction) -> Rc<Self> {
        match action {
            LiveAction::Start(run) => Rc::new(LiveRun {
                state: LiveState {
                    run,
                    status: Some(LiveStatus::Connecting),
                    ..LiveState::default()
                },
                part: None,
            }),
            LiveAction::Body(run, _) if run != self.state.run => self,
            LiveAction::Body(_, body) => {
                let mut s = (*self).clone();
                match body {
                    Body::Status(st) => s.state.status = Some(st),
                    Body::Part(p) => s.take(&p),
                    Body::Done(p) => {
                        s.take(&p);
                        s.state.done = true;
                    }
                    Body::Failed(why) => {
                        s.state.failed = Some(why);
                        s.state.done = true;
                    }
                    Body::Progress(_) | Body::Ready => {}
                }
                Rc::new(s)
            }
        }
    }
}

impl<O: DeserializeOwned> LiveRun<O> {
    /// Keeps what the run says so far.
    fn take(&mut self, p: &redislab_sim::labs::lab::Json) {
        match p.read::<O>() {
            Ok(o) => {
                self.part = Some(Rc::new(o));
                self.state.got = true;
            }
            Err(e) => self.state.failed = Some(format!("অচেনা উত্তর: {e}")),
        }
    }
}

thread_local! {
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

/// Runs the live `job` (`None`: not live; see [`redislab_sim::labs::lab::Job::live`]), its
/// snapshots and result read as the lab's output type `O`. A new job (or a new `attempt`)
/// cancels the run in flight, which closes its socket.
#[hook]
pub fn use_live<O>(job: Option<Job>, attempt: u32) -> LiveRun<O>
where
    O: DeserializeOwned + PartialEq + 'static,
{
    let state = use_reducer(LiveRun::<O>::default);
    let on = job.is_some();
    {
        let d = state.dispatcher();
        use_effect_with((job, attempt), move |(job, _)| {
            let id = job.clone().map(|job| {
                let run = RUNS.with(|r| {
                    r.set(r.get() + 1);
                    r.get()
                });
                d.dispatch(LiveAction::Start(run));
                worker::start(job, move |b| d.dispatch(LiveAction::Body(run, b)))
            });
            move || {
                if let Some(id) = id {
                    worker::cancel(id);
                }
            }
        });
    }
    if on {
        (*state).clone()
    } else {
        LiveRun::default()
    }
}

/// Props of [`Indicator`].
#[derive(Properties, PartialEq)]
pub struct IndicatorProps {
    /// The connection (`None`: live mode is off).
    pub status: Option<LiveStatus>,
}

/// The connection indicator: a dot and a word, for people and for screen readers.
#[component]
pub fn Indicator(props: &IndicatorProps) -> Html {
    let (key, text) = match &props.status {
        None => ("off", "সিমুলেশন (আসল Redis বন্ধ)"),
        Some(LiveStatus::Connecting) => ("connecting", "সংযোগ হচ্ছে…"),
        Some(LiveStatus::Connected) => ("connected", "আসল Redis-এ সংযুক্ত"),
        Some(LiveStatus::NoProxy) => ("no-proxy", "প্রক্সি নেই"),
        Some(LiveStatus::RedisDown) => ("redis-down", "Redis পাওয়া যাচ্ছে না"),
        Some(LiveStatus::Lost(_)) => ("lost", "সংযোগ ছিঁড়ে গেছে"),
    };
    html! {
        <span class={classes!("live-ind", key)} role="status" data-testid="live-indicator" data-state={key}>
            <span class="live-dot" aria-hidden="true"></span>{ text }
        </span>
    }
}
