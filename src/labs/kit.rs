//! The lab view kit: what every lab shares, so a lab's view only draws its own picture.
//!
//! * [`use_lab`] — the preamble: the lab's parameters from its query (checked, with a message
//!   beside a bad field while the lab keeps its last good state), a setter, the preset buttons'
//!   rule (the defaults plus the preset's values, the seed kept).
//! * [`use_work`] — a run in the simulation worker, followed as it goes (progress, typed
//!   partial results, the typed result), so no main-thread task runs long; [`use_sim_live`]
//!   beside it runs the same lab against a real Redis and the simulation as its prediction.
//! * [`LabFrame`] — one frame for every lab: its picture first (on a phone the first screen),
//!   then the lead, the presets, the live panel and the form folded until opened.
//! * [`Controls`] — the transport: play, pause, step, scrub, speed and reset on a [`Timeline`].
//! * [`stat`], [`progress`] — the small pieces every lab draws the same way.

use crate::live::bar::{use_live_switch, LivePanel, LiveSwitch};
use crate::live::{use_live, ws_url, LiveRun};
use gloo_timers::callback::Interval;
use redislab_deck::bn;
use redislab_sim::labs::def::{RunDef, Steps};
use redislab_sim::labs::lab::LabInfo;
use redislab_sim::labs::log::CmdLine;
use redislab_sim::labs::params::{Kind, Params};
pub use redislab_sim::labs::ui::{Open, ParamState, TimeAction, Timeline};
use redislab_sim::labs::work::{Body, Job};
use serde::de::DeserializeOwned;
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

