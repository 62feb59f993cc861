//! What every lab shares: its parameters (checked, with a message beside a bad field while the
//! lab keeps its last good state), a timeline to play, pause, step, scrub, speed up and reset,
//! and runs in the simulation worker followed as they go, so no main-thread task runs long.

use gloo_timers::callback::Interval;
use redislab_sim::labs::params::{Field, Kind};
pub use redislab_sim::labs::ui::{ParamState, TimeAction, Timeline};
use redislab_sim::labs::work::{Body, Job, Output, Part};
use std::cell::Cell;
use std::rc::Rc;
use yew::prelude::*;

/// Props every lab component takes.
#[derive(Properties, PartialEq, Clone, Default)]
pub struct LabProps {
    /// Initial parameters as a query (`alpha=0.9&cache=300`), from the URL or a deck preset.
    #[prop_or_default]
    pub query: AttrValue,
    /// Drawn inside a slide: compact, with a link to the full lab.
    #[prop_or_default]
    pub embedded: bool,
    /// Called with the new query whenever the parameters change (the lab page puts it in the URL).
    #[prop_or_default]
    pub on_query: Callback<String>,
}

/// A parameter form's state ([`ParamState`]) as a Yew reducer.
#[derive(Clone, PartialEq)]
pub struct Form(pub ParamState);

impl std::ops::Deref for Form {
    type Target = ParamState;
    fn deref(&self) -> &ParamState {
        &self.0
    }
}

