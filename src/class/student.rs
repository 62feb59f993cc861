//! The student's page (`#/join`, phone first): join with the code (Bengali or ASCII digits)
//! and a name if they like; then the instructor's slide and fragment, or "show me"'s lab;
//! browse back and forward freely, with a clear "back to the class"; answer the open
//! question once (changeable until the reveal), and see their own verdict at the reveal,
//! graded here with the question the reveal carries. A lost connection comes back by itself
//! as the same student and lands on the class' current slide; the page says so meanwhile.

use super::parts::{self, SlideAt};
use super::socket::{ClassSocket, Event, Link};
use crate::dom;
use redislab_deck::bn;
use redislab_sim::class::{self as class, Down, Form, Op, Position, Refusal, View};
use redislab_sim::practice::grade;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Where a phone keeps its way back into a class (its resume token), by code.
fn resume_key(code: &str) -> String {
    format!("redislab.class.resume.{code}")
}

#[derive(Clone, PartialEq, Default)]
struct State {
    code: String,
    name: String,
    /// Joined: (number, shown name).
    me: Option<(u32, String)>,
    link: Option<Link>,
    redis_down: bool,
    /// (seq, question number, open, view).
    view: Option<(u64, u64, bool, Rc<View>)>,
    /// The practice set's number (0: none given).
    set_no: u64,
    /// Browsing: the slide and step shown instead of the class'.
    own: Option<Position>,
    /// The answer sent to question `q`, and whether the proxy took it.
    answer: Option<(u64, String, bool)>,
    error: Option<String>,
    ended: Option<class::Ending>,
    joining: bool,
}

enum Msg {
    Typed { code: String, name: String },
    Link(Link),
    Down(Down),
    Browse(i32),
    Back,
    Sent(u64, String),
}

impl Reducible for State {
    type Action = Msg;
    fn reduce(self: Rc<Self>, m: Msg) -> Rc<Self> {
        let mut s = (*self).clone();
        match m {
            Msg::Typed { code, name } => {
                s.code = code;
                s.name = name;
                s.joining = true;
                s.error = None;
            }
            Msg::Link(l) => {
                s.link = Some(l);
                if l == Link::NoProxy {
                    s.joining = false;
                }
            }
            Msg::Browse(d) => {
                if let Some((_, _, _, v)) = &s.view {
                    let mut p = s.own.clone().unwrap_or_else(|| v.at.clone());
                    p.step = 0;
                    p.slide = (i64::from(p.slide) + i64::from(d)).max(0) as u32;
                    s.own = (p != v.at).then_some(p);
                }
            }
            Msg::Back => s.own = None,
            Msg::Sent(q, v) => s.answer = Some((q, v, false)),
            Msg::Down(d) => match d {
                Down::Joined {
                    code,
                    you,
                    name,
                    resume,
                    ..
                } => {
                    dom::store(&resume_key(&code), &resume);
                    s.me = Some((you, name));
                    s.joining = false;
                }
                Down::View {
                    seq,
                    q,
                    open,
                    set,
                    view,
                } if s.view.as_ref().is_none_or(|v| v.0 < seq) => {
                    s.set_no = set;
                    // A new question: the earlier answer is not this one's.
                    if s.answer.as_ref().is_some_and(|a| a.0 != q) {
                        s.answer = None;
                    }
                    s.view = Some((seq, q, open, Rc::new(*view)));
                }
                Down::Answered { .. } => {
                    if let Some(a) = &mut s.answer {
                        a.2 = true;
                    }
                }
                Down::Err { code, .. } => {
                    if code == Refusal::NoClass && s.me.is_none() {
                        s.joining = false;
                    }
                    s.error = Some(code.bn().to_string());
                }
                Down::Ended { why } => s.ended = Some(why),
                Down::Redis { up } => s.redis_down = !up,
                _ => {}
            },
        }
        Rc::new(s)
    }
}

/// Props: the address' query (`code=482917`).
#[derive(Properties, PartialEq)]
pub struct JoinProps {
    /// `code=…` from the join address (the QR code's).
    #[prop_or_default]
    pub query: AttrValue,
}

