//! Server mode in the app: the labs' "real Redis" switch and the console.
//!
//! A live lab run happens in the simulation worker, which already holds the actors: the lab
//! asks for a live job ([`use_live`]) and the worker opens its own WebSocket to the proxy
//! beside the page ([`redislab_sim::live::ws_url`]), drives the same actors in real time and
//! sends back its connection state and the run so far. [`bar::LivePanel`] is every lab's
//! switch, time scale and indicator. The console ([`console`]) talks to
//! the proxy from the page through [`socket`]. [`Indicator`] shows either connection's state.
//! With no proxy (a static host, `trunk serve`) both say so and the lab stays in simulation.

pub mod bar;
pub mod console;
pub mod socket;

use crate::labs::worker;
use redislab_sim::labs::broadcast::BroadcastResult;
use redislab_sim::labs::cache::CacheView;
use redislab_sim::labs::lock::LockResult;
use redislab_sim::labs::streams::StreamsResult;
use redislab_sim::labs::work::{Body, Job, Part};
use redislab_sim::live::LiveStatus;
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// The proxy's WebSocket for this page.
pub fn ws_url() -> String {
    redislab_sim::live::ws_url(&crate::dom::window().location().href().unwrap_or_default())
}

/// What a lab knows about its live run.
#[derive(Clone, PartialEq, Default)]
pub struct LiveRun {
    run: u64,
    /// The connection, once the worker has said.
    pub status: Option<LiveStatus>,
    /// The run so far (the last snapshot, or the result).
    pub part: Option<Rc<Part>>,
    /// It ended.
    pub done: bool,
    /// Why it stopped early (no proxy, Redis gone), in Bengali.
    pub failed: Option<String>,
}

/// What happens to a live run.
pub enum LiveAction {
    /// A new run started.
    Start(u64),
    /// Run `.0` said something.
    Body(u64, Body),
}

impl Reducible for LiveRun {
    type Action = LiveAction;

    fn reduce(self: Rc<Self>, action: LiveAction) -> Rc<Self> {
        match action {
            LiveAction::Start(run) => Rc::new(LiveRun {
                run,
                status: Some(LiveStatus::Connecting),
                ..LiveRun::default()
            }),
            LiveAction::Body(run, _) if run != self.run => self,
            LiveAction::Body(_, body) => {
                let mut s = (*self).clone();
                match body {
                    Body::Part(Part::LiveStatus(st)) => s.status = Some(st),
                    Body::Part(p) => s.part = Some(Rc::new(p)),
                    Body::Done(o) => {
                        if let Some(p) = Part::from_output(o) {
                            s.part = Some(Rc::new(p));
                        }
                        s.done = true;
                    }
                    Body::Failed(why) => {
                        s.failed = Some(why);
                        s.done = true;
                    }
                    _ => {}
                }
                Rc::new(s)
            }
        }
    }
}

thread_local! {
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

impl LiveRun {
    /// The lock race so far.
    pub fn lock(&self) -> Option<&LockResult> {
        match self.part.as_deref() {
            Some(Part::LiveLock(r)) => Some(r),
            _ => None,
        }
    }
    /// The cache engine so far, beside its prediction.
    pub fn cache(&self) -> Option<&CacheView> {
        match self.part.as_deref() {
            Some(Part::LiveCache(v)) => Some(v),
            _ => None,
        }
    }
    /// The streams lab so far.
    pub fn streams(&self) -> Option<&StreamsResult> {
        match self.part.as_deref() {
            Some(Part::LiveStreams(r)) => Some(r),
            _ => None,
        }
    }
    /// The queue (the broadcast lab) so far.
    pub fn broadcast(&self) -> Option<&BroadcastResult> {
        match self.part.as_deref() {
            Some(Part::LiveBroadcast(r)) => Some(r),
            _ => None,
        }
    }
}

/// Runs the live `job` (`None`: not live; a job's `url` is the proxy's, [`ws_url`]). A new
/// job (or a new `attempt`) cancels the run in flight, which closes its socket.
#[hook]
pub fn use_live(job: Option<Job>, attempt: u32) -> LiveRun {
    let state = use_reducer(LiveRun::default);
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