impl Reducible for Form {
    /// A field and what was typed into it.
    type Action = (&'static str, String);

    fn reduce(self: Rc<Self>, (key, value): Self::Action) -> Rc<Self> {
        Rc::new(Form(self.0.apply(key, value)))
    }
}

/// A lab's parameters, from a query, with a setter that checks each value.
pub struct UseParams {
    /// Current state.
    pub state: UseReducerHandle<Form>,
    /// Set a field from what was typed (applied to the newest state, so several sets in one
    /// event all count).
    pub set: Callback<(&'static str, String)>,
}

/// Parameters of a lab with these fields, starting from `query`. `on_query` hears the query of
/// every new good state (not the first).
#[hook]
pub fn use_params(fields: &'static [Field], query: &str, on_query: Callback<String>) -> UseParams {
    let q = query.to_string();
    let state = use_reducer(move || Form(ParamState::from_query(fields, &q)));
    let mounted = use_mut_ref(|| false);
    use_effect_with(state.good.to_query(), move |q| {
        // The first run is the query we were given: nothing to tell.
        if std::mem::replace(&mut *mounted.borrow_mut(), true) {
            on_query.emit(q.clone());
        }
    });
    let set = {
        let d = state.dispatcher();
        Callback::from(move |action: (&'static str, String)| d.dispatch(action))
    };
    UseParams { state, set }
}

/// Props of [`ParamForm`].
#[derive(Properties, PartialEq)]
pub struct ParamFormProps {
    /// Parameter state.
    pub state: ParamState,
    /// Set a field.
    pub set: Callback<(&'static str, String)>,
    /// Which fields to show (all when empty).
    #[prop_or_default]
    pub only: Vec<&'static str>,
    /// Also list messages about unknown keys (one form of a lab should).
    #[prop_or(true)]
    pub unknown: bool,
}

/// The parameter fields, each with its message when the value is bad.
#[component]
pub fn ParamForm(props: &ParamFormProps) -> Html {
    let fields = props.state.good.fields();
    let unknown: Vec<(&String, &String)> = props
        .state
        .errors
        .iter()
        .filter(|(k, _)| props.unknown && !fields.iter().any(|f| f.key == k.as_str()))
        .collect();
    html! {
        <div class="lab-form">
            { for fields.iter().filter(|f| props.only.is_empty() || props.only.contains(&f.key)).map(|f| {
                let key = f.key;
                let set = props.set.clone();
                let value = props.state.drafts.get(key).cloned().unwrap_or_default();
                let err = props.state.errors.get(key).cloned();
                let id = format!("lab-field-{key}");
                let onchange = Callback::from(move |e: Event| {
                    let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
                    set.emit((key, v));
                });
                let input = match f.kind {
                    Kind::Choice(words) => {
                        let set = props.set.clone();
                        let onchange = Callback::from(move |e: Event| {
                            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
                            set.emit((key, v));
                        });
                        html! {
                            <select id={id.clone()} {onchange} aria-invalid={err.is_some().to_string()}>
                                { for words.iter().map(|w| html! { <option value={*w} selected={*w == value}>{ *w }</option> }) }
                            </select>
                        }
                    }
                    Kind::Int { .. } | Kind::Float { .. } => html! {
                        <input id={id.clone()} type="text" inputmode="decimal" value={value} {onchange} size="7"
                            aria-invalid={err.is_some().to_string()} />
                    },
                    Kind::Many(_) | Kind::Ops => html! {
                        <input id={id.clone()} type="text" class="wide" value={value} {onchange}
                            aria-invalid={err.is_some().to_string()} />
                    },
                };
                html! {
                    <div class={classes!("lab-field", err.is_some().then_some("bad"), matches!(f.kind, Kind::Many(_) | Kind::Ops).then_some("wide"))} data-field={key}>
                        <label for={id}>{ f.label }</label>
                        { input }
                        if let Some(m) = err { <span class="field-error" role="alert">{ m }</span> }
                    </div>
                }
            }) }
            { for unknown.into_iter().map(|(k, m)| html! { <p class="field-error" role="alert">{ format!("{k}: {m}") }</p> }) }
        </div>
    }
}

/// A [`Timeline`] as a Yew reducer.
#[derive(Clone, PartialEq)]
pub struct Time(pub Timeline);

impl std::ops::Deref for Time {
    type Target = Timeline;
    fn deref(&self) -> &Timeline {
        &self.0
    }
}

impl Reducible for Time {
    type Action = TimeAction;
    fn reduce(self: Rc<Self>, a: TimeAction) -> Rc<Self> {
        let t = self.0.apply(a);
        if t == self.0 {
            self
        } else {
            Rc::new(Time(t))
        }
    }
}

/// A timeline of `frames` positions that plays at `tick_ms` per step while playing.
#[hook]
pub fn use_timeline(frames: usize, tick_ms: u32) -> UseReducerHandle<Time> {
    let t = use_reducer(|| Time(Timeline::new(frames)));
    {
        let d = t.dispatcher();
        use_effect_with(frames, move |&n| d.dispatch(TimeAction::Frames(n)));
    }
    {
        let d = t.dispatcher();
        use_effect_with(t.playing, move |&on| {
            let timer = on.then(|| Interval::new(tick_ms, move || d.dispatch(TimeAction::Tick)));
            move || drop(timer)
        });
    }
    t
}

/// Props of [`Controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// The timeline.
    pub timeline: UseReducerHandle<Time>,
    /// What a position means, for the scrubber's label (e.g. "২৪,০০০ অনুরোধ").
    pub label: AttrValue,
}

// The controls' icons, drawn rather than typed: the served fonts have no glyph for ⏮ and ⏭
// (they showed as empty boxes), and one drawing looks the same everywhere.
const RESET: &str = "M2 3h2v10H2zM9 3v10L4 8zM14 3v10L9 8z";
const BACK: &str = "M12 3v10L5 8z";
const PLAY: &str = "M4 2.5v11l9-5.5z";
const PAUSE: &str = "M4 3h3v10H4zM9 3h3v10H9z";
const FORWARD: &str = "M3 3v10l7-5zM11 3h2v10h-2z";
const END: &str = "M2 3v10l5-5zM7 3v10l5-5zM12 3h2v10h-2z";

fn icon(d: &'static str) -> Html {
    html! {
        <svg class="tool-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
            <path d={d} fill="currentColor" />
        </svg>
    }
}

/// Play/pause, step back/forward, a scrubber, speed and reset.
#[component]
pub fn Controls(props: &ControlsProps) -> Html {
    let t = &props.timeline;
    let d = |a: TimeAction| {
        let d = t.dispatcher();
        Callback::from(move |_: MouseEvent| d.dispatch(a))
    };
    let on_seek = {
        let d = t.dispatcher();
        Callback::from(move |e: InputEvent| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlInputElement>()
                .value();
            d.dispatch(TimeAction::Seek(v.parse().unwrap_or(0)));
        })
    };
    let on_speed = {
        let d = t.dispatcher();
        Callback::from(move |e: Event| {
            let v = e
                .target_unchecked_into::<web_sys::HtmlSelectElement>()
                .value();
            d.dispatch(TimeAction::Speed(v.parse().unwrap_or(1)));
        })
    };
    let last = t.frames.saturating_sub(1);
    html! {
        <div class="lab-controls" role="group" aria-label="চালানোর নিয়ন্ত্রণ">
            <button class="tool" onclick={d(TimeAction::Reset)} title="শুরুতে ফিরুন" aria-label="রিসেট">{ icon(RESET) }</button>
            <button class="tool" onclick={d(TimeAction::Back)} disabled={t.cursor == 0} title="এক ধাপ পিছনে" aria-label="এক ধাপ পিছনে">{ icon(BACK) }</button>
            <button class={classes!("tool", "play", t.playing.then_some("on"))} onclick={d(TimeAction::Toggle)} data-testid="play"
                aria-label={if t.playing { "থামান" } else { "চালান" }}>{ icon(if t.playing { PAUSE } else { PLAY }) }</button>
            <button class="tool" onclick={d(TimeAction::Forward)} disabled={t.cursor >= last} title="এক ধাপ সামনে" aria-label="এক ধাপ সামনে">{ icon(FORWARD) }</button>
            <button class="tool" onclick={d(TimeAction::End)} disabled={t.cursor >= last} title="শেষ ফল" aria-label="শেষে যান">{ icon(END) }</button>
            <input class="scrubber" type="range" min="0" max={last.to_string()} value={t.cursor.to_string()} oninput={on_seek}
                aria-label="সময়রেখা" aria-valuetext={props.label.clone()} />
            <span class="scrub-label">{ props.label.clone() }</span>
            <select class="speed" onchange={on_speed} aria-label="গতি">
                { for [1usize, 2, 4, 8].iter().map(|s| html! { <option value={s.to_string()} selected={*s == t.speed}>{ format!("{s}×") }</option> }) }
            </select>
        </div>
    }
}

/// What a lab knows about one of its runs in the simulation worker.
#[derive(Clone, PartialEq, Default)]
pub struct RunState {
    /// Which run this is about (a new job starts a new run).
    run: u64,
    job: Option<Job>,
    started: f64,
    /// How far along, 0.0..=1.0.
    pub progress: f64,
    /// Partial results so far, in arrival order.
    pub parts: Rc<Vec<Part>>,
    /// The result, once done.
    pub done: Option<Rc<Output>>,
    /// Why the run failed, if it did.
    pub failed: Option<String>,
    /// Milliseconds from the request to the result (0 until done).
    pub millis: f64,
}

impl RunState {
    /// Still computing.
    pub fn busy(&self) -> bool {
        self.job.is_some() && self.done.is_none() && self.failed.is_none()
    }
}

/// What happens to a run.
pub enum RunAction {
    /// A new run of this job started.
    Start(u64, Job),
    /// Run `.0` said something.
    Body(u64, Body),
}

impl Reducible for RunState {
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
                match body {
                    Body::Progress(p) => s.progress = p,
                    Body::Part(part) => Rc::make_mut(&mut s.parts).push(part),
                    Body::Done(out) => {
                        s.progress = 1.0;
                        s.millis = now() - s.started;
                        s.done = Some(Rc::new(out));
                    }
                    Body::Failed(why) => s.failed = Some(why),
                    Body::Ready => {}
                }
                Rc::new(s)
            }
        }
    }
}