/// The student's page.
#[component]
pub fn Join(props: &JoinProps) -> Html {
    let from_address = props
        .query
        .split('&')
        .find_map(|kv| kv.strip_prefix("code="))
        .map(str::to_string)
        .unwrap_or_default();
    let state = use_reducer(State::default);
    let socket = use_mut_ref(|| None::<ClassSocket>);
    // The practice set's answers last sent (set number, answers), and whether they go again
    // (after a reconnect, once the class' view says the set is still the same).
    let sent_set = use_mut_ref(|| None::<(u64, Vec<String>)>);
    let resend = use_mut_ref(|| false);
    // The join (again) whenever the socket (re)opens.
    let join_op = {
        let s = state.clone();
        move || {
            let resume = dom::stored(&resume_key(&s.code)).unwrap_or_default();
            Op::Join {
                code: s.code.clone(),
                name: s.name.clone(),
                resume,
            }
        }
    };
    let on_event = {
        let (d, socket, state) = (state.dispatcher(), socket.clone(), state.clone());
        let (sent_set, resend) = (sent_set.clone(), resend.clone());
        let join_op = Rc::new(join_op);
        Callback::from(move |e: Event| match e {
            Event::Link(l) => {
                if l == Link::Open {
                    *resend.borrow_mut() = sent_set.borrow().is_some();
                    if let Some(s) = socket.borrow().as_ref() {
                        s.send(join_op());
                    }
                }
                let _ = &state;
                d.dispatch(Msg::Link(l));
            }
            Event::Down(down) => {
                if let Down::View { set, .. } = &down {
                    let again = sent_set.borrow().clone().filter(|(n, _)| n == set);
                    if let (true, Some((set, answers))) = (*resend.borrow(), again) {
                        if let Some(s) = socket.borrow().as_ref() {
                            s.send(Op::Results { set, answers });
                        }
                    }
                    *resend.borrow_mut() = false;
                }
                let last = matches!(down, Down::Ended { .. });
                d.dispatch(Msg::Down(down));
                if last {
                    if let Some(s) = socket.borrow_mut().take() {
                        s.close();
                    }
                }
            }
        })
    };
    // The socket opens once the student asked to join; it closes with the page.
    {
        let (socket, on_event) = (socket.clone(), on_event.clone());
        use_effect_with(state.joining && socket.borrow().is_none(), move |&start| {
            if start {
                *socket.borrow_mut() = Some(ClassSocket::open(on_event));
            }
        });
    }
    {
        let socket = socket.clone();
        use_effect_with((), move |_| {
            move || {
                if let Some(s) = socket.borrow_mut().take() {
                    s.close();
                }
            }
        });
    }
    // Before the join: the form.
    let Some((who, my_name)) = state.me.clone() else {
        return form(
            &state,
            &from_address,
            socket.borrow().is_some(),
            state.dispatcher(),
        );
    };
    if let Some(why) = state.ended {
        return html! {
            <main class="class-phone class-ended" role="main">
                <h1>{"ক্লাস শেষ"}</h1>
                <p role="status" data-testid="class-ended">{ why.bn() }</p>
                <a class="button primary" href="#/">{"← সব ডেক"}</a>
            </main>
        };
    }
    let d = state.dispatcher();
    let Some((_, q, open, view)) = state.view.clone() else {
        return html! { <main class="class-phone" aria-busy="true"><p role="status">{"ক্লাসের স্লাইড আসছে…"}</p></main> };
    };
    let away = state.link == Some(Link::Away) || state.link == Some(Link::Connecting);
    let at = state.own.clone().unwrap_or_else(|| view.at.clone());
    let browsing = state.own.is_some();
    let browse = |delta: i32| {
        d.to_callback()
            .reform(move |_: MouseEvent| Msg::Browse(delta))
    };
    html! {
        <main class={classes!("class-phone", browsing.then_some("browsing"))} role="main" data-seq={state.view.as_ref().map(|v| v.0.to_string())}>
            <header class="class-bar">
                <span class="class-code">{"ক্লাস "}{ class::code_bn(&state.code) }</span>
                <span class="class-me" data-testid="class-me">{ my_name }{" · "}{ bn::int(i64::from(who)) }</span>
                <span class={classes!("class-dot", if away { "away" } else { "on" })} aria-hidden="true"></span>
            </header>
            if away {
                <p class="class-away" role="status" data-testid="class-away">{"সংযোগ নেই — আবার যুক্ত হচ্ছে… ফিরলেই ক্লাসের এখনকার স্লাইডে যাবেন"}</p>
            }
            if state.redis_down {
                <p class="class-away" role="status">{ Refusal::Unavailable.bn() }</p>
            }
            if browsing {
                <p class="class-browse" role="status">
                    {"আপনি নিজে দেখছেন (স্লাইড "}{ bn::int(i64::from(at.slide) + 1) }{")"}
                    <button type="button" class="button primary" data-testid="class-back" onclick={d.to_callback().reform(|_| Msg::Back)}>{"ক্লাসে ফিরুন →"}</button>
                </p>
            }
            if let (Some(s), false) = (&view.show, browsing) {
                { parts::show_me(s) }
            } else {
                <SlideAt at={at} />
            }
            <nav class="class-nav" aria-label="নিজে দেখুন">
                <button type="button" class="button" onclick={browse(-1)} aria-label="আগের স্লাইড">{"← আগে"}</button>
                <button type="button" class="button" onclick={browse(1)} aria-label="পরের স্লাইড">{"পরে →"}</button>
            </nav>
            if let (Some(spec), true) = (&view.set, state.set_no > 0) {
                <GivenSet key={state.set_no.to_string()} set_no={state.set_no} spec={spec.clone()} socket={socket.borrow().clone()} sent={sent_set.clone()} />
            }
            if let Some(a) = &view.question {
                <Answering q={q} open={open} asked={a.clone()} view={view.clone()} answer={state.answer.clone()} error={state.error.clone()} socket={socket.borrow().clone()} on_sent={d.to_callback().reform(|(q, v)| Msg::Sent(q, v))} />
            }
        </main>
    }
}

