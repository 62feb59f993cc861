//! The speaker window (`#/<deck>/<n>/speaker`, opened with S): the current slide with what is
//! still to be revealed shown faintly, the next view, the time since the talk started and a
//! clock on the left; the current slide's whole script on the right, in the largest type that
//! lets all of it be read at a glance (no scrolling while talking). Keys and clicks here move
//! the audience's window too.

use crate::deck::control::{use_deck_control, DeckViewProps};
use crate::deck::slide::SlideView;
use crate::dom;
use gloo_timers::callback::Interval;
use redislab_deck::nav::Action;
use redislab_deck::{bn, Deck};
use yew::prelude::*;

/// Milliseconds since the page started (monotonic).
fn now_ms() -> f64 {
    dom::window().performance().map_or(0.0, |p| p.now())
}

/// `mm:ss` (or `h:mm:ss`) in Bengali digits.
fn clock_text(total_s: u64) -> String {
    let (h, m, s) = (total_s / 3600, total_s / 60 % 60, total_s % 60);
    if h > 0 {
        format!(
            "{}:{}:{}",
            bn::digits(h as usize, 1),
            bn::digits(m as usize, 2),
            bn::digits(s as usize, 2)
        )
    } else {
        format!(
            "{}:{}",
            bn::digits(m as usize, 2),
            bn::digits(s as usize, 2)
        )
    }
}

/// The speaker's view of a deck.
#[component]
pub fn Speaker(props: &DeckViewProps) -> Html {
    let deck: &'static Deck = props.deck.0;
    let len = deck.slides.len();
    let ctl = use_deck_control(props, true);
    let p = &ctl.player;
    let started = use_state(now_ms);
    let script_box = use_node_ref();
    // The script's type fits its column, again at every slide, when the window is resized and
    // once the web fonts are in.
    {
        let script_box = script_box.clone();
        use_effect_with(p.index, move |_| {
            fit_script(&script_box);
            let again = script_box.clone();
            let resize = dom::Listener::new(&dom::window(), "resize", move |_| fit_script(&again));
            let again = script_box.clone();
            dom::when_fonts_ready(move || fit_script(&again));
            move || drop(resize)
        });
    }
    let now = use_state(now_ms);
    {
        let now = now.clone();
        use_effect_with((), move |_| {
            let t = Interval::new(1_000, move || now.set(now_ms()));
            move || drop(t)
        });
    }
    use_effect_with(p.index, move |i| {
        dom::document().set_title(&format!("স্পিকার · {} · Redis Lab", bn::counter(*i, len)))
    });
    let elapsed = ((*now - *started).max(0.0) / 1000.0) as u64;
    let wall = {
        let d = js_date();
        format!("{}:{}", bn::digits(d.0, 2), bn::digits(d.1, 2))
    };
    let reset = {
        let started = started.clone();
        Callback::from(move |_: MouseEvent| started.set(now_ms()))
    };
    let act = |a: Action| ctl.go.reform(move |_: MouseEvent| a);
    let slide = &deck.slides[p.index];
    let next = p.next_position();
    html! {
        <div class="speaker">
            <header class="speaker-head">
                <span class="brand"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" স্পিকার"}</span>
                <span class="deck-name">{ deck.title.as_ref() }</span>
                <span class="counter" data-testid="counter">{ bn::counter(p.index, len) }</span>
                if p.steps_here() > 0 {
                    <span class="speaker-step">{ format!("ধাপ {} / {}", bn::digits(p.step, 1), bn::digits(p.steps_here(), 1)) }</span>
                }
                if p.blank.is_some() {
                    <span class="speaker-blank">{"পর্দা বন্ধ"}</span>
                }
                <span class="speaker-time" title="শুরু থেকে কত সময়">{"⏱ "}<span data-testid="elapsed">{ clock_text(elapsed) }</span></span>
                <button class="tool" onclick={reset}>{"সময় আবার শূন্য থেকে"}</button>
                <span class="speaker-clock" title="এখন">{ wall }</span>
                <crate::class::slot::SpeakerCount deck={deck.id.to_string()} />
            </header>
            <main class="speaker-main">
                <section class="speaker-now" aria-label="এখনকার স্লাইড">
                    <div class="thumb speaker-stage"><SlideView key={p.index} slide={slide} step={p.step} /></div>
                </section>
                <section class="speaker-next" aria-label="পরের ধাপ">
                    <p class="speaker-label">{"এরপর"}</p>
                    if let Some((i, k)) = next {
                        <div class="thumb"><SlideView key={i} slide={&deck.slides[i]} step={k} /></div>
                        <p class="speaker-next-title">{ if i == p.index { "একই স্লাইডের পরের ধাপ".to_string() } else { deck.slides[i].title_text() } }</p>
                    } else {
                        <p class="speaker-end">{"শেষ স্লাইড"}</p>
                    }
                    <div class="speaker-nav">
                        <button class="button" onclick={act(Action::Prev)} aria-disabled={p.at_start().to_string()}>{"← আগে"}</button>
                        <button class="button primary" onclick={act(Action::Next)} aria-disabled={p.at_end().to_string()}>{"পরে →"}</button>
                    </div>
                </section>
                <section class="speaker-script" aria-label="স্ক্রিপ্ট" tabindex="0" ref={script_box}>
                    <p class="speaker-script-head">
                        {"স্ক্রিপ্ট · "}{ bn::counter(p.index, len) }
                        if p.steps_here() > 0 {
                            { format!(" · ধাপ {} / {}", bn::digits(p.step, 1), bn::digits(p.steps_here(), 1)) }
                        }
                    </p>
                    <p class="script-text">{ slide.script.as_ref() }</p>
                </section>
            </main>
        </div>
    }
}

/// Sets the script's type (`--script-size` on its box) to the largest size, between
/// [`SCRIPT_MIN_PX`] and [`SCRIPT_MAX_PX`], at which the whole script fits its box: a few
/// layouts of one paragraph, in the speaker window only. What still does not fit at the
/// smallest size scrolls.
fn fit_script(node: &NodeRef) {
    let Some(el) = node.cast::<web_sys::HtmlElement>() else {
        return;
    };
    let style = el.style();
    let set = |px: f64| {
        let _ = style.set_property("--script-size", &format!("{}px", dom::fixed(px, 1)));
    };
    let fits = || el.scroll_height() <= el.client_height();
    set(SCRIPT_MAX_PX);
    if fits() {
        return;
    }
    let (mut lo, mut hi) = (SCRIPT_MIN_PX, SCRIPT_MAX_PX);
    for _ in 0..7 {
        let mid = (lo + hi) / 2.0;
        set(mid);
        if fits() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    set(lo);
}

/// The script's largest type: read from a step back, as the slide is.
const SCRIPT_MAX_PX: f64 = 34.0;
/// Its smallest: still read at arm's length.
const SCRIPT_MIN_PX: f64 = 16.0;

/// The local time of day (hours, minutes), from the browser's clock.
fn js_date() -> (usize, usize) {
    let d = js_sys::Date::new_0();
    (d.get_hours() as usize, d.get_minutes() as usize)
}
