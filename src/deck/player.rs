//! The deck player: one slide on a 16:9 stage, driven from the keyboard (← → PageUp/PageDown
//! Space Home/End, A autoplay, N script, F fullscreen, O overview, ? help), by touch swipes and
//! by the buttons. The state machine lives in `redislab_deck::nav`; this file wires it to the
//! browser.

use crate::data::DECKS;
use crate::deck::slide::SlideView;
use crate::dom;
use gloo_timers::callback::Timeout;
use redislab_deck::nav::{self, Action, Command, Mods};
use redislab_deck::{bn, route, Deck};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Props of [`Player`].
#[derive(Properties, PartialEq)]
pub struct PlayerProps {
    /// Index of the deck in [`DECKS`].
    pub deck: usize,
    /// 0-based slide the address names.
    pub index: usize,
    /// Called with (deck, slide) when the player moves, so the address follows.
    pub on_navigate: Callback<(usize, usize)>,
}

#[derive(Clone, PartialEq)]
struct State(nav::Player);

impl Reducible for State {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let next = self.0.clone().with(action);
        if next == self.0 {
            self
        } else {
            Rc::new(State(next))
        }
    }
}

/// The player for one deck.
#[component]
pub fn Player(props: &PlayerProps) -> Html {
    let deck: &'static Deck = &DECKS[props.deck];
    let len = deck.slides.len();
    let state = use_reducer(|| State(nav::Player::new(len, props.index)));
    let p = &state.0;
    let fullscreen = use_state(dom::is_fullscreen);
    let stage = use_node_ref();
    let touch = use_mut_ref(|| None::<(f64, f64)>);

    // Every action goes through `go`: it moves the address in the same task as the key press
    // (so an immediate Back or reload sees it), then updates the state. `mirror` holds the state
    // including actions not yet rendered, so fast key repeats compute from the newest slide.
    let mirror = use_mut_ref(|| p.clone());
    *mirror.borrow_mut() = p.clone();
    let go = {
        let (mirror, dispatch, deck_i, on_navigate) = (
            mirror.clone(),
            state.dispatcher(),
            props.deck,
            props.on_navigate.clone(),
        );
        Callback::from(move |a: Action| {
            let next = mirror.borrow().clone().with(a);
            let moved = next.index != mirror.borrow().index;
            *mirror.borrow_mut() = next.clone();
            dispatch.dispatch(a);
            if moved {
                on_navigate.emit((deck_i, next.index));
            }
        })
    };
    // The address changed (back/forward, a typed link): follow it.
    {
        let go = go.clone();
        use_effect_with(props.index, move |&i| go.emit(Action::Goto(i)));
    }
    // Title of the tab.
    {
        let title = format!(
            "{} · {} · Redis Lab",
            deck.slides[p.index].title_text(),
            bn::counter(p.index, len)
        );
        use_effect_with(title, |t| dom::document().set_title(t));
    }
    // Keyboard.
    {
        let (go, fullscreen) = (go.clone(), fullscreen.clone());
        use_effect_with((), move |_| {
            let doc = dom::document();
            let keys = dom::Listener::new(&doc, "keydown", move |e: web_sys::Event| {
                let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if dom::typing_into(&e) || dom::activates_control(&e, &k.key()) {
                    return;
                }
                let mods = Mods {
                    shift: k.shift_key(),
                    command: k.ctrl_key() || k.alt_key() || k.meta_key(),
                };
                match nav::key_command(&k.key(), mods) {
                    Some(Command::Nav(a)) => {
                        // Space and arrows would otherwise scroll; Escape stays the browser's too.
                        if a != Action::Close {
                            e.prevent_default();
                        } else if dom::is_fullscreen() {
                            // Browsers leave fullscreen on Esc themselves; where a key reaches
                            // the page instead (some kiosks, automation), leave it here.
                            dom::toggle_fullscreen();
                        }
                        go.emit(a);
                    }
                    Some(Command::Fullscreen) => {
                        e.prevent_default();
                        dom::toggle_fullscreen();
                    }
                    None => {}
                }
            });
            let fs = dom::Listener::new(&doc, "fullscreenchange", move |_| {
                fullscreen.set(dom::is_fullscreen())
            });
            move || drop((keys, fs))
        });
    }
    // Autoplay: after the slide's script has had time to be said, go on.
    {
        let go = go.clone();
        let ms = nav::autoplay_ms(&deck.slides[p.index].script);
        use_effect_with((p.autoplay, p.index), move |&(on, _)| {
            let timer = on.then(|| Timeout::new(ms, move || go.emit(Action::Tick)));
            move || drop(timer)
        });
    }
    // Fit: shrink the type a little when a dense slide would overflow the stage.
    {
        let stage = stage.clone();
        use_effect_with((p.index, p.script, *fullscreen), move |_| fit(&stage));
    }
    {
        let stage = stage.clone();
        use_effect_with((), move |_| {
            let l = dom::Listener::new(&dom::window(), "resize", move |_| fit(&stage));
            move || drop(l)
        });
    }

    let act = |a: Action| go.reform(move |_: MouseEvent| a);
    let on_touch_start = {
        let touch = touch.clone();
        Callback::from(move |e: TouchEvent| {
            if let Some(t) = e.touches().get(0) {
                *touch.borrow_mut() = Some((t.client_x() as f64, t.client_y() as f64));
            }
        })
    };
    let on_touch_end = {
        let (touch, go) = (touch.clone(), go.clone());
        Callback::from(move |e: TouchEvent| {
            let start = touch.borrow_mut().take();
            if let (Some((x0, y0)), Some(t)) = (start, e.changed_touches().get(0)) {
                if let Some(a) = nav::swipe(t.client_x() as f64 - x0, t.client_y() as f64 - y0) {
                    go.emit(a);
                }
            }
        })
    };
    let slide = &deck.slides[p.index];
    let counter = bn::counter(p.index, len);
    let progress = format!("width: {:.3}%", (p.index + 1) as f64 * 100.0 / len as f64);
    let autoplay_style = format!("animation-duration: {}ms", nav::autoplay_ms(&slide.script));

    html! {
        <div class={classes!("player", p.script.then_some("with-script"), (*fullscreen).then_some("is-fullscreen"))}>
            <header class="topbar">
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{ deck.title.as_ref() }</span>
                <nav class="tools" aria-label="প্রেজেন্টেশনের নিয়ন্ত্রণ">
                    <button class={classes!("tool", p.overview.then_some("on"))} onclick={act(Action::ToggleOverview)} aria-pressed={p.overview.to_string()} title="সব স্লাইড (O)">{"▦"}<span class="tool-label">{" সব স্লাইড"}</span></button>
                    <button class={classes!("tool", p.script.then_some("on"))} onclick={act(Action::ToggleScript)} aria-pressed={p.script.to_string()} title="প্রেজেন্টারের স্ক্রিপ্ট (N)">{"✎"}<span class="tool-label">{" স্ক্রিপ্ট"}</span></button>
                    <button class={classes!("tool", p.autoplay.then_some("on"))} onclick={act(Action::ToggleAutoplay)} aria-pressed={p.autoplay.to_string()} title="অটোপ্লে (A)">{ if p.autoplay { "❚❚" } else { "▶" } }<span class="tool-label">{" অটোপ্লে"}</span></button>
                    <button class={classes!("tool", (*fullscreen).then_some("on"))} onclick={Callback::from(|_| dom::toggle_fullscreen())} aria-pressed={fullscreen.to_string()} title="ফুলস্ক্রিন (F)">{"⛶"}<span class="tool-label">{" ফুলস্ক্রিন"}</span></button>
                    <button class={classes!("tool", p.help.then_some("on"))} onclick={act(Action::ToggleHelp)} aria-pressed={p.help.to_string()} title="কি-বোর্ড শর্টকাট (?)">{"?"}</button>
                </nav>
            </header>
            <main class="stage-wrap" ontouchstart={on_touch_start} ontouchend={on_touch_end}>
                <section class="stage" aria-roledescription="স্লাইড" aria-label={format!("স্লাইড {counter}")}>
                    <SlideView key={p.index} slide={slide} node={stage.clone()} live=true />
                </section>
            </main>
            if p.script {
                <aside class="script" aria-label="প্রেজেন্টারের স্ক্রিপ্ট">
                    <p class="script-head">{"স্ক্রিপ্ট · "}{ counter.clone() }</p>
                    <p class="script-text">{ slide.script.as_ref() }</p>
                </aside>
            }
            <footer class="bar">
                <button class="nav-btn" onclick={act(Action::Prev)} disabled={p.index == 0} aria-label="আগের স্লাইড">{"←"}</button>
                <div class="bar-mid">
                    <span class="counter" data-testid="counter">{ counter.clone() }</span>
                    <div class="progress" role="progressbar" aria-label="অগ্রগতি" aria-valuemin="1" aria-valuemax={len.to_string()} aria-valuenow={(p.index + 1).to_string()}>
                        <div class="progress-fill" style={progress}></div>
                    </div>
                    if p.autoplay {
                        <span class="autoplay-on" data-testid="autoplay" title="অটোপ্লে চলছে — যেকোনো কি চাপলে থামবে">
                            {"▶ অটোপ্লে"}
                            <span class="autoplay-clock"><span key={p.index} class="autoplay-fill" style={autoplay_style}></span></span>
                        </span>
                    }
                    <span class="key-hint">{"← → স্লাইড · A অটোপ্লে · N স্ক্রিপ্ট · F ফুলস্ক্রিন · ? সাহায্য"}</span>
                </div>
                <button class="nav-btn" onclick={act(Action::Next)} disabled={p.index + 1 == len} aria-label="পরের স্লাইড">{"→"}</button>
            </footer>
            <div class="sr-only" aria-live="polite" aria-atomic="true">
                { format!("স্লাইড {}: {}", counter, slide.title_text()) }
            </div>
            if p.overview {
                <div class="overlay overview" role="dialog" aria-modal="true" aria-label="সব স্লাইড">
                    <div class="overlay-head">
                        <h2>{ deck.title.as_ref() }{" — সব স্লাইড"}</h2>
                        <button class="tool" onclick={act(Action::Close)} aria-label="বন্ধ করুন">{"✕"}</button>
                    </div>
                    <ol class="overview-grid">
                        { for deck.slides.iter().enumerate().map(|(i, s)| {
                            let go = go.clone();
                            let href = route::slide_hash(&deck.id, i);
                            let onclick = Callback::from(move |e: MouseEvent| { e.prevent_default(); go.emit(Action::Goto(i)); });
                            html! {
                                <li class={classes!("overview-item", (i == p.index).then_some("current"))}>
                                    <a href={href} {onclick} data-slide={(i + 1).to_string()}>
                                        <div class="thumb" aria-hidden="true"><SlideView slide={s} /></div>
                                        <span class="overview-label">{ bn::digits(i + 1, 2) }{" · "}{ s.title_text() }</span>
                                    </a>
                                </li>
                            }
                        }) }
                    </ol>
                </div>
            }
            if p.help {
                <div class="overlay help" role="dialog" aria-modal="true" aria-label="কি-বোর্ড শর্টকাট">
                    <div class="help-card">
                        <div class="overlay-head">
                            <h2>{"কি-বোর্ড শর্টকাট"}</h2>
                            <button class="tool" onclick={act(Action::Close)} aria-label="বন্ধ করুন">{"✕"}</button>
                        </div>
                        <dl class="keys">
                            { for HELP.iter().map(|(k, what)| html! { <div class="key-row"><dt>{ for k.split(' ').map(|k| html! { <kbd>{k}</kbd> }) }</dt><dd>{ *what }</dd></div> }) }
                        </dl>
                    </div>
                </div>
            }
        </div>
    }
}