/// The join form.
fn form(state: &State, from_address: &str, trying: bool, d: UseReducerDispatcher<State>) -> Html {
    if state.link == Some(Link::NoProxy) {
        return html! { <main class="class-phone" role="main">{ parts::needs_server() }</main> };
    }
    let onsubmit = Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let field = |name: &str| {
            e.target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|f| f.query_selector(&format!("[name={name}]")).ok().flatten())
                .map(|i| i.unchecked_into::<web_sys::HtmlInputElement>().value())
                .unwrap_or_default()
        };
        let (code, name) = (field("code"), field("name"));
        match class::read_code(&code) {
            Some(code) => d.dispatch(Msg::Typed { code, name }),
            None => d.dispatch(Msg::Down(Down::Err {
                id: None,
                code: Refusal::BadRequest,
                message: String::new(),
            })),
        }
    });
    let bad_code = state.error.as_deref() == Some(Refusal::BadRequest.bn());
    let error = if bad_code {
        Some("কোডটা ছয় অঙ্কের — বাংলা বা ইংরেজি অঙ্কে লিখুন, যেমন ৪৮২ ৯১৭".to_string())
    } else {
        state.error.clone()
    };
    let _ = trying;
    html! {
        <main class="class-phone class-join" role="main">
            <h1>{"ক্লাসে যোগ দিন"}</h1>
            <form class="class-join-form" {onsubmit}>
                <label for="class-code">{"শিক্ষকের দেওয়া কোড"}</label>
                <input id="class-code" name="code" type="text" inputmode="numeric" autocomplete="off" value={from_address.to_string()} placeholder="৪৮২ ৯১৭" aria-describedby="class-join-error" />
                <label for="class-name">{"আপনার নাম (ইচ্ছে হলে)"}</label>
                <input id="class-name" name="name" type="text" maxlength="24" autocomplete="nickname" placeholder="না দিলে একটা ছদ্মনাম" />
                <button type="submit" class="button primary" disabled={state.joining && state.link != Some(Link::NoProxy) && error.is_none()}>{ if state.joining { "যোগ দিচ্ছি…" } else { "যোগ দিন" } }</button>
                <p id="class-join-error" class="class-error" role="alert">{ error.unwrap_or_default() }</p>
            </form>
            <p class="class-join-note">{"কোনো অ্যাকাউন্ট লাগে না। শিক্ষক স্লাইড বদলালে আপনার ফোনেও বদলাবে।"}</p>
        </main>
    }
}

#[derive(Properties, PartialEq)]
struct AnsweringProps {
    q: u64,
    open: bool,
    asked: redislab_sim::class::Asked,
    view: Rc<View>,
    answer: Option<(u64, String, bool)>,
    error: Option<String>,
    socket: Option<ClassSocket>,
    on_sent: Callback<(u64, String)>,
}

