//! `#/console`: a redis-cli style console on the proxy. A line is split into words the way
//! redis-cli splits it, sent with a request id, and its answer printed as redis-cli prints
//! it, with the round trip; ↑/↓ walk through the lines typed before. The session's keys live
//! in its own namespace on the proxy, so `KEYS *` and the like come back as the proxy's
//! typed refusal, shown in Bengali with its code.

use super::socket::{Event, Socket};
use super::Indicator;
use crate::dom;
use redislab_sim::redis::args::{split_args, utf8_args};
use redislab_sim::wire::{redis_cli, ErrBody, LiveStatus};
use redislab_sim::Reply;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Entries kept on screen.
const KEEP: usize = 200;

/// A line whose `\xHH` bytes are not UTF-8: the console's words travel as JSON text.
const NOT_UTF8: &str = "\\xHH দিয়ে লেখা বাইটগুলো UTF-8 নয়: কনসোল শুধু UTF-8 লেখা পাঠাতে পারে";

#[derive(Clone, PartialEq)]
enum Out {
    Waiting,
    Reply(Reply, f64),
    Refused(ErrBody, f64),
    /// Never sent: why, in Bengali.
    Local(String),
}

#[derive(Clone, PartialEq)]
struct Entry {
    id: Option<u64>,
    line: String,
    out: Out,
}

#[derive(Clone, PartialEq, Default)]
struct State {
    status: Option<LiveStatus>,
    entries: Vec<Entry>,
}

enum Action {
    Socket(Event),
    Add(Entry),
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::Socket(Event::Status(st)) => s.status = Some(st),
            Action::Socket(Event::Answer { id, result, rtt_ms }) => {
                if let Some(e) = s.entries.iter_mut().find(|e| e.id == Some(id)) {
                    e.out = match result {
                        Ok(r) => Out::Reply(r, rtt_ms),
                        Err(err) => Out::Refused(err, rtt_ms),
                    };
                }
            }
            Action::Add(e) => {
                s.entries.push(e);
                let over = s.entries.len().saturating_sub(KEEP);
                s.entries.drain(..over);
            }
        }
        Rc::new(s)
    }
}

fn rtt(ms: f64) -> Html {
    html! { <span class="console-rtt" data-testid="console-rtt">{ format!("{ms:.2} ms") }</span> }
}

fn entry(e: &Entry) -> Html {
    let (state, out) = match &e.out {
        Out::Waiting => (
            "waiting",
            html! { <span class="console-wait">{"উত্তরের অপেক্ষা…"}</span> },
        ),
        Out::Reply(r, ms) => (
            if r.is_error() { "error" } else { "ok" },
            html! { <><pre class="console-out" data-testid="console-out">{ redis_cli(r) }</pre>{ rtt(*ms) }</> },
        ),
        Out::Refused(err, ms) => (
            "refused",
            html! {
                <>
                    <p class="console-refused" data-testid="console-refused" data-code={err.code.name()}>
                        <code class="console-code">{ err.code.name() }</code>{" — "}{ err.bn() }
                        <span class="console-msg">{ err.message.clone() }</span>
                    </p>
                    { rtt(*ms) }
                </>
            },
        ),
        Out::Local(why) => (
            "local",
            html! { <p class="console-refused" role="alert">{ why.clone() }</p> },
        ),
    };
    html! {
        <li class="console-entry" data-state={state}>
            <div class="console-line"><span class="console-prompt" aria-hidden="true">{"redis> "}</span><code>{ e.line.clone() }</code></div>
            { out }
        </li>
    }
}

/// The console page: the app draws its frame, the labs module (fetched the first time, as
/// for a lab) draws the console itself ([`ConsoleView`]), so none of it weighs on the first
/// load.
#[component]
pub fn ConsolePage() -> Html {
    use_effect_with((), |_| {
        dom::document().set_title("Redis কনসোল · Redis Lab");
    });
    html! {
        <div class="lab-page console-page">
            <header class="topbar">
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{"Redis কনসোল"}</span>
            </header>
            <main class="lab-main console-main">
                <h1 class="lab-title">{"Redis কনসোল"}</h1>
                // `embedded`: the labs module starts no simulation worker for it.
                <crate::labs::host::LabHost id="console" embedded={true} />
            </main>
        </div>
    }
}

