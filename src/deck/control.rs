//! What the audience view and the speaker window share: the player's state machine wired to the
//! keyboard, the address and the other window. Both call [`use_deck_control`]; each renders
//! what it needs of the state.
//!
//! The two windows stay in step over a `BroadcastChannel` named after the deck. A message is the
//! position as the address writes it (`12` or `12.3`), followed by `|b` or `|w` while the screen
//! is blanked: the same words as the URL, so there is no second format to keep in step. A move
//! that came from the other window is applied and never sent back, so two windows cannot echo a
//! stale position at each other.

use crate::dom;
use gloo_timers::callback::Timeout;
use redislab_deck::nav::{self, Action, Blank, Command, Mods};
use redislab_deck::{route, Deck};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

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

/// Props of the two views of a deck, the audience's [`crate::deck::player::Player`] and the
/// [`crate::deck::speaker::Speaker`] window.
#[derive(Properties, PartialEq)]
pub struct DeckViewProps {
    /// The deck (loaded).
    pub deck: crate::catalog::DeckRef,
    /// 0-based slide the address names.
    pub index: usize,
    /// Fragments revealed, as the address names.
    #[prop_or_default]
    pub step: usize,
    /// Called with (slide, step) when the view moves, so the address follows.
    pub on_navigate: Callback<(usize, usize)>,
}

/// The player's state and the way to change it.
pub struct DeckControl {
    /// The state as rendered.
    pub player: nav::Player,
    /// Applies an action: moves the address (and the other window) in the same task.
    pub go: Callback<Action>,
    /// The laser pointer is on (L).
    pub laser: bool,
    /// The slide's embedded lab fills the stage (Z, or its button); a new slide starts small.
    pub enlarged: bool,
    /// Enlarge the embedded lab, or back.
    pub toggle_enlarged: Callback<()>,
}

/// The message the other window hears for this state.
fn message(p: &nav::Player) -> String {
    let pos = route::position_text(p.index, p.step);
    match p.blank {
        None => pos,
        Some(Blank::Black) => format!("{pos}|b"),
        Some(Blank::White) => format!("{pos}|w"),
    }
}

/// Reads a message from the other window into actions; anything malformed is ignored.
fn actions_of(msg: &str, deck: &Deck) -> Option<[Action; 2]> {
    let (pos, blank) = msg.split_once('|').unwrap_or((msg, ""));
    let (index, step) = route::slide_position(pos, deck).ok()?;
    let blank = match blank {
        "" => None,
        "b" => Some(Blank::Black),
        "w" => Some(Blank::White),
        _ => return None,
    };
    Some([Action::At(index, step), Action::SetBlank(blank)])
}

/// A channel to the deck's other windows; closed when dropped.
struct Channel {
    port: web_sys::BroadcastChannel,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.port.set_onmessage(None);
        self.port.close();
    }
}

