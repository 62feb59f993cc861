//! The deck player: one slide on a 16:9 stage, driven from the keyboard (← → PageUp/PageDown
//! Space Home/End, A autoplay, N script, F fullscreen, S speaker window, B/W blank, digits +
//! Enter or G to jump, L laser pointer, O overview, ? help), by touch swipes and by the
//! buttons. The state machine lives in `redislab_deck::nav`; `control.rs` wires it to the
//! browser; this file draws the audience's view.

use crate::deck::control::{open_speaker, use_deck_control, DeckViewProps};
use crate::deck::slide::SlideView;
use crate::dom;
use gloo_timers::callback::Timeout;
use redislab_deck::nav::{self, Action, Blank};
use redislab_deck::{bn, route, Deck};
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The player for one deck.
#[component]
pub fn Player(props: &DeckViewProps) -> Html {
    let deck: &'static Deck = props.deck.0;
    let len = deck.slides.len();
    let ctl = use_deck_control(props, false);
    let p = &ctl.player;
    let go = ctl.go.clone();
    let fullscreen = use_state(dom::is_fullscreen);
    let stage = use_node_ref();
    let opener = use_mut_ref(|| None::<web_sys::HtmlElement>);
    let dot = use_node_ref();
    let goto_error = use_state_eq(|| None::<String>);

    // Title of the tab.
    {
        let title = format!(
            "{} · {} · Redis Lab",
            deck.slides[p.index].title_text(),
            bn::counter(p.index, len)
        );
        use_effect_with(title, |t| dom::document().set_title(t));
    }
    {
        let fullscreen = fullscreen.clone();
        use_effect_with((), move |_| {
            let fs = dom::Listener::new(&dom::document(), "fullscreenchange", move |_| {
                fullscreen.set(dom::is_fullscreen())
            });
            move || drop(fs)
        });
    }
    // A dialog takes focus when it opens and gives it back to what had it when it closes.
    let modal = p.overview || p.help || p.goto;
    {
        let opener = opener.clone();
        let which = (p.overview, p.help, p.goto);
        use_effect_with(which, move |&(overview, help, goto)| {
            if overview || help || goto {
                let css = if overview {
                    ".overview-item.current a"
                } else if goto {
                    "input"
                } else {
                    ".overlay-head button"
                };
                let mut o = opener.borrow_mut();
                if o.is_none() {
                    *o = dom::focused();
                }
                dom::focus_in_dialog(css);
            } else if let Some(el) = opener.borrow_mut().take() {
                let _ = el.focus();
            }
        });
    }
    // The overview: the selected thumbnail has focus; the grid's columns are measured for ↑ ↓.
    {
        let go = go.clone();
        use_effect_with((p.overview, p.selected), move |&(open, sel)| {
            if open {
                go.emit(Action::Columns(dom::grid_columns(".overview-grid")));
                dom::focus_in_dialog(&format!(".overview-item:nth-child({}) a", sel + 1));
            }
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
    // The next slide holds a lab: fetch the labs module once this one has been on screen a
    // moment, so the lab draws at once when the presenter gets there.
    {
        let soon = deck.slides.get(p.index + 1).is_some_and(|s| s.has_lab());
        use_effect_with((p.index, soon), move |&(_, soon)| {
            let ms = crate::labs::host::prefetch_delay_ms();
            let timer = soon.then(|| Timeout::new(ms, crate::labs::host::prefetch));
            move || drop(timer)
        });
    }
    // Fit: a short slide is set larger, a dense one that would overflow a little smaller —
    // again once the web fonts are in, since the fallback font measures differently.
    {
        let stage = stage.clone();
        use_effect_with((p.index, p.script, *fullscreen), move |_| {
            fit(&stage);
            dom::when_fonts_ready(move || fit(&stage));
        });
    }
    {
        let stage = stage.clone();
        use_effect_with((), move |_| {
            let l = dom::Listener::new(&dom::window(), "resize", move |_| fit(&stage));
            move || drop(l)
        });
    }
    // The laser pointer follows the mouse without re-rendering anything.
    {
        let dot = dot.clone();
        use_effect_with(ctl.laser, move |&on| {
            let l = on.then(|| {
                dom::Listener::new(&dom::document(), "mousemove", move |e: web_sys::Event| {
                    if let (Some(m), Some(el)) = (
                        e.dyn_ref::<web_sys::MouseEvent>(),
                        dot.cast::<web_sys::HtmlElement>(),
                    ) {
                        let _ = el.style().set_property(
                            "transform",
                            &format!("translate({}px, {}px)", m.client_x(), m.client_y()),
                        );
                    }
                })
            });
            move || drop(l)
        });
    }

    // Swipes: a finger drawn sideways across the slide turns it, wherever it starts (a lab
    // included) except where it moves something itself: a code box or a table wider than the
    // slide scrolls, a lab's scrubber slides. Heard before the slide's own elements (a lab is
    // drawn by another module) and on the document, where Chrome keeps touch listeners
    // passive: nothing here holds up the page's own scrolling.
    {
        let go = go.clone();
        use_effect_with((), move |_| {
            let doc = dom::document();
            let start = Rc::new(Cell::new(None::<(f64, f64)>));
            let point = |e: &web_sys::Event, changed: bool| {
                let t = e.dyn_ref::<web_sys::TouchEvent>()?;
                let list = if changed {
                    t.changed_touches()
                } else {
                    t.touches()
                };
                (changed || list.length() == 1)
                    .then(|| list.get(0))
                    .flatten()
                    .map(|t| (f64::from(t.client_x()), f64::from(t.client_y())))
            };
            let down = {
                let start = start.clone();
                dom::Listener::capture(&doc, "touchstart", move |e| {
                    let turns = e
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|el| swipe_turns(&el));
                    start.set(point(&e, false).filter(|_| turns));
                })
            };
            let up = {
                let start = start.clone();
                dom::Listener::capture(&doc, "touchend", move |e| {
                    if let (Some((x0, y0)), Some((x, y))) = (start.take(), point(&e, true)) {
                        if let Some(a) = nav::swipe(x - x0, y - y0) {
                            go.emit(a);
                        }
                    }
                })
            };
            let cancel = dom::Listener::capture(&doc, "touchcancel", move |_| start.set(None));
            move || drop((down, up, cancel))
        });
    }
    let act = |a: Action| go.reform(move |_: MouseEvent| a);
    let on_goto = {
        let (go, goto_error) = (go.clone(), goto_error.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let value = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|f| f.query_selector("input").ok().flatten())
                .map(|i| i.unchecked_into::<web_sys::HtmlInputElement>().value())
                .unwrap_or_default();
            match nav::parse_number(&value) {
                Some(n) if (1..=len).contains(&n) => {
                    goto_error.set(None);
                    go.emit(Action::Goto(n - 1));
                }
                _ => goto_error.set(Some(format!(
                    "১ থেকে {} পর্যন্ত একটা স্লাইড নম্বর লিখুন",
                    bn::digits(len, 1)
                ))),
            }
        })
    };
    let speaker = {
        let p = p.clone();
        Callback::from(move |_: MouseEvent| open_speaker(deck, &p))
    };
    let slide = &deck.slides[p.index];
    let counter = bn::counter(p.index, len);
    let progress = format!(
        "width: {}%",
        dom::fixed((p.index + 1) as f64 * 100.0 / len as f64, 3)
    );
    let autoplay_style = format!("animation-duration: {}ms", nav::autoplay_ms(&slide.script));
    let inert = modal;
    let steps = p.steps_here();

    html! {
        <div class={classes!("player", p.script.then_some("with-script"), (*fullscreen).then_some("is-fullscreen"), ctl.laser.then_some("laser-on"))}>
            <header class="topbar" inert={inert}>
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{ deck.title.as_ref() }</span>
                <nav class="tools" aria-label="প্রেজেন্টেশনের নিয়ন্ত্রণ">
                    <button class={classes!("tool", p.overview.then_some("on"))} onclick={act(Action::ToggleOverview)} aria-pressed={p.overview.to_string()} title="সব স্লাইড (O)">{"▦"}<span class="tool-label">{" সব স্লাইড"}</span></button>
                    <button class={classes!("tool", p.script.then_some("on"))} onclick={act(Action::ToggleScript)} aria-pressed={p.script.to_string()} title="প্রেজেন্টারের স্ক্রিপ্ট (N)">{"✎"}<span class="tool-label">{" স্ক্রিপ্ট"}</span></button>
                    <button class="tool" onclick={speaker} title="স্পিকার উইন্ডো (S)">
                        // An icon drawn, not a font character: two windows, one behind the other.
                        <svg class="tool-icon" viewBox="0 0 16 16" aria-hidden="true"><rect x="1.5" y="4.5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M5.5 2.5h7a1.5 1.5 0 0 1 1.5 1.5v7" fill="none" stroke="currentColor" stroke-width="1.5"/></svg>
                        <span class="tool-label">{" স্পিকার"}</span>
                    </button>
                    <button class={classes!("tool", p.autoplay.then_some("on"))} onclick={act(Action::ToggleAutoplay)} aria-pressed={p.autoplay.to_string()} title="অটোপ্লে (A)">{ if p.autoplay { "❚❚" } else { "▶" } }<span class="tool-label">{" অটোপ্লে"}</span></button>
                    <button class={classes!("tool", (*fullscreen).then_some("on"))} onclick={Callback::from(|_| dom::toggle_fullscreen())} aria-pressed={fullscreen.to_string()} title="ফুলস্ক্রিন (F)">{"⛶"}<span class="tool-label">{" ফুলস্ক্রিন"}</span></button>
                    <button class={classes!("tool", p.help.then_some("on"))} onclick={act(Action::ToggleHelp)} aria-pressed={p.help.to_string()} title="কি-বোর্ড শর্টকাট (?)" aria-label="কি-বোর্ড শর্টকাট">{"?"}</button>
                </nav>
            </header>
            <main class="stage-wrap" inert={inert}>
                // Focusable from script only: Esc gives the keys back here from a lab.
                <section class={classes!("stage", ctl.enlarged.then_some("lab-enlarged"))} tabindex="-1" aria-roledescription="স্লাইড" aria-label={format!("স্লাইড {counter}")} data-step={p.step.to_string()} data-steps={steps.to_string()}>
                    <ContextProvider<crate::labs::host::Enlarge> context={crate::labs::host::Enlarge { on: ctl.enlarged, toggle: ctl.toggle_enlarged.clone() }}>
                        <SlideView key={p.index} slide={slide} node={stage.clone()} live=true step={p.step} />
                    </ContextProvider<crate::labs::host::Enlarge>>
                </section>
            </main>
            if p.script {
                <aside class="script" aria-label="প্রেজেন্টারের স্ক্রিপ্ট" inert={inert} tabindex="0">
                    <p class="script-head">{"স্ক্রিপ্ট · "}{ counter.clone() }</p>
                    <p class="script-text">{ slide.script.as_ref() }</p>
                </aside>
            }
            <footer class="bar" inert={inert}>
                <button class="nav-btn" onclick={act(Action::Prev)} aria-disabled={p.at_start().to_string()} aria-label="আগের স্লাইড">{"←"}</button>
                <div class="bar-mid">
                    <span class="counter" data-testid="counter">{ counter.clone() }</span>
                    if steps > 0 {
                        <span class="frag-dots" role="img" aria-label={format!("ধাপ {} / {}", bn::digits(p.step, 1), bn::digits(steps, 1))}>
                            { for (0..steps).map(|k| html! { <i class={classes!((k < p.step).then_some("on"))}></i> }) }
                        </span>
                    }
                    <div class="progress" role="progressbar" aria-label="অগ্রগতি" aria-valuemin="1" aria-valuemax={len.to_string()} aria-valuenow={(p.index + 1).to_string()}>
                        <div class="progress-fill" style={progress}></div>
                    </div>
                    if p.autoplay {
                        <span class="autoplay-on" data-testid="autoplay" title="অটোপ্লে চলছে — স্লাইড বদলালে (← → বা অন্য কোনো নেভিগেশন) বা আবার A চাপলে থামবে">
                            {"▶ অটোপ্লে"}
                            <span class="autoplay-clock"><span key={p.index} class="autoplay-fill" style={autoplay_style}></span></span>
                        </span>
                    }
                    <span class="key-hint">{"← → স্লাইড · A অটোপ্লে · N স্ক্রিপ্ট · S স্পিকার · F ফুলস্ক্রিন · ? সাহায্য"}</span>
                </div>
                <button class="nav-btn" onclick={act(Action::Next)} aria-disabled={p.at_end().to_string()} aria-label="পরের স্লাইড">{"→"}</button>
            </footer>
            <div class="sr-only" aria-live="polite" aria-atomic="true">
                { format!("স্লাইড {}: {}", counter, slide.title_text()) }
            </div>
            if let Some(n) = p.jump {
                <div class="jump-hint" role="status">{"স্লাইড "}{ bn::digits(n, 1) }{" — Enter চাপুন"}</div>
            }
            if let Some(b) = p.blank {
                <div class={classes!("blank", if b == Blank::White { "white" } else { "black" })} data-testid="blank" onclick={act(Action::SetBlank(None))}></div>
            }
            if ctl.laser {
                <div class="laser" ref={dot} aria-hidden="true"></div>
            }
            <crate::class::slot::ClassSlot deck={deck.id.to_string()} />
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
                                <li class={classes!("overview-item", (i == p.index).then_some("current"), (i == p.selected).then_some("selected"))}>
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
                // On a touch screen the card says first what to tap and swipe (the stylesheet
                // shows `.for-touch` or `.for-keys` by the primary pointer).
                <div class="overlay help" role="dialog" aria-modal="true" aria-labelledby="help-title">
                    <div class="help-card">
                        <div class="overlay-head">
                            <h2 id="help-title"><span class="for-keys">{"কি-বোর্ড শর্টকাট"}</span><span class="for-touch">{"আঙুলে কীভাবে চালাবেন"}</span></h2>
                            <button class="tool" onclick={act(Action::Close)} aria-label="বন্ধ করুন">{"✕"}</button>
                        </div>
                        <dl class="keys touch-keys for-touch">
                            { for TOUCH_HELP.iter().map(|(k, what)| html! { <div class="key-row"><dt>{ *k }</dt><dd>{ *what }</dd></div> }) }
                        </dl>
                        <h3 class="help-sub for-touch">{"কি-বোর্ড থাকলে"}</h3>
                        <dl class="keys">
                            { for HELP.iter().map(|(k, what)| html! { <div class="key-row"><dt>{ for k.split(' ').map(|k| html! { <kbd>{k}</kbd> }) }</dt><dd>{ *what }</dd></div> }) }
                        </dl>
                        <crate::class::slot::HelpButton />
                    </div>
                </div>
            }
            if p.goto {
                <div class="overlay goto" role="dialog" aria-modal="true" aria-label="স্লাইডে যান">
                    <form class="goto-card" onsubmit={on_goto}>
                        <div class="overlay-head">
                            <h2><label for="goto-field">{"কোন স্লাইডে যাবেন?"}</label></h2>
                            <button type="button" class="tool" onclick={act(Action::Close)} aria-label="বন্ধ করুন">{"✕"}</button>
                        </div>
                        <div class="goto-row">
                            <input id="goto-field" type="text" inputmode="numeric" autocomplete="off" placeholder={format!("১–{}", bn::digits(len, 1))} aria-describedby="goto-error" />
                            <button type="submit" class="button primary">{"যান"}</button>
                        </div>
                        <p id="goto-error" class="goto-error" role="alert">{ (*goto_error).clone().unwrap_or_default() }</p>
                    </form>
                </div>
            }
        </div>
    }
}