thread_local! {
    static RUNS: Cell<u64> = const { Cell::new(0) };
}

/// Runs `job` in the simulation worker and follows it: progress, partial results and the
/// result (`None`: nothing runs, and the state is idle). A new `job` cancels the run in
/// flight; what a cancelled run still sends is dropped, and until the new run answers the
/// state is the new run's, busy and empty (nothing stale shows).
#[hook]
pub fn use_work(job: Option<Job>) -> RunState {
    let state = use_reducer(RunState::default);
    {
        let d = state.dispatcher();
        use_effect_with(job.clone(), move |job| {
            let id = job.clone().map(|job| {
                let run = RUNS.with(|r| {
                    r.set(r.get() + 1);
                    r.get()
                });
                d.dispatch(RunAction::Start(run, job.clone()));
                super::worker::start(job, move |b| d.dispatch(RunAction::Body(run, b)))
            });
            move || {
                if let Some(id) = id {
                    super::worker::cancel(id);
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

/// Milliseconds since the page started (high resolution).
pub fn now() -> f64 {
    crate::dom::window().performance().map_or(0.0, |p| p.now())
}

/// A progress bar for a running job.
pub fn progress(p: f64) -> Html {
    html! {
        <div class="lab-progress" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow={format!("{:.0}", p * 100.0)}>
            <div class="lab-progress-fill" style={format!("width: {:.1}%", p * 100.0)}></div>
            <span>{ format!("হিসাব চলছে… {:.0}%", p * 100.0) }</span>
        </div>
    }
}

/// The progress bar of a run, or why it failed.
pub fn failed_or_progress(run: &RunState) -> Html {
    match &run.failed {
        Some(why) => html! { <p class="field-error" role="alert">{ why.clone() }</p> },
        None => progress(run.progress),
    }
}

/// A percentage with one decimal, as the seed prints it.
pub fn pct(hits: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        hits as f64 * 100.0 / of as f64
    }
}
