//! Server mode in the app: the labs' "real Redis" switch and the console.
//!
//! A live lab run happens in the simulation worker, which already holds the actors: the lab
//! asks for a live job ([`use_live_lock`]) and the worker opens its own WebSocket to the proxy
//! beside the page ([`redislab_sim::live::ws_url`]), drives the same workers in real time and
//! sends back its connection state and the race so far. The console ([`console`]) talks to
//! the proxy from the page through [`socket`]. [`Indicator`] shows either connection's state.
//! With no proxy (a static host, `trunk serve`) both say so and the lab stays in simulation.

pub mod console;
pub mod socket;

use crate::labs::worker;
use redislab_sim::labs::lock::{LockParams, LockResult};
use redislab_sim::labs::work::{Body, Job, Output, Part};
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
    /// The race so far (the last snapshot).
    pub result: Option<Rc<LockResult>>,
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
                    Body::Part(Part::LiveLock(r)) => s.result = Some(Rc::new(*r)),
                    Body::Done(Output::Lock(r)) => {
                        s.result = Some(Rc::new(*r));
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

/// Runs the lock race of `params` live (`None`: not live). A new value (or a new `attempt`)
/// cancels the run in flight, which closes its socket.
#[hook]
pub fn use_live_lock(params: Option<LockParams>, attempt: u32) -> LiveRun {
    let state = use_reducer(LiveRun::default);
    {
        let d = state.dispatcher();
        use_effect_with((params.clone(), attempt), move |(params, _)| {
            let id = params.clone().map(|params| {
                let run = RUNS.with(|r| {
                    r.set(r.get() + 1);
                    r.get()
                });
                d.dispatch(LiveAction::Start(run));
                let url = ws_url();
                worker::start(Job::LockLive { params, url }, move |b| {
                    d.dispatch(LiveAction::Body(run, b))
                })
            });
            move || {
                if let Some(id) = id {
                    worker::cancel(id);
                }
            }
        });
    }
    if params.is_some() {
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