/// Props of [`PlayerShell`].
#[derive(Properties, PartialEq)]
pub struct PlayerShellProps {
    /// The deck's index entry.
    pub info: &'static redislab_deck::DeckInfo,
}

/// The player's frame with the deck's first slide, drawn from the index while the deck itself
/// is still on its way: a student who opens a deck's link sees its first slide at once, and
/// the real player takes its place, in the same layout, when the deck arrives.
#[component]
pub fn PlayerShell(props: &PlayerShellProps) -> Html {
    let info = props.info;
    let len = info.steps.len();
    let counter = bn::counter(0, len);
    let progress = format!("width: {}%", dom::fixed(100.0 / len as f64, 3));
    html! {
        <div class="player" aria-busy="true">
            // The player's own frame, its controls there but disabled until the deck is here,
            // so nothing moves when the real player takes over. `redislab_deck::shell` writes
            // the same markup into `index.html`; keep the two alike (an end-to-end test does).
            <header class="topbar">
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{ info.title.as_ref() }</span>
                <nav class="tools" aria-label="প্রেজেন্টেশনের নিয়ন্ত্রণ">
                    <button class="tool" disabled=true title="সব স্লাইড (O)">{"▦"}<span class="tool-label">{" সব স্লাইড"}</span></button>
                    <button class="tool" disabled=true title="প্রেজেন্টারের স্ক্রিপ্ট (N)">{"✎"}<span class="tool-label">{" স্ক্রিপ্ট"}</span></button>
                    <button class="tool" disabled=true title="স্পিকার উইন্ডো (S)">
                        <svg class="tool-icon" viewBox="0 0 16 16" aria-hidden="true"><rect x="1.5" y="4.5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" stroke-width="1.5"/><path d="M5.5 2.5h7a1.5 1.5 0 0 1 1.5 1.5v7" fill="none" stroke="currentColor" stroke-width="1.5"/></svg>
                        <span class="tool-label">{" স্পিকার"}</span>
                    </button>
                    <button class="tool" disabled=true title="অটোপ্লে (A)">{"▶"}<span class="tool-label">{" অটোপ্লে"}</span></button>
                    <button class="tool" disabled=true title="ফুলস্ক্রিন (F)">{"⛶"}<span class="tool-label">{" ফুলস্ক্রিন"}</span></button>
                    <button class="tool" disabled=true title="কি-বোর্ড শর্টকাট (?)" aria-label="কি-বোর্ড শর্টকাট">{"?"}</button>
                </nav>
            </header>
            <main class="stage-wrap">
                <section class="stage" aria-roledescription="স্লাইড" aria-label={format!("স্লাইড {counter}")} data-step="0">
                    <SlideView slide={&info.cover} step={0} />
                </section>
            </main>
            <footer class="bar">
                <button class="nav-btn" disabled=true aria-label="আগের স্লাইড">{"←"}</button>
                <div class="bar-mid">
                    // Not `.counter` yet: keys do nothing until the real player is here.
                    <span class="counter-pending">{ counter }</span>
                    <div class="progress" aria-hidden="true"><div class="progress-fill" style={progress}></div></div>
                    <span class="key-hint" role="status">{"বাকি স্লাইডগুলো আসছে…"}</span>
                </div>
                <button class="nav-btn" disabled=true aria-label="পরের স্লাইড">{"→"}</button>
            </footer>
        </div>
    }
}