const HELP: &[(&str, &str)] = &[
    ("→ PageDown Space", "পরের স্লাইড"),
    ("← PageUp Shift+Space", "আগের স্লাইড"),
    ("Home End", "প্রথম / শেষ স্লাইড"),
    ("A", "অটোপ্লে চালু / বন্ধ — হাতে স্লাইড বদলালে থেমে যায়"),
    ("N", "প্রেজেন্টারের স্ক্রিপ্ট দেখান / লুকান"),
    ("F", "ফুলস্ক্রিন (Esc চাপলে বেরিয়ে আসবে)"),
    ("O", "সব স্লাইডের ওভারভিউ — ক্লিক করে যেকোনোটায় যান"),
    ("?", "এই সাহায্য"),
    ("Esc", "খোলা প্যানেল বন্ধ"),
];

/// Shrinks the slide's type (the `--fit` variable) until its content fits the stage. Text
/// height scales about linearly with the type, so one measurement gives a close guess; a
/// second pass corrects what wrapping changed. At most three layouts, usually one.
fn fit(node: &NodeRef) {
    let Some(el) = node.cast::<web_sys::HtmlElement>() else {
        return;
    };
    // A slide with a live lab scrolls instead: its height changes as the lab computes.
    if el.class_list().contains("has-lab") {
        return;
    }
    let style = el.style();
    let _ = style.set_property("--fit", "1");
    let mut f = 1.0_f64;
    for _ in 0..2 {
        let (need, have) = (f64::from(el.scroll_height()), f64::from(el.client_height()));
        if need <= have + 1.0 || have <= 0.0 {
            return;
        }
        // Padding does not shrink with the type; aim a little under.
        f = (f * have / need * 0.97).max(0.6);
        let _ = style.set_property("--fit", &format!("{f:.3}"));
    }
}