/// What changes a lab's form.
pub enum FormAction {
    /// A field and what was typed into it.
    Set(&'static str, String),
    /// A preset's button.
    Preset(&'static str),
}

impl Reducible for Form {
    type Action = FormAction;

    fn reduce(self: Rc<Self>, action: FormAction) -> Rc<Self> {
        Rc::new(Form(match action {
            FormAction::Set(key, value) => self.0.apply(key, value),
            FormAction::Preset(id) => self.0.preset(id),
        }))
    }
}

/// A lab as its view starts from it: what the lab is, its parameters and how to change them.
#[derive(Clone, PartialEq)]
pub struct LabState {
    /// What the lab is.
    pub info: &'static LabInfo,
    /// The form: the last good values (what the lab shows), drafts and messages.
    pub form: ParamState,
    /// Set a field from what was typed (applied to the newest state, so several sets in one
    /// event all count).
    pub set: Callback<(&'static str, String)>,
    /// Choose a preset.
    pub preset: Callback<&'static str>,
    /// Drawn inside a slide.
    pub embedded: bool,
    /// The query it was opened with (a deck's preset, a link).
    pub query: AttrValue,
}

impl LabState {
    /// The last good parameters.
    pub fn params(&self) -> &Params {
        &self.form.good
    }

    /// The last good parameters as the lab's typed struct.
    pub fn typed<T: DeserializeOwned>(&self) -> T {
        self.form.good.typed()
    }

    /// The lab's main run of the current parameters.
    pub fn job(&self) -> Job {
        Job::new(self.info, &self.form.good)
    }
}

/// The preamble every lab view starts with: lab `info`'s parameters from the query it was
/// opened with. Its page hears the query of every new good state (not the first).
#[hook]
pub fn use_lab(info: &'static LabInfo, props: &LabProps) -> LabState {
    let q = props.query.to_string();
    let on_query = props.on_query.clone();
    let state = use_reducer(move || Form(ParamState::from_query(info, &q)));
    let mounted = use_mut_ref(|| false);
    use_effect_with(state.good.to_query(), move |q| {
        // The first run is the query we were given: nothing to tell.
        if std::mem::replace(&mut *mounted.borrow_mut(), true) {
            on_query.emit(q.clone());
        }
    });
    let set = {
        let d = state.dispatcher();
        Callback::from(move |(k, v): (&'static str, String)| d.dispatch(FormAction::Set(k, v)))
    };
    let preset = {
        let d = state.dispatcher();
        Callback::from(move |id: &'static str| d.dispatch(FormAction::Preset(id)))
    };
    LabState {
        info,
        form: state.0.clone(),
        set,
        preset,
        embedded: props.embedded,
        query: props.query.clone(),
    }
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
                    Kind::Choice { words, labels } => {
                        let set = props.set.clone();
                        let onchange = Callback::from(move |e: Event| {
                            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
                            set.emit((key, v));
                        });
                        html! {
                            <select id={id.clone()} {onchange} aria-invalid={err.is_some().to_string()}>
                                { for words.iter().enumerate().map(|(i, w)| html! { <option value={*w} selected={*w == value}>{ labels.get(i).copied().unwrap_or(w) }</option> }) }
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

/// Where the address asked a lab's timeline to open (`at=`, see
/// [`redislab_sim::labs::ui::split_open`]): the labs module provides it around the lab it draws.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct AskedOpen(pub Option<Open>);

/// A timeline of `frames` positions that plays at `tick_ms` per step while playing, and opens
/// at `open` whenever a run of more than one position arrives — except the first, which opens
/// where the address asked, if it did ([`AskedOpen`]: "show me" on a practice question).
#[hook]
pub fn use_timeline(frames: usize, tick_ms: u32, open: Open) -> UseReducerHandle<Time> {
    let t = use_reducer(|| Time(Timeline::new(frames)));
    let asked = use_context::<AskedOpen>().and_then(|a| a.0);
    let first = use_mut_ref(|| true);
    {
        let d = t.dispatcher();
        use_effect_with((frames, open), move |&(n, open)| {
            d.dispatch(TimeAction::Frames(n));
            if n > 1 {
                let asked = asked.filter(|_| std::mem::replace(&mut *first.borrow_mut(), false));
                if let Some(a) = asked.unwrap_or(open).action() {
                    d.dispatch(a);
                }
            }
        });
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

/// A timeline over the steps of `out` (the lab's output: `redislab_sim::labs::def::Steps`,
/// the one convention — position 0 before the first step, the last the whole run), as
/// [`use_timeline`] plays and opens it; one position while there is no output.
#[hook]
pub fn use_steps<O: Steps>(out: Option<&O>, tick_ms: u32, open: Open) -> UseReducerHandle<Time> {
    use_timeline(out.map_or(1, Steps::positions), tick_ms, open)
}

/// Props of [`Controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// The timeline.
    pub timeline: UseReducerHandle<Time>,
    /// What a position means, for the scrubber's label (e.g. "২৪,০০০ রিকোয়েস্ট").
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

/// [`SimLive`] for `lab`: `live_ok` says whether these parameters speak Redis at all (the
/// broadcast lab's naive loop does not); `predict_scaled` runs the simulation on the live
/// run's scaled parameters while live (off for a lab whose live output carries its own
/// prediction). A live run that could not start leaves the lab simulating its own numbers.
#[hook]
pub fn use_sim_live<O>(lab: &LabState, live_ok: bool, predict_scaled: bool) -> SimLive<O>
where
    O: DeserializeOwned + PartialEq + 'static,
{
    let switch = use_live_switch();
    let on = *switch.on && !lab.embedded && lab.info.live && live_ok;
    let scaled = lab.job().scaled(*switch.scale);
    let live = use_live::<O>(on.then(|| scaled.clone().live(ws_url())), *switch.attempt);
    let sim_job = if on && predict_scaled && (live.failed.is_none() || live.got) {
        scaled
    } else {
        lab.job()
    };
    let sim = use_work::<(), O>(Some(sim_job));
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

/// Props of [`LabFrame`].
#[derive(Properties, PartialEq)]
pub struct LabFrameProps {
    /// The lab.
    pub lab: LabState,
    /// Still computing (`aria-busy`).
    #[prop_or_default]
    pub busy: bool,
    /// What the lab shows, a sentence or two (on its own page).
    #[prop_or_default]
    pub lead: Html,
    /// The live panel (its own page, labs that speak Redis).
    #[prop_or_default]
    pub live: Html,
    /// What goes under the form (notes, scripts) on its own page.
    #[prop_or_default]
    pub after: Html,
    /// Show every field in the folded form (the LRU lab draws its own few fields).
    #[prop_or(true)]
    pub form: bool,
    /// The preset buttons inside a slide too (a lab with many presets leaves them to its page).
    #[prop_or(true)]
    pub slide_presets: bool,
    /// Inside a slide, the frame draws the link to the whole lab under the picture (a view
    /// that has a better place for it in its own layout draws [`open_full`] itself).
    #[prop_or(true)]
    pub link: bool,
    /// The picture and its transport.
    pub children: Html,
}

/// One frame for every lab. The lab comes first: its picture and transport, then the presets
/// (with what the chosen one shows), the live panel and every field folded until opened (or
/// while a field holds a message). Inside a slide: the picture, the presets and a link to the
/// whole lab with these parameters.
#[component]
pub fn LabFrame(props: &LabFrameProps) -> Html {
    let lab = &props.lab;
    let info = lab.info;
    let embedded = lab.embedded;
    let open = use_state_eq(|| false);
    let current = lab.params().preset().map(|p| p.id);
    let presets = (!info.presets.is_empty() && (props.slide_presets || !embedded)).then(|| {
        html! {
            <div class="lab-presets" role="group" aria-label="প্রিসেট">
                <span class="lab-presets-label">{"প্রিসেট:"}</span>
                { for info.presets.iter().map(|pr| {
                    let choose = lab.preset.clone();
                    let on = current == Some(pr.id);
                    let id = pr.id;
                    html! {
                        <button class={classes!("tool", "lab-preset", on.then_some("on"))} aria-pressed={on.to_string()}
                            data-preset={id} title={pr.about} onclick={Callback::from(move |_: MouseEvent| choose.emit(id))}>{ pr.label }</button>
                    }
                }) }
            </div>
        }
    });
    let about = current
        .and_then(|id| info.presets.iter().find(|p| p.id == id))
        .filter(|_| !embedded)
        .map(|pr| html! { <p class="lab-about">{ pr.about }</p> });
    let has_errors = !lab.form.errors.is_empty();
    // The fields are drawn only while the box is open (or holds a message): closed, they
    // are many elements built on every opening for nobody.
    let show = has_errors || *open;
    let on_toggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            open.set(
                e.target_unchecked_into::<web_sys::Element>()
                    .has_attribute("open"),
            );
        })
    };
    html! {
        <div class={classes!("lab", format!("lab-{}", info.id), embedded.then_some("embedded"))} data-lab={info.id} aria-busy={props.busy.to_string()}>
            <div class="lab-picture">{ props.children.clone() }</div>
            if !embedded && props.lead != Html::default() {
                <p class="lab-lead">{ props.lead.clone() }</p>
            }
            <div class="lab-choose">
                { presets.unwrap_or_default() }
                if embedded && props.link { { open_full(lab) } }
            </div>
            { about.unwrap_or_default() }
            if !embedded {
                { props.live.clone() }
                if props.form {
                    <details class="lab-form-box" open={show} ontoggle={on_toggle}>
                        <summary>{"সব প্যারামিটার — প্রতিটা সংখ্যা বদলানো যায়"}</summary>
                        if show { <ParamForm state={lab.form.clone()} set={lab.set.clone()} /> }
                    </details>
                }
                { props.after.clone() }
            }
        </div>
    }
}

/// Props of [`CmdLog`].
#[derive(Properties, PartialEq)]
pub struct CmdLogProps {
    /// The lines shown, each with the classes of its row (the lab's: who sent it, what it did).
    pub lines: Vec<(CmdLine, Classes)>,
    /// The lab's id: the list is `data-testid="<lab>-log"`, a round trip `<lab>-rtt`.
    pub lab: &'static str,
    /// A live run's log (each line with its round trip).
    #[prop_or_default]
    pub live: bool,
    /// Times in seconds with one decimal (`১.২ s`); otherwise in milliseconds (`১২৩ ms`).
    #[prop_or_default]
    pub secs: bool,
    /// The lab's own class for the list.
    #[prop_or_default]
    pub class: Classes,
    /// What an empty log says.
    #[prop_or_default]
    pub empty: Option<AttrValue>,
    /// The whole log's commands counted by name (`GET 140 SET 25`), as `data-by-command`:
    /// what a live test compares with the real Redis' command statistics (the lines shown
    /// may be fewer).
    #[prop_or_default]
    pub by_command: Option<AttrValue>,
}

/// The command log every lab that speaks Redis draws: when, who, the command as redis-cli
/// echoes it, Redis' reply as redis-cli prints it (or why there was none), a live run's round
/// trip, the lab's note. The one place a command and a reply become text.
#[component]
pub fn CmdLog(props: &CmdLogProps) -> Html {
    let label = if props.live {
        "আসল Redis-এ পাঠানো কমান্ড, তার উত্তর আর আসা-যাওয়ার সময়"
    } else {
        "Redis-এ পাঠানো কমান্ড"
    };
    html! {
        <ol class={classes!("cmd-log", props.class.clone(), props.live.then_some("live"))} aria-label={label} data-testid={format!("{}-log", props.lab)}
            data-by-command={props.by_command.clone()}>
            { for props.lines.iter().map(|(l, cls)| {
                let cmd = l.cmd_text();
                let reply = l.reply_text();
                html! {
                    <li class={classes!(cls.clone(), (!l.note.is_empty()).then_some("noted"))}>
                        <span class="cmd-log-t">{ if props.secs {
                            bn::text(&format!("{:.1} s", l.at_ms as f64 / 1000.0))
                        } else {
                            format!("{} ms", bn::text(&l.at_ms.to_string()))
                        } }</span>
                        <span class="cmd-log-who">{ &l.actor }</span>
                        if l.cmd.is_empty() {
                            <span class="cmd-log-note">{ &l.note }</span>
                        } else {
                            <code class="cmd-log-cmd" title={cmd.clone()}>{ cmd }</code>
                            <code class={classes!("cmd-log-reply", l.reply.is_err().then_some("none"))} title={reply.clone()}>{ format!("→ {reply}") }</code>
                            if let Some(us) = l.rtt_us {
                                <span class="cmd-log-rtt" data-testid={format!("{}-rtt", props.lab)} title="আসা-যাওয়ার সময় (round trip)">{ format!("{:.2} ms", f64::from(us) / 1000.0) }</span>
                            }
                        }
                    </li>
                }
            }) }
            if props.lines.is_empty() {
                if let Some(e) = props.empty.clone() { <li class="cmd-log-empty">{ e }</li> }
            }
        </ol>
    }
}

/// The link from an embedded lab to its own page with its current parameters.
pub fn open_full(lab: &LabState) -> Html {
    super::open_full(lab.info.id, &lab.params().to_query())
}

/// One number of a lab: a label, the value (Bengali digits, Indian grouping) and, when `bad`
/// and not zero, the warning colour. `data-testid` is `<lab>-<key>`, `data-figure` the key
/// (the figure of the lab's output it shows: `redislab_sim::labs::def::Figures`), `data-n`
/// the number.
pub fn stat(lab: &str, key: &'static str, label: &'static str, v: u64, bad: bool) -> Html {
    let shown = bn::grouped(i64::try_from(v).unwrap_or(i64::MAX));
    figure(lab, key, html! { label }, v as f64, shown, bad && v > 0)
}

/// A number with its own text (a decimal, a time): like [`stat`], `data-n` the value.
pub fn stat_f(lab: &str, key: &'static str, label: impl Into<Html>, v: f64, shown: String) -> Html {
    figure(lab, key, label.into(), v, shown, false)
}

fn figure(lab: &str, key: &'static str, label: Html, v: f64, shown: String, bad: bool) -> Html {
    html! {
        <div class={classes!("lab-stat", key, bad.then_some("bad"))}>
            <dt>{ label }</dt>
            <dd data-testid={format!("{lab}-{key}")} data-figure={key} data-n={v.to_string()}>{ shown }</dd>
        </div>
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
pub fn failed_or_progress<P, O>(run: &RunState<P, O>) -> Html {
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