/// Does a swipe that starts on `el` turn the slide? Only on the stage, and not where the finger
/// moves something of its own: a lab's scrubber, or a box that scrolls sideways (a code box, a
/// wide table) because its content is wider than it.
fn swipe_turns(el: &web_sys::Element) -> bool {
    if el.closest(".stage-wrap").ok().flatten().is_none() {
        return false;
    }
    let mut at = Some(el.clone());
    while let Some(e) = at {
        if e.class_list().contains("stage-wrap") {
            return true;
        }
        if e.tag_name() == "INPUT" && e.get_attribute("type").as_deref() == Some("range") {
            return false;
        }
        if e.scroll_width() > e.client_width() + 1 {
            let overflow = dom::window()
                .get_computed_style(&e)
                .ok()
                .flatten()
                .and_then(|cs| cs.get_property_value("overflow-x").ok())
                .unwrap_or_default();
            if overflow == "auto" || overflow == "scroll" {
                return false;
            }
        }
        at = e.parent_element();
    }
    true
}

/// Every key, as the help overlay lists it.
const HELP: &[(&str, &str)] = &[
    ("→ PageDown Space", "পরের ধাপ, তারপর পরের স্লাইড"),
    ("← PageUp Shift+Space", "আগের ধাপ / আগের স্লাইড"),
    ("Home End", "প্রথম / শেষ স্লাইড"),
    ("১২ Enter", "নম্বর লিখে Enter — সেই স্লাইডে (বাংলা বা ইংরেজি অঙ্ক)"),
    ("G", "\"কোন স্লাইডে যাবেন\" ঘর খোলে"),
    ("A", "অটোপ্লে চালু / বন্ধ — স্লাইড বদলালে থেমে যায়"),
    ("N", "প্রেজেন্টারের স্ক্রিপ্ট দেখান / লুকান"),
    ("S", "স্পিকার উইন্ডো — এই স্লাইড, পরেরটা, স্ক্রিপ্ট, সময়"),
    ("F", "ফুলস্ক্রিন (Esc চাপলে বেরিয়ে আসবে)"),
    ("B .", "পর্দা কালো — আবার চাপলে বা স্লাইড বদলালে ফিরবে"),
    ("W", "পর্দা সাদা"),
    ("L", "লেজার পয়েন্টার — মাউসের সাথে বড় লাল বিন্দু"),
    (
        "Z",
        "স্লাইডের ল্যাব পুরো পর্দায় বড় করে — আবার চাপলে (বা Esc) আগের জায়গায়",
    ),
    ("O", "সব স্লাইডের ওভারভিউ — তীর দিয়ে বেছে Enter"),
    (
        "Tab",
        "ল্যাবের বোতাম আর স্ক্রাবারে যায় — তখন ← → Space ল্যাবের; মাউসে ক্লিকের পরে কি-বোর্ড ডেকেরই থাকে",
    ),
    (
        "C",
        "ক্লাস (সার্ভার মোডে): শুরু করে, তারপর যোগ দেওয়ার কার্ড দেখায় / লুকায়",
    ),
    ("R", "ক্লাসে প্রশ্নের উত্তর দেখান — ঠিক উত্তর, কতজন ঠিক, সাধারণ ভুল"),
    ("?", "এই সাহায্য"),
    (
        "Esc",
        "খোলা প্যানেল আর স্ক্রিপ্ট বন্ধ; ল্যাবের ঘর বা বোতাম থেকে কি-বোর্ড ডেকে ফেরে",
    ),
];