/// The console (drawn by the labs module into [`ConsolePage`]).
#[component]
pub fn ConsoleView() -> Html {
    let state = use_reducer(State::default);
    let socket = use_mut_ref(|| None::<Socket>);
    let history = use_mut_ref(|| (Vec::<String>::new(), 0usize));
    let input = use_node_ref();
    // Offline there is no socket; it opens again when the network comes back.
    let online = crate::offline::use_online();
    {
        let (d, socket) = (state.dispatcher(), socket.clone());
        use_effect_with(online, move |&online| {
            if online {
                let on = Callback::from(move |e: Event| d.dispatch(Action::Socket(e)));
                *socket.borrow_mut() = Socket::open(on);
            }
            move || drop(socket.borrow_mut().take())
        });
    }
    {
        // The newest entry in view.
        let n = state.entries.len();
        use_effect_with(n, |_| {
            if let Ok(Some(el)) = dom::document().query_selector(".console-entry:last-child") {
                el.scroll_into_view_with_bool(false);
            }
        });
    }
    let onsubmit = {
        let (d, socket, history, input) = (
            state.dispatcher(),
            socket.clone(),
            history.clone(),
            input.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(el) = input.cast::<HtmlInputElement>() else {
                return;
            };
            let line = el.value().trim().to_string();
            if line.is_empty() {
                return;
            }
            el.set_value("");
            {
                let mut h = history.borrow_mut();
                if h.0.last() != Some(&line) {
                    h.0.push(line.clone());
                }
                h.1 = h.0.len();
            }
            // redis-cli's own rules (`split_args`); the words travel as JSON text.
            let words = split_args(&line)
                .map_err(|bad| bad.bengali())
                .and_then(|args| utf8_args(args).ok_or(NOT_UTF8));
            let (id, out) = match words {
                Err(why) => (None, Out::Local(why.into())),
                Ok(words) => match socket.borrow_mut().as_mut().and_then(|s| s.send(&words)) {
                    Some(id) => (Some(id), Out::Waiting),
                    None => (
                        None,
                        Out::Local("প্রক্সির সঙ্গে সংযোগ নেই — কমান্ড পাঠানো হয়নি".into()),
                    ),
                },
            };
            d.dispatch(Action::Add(Entry { id, line, out }));
        })
    };
    let onkeydown = {
        let (history, input) = (history.clone(), input.clone());
        Callback::from(move |e: KeyboardEvent| {
            let up = match e.key().as_str() {
                "ArrowUp" => true,
                "ArrowDown" => false,
                _ => return,
            };
            let Some(el) = input.cast::<HtmlInputElement>() else {
                return;
            };
            e.prevent_default();
            let mut h = history.borrow_mut();
            let (lines, pos) = (&h.0, h.1);
            let pos = if up {
                pos.saturating_sub(1)
            } else {
                (pos + 1).min(lines.len())
            };
            el.set_value(lines.get(pos).map_or("", String::as_str));
            h.1 = pos;
        })
    };
    let no_proxy = online && matches!(state.status, Some(LiveStatus::NoProxy));
    html! {
        <div class="console">
                <p class="console-lead">
                    {"redis-cli-র মতো: একটা কমান্ড লিখে Enter চাপুন, আসল Redis-এর উত্তর redis-cli যেভাবে দেখায় সেভাবে আসবে, সঙ্গে আসা-যাওয়ার সময়। ↑/↓ দিয়ে আগের কমান্ড। আপনার key-গুলো এই সেশনের নিজস্ব জায়গায় থাকে; পুরো keyspace বা সার্ভার ছোঁয়া কমান্ড প্রক্সি ফিরিয়ে দেয়।"}
                </p>
                if online {
                    <p class="console-status"><Indicator status={state.status.clone().or(Some(LiveStatus::Connecting))} /></p>
                } else {
                    <crate::offline::NeedsNetwork what="কনসোল" />
                }
                if no_proxy {
                    <p class="live-msg" role="alert" data-testid="live-msg">
                        {"এখানে আসল Redis-এর প্রক্সি নেই, তাই কনসোল চলবে না।"}
                    </p>
                    { super::bar::for_instructors() }
                }
                if online && matches!(state.status, Some(LiveStatus::RedisDown)) {
                    <p class="live-msg" role="alert" data-testid="live-msg">{"প্রক্সি আছে, কিন্তু তার পেছনের Redis সাড়া দিচ্ছে না।"}</p>
                }
                <ol class="console-log" tabindex="0" aria-label="কমান্ড আর উত্তর" aria-live="polite" data-testid="console-log">
                    { for state.entries.iter().map(entry) }
                </ol>
                <form class="console-form" {onsubmit}>
                    <label class="console-prompt" for="console-input">{"redis>"}</label>
                    <input id="console-input" ref={input} data-testid="console-input" type="text" autocomplete="off"
                        autocapitalize="off" spellcheck="false" placeholder="SET k v" disabled={!online} {onkeydown} />
                    <button class="tool" type="submit" disabled={!online}>{"চালান"}</button>
                </form>
        </div>
    }
}
