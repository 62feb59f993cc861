//! The transport: a lab's timeline (play, step, scrub, speed, where it opens) and its
//! controls.

use gloo_timers::callback::Interval;
use redislab_sim::labs::def::Steps;
use redislab_sim::labs::ui::{Open, TimeAction, Timeline};
use std::rc::Rc;
use yew::prelude::*;

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
