//! The instructor's class, over the player's stage: it makes the class (or takes it back
//! after a reload, with the secret this tab keeps), follows the player's address and sends
//! every move, opens a quiz slide's question on every phone, charts the answers live without
//! the right one, reveals with R (the right answer, the share right, the common wrong answers
//! with the grader's hints, "show me"), shows the join card (C) with its QR code, tells the
//! speaker window how many are connected, and ends the class.

use super::parts::{self, deck_index};
use super::qr::Qr;
use super::results::SetResults;
use super::socket::{random_id, tab_store, tab_stored, ClassSocket, Event, Link};
use crate::catalog::{DeckRef, WithDeck, DECK_INDEX};
use crate::dom;
use redislab_deck::route::{self, Route};
use redislab_deck::{bn, Deck};
use redislab_sim::class::{
    self as class, Asked, Cue, Down, Ending, Member, Op, Position, Reveal, SetSpec, Tally, View,
};
use redislab_sim::practice::Question;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// Where this tab keeps its class of a deck: `code secret`.
fn keep_key(deck: &str) -> String {
    format!("redislab.class.teach.{deck}")
}

/// Where this tab keeps the practice set it gave its class of a deck (JSON): a reload gives
/// the same one, never a new set.
fn set_key(deck: &str) -> String {
    format!("redislab.class.set.{deck}")
}

/// Props: `deck=<id>` (`&cues=1`: the speaker window's controls instead).
#[derive(Properties, PartialEq)]
pub struct TeachProps {
    /// `deck=<id>`.
    pub query: AttrValue,
}

/// The class panel (the labs module draws it in the player's class slot).
#[component]
pub fn Teach(props: &TeachProps) -> Html {
    let id = props
        .query
        .split('&')
        .find_map(|kv| kv.strip_prefix("deck="))
        .unwrap_or_default()
        .to_string();
    if props.query.split('&').any(|kv| kv == "cues=1") {
        // The speaker window's controls: they cue this deck's class panel.
        return html! { <super::cues::Cues deck={id} /> };
    }
    let Some(i) = deck_index(&id) else {
        return Html::default();
    };
    let render = Callback::from(|d: DeckRef| html! { <Class deck={d} /> });
    html! { <WithDeck key={i} deck={i} {render} /> }
}

#[derive(Clone, PartialEq, Default)]
struct State {
    link: Option<Link>,
    code: Option<String>,
    present: u32,
    joined: u32,
    /// Every student so far, by number (their names for the set's results).
    members: Rc<BTreeMap<u32, Member>>,
    /// The practice set's number and each student's answers to it.
    set_no: u64,
    results: Rc<BTreeMap<u32, Vec<String>>>,
    /// The open question's number and each student's last answer.
    q: u64,
    answers: BTreeMap<u32, String>,
    card: bool,
    error: Option<String>,
    ended: Option<Ending>,
    redis_down: bool,
    /// The class is ours on this connection (made or taken back).
    taken: bool,
}

enum Msg {
    Code(String),
    Link(Link),
    Down(Down),
    Card(bool),
}

impl Reducible for State {
    type Action = Msg;
    fn reduce(self: Rc<Self>, m: Msg) -> Rc<Self> {
        let mut s = (*self).clone();
        match m {
            Msg::Link(l) => {
                s.link = Some(l);
                if l != Link::Open {
                    s.taken = false;
                }
            }
            Msg::Card(on) => s.card = on,
            Msg::Code(c) => s.code = Some(c),
            Msg::Down(d) => match d {
                Down::Created { code, .. } => {
                    s.code = Some(code);
                    s.card = true;
                    s.taken = true;
                }
                Down::Taught { .. } => s.taken = true,
                Down::Present { n } => s.present = n,
                Down::Roster { students } => {
                    s.joined = students.len() as u32;
                    s.members = Rc::new(students.into_iter().map(|m| (m.who, m)).collect());
                }
                Down::Student { member } => {
                    s.joined += 1;
                    Rc::make_mut(&mut s.members).insert(member.who, member);
                }
                Down::View { q, set, .. } => {
                    if q != s.q {
                        s.q = q;
                        s.answers.clear();
                    }
                    s.new_set(set);
                }
                Down::Results { set, who, answers } if set >= s.set_no => {
                    s.new_set(set);
                    Rc::make_mut(&mut s.results).insert(who, answers);
                }
                Down::Answers { q, all } if q == s.q => s.answers = all.into_iter().collect(),
                Down::Answer { q, who, value } if q == s.q => {
                    s.answers.insert(who, value);
                }
                Down::Err { code, .. } => s.error = Some(code.bn().to_string()),
                Down::Ok { .. } => s.error = None,
                Down::Ended { why } => s.ended = Some(why),
                Down::Redis { up } => s.redis_down = !up,
                _ => {}
            },
        }
        Rc::new(s)
    }
}