/// Wires the state machine for `deck` to the keyboard, the address and the other window.
/// `index`/`step` come from the address; `on_navigate` hears every move made here or in the
/// other window; `speaker` is true in the speaker window (S there does nothing).
#[hook]
pub fn use_deck_control(props: &DeckViewProps, speaker: bool) -> DeckControl {
    let (deck, index, step) = (props.deck.0, props.index, props.step);
    let on_navigate = props.on_navigate.clone();
    let state = use_reducer(|| {
        let steps = deck.slides.iter().map(|s| s.steps()).collect();
        let mut p = nav::Player::new(steps, index);
        p.apply(Action::At(index, step));
        State(p)
    });
    let laser = use_state_eq(|| false);
    // Rendered from `enlarged`; keys read and flip `enlarged_now` (the key listener lives as
    // long as the deck, so it cannot read a state handle's value of its own render).
    let enlarged = use_state_eq(|| false);
    let enlarged_now = use_mut_ref(|| false);
    let set_enlarged = {
        let (enlarged, now) = (enlarged.clone(), enlarged_now.clone());
        Rc::new(move |on: bool| {
            *now.borrow_mut() = on;
            enlarged.set(on);
        })
    };
    {
        // Any move (a slide or a fragment) shows the slide again, its lab in its place.
        let set = set_enlarged.clone();
        use_effect_with((state.0.index, state.0.step), move |_| set(false));
    }
    let channel: Rc<RefCell<Option<Channel>>> = use_mut_ref(|| None);
    // `mirror` holds the state including actions not yet rendered, so fast key repeats compute
    // from the newest position.
    let mirror = use_mut_ref(|| state.0.clone());
    *mirror.borrow_mut() = state.0.clone();

    // Every action goes through `apply`: the address moves in the same task as the key press (so
    // an immediate Back or reload sees it); `remote` says it came from the other window.
    let apply = {
        let (mirror, dispatch, channel, on_navigate) = (
            mirror.clone(),
            state.dispatcher(),
            channel.clone(),
            on_navigate.clone(),
        );
        Rc::new(move |a: Action, remote: bool| {
            let before = mirror.borrow().clone();
            let next = before.clone().with(a);
            if next == before {
                return;
            }
            *mirror.borrow_mut() = next.clone();
            dispatch.dispatch(a);
            if (next.index, next.step) != (before.index, before.step) {
                on_navigate.emit((next.index, next.step));
            }
            let shared = |p: &nav::Player| (p.index, p.step, p.blank);
            if !remote && shared(&next) != shared(&before) {
                if let Some(c) = channel.borrow().as_ref() {
                    let _ = c.port.post_message(&message(&next).into());
                }
            }
        })
    };
    let go = {
        let apply = apply.clone();
        Callback::from(move |a: Action| apply(a, false))
    };
    // The other window.
    {
        let apply = apply.clone();
        let channel = channel.clone();
        use_effect_with(deck.id.clone(), move |id| {
            let name = format!("redislab:{id}");
            if let Ok(bc) = web_sys::BroadcastChannel::new(&name) {
                let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
                    move |e: web_sys::MessageEvent| {
                        if let Some([a, b]) =
                            e.data().as_string().and_then(|m| actions_of(&m, deck))
                        {
                            apply(a, true);
                            apply(b, true);
                        }
                    },
                );
                bc.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
                *channel.borrow_mut() = Some(Channel {
                    port: bc,
                    _on_message: on_message,
                });
            }
            move || drop(channel.borrow_mut().take())
        });
    }
    // The address changed (back/forward, a typed link): follow it. A change is counted when a
    // render sees it, not by comparing effect deps: Yew's scheduler may yield between a render
    // and its effects, so a move here (slide 11) and a Back (slide 10) can both render before
    // either effect runs, and deps compared then (10 before, 10 now) would miss the Back.
    {
        let seen = use_mut_ref(|| ((index, step), 0u64));
        let generation = {
            let mut s = seen.borrow_mut();
            if s.0 != (index, step) {
                *s = ((index, step), s.1 + 1);
            }
            s.1
        };
        let go = go.clone();
        use_effect_with(generation, move |_| go.emit(Action::At(index, step)));
    }
    // A typed slide number is forgotten after a pause.
    {
        let go = go.clone();
        use_effect_with(state.0.jump, move |jump| {
            let t = jump.map(|_| Timeout::new(3_000, move || go.emit(Action::ClearJump)));
            move || drop(t)
        });
    }
    // Keyboard. On the slide (a lab, a table's header, a code box) a click does not take the
    // keys: the next key is the deck's, and the control it clicked lets go of focus. The lab's
    // own keys (← → on its scrubber, Space on its buttons) are the instructor's once they
    // reach its controls with Tab; typing into a field is always the field's. Esc always gives
    // the keys back to the deck. See `HELP` in player.rs and the README's key table.
    {
        let (go, laser) = (go.clone(), laser.clone());
        let (set_enlarged, enlarged_now) = (set_enlarged.clone(), enlarged_now.clone());
        let mirror = mirror.clone();
        use_effect_with((), move |_| {
            let doc = dom::document();
            // Focus was last placed by a pointer (mouse, finger, pen), not by Tab.
            let by_pointer = Rc::new(std::cell::Cell::new(false));
            let pointer = {
                let by_pointer = by_pointer.clone();
                dom::Listener::capture(&doc, "pointerdown", move |_| by_pointer.set(true))
            };
            let keys = dom::Listener::new(&doc, "keydown", move |e: web_sys::Event| {
                let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if k.is_composing() {
                    return;
                }
                let key = k.key();
                let p = mirror.borrow().clone();
                let dialog = p.overview || p.help || p.goto;
                if key == "Tab" {
                    by_pointer.set(false);
                    if dialog {
                        dom::trap_tab(&e, k.shift_key());
                    }
                    return;
                }
                let on_stage = on_stage(&e);
                if key == "Escape" && !dialog {
                    if let Some(el) = &on_stage {
                        // Out of the lab (or whatever on the slide had focus), and the lab
                        // back in its place; nothing else closes on this press.
                        e.prevent_default();
                        give_keys_to_deck(el);
                        set_enlarged(false);
                        return;
                    }
                }
                // A key the deck takes from a control on the slide that a pointer focused.
                let taken = on_stage
                    .as_ref()
                    .filter(|el| by_pointer.get() && !dom::takes_text(el));
                if key != "Escape"
                    && taken.is_none()
                    && (dom::typing_into(&e) || dom::activates_control(&e, &key))
                {
                    return;
                }
                let mods = Mods {
                    shift: k.shift_key(),
                    command: k.ctrl_key() || k.alt_key() || k.meta_key(),
                };
                let command = nav::key_command(&key, mods);
                if let (Some(el), Some(_)) = (taken, command) {
                    // The control neither moves nor presses: the key is the deck's, and so
                    // are the next ones.
                    e.prevent_default();
                    give_keys_to_deck(el);
                }
                match command {
                    Some(Command::Nav(a)) => {
                        // Space and arrows would otherwise scroll (↑ ↓ only in the overview);
                        // Escape stays the browser's too.
                        let scrolls = matches!(a, Action::Up | Action::Down) && !p.overview;
                        if a != Action::Close && !scrolls {
                            e.prevent_default();
                        } else if a == Action::Close && dialog {
                            // From any field of a dialog (the "go to" box, typed into or not).
                            e.prevent_default();
                        } else if a == Action::Close && *enlarged_now.borrow() {
                            // Esc first makes an enlarged lab small again.
                            set_enlarged(false);
                            return;
                        } else if a == Action::Close && dom::is_fullscreen() {
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
                    Some(Command::Speaker) if !speaker => {
                        e.prevent_default();
                        open_speaker(deck, &p);
                    }
                    Some(Command::Laser) => laser.set(!*laser),
                    Some(Command::Enlarge) => {
                        e.prevent_default();
                        let on = !*enlarged_now.borrow();
                        set_enlarged(on);
                    }
                    Some(Command::Speaker) | None => {}
                }
            });
            move || drop((keys, pointer))
        });
    }
    let toggle_enlarged = {
        let (set, now) = (set_enlarged.clone(), enlarged_now.clone());
        Callback::from(move |()| {
            let on = !*now.borrow();
            set(on);
        })
    };
    DeckControl {
        player: state.0.clone(),
        go,
        laser: *laser,
        enlarged: *enlarged,
        toggle_enlarged,
    }
}

/// The element a key event comes from when it is inside the slide on the stage (a lab's
/// control, a table's header, a code box), not the stage itself.
fn on_stage(e: &web_sys::Event) -> Option<web_sys::HtmlElement> {
    let el = e.target()?.dyn_into::<web_sys::HtmlElement>().ok()?;
    let stage = el.closest(".stage").ok()??;
    (stage != *el.unchecked_ref::<web_sys::Element>()).then_some(el)
}

/// Takes focus from `el` (on the slide) to the stage, so the next keys are the deck's.
fn give_keys_to_deck(el: &web_sys::HtmlElement) {
    let stage = el
        .closest(".stage")
        .ok()
        .flatten()
        .and_then(|s| s.dyn_into::<web_sys::HtmlElement>().ok());
    match stage {
        Some(s) => dom::focus_quietly(&s),
        None => {
            let _ = el.blur();
        }
    }
}

/// Opens (or brings forward) the speaker window at the current position.
pub fn open_speaker(deck: &Deck, p: &nav::Player) {
    let url = format!(
        "{}{}",
        dom::page_url(),
        route::speaker_hash(&deck.id, p.index, p.step)
    );
    let _ = dom::window().open_with_url_and_target_and_features(
        &url,
        &format!("redislab-speaker-{}", deck.id),
        "popup,width=1280,height=800",
    );
}