/// What a finger does, as the help overlay lists it on a touch screen.
const TOUCH_HELP: &[(&str, &str)] = &[
    ("বাঁয়ে সোয়াইপ", "পরের ধাপ, তারপর পরের স্লাইড"),
    ("ডানে সোয়াইপ", "আগের ধাপ / আগের স্লাইড"),
    ("নিচের ← → বোতাম", "একই কাজ, ট্যাপ করে"),
    (
        "কোডে আড়াআড়ি টানুন",
        "লম্বা লাইন সরে দেখায় — স্লাইড বদলায় না (ল্যাবের স্ক্রাবারও তাই)",
    ),
    ("▦", "সব স্লাইড — একটায় ট্যাপ করলে সেখানে"),
    ("✎", "প্রেজেন্টারের স্ক্রিপ্ট"),
    ("পুরো ল্যাব খুলুন", "ল্যাব নিজের পাতায়, বড় করে"),
];

/// Fits the slide's type (the `--fit` variable) to the stage: a short slide is set larger (up
/// to [`FIT_MAX`]) so its content uses the height, and a dense one a little smaller (which the
/// room test refuses: at 1366×768 every slide fits at `--fit` 1 or more). Text height scales
/// about linearly with the type, so one measurement gives a close guess; later passes correct
/// what wrapping changed. At most four layouts, usually two.
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
    // The content's own height: without the inner box's full height and the body's growth
    // (which centre a short slide), put back at the end.
    let inner = el
        .first_element_child()
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    let body = inner
        .as_ref()
        .and_then(|i| i.query_selector(".slide-body").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    let Some(inner) = inner else {
        return;
    };
    let _ = inner.style().set_property("min-height", "0");
    if let Some(b) = &body {
        let _ = b.style().set_property("flex", "none");
    }
    let mut f = 1.0_f64;
    // The cover and the end are centred already, and the page's first slide is also written
    // into index.html (the shell) without the app: they keep their type, so the app's first
    // slide lands exactly on the shell's.
    let grow = el.class_list().contains("layout-default");
    // The padding is in the slide's em: it grows and shrinks with the type, so it is read
    // again at every pass.
    let padding = || {
        dom::window()
            .get_computed_style(&el)
            .ok()
            .flatten()
            .map_or(0.0, |cs| {
                let px = |p: &str| {
                    cs.get_property_value(p)
                        .ok()
                        // The browser's parseFloat: the first load has no float parser.
                        .map(|v| js_sys::Number::parse_float(&v))
                        .filter(|v| v.is_finite())
                        .unwrap_or(0.0)
                };
                px("padding-top") + px("padding-bottom")
            })
    };
    for pass in 0..5 {
        let need = f64::from(inner.offset_height());
        let have = f64::from(el.client_height()) - padding();
        if need <= 0.0 || have <= 0.0 {
            break;
        }
        let ratio = have / need;
        let next = if ratio < 1.0 {
            // Padding does not shrink with the type; aim a little under.
            (f * ratio * 0.97).max(FIT_MIN)
        } else if grow && pass < 2 && ratio > 1.06 && f < FIT_MAX {
            (f * ratio.sqrt() * 0.97).min(FIT_MAX)
        } else {
            break;
        };
        if (next - f).abs() < 0.005 {
            break;
        }
        f = next;
        let _ = style.set_property("--fit", &dom::fixed(f, 3));
    }
    let _ = inner.style().remove_property("min-height");
    if let Some(b) = &body {
        let _ = b.style().remove_property("flex");
    }
}

/// Largest growth of a short slide's type: 1.3 × the room's 20 px.
const FIT_MAX: f64 = 1.3;
/// Smallest shrink of a dense slide's type.
const FIT_MIN: f64 = 0.6;