impl State {
    /// The set numbered `set` is the class' now: a newer one starts with no results.
    fn new_set(&mut self, set: u64) {
        if set > self.set_no {
            self.set_no = set;
            self.results = Rc::default();
        }
    }
}

/// The player's position, read from the address (the player keeps it there).
fn position(deck: &Deck) -> Option<(usize, usize)> {
    match route::parse(&dom::hash(), DECK_INDEX) {
        Route::Slide {
            deck: d,
            index,
            step,
        } if DECK_INDEX[d].id == deck.id => Some((index, step)),
        _ => None,
    }
}

#[derive(Properties, PartialEq)]
struct ClassProps {
    deck: DeckRef,
}

#[component]
fn Class(props: &ClassProps) -> Html {
    let deck: &'static Deck = props.deck.0;
    let state = use_reducer(State::default);
    let socket = use_mut_ref(|| None::<ClassSocket>);
    let at = use_state_eq(|| position(deck).unwrap_or((0, 0)));
    // What is asked, revealed, shown: the instructor's own state of the class.
    let revealed = use_state_eq(|| None::<Rc<Reveal>>);
    let show = use_state_eq(|| false);
    // From the speaker window: the practice set given, and a kind asked (on this slide).
    let given = use_state_eq(|| {
        tab_stored(&set_key(&deck.id)).and_then(|j| serde_json::from_str::<SetSpec>(&j).ok())
    });
    let results_open = use_state_eq(|| true);
    let picked = use_state_eq(|| None::<(String, String, u32)>);
    let tab = use_memo((), |_| {
        tab_stored("redislab.class.tab").unwrap_or_else(|| {
            let t = random_id();
            tab_store("redislab.class.tab", Some(&t));
            t
        })
    });
    // The player moves through the address; read it often (it changes without an event).
    {
        let at = at.clone();
        use_effect_with((), move |_| {
            let t = gloo_timers::callback::Interval::new(150, move || {
                if let Some(p) = position(deck) {
                    at.set(p);
                }
            });
            move || drop(t)
        });
    }
    let slide = &deck.slides[at.0.min(deck.slides.len() - 1)];
    let quiz = (*picked).clone().or_else(|| parts::quiz_of(slide));
    let job = quiz
        .as_ref()
        .map(|(t, k, s)| crate::practice::one_job(t, k, *s));
    let made = crate::labs::kit::use_work::<Question, Vec<Question>>(job);
    let question: Option<Rc<Question>> = made.parts.first().cloned().map(Rc::new);
    // A new slide: the reveal, "show me" and a kind asked from the speaker window are over.
    {
        let (revealed, show, picked) = (revealed.clone(), show.clone(), picked.clone());
        use_effect_with(at.0, move |_| {
            revealed.set(None);
            show.set(false);
            picked.set(None);
        });
    }
    let view = View {
        at: Position {
            deck: deck.id.to_string(),
            slide: at.0 as u32,
            step: at.1 as u32,
        },
        question: question.as_deref().map(Asked::of),
        reveal: (*revealed).as_deref().cloned(),
        show: if *show {
            question.as_ref().and_then(|q| q.draft.show.clone())
        } else {
            None
        },
        set: (*given).clone(),
    };
    // The socket: made once; on every (re)open the class is made or taken back.
    let on_event = {
        let (d, socket, tab) = (state.dispatcher(), socket.clone(), tab.clone());
        let first = view.clone();
        let deck_id = deck.id.to_string();
        Callback::from(move |e: Event| match e {
            Event::Link(l) => {
                if l == Link::Open {
                    let kept = tab_stored(&keep_key(&deck_id));
                    let op = match kept.as_deref().and_then(|k| k.split_once(' ')) {
                        Some((code, secret)) => {
                            d.dispatch(Msg::Code(code.to_string()));
                            Op::Teach {
                                code: code.into(),
                                secret: secret.into(),
                                tab: (*tab).clone(),
                            }
                        }
                        None => Op::Create {
                            view: first.clone(),
                            tab: (*tab).clone(),
                        },
                    };
                    if let Some(s) = socket.borrow().as_ref() {
                        s.send(op);
                    }
                }
                d.dispatch(Msg::Link(l));
            }
            Event::Down(down) => {
                match &down {
                    Down::Created { code, secret, .. } => {
                        tab_store(&keep_key(&deck_id), Some(&format!("{code} {secret}")));
                    }
                    Down::Ended { .. } => {
                        tab_store(&keep_key(&deck_id), None);
                        tab_store(&set_key(&deck_id), None);
                        if let Some(s) = socket.borrow_mut().take() {
                            s.close();
                        }
                    }
                    Down::Err {
                        code: class::Refusal::NoClass,
                        ..
                    } => {
                        // The kept class is gone: make a new one next time.
                        tab_store(&keep_key(&deck_id), None);
                    }
                    _ => {}
                }
                d.dispatch(Msg::Down(down));
            }
        })
    };
    {
        let socket = socket.clone();
        use_effect_with((), move |_| {
            *socket.borrow_mut() = Some(ClassSocket::open(on_event));
            move || {
                if let Some(s) = socket.borrow_mut().take() {
                    s.close();
                }
            }
        });
    }
    // Every change of the view goes to the class: a new question is asked anew, a reveal
    // closes it. Sent once the class is ours (made or taken back).
    let ours = state.taken;
    {
        let socket = socket.clone();
        let asked_key = view
            .question
            .as_ref()
            .map(|a| (a.topic.clone(), a.kind.clone(), a.seed, at.0));
        let last_asked = use_mut_ref(|| None::<(String, String, u32, usize)>);
        use_effect_with((view.clone(), ours), move |(view, ours)| {
            if !*ours {
                return;
            }
            let ask = asked_key.is_some() && *last_asked.borrow() != asked_key;
            if ask {
                *last_asked.borrow_mut() = asked_key.clone();
            }
            if asked_key.is_none() {
                *last_asked.borrow_mut() = None;
            }
            if let Some(s) = socket.borrow().as_ref() {
                s.send(Op::Show {
                    view: view.clone(),
                    ask,
                    reveal: view.reveal.is_some(),
                });
            }
        });
    }
    // The speaker window hears how many are connected: at every change, and every 2 s for a
    // speaker window opened since.
    {
        let deck_id = deck.id.to_string();
        let text = state
            .code
            .as_ref()
            .map(|_| format!("ক্লাসে {} জন", bn::int(i64::from(state.present))));
        use_effect_with(text, move |t| {
            let t = t.clone().unwrap_or_default();
            let post = move || {
                if let Ok(p) = web_sys::BroadcastChannel::new(&super::slot::channel_name(&deck_id))
                {
                    let _ = p.post_message(&t.as_str().into());
                    p.close();
                }
            };
            post();
            let again = gloo_timers::callback::Interval::new(2_000, post);
            move || drop(again)
        });
    }
    let tally = question
        .as_ref()
        .map(|q| Tally::count(q, state.answers.values().map(String::as_str)));
    // R (here, or from the speaker window): the reveal of the question open now.
    let reveal_latest = use_mut_ref(|| None::<Rc<dyn Fn()>>);
    {
        let (revealed, question, tally) = (revealed.clone(), question.clone(), tally.clone());
        *reveal_latest.borrow_mut() = Some(Rc::new(move || {
            if let (Some(q), Some(t)) = (&question, &tally) {
                revealed.set(Some(Rc::new(Reveal {
                    question: (**q).clone(),
                    tally: t.clone(),
                })));
            }
        }));
    }
    // The speaker window's cues: a practice set, a kind asked now, the reveal.
    {
        let (given, picked, revealed, show, results_open) = (
            given.clone(),
            picked.clone(),
            revealed.clone(),
            show.clone(),
            results_open.clone(),
        );
        let (reveal, deck_id) = (reveal_latest.clone(), deck.id.to_string());
        use_effect_with((), move |_| {
            let port = web_sys::BroadcastChannel::new(&super::slot::cue_channel(&deck_id)).ok();
            let l = port.as_ref().map(|p| {
                dom::Listener::new(p, "message", move |e: web_sys::Event| {
                    use wasm_bindgen::JsCast;
                    let cue = e
                        .dyn_ref::<web_sys::MessageEvent>()
                        .and_then(|m| m.data().as_string())
                        .and_then(|t| Cue::parse(&t));
                    match cue {
                        Some(Cue::Give { set }) => {
                            tab_store(
                                &set_key(&deck_id),
                                serde_json::to_string(&set).ok().as_deref(),
                            );
                            given.set(Some(set));
                            results_open.set(true);
                        }
                        Some(Cue::Ask { topic, kind, seed }) => {
                            revealed.set(None);
                            show.set(false);
                            picked.set(Some((topic, kind, seed)));
                        }
                        Some(Cue::Reveal) => {
                            let r = reveal.borrow().clone();
                            if let Some(r) = r {
                                r();
                            }
                        }
                        None => {}
                    }
                })
            });
            move || {
                drop(l);
                if let Some(p) = port {
                    p.close();
                }
            }
        });
    }
    // Keys: C the join card, R the reveal.
    {
        let d = state.dispatcher();
        let card = state.card;
        let reveal = reveal_latest.clone();
        use_effect_with(card, move |_| {
            let l = dom::Listener::new(&dom::document(), "keydown", move |e: web_sys::Event| {
                use wasm_bindgen::JsCast;
                let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                if k.ctrl_key() || k.alt_key() || k.meta_key() || dom::typing_into(&e) {
                    return;
                }
                match k.key().as_str() {
                    "c" | "C" => d.dispatch(Msg::Card(!card)),
                    "r" | "R" => {
                        let r = reveal.borrow().clone();
                        if let Some(r) = r {
                            r();
                        }
                    }
                    _ => {}
                }
            });
            move || drop(l)
        });
    }
    let off = Callback::from(|_: MouseEvent| {
        if let Ok(e) = web_sys::Event::new(super::slot::OFF) {
            let _ = dom::window().dispatch_event(&e);
        }
    });
    if state.link == Some(Link::NoProxy) {
        return html! {
            <div class="class-panel class-panel-alone">
                { parts::needs_server() }
                <button type="button" class="button" onclick={off}>{"বন্ধ করুন"}</button>
            </div>
        };
    }
    if let Some(why) = state.ended {
        return html! {
            <div class="class-panel class-panel-alone" role="status" data-testid="class-ended">
                <p><strong>{ why.bn() }</strong></p>
                <button type="button" class="button" onclick={off}>{"বন্ধ করুন"}</button>
            </div>
        };
    }
    let end = {
        let socket = socket.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(s) = socket.borrow().as_ref() {
                s.send(Op::End {});
            }
        })
    };
    let d = state.dispatcher();
    let code = state.code.clone().unwrap_or_default();
    let page = dom::page_url();
    let join_address = format!("{page}#/join");
    let qr_text = format!("{page}#/join?code={code}");
    let shown_address = join_address
        .trim_start_matches("http://")
        .trim_start_matches("https://")
        .to_string();
    let reveal_now = (*revealed).clone();
    let show_button = {
        let show = show.clone();
        Callback::from(move |_: MouseEvent| show.set(!*show))
    };
    html! {
        <div class="class-panel" data-code={code.clone()}>
            <div class="class-strip" role="status">
                <span class="class-strip-code">{"ক্লাস "}{ class::code_bn(&code) }</span>
                <span class="class-strip-count" data-testid="class-present">{ bn::int(i64::from(state.present)) }{" জন যুক্ত"}</span>
                if state.link == Some(Link::Away) { <span class="class-strip-away">{"সংযোগ নেই — আবার যুক্ত হচ্ছে…"}</span> }
                if state.redis_down { <span class="class-strip-away">{ class::Refusal::Unavailable.bn() }</span> }
                if let Some(e) = &state.error { <span class="class-strip-away">{ e.clone() }</span> }
                <button type="button" class="tool" onclick={d.to_callback().reform(move |_| Msg::Card(true))} title="যোগ দেওয়ার কার্ড (C)">{"কোড (C)"}</button>
                if given.is_some() {
                    <button type="button" class="tool" data-testid="class-results-toggle" aria-expanded={results_open.to_string()}
                        onclick={{ let o = results_open.clone(); Callback::from(move |_: MouseEvent| o.set(!*o)) }}>
                        { format!("সেটের ফল ({})", bn::int(state.results.len() as i64)) }
                    </button>
                }
                <button type="button" class="tool" data-testid="class-end" onclick={end}>{"ক্লাস শেষ"}</button>
            </div>
            if state.card && !code.is_empty() {
                <div class="class-card" role="dialog" aria-label="ক্লাসে যোগ দিন" data-testid="class-card">
                    <div class="class-card-text">
                        <h2>{"ক্লাসে যোগ দিন"}</h2>
                        <p class="class-card-address">{ shown_address }</p>
                        <p class="class-card-label">{"কোড"}</p>
                        <p class="class-card-code" data-testid="class-code" data-code={code.clone()}>{ class::code_bn(&code) }</p>
                        <p class="class-card-ascii">{ format!("{} {}", &code[..3.min(code.len())], &code[3.min(code.len())..]) }</p>
                        <p class="class-card-count">{"যোগ দিয়েছে "}{ bn::int(i64::from(state.joined)) }{" জন"}</p>
                    </div>
                    <Qr text={qr_text} label={"যোগ দেওয়ার ঠিকানার QR কোড"} />
                    <button type="button" class="tool class-card-close" onclick={d.to_callback().reform(|_| Msg::Card(false))} aria-label="কার্ড বন্ধ (C)">{"✕"}</button>
                </div>
            }
            if let (Some(q), Some(t)) = (&question, &tally) {
                <div class={classes!("class-answers", reveal_now.is_some().then_some("revealed"))} data-testid="class-answers" data-answered={t.answered.to_string()}>
                    if let Some(r) = &reveal_now {
                        <p class="class-answers-head">{"উত্তর: "}<strong>{ q.draft.answer.right_text() }</strong>{" · "}{ parts::share(&r.tally) }</p>
                        { parts::chart(&r.tally, true) }
                        if !r.tally.wrong().is_empty() {
                            <ul class="class-wrong-list">
                                { for r.tally.wrong().into_iter().map(|b| html! {
                                    <li><strong>{ parts::rich(&b.label) }</strong>{" ("}{ bn::int(i64::from(b.count)) }{" জন): "}{ parts::rich(&b.note) }</li>
                                }) }
                            </ul>
                        }
                        if q.draft.show.is_some() {
                            <button type="button" class="button primary" data-testid="class-show" onclick={show_button}>{ if *show { "ল্যাব বন্ধ" } else { "ল্যাবে দেখাও (সবার ফোনেও)" } }</button>
                        }
                    } else {
                        <p class="class-answers-head">{"উত্তর এসেছে "}<strong>{ bn::int(i64::from(t.answered)) }</strong>{" / "}{ bn::int(i64::from(state.present.max(t.answered))) }{" · R চাপলে উত্তর দেখাবে"}</p>
                        { parts::chart(t, false) }
                    }
                </div>
            }
            if let (Some(spec), true) = ((*given).clone(), *results_open) {
                <SetResults {spec} code={code.clone()} members={state.members.clone()} results={state.results.clone()}
                    on_close={{ let o = results_open.clone(); Callback::from(move |_| o.set(false)) }} />
            }
            if let (true, Some(s)) = (*show, question.as_ref().and_then(|q| q.draft.show.clone())) {
                <div class="class-show-stage">{ parts::show_me(&s) }</div>
            }
        </div>
    }
}