/// The open question on a phone: answer (and change) until the reveal, then the verdict.
#[component]
fn Answering(p: &AnsweringProps) -> Html {
    let mine = p.answer.as_ref().filter(|a| a.0 == p.q);
    // A question asked, or its reveal: brought into view (on a phone it is below the slide).
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with((p.q, p.view.reveal.is_some()), move |_| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                el.scroll_into_view();
            }
        });
    }
    let send = {
        let (socket, on_sent, q) = (p.socket.clone(), p.on_sent.clone(), p.q);
        Callback::from(move |value: String| {
            if value.trim().is_empty() {
                return;
            }
            if let Some(s) = &socket {
                if s.send(Op::Answer {
                    q,
                    value: value.clone(),
                })
                .is_some()
                {
                    on_sent.emit((q, value));
                }
            }
        })
    };
    let verdict = p.view.reveal.as_ref().map(|r| {
        let v = mine.map(|a| grade(&r.question, &a.1));
        html! {
            <div class="class-verdict" role="status" data-testid="class-verdict">
                { match v {
                    Some(Ok(v)) if v.right => html! { <p class="class-right">{"ঠিক! "}{ v.heard }</p> },
                    Some(Ok(v)) => html! { <><p class="class-wrong">{"হয়নি — আপনি লিখেছিলেন "}{ v.heard }</p><p class="class-note">{ parts::rich(&v.note) }</p></> },
                    Some(Err(why)) => html! { <p class="class-wrong">{ why }</p> },
                    None => html! { <p>{"আপনি উত্তর দেননি।"}</p> },
                } }
                <p class="class-right-answer">{"উত্তর: "}<strong>{ r.question.draft.answer.right_text() }</strong></p>
                <p class="class-share">{ parts::share(&r.tally) }</p>
            </div>
        }
    });
    let choice = |i: usize, o: &String| {
        let value = (i + 1).to_string();
        let picked = mine.is_some_and(|a| a.1 == value);
        let send = send.clone();
        let v = value.clone();
        html! {
            <li><button type="button" class={classes!("class-option", picked.then_some("picked"))} aria-pressed={picked.to_string()} disabled={!p.open}
                onclick={Callback::from(move |_| send.emit(v.clone()))}>{ parts::option_label(i, o) }</button></li>
        }
    };
    let onsubmit = {
        let send = send.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let value = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .and_then(|f| f.query_selector("input").ok().flatten())
                .map(|i| i.unchecked_into::<web_sys::HtmlInputElement>().value())
                .unwrap_or_default();
            send.emit(value);
        })
    };
    html! {
        <section class="class-question" ref={node} aria-label="প্রশ্ন" data-q={p.q.to_string()} data-open={p.open.to_string()}>
            { parts::question(&p.asked) }
            if let Form::Choice { options } = &p.asked.form {
                <ul class="class-options">{ for options.iter().enumerate().map(|(i, o)| choice(i, o)) }</ul>
            } else if p.open {
                <form class="class-answer-form" {onsubmit}>
                    <input type="text" name="answer" autocomplete="off" inputmode={if matches!(p.asked.form, Form::Count | Form::Percent) { "decimal" } else { "text" }}
                        placeholder={parts::form_hint(&p.asked.form)} value={mine.map(|a| a.1.clone()).unwrap_or_default()} maxlength="200" />
                    <button type="submit" class="button primary">{ if mine.is_some() { "বদলান" } else { "পাঠান" } }</button>
                </form>
            }
            if p.open {
                <p class="class-sent" role="status" data-testid="class-sent">
                    { match mine {
                        Some((_, v, true)) => format!("পাঠানো হয়েছে: {v} — উত্তর দেখানোর আগ পর্যন্ত বদলাতে পারেন"),
                        Some((_, v, false)) => format!("পাঠানো হচ্ছে: {v}…"),
                        None => parts::form_hint(&p.asked.form).to_string(),
                    } }
                </p>
                if let Some(e) = &p.error { <p class="class-error" role="alert">{ e.clone() }</p> }
            }
            { verdict.unwrap_or_default() }
        </section>
    }
}

/// The practice set's answers last sent: (set number, answers).
type SentSet = Rc<std::cell::RefCell<Option<(u64, Vec<String>)>>>;

#[derive(Properties)]
struct GivenSetProps {
    set_no: u64,
    spec: class::SetSpec,
    socket: Option<ClassSocket>,
    /// Where the answers last sent are kept (sent again after a reconnect).
    sent: SentSet,
}

impl PartialEq for GivenSetProps {
    fn eq(&self, o: &Self) -> bool {
        self.set_no == o.set_no && self.spec == o.spec && self.socket == o.socket
    }
}

/// The practice set the instructor gave: the practice page's own question flow (made in the
/// simulation worker, graded here), each answer sent to the instructor as it is given.
#[component]
fn GivenSet(p: &GivenSetProps) -> Html {
    let node = use_node_ref();
    {
        let node = node.clone();
        use_effect_with(p.set_no, move |_| {
            if let Some(el) = node.cast::<web_sys::Element>() {
                el.scroll_into_view();
            }
        });
    }
    let on_answers = {
        let (socket, sent, set) = (p.socket.clone(), p.sent.clone(), p.set_no);
        Callback::from(move |answers: Vec<String>| {
            *sent.borrow_mut() = Some((set, answers.clone()));
            if let Some(s) = &socket {
                s.send(Op::Results { set, answers });
            }
        })
    };
    html! {
        <section class="class-set" ref={node} aria-labelledby="class-set-h" data-set={p.set_no.to_string()}>
            <h2 id="class-set-h">{"শিক্ষকের দেওয়া অনুশীলন সেট"}</h2>
            <p class="class-set-note">{"একটা একটা করে উত্তর দিন — প্রতিটা উত্তর শিক্ষকের কাছে যাচ্ছে।"}</p>
            <crate::practice::SetView spec={p.spec.practice()} seed={p.spec.seed} {on_answers} />
        </section>
    }
}
