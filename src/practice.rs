//! Practice (`#/practice`): questions the simulator writes from a seed and grades
//! (`redislab_sim::practice`). The app draws the page's frame ([`PracticePage`]); the labs
//! module draws the questions ([`PracticeView`], named only by `labs::views`), so the first
//! load carries none of the question code.
//!
//! One address per question: `#/practice/<topic>/<kind>?seed=N`. Without a seed the page
//! picks one and writes it into the address, so a reload or a shared link shows the same
//! question. A set of questions for a class has one address too:
//! `#/practice?labs=lru,lock&seed=42&n=8` gives everyone the same questions (without `seed`,
//! each student gets a set of their own); it is made in the simulation worker, answered one
//! question at a time, and ends with a score and a result code the instructor checks with
//! `labsim practice --check`. What a student answered is kept in the browser
//! (`localStorage`): the set's place and answers (a reload or a "show me" and back goes on
//! where it was), and per lab and kind how many were right, so the list suggests what to
//! practise next. A bad address gets a Bengali message and a way back to the list.

use crate::dom;
use redislab_deck::{bn, route};
use redislab_sim::labs::lab::Job;
use redislab_sim::practice::progress::Progress;
use redislab_sim::practice::set::{self, Spec};
use redislab_sim::practice::{self, choice_label, Answer, Place, Question, Verdict};
use score::SetScore;
use std::rc::Rc;
use yew::prelude::*;

mod score;

/// Props of [`PracticePage`].
#[derive(Properties, PartialEq)]
pub struct PracticePageProps {
    /// What follows `#/practice/`.
    pub path: AttrValue,
    /// The address's query.
    pub query: AttrValue,
}

/// The practice page's frame (drawn by the app).
#[component]
pub fn PracticePage(props: &PracticePageProps) -> Html {
    use_effect_with((), |_| dom::document().set_title("অনুশীলন · Redis Lab"));
    let query = format!("{}?{}", props.path, props.query);
    html! {
        <div class="lab-page practice-page">
            <header class="topbar">
                <a class="brand" href="#/" title="সব ডেক"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{"অনুশীলন"}</span>
            </header>
            <main class="lab-main practice-main">
                <h1 class="lab-title">{"অনুশীলন — আগে ভাবুন, তারপর মিলিয়ে দেখুন"}</h1>
                // `embedded`: the labs module starts no simulation worker for it.
                <crate::labs::host::LabHost id="practice" query={query} embedded={true} />
            </main>
        </div>
    }
}

/// Text with `backticked` parts as code.
fn rich(s: &str) -> Html {
    html! {
        { for s.split('`').enumerate().map(|(i, part)| if i % 2 == 1 {
            html! { <code>{ part.to_string() }</code> }
        } else {
            html! { { part.to_string() } }
        }) }
    }
}

/// Props of [`PracticeView`]: the labs module's `query` is `<path>?<query>`.
#[derive(Properties, PartialEq)]
pub struct PracticeViewProps {
    /// `<path>?<query>` of the address.
    pub query: AttrValue,
}

/// The practice page's body (drawn by the labs module): the list, a question, a set, or why
/// the address names none.
#[component]
pub fn PracticeView(props: &PracticeViewProps) -> Html {
    let (path, query) = redislab_address::split_hash(&props.query);
    // A seed for an address without one, drawn once.
    let fresh = use_state(|| (js_sys::Math::random() * 4_294_967_296.0) as u32);
    match practice::place(path, query) {
        Err(why) => html! {
            <div class="practice-bad" role="alert">
                <h2>{"এই ঠিকানায় কোনো প্রশ্ন নেই"}</h2>
                <p class="practice-why-bad">{ rich(&why) }</p>
                <a class="button primary" href={route::practice_hash("", "")}>{"← সব প্রশ্ন"}</a>
            </div>
        },
        Ok(Place::Index) => html! { <Index /> },
        Ok(Place::Set(spec)) => {
            let seed = spec.seed.unwrap_or(*fresh);
            let key = spec.query(seed);
            html! { <SetView {key} fresh={spec.seed.is_none()} {spec} {seed} /> }
        }
        Ok(Place::Fresh { topic, kind }) => {
            let (seed, key) = (*fresh, format!("{topic}/{kind}/{}", *fresh));
            html! { <SingleQuestion {key} {topic} {kind} {seed} fresh={true} /> }
        }
        Ok(Place::Question { topic, kind, seed }) => {
            let key = format!("{topic}/{kind}/{seed}");
            html! { <SingleQuestion {key} {topic} {kind} {seed} fresh={false} /> }
        }
    }
}

/// What the browser keeps of the student's answers, per lab and kind.
fn progress() -> Progress {
    Progress::read(dom::stored(practice::progress::KEY).as_deref())
}

/// Counts an answer in the browser's tally.
fn record(q: &Question, right: bool) {
    let mut p = progress();
    p.record(q, right);
    dom::store(practice::progress::KEY, &p.to_json());
}

/// The list: a set to start (which labs, how many questions), each topic's tally and the
/// kind to practise next, and every kind as a link to a fresh question.
#[component]
fn Index() -> Html {
    let topics = practice::topics();
    let boxes: Vec<NodeRef> = use_memo((), |_| {
        practice::topics()
            .iter()
            .map(|_| NodeRef::default())
            .collect::<Vec<_>>()
    })
    .to_vec();
    let count = use_node_ref();
    let none = use_state(|| false);
    let onsubmit = {
        let (boxes, count, none) = (boxes.clone(), count.clone(), none.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let ids: Vec<&str> = practice::topics()
                .iter()
                .zip(&boxes)
                .filter(|(_, b)| {
                    b.cast::<web_sys::HtmlInputElement>()
                        .is_some_and(|i| i.checked())
                })
                .map(|(t, _)| t.id)
                .collect();
            if ids.is_empty() {
                none.set(true);
                return;
            }
            let n = count
                .cast::<web_sys::HtmlInputElement>()
                .and_then(|i| i.value().parse::<u32>().ok())
                .unwrap_or(set::DEFAULT_N)
                .clamp(1, set::MAX_N);
            let labs = if ids.len() == practice::topics().len() {
                "all".to_string()
            } else {
                ids.join(",")
            };
            // A new history entry the app routes to (a `hashchange`).
            let _ = dom::window()
                .location()
                .set_hash(&route::practice_hash("", &format!("labs={labs}&n={n}")));
        })
    };
    let tally = progress();
    html! {
        <div class="practice-index">
            <p class="practice-lead">{"ল্যাবের সিমুলেটর নিজেই প্রশ্ন বানায় আর নিজেই মিলিয়ে দেখে। প্রতিটা প্রশ্নের নিজের ঠিকানা আছে: লিংকটা দিলে অন্যরাও ঠিক একই প্রশ্ন পাবে। উত্তর দেওয়ার পরে \"ল্যাবে চালিয়ে দেখুন\" দিয়ে একই অপারেশন ল্যাবে চালান।"}</p>
            <form class="practice-start" {onsubmit} novalidate=true aria-labelledby="practice-start-h">
                <h2 id="practice-start-h">{"একটা সেট: একের পর এক প্রশ্ন, শেষে স্কোর"}</h2>
                <fieldset class="practice-labs">
                    <legend>{"কোন ল্যাবের প্রশ্ন"}</legend>
                    { for topics.iter().zip(&boxes).map(|(t, r)| html! {
                        <label class="practice-lab">
                            <input type="checkbox" name="labs" value={t.id} checked={true} ref={r.clone()} />
                            { t.title }
                        </label>
                    }) }
                </fieldset>
                <div class="practice-row">
                    <label for="practice-n">{"প্রশ্ন"}</label>
                    <input id="practice-n" ref={count} type="number" min="1" max={set::MAX_N.to_string()} value={set::DEFAULT_N.to_string()} inputmode="numeric" />
                    <button type="submit" class="button primary practice-go">{"শুরু করুন"}</button>
                </div>
                if *none {
                    <p class="practice-unread" role="alert">{"অন্তত একটা ল্যাব বেছে নিন।"}</p>
                }
                <p class="practice-hint">{"ক্লাসের জন্য: সেট শুরু হলে ঠিকানায় তার seed বসে — সেই লিংকে সবাই একই প্রশ্ন পায়; seed ছাড়া লিংকে (যেমন "}<code>{"#/practice?labs=all&n=10"}</code>{") প্রত্যেকে নিজের আলাদা সেট।"}</p>
            </form>
            { for topics.iter().map(|t| {
                let done = tally.topic(t.id);
                let next = tally.next_kind(t.id).and_then(|k| t.kinds.iter().find(|x| x.id == k));
                html! {
                    <section class="practice-topic" data-topic={t.id}>
                        <h2>{ t.title }</h2>
                        if done.asked > 0 {
                            <p class="practice-tally">
                                { format!("আপনি এ পর্যন্ত {}টা প্রশ্নের {}টা ঠিক করেছেন।", bn::int(done.asked.into()), bn::int(done.right.into())) }
                                if let Some(k) = next {
                                    {" এরপর অনুশীলন করুন: "}
                                    <a class="practice-next-kind" href={route::practice_hash(&format!("{}/{}", t.id, k.id), "")}>{ k.title }</a>
                                }
                            </p>
                        }
                        <ul class="practice-kinds">
                            { for t.kinds.iter().map(|k| html! {
                                <li><a class="practice-kind" href={route::practice_hash(&format!("{}/{}", t.id, k.id), "")}>{ k.title }</a></li>
                            }) }
                        </ul>
                    </section>
                }
            }) }
        </div>
    }
}

/// Props of [`SingleQuestion`].
#[derive(Properties, PartialEq)]
struct SingleProps {
    topic: String,
    kind: String,
    seed: u32,
    /// The address had no seed: write this one into it.
    fresh: bool,
}

/// One question at its own address, with a link to the next.
#[component]
fn SingleQuestion(props: &SingleProps) -> Html {
    // Made in the simulation worker: a kind runs its lab, which must not hold a phone's
    // main thread.
    let run = crate::labs::kit::use_work::<Question, Vec<Question>>(Some(one_job(
        &props.topic,
        &props.kind,
        props.seed,
    )));
    let verdict = use_state(|| None::<Verdict>);
    {
        let hash = practice::address(&props.topic, &props.kind, props.seed);
        let fresh = props.fresh;
        use_effect_with((), move |_| {
            if fresh {
                dom::replace_hash(&hash);
            }
        });
    }
    if let Some(why) = &run.failed {
        return html! { <p class="practice-bad" role="alert">{ why.clone() }</p> };
    }
    let Some(q) = run.parts.first().cloned().map(Rc::new) else {
        return html! { <p class="practice-wait" aria-busy="true">{"প্রশ্ন তৈরি হচ্ছে — সিমুলেটর ল্যাবটা চালিয়ে উত্তর বের করছে…"}</p> };
    };
    let on_verdict = {
        let (verdict, q) = (verdict.clone(), q.clone());
        Callback::from(move |v: Verdict| {
            record(&q, v.right);
            verdict.set(Some(v));
        })
    };
    let (nt, nk, ns) = practice::next(&q);
    let on = html! {
        <a class="button primary practice-next" href={practice::address(&nt, &nk, ns)}>{"পরের প্রশ্ন →"}</a>
    };
    html! {
        <QuestionCard {q} verdict={(*verdict).clone()} {on_verdict} {on} place={Html::default()} />
    }
}

/// The simulation worker's job that makes one question (a quiz slide's, a class' question).
pub fn one_job(topic: &str, kind: &str, seed: u32) -> Job {
    Job {
        lab: set::JOB_LAB.into(),
        run: String::new(),
        query: format!("one={topic}/{kind}&seed={seed}"),
        live_scale: None,
        live_url: None,
    }
}

/// Props of [`SetView`].
#[derive(Properties, PartialEq)]
struct SetProps {
    spec: Spec,
    seed: u32,
    /// The address had no seed: write this one into it (it is then the class link).
    fresh: bool,
}

/// Where a student is in a set, kept in the browser per set.
#[derive(Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct SetPlace {
    /// The question shown (the set's length: the score).
    at: usize,
    /// The verdict of each question answered.
    verdicts: Vec<Option<Verdict>>,
}

/// A set of questions, one at a time, made in the simulation worker; then the score and the
/// result code.
#[component]
fn SetView(props: &SetProps) -> Html {
    let n = props.spec.n as usize;
    let key = props.spec.storage_key(props.seed);
    let place = {
        let key = key.clone();
        use_state(move || {
            dom::stored(&key)
                .and_then(|j| serde_json::from_str::<SetPlace>(&j).ok())
                .filter(|p| p.verdicts.len() == n && p.at <= n)
                .unwrap_or(SetPlace {
                    at: 0,
                    verdicts: vec![None; n],
                })
        })
    };
    {
        let hash = route::practice_hash("", &props.spec.query(props.seed));
        let fresh = props.fresh;
        use_effect_with((), move |_| {
            if fresh {
                dom::replace_hash(&hash);
            }
        });
    }
    let job = Job {
        lab: set::JOB_LAB.into(),
        run: String::new(),
        query: props.spec.query(props.seed),
        live_scale: None,
        live_url: None,
    };
    let run = crate::labs::kit::use_work::<Question, Vec<Question>>(Some(job));
    let save = {
        let (place, key) = (place.clone(), key.clone());
        Callback::from(move |p: SetPlace| {
            if let Ok(j) = serde_json::to_string(&p) {
                dom::store(&key, &j);
            }
            place.set(p);
        })
    };
    let at = place.at;
    let shown = format!(
        "{}/{}",
        bn::int(at.min(n - 1) as i64 + 1),
        bn::int(n as i64)
    );
    if let Some(why) = &run.failed {
        return html! { <p class="practice-bad" role="alert">{ why.clone() }</p> };
    }
    if at >= n {
        let on_again = {
            let save = save.clone();
            Callback::from(move |_| {
                save.emit(SetPlace {
                    at: 0,
                    verdicts: vec![None; n],
                })
            })
        };
        return html! { <SetScore spec={props.spec.clone()} seed={props.seed} verdicts={place.verdicts.clone()} {on_again} /> };
    }
    let Some(q) = run.parts.get(at).cloned().map(Rc::new) else {
        return html! {
            <div class="practice-set" aria-busy="true">
                <p class="practice-place">{"প্রশ্ন "}{ shown }</p>
                <p class="practice-wait">{"প্রশ্ন তৈরি হচ্ছে — সিমুলেটর ল্যাবটা চালিয়ে উত্তর বের করছে…"}</p>
            </div>
        };
    };
    let verdict = place.verdicts[at].clone();
    let on_verdict = {
        let (place, save, q) = (place.clone(), save.clone(), q.clone());
        Callback::from(move |v: Verdict| {
            record(&q, v.right);
            let mut p = (*place).clone();
            p.verdicts[at] = Some(v);
            save.emit(p);
        })
    };
    let onnext = {
        let (place, save) = (place.clone(), save.clone());
        Callback::from(move |_| {
            let mut p = (*place).clone();
            p.at = at + 1;
            save.emit(p);
        })
    };
    let last = at + 1 == n;
    let on = html! {
        <button type="button" class="button primary practice-next" onclick={onnext}>
            { if last { "ফলাফল দেখুন →" } else { "পরের প্রশ্ন →" } }
        </button>
    };
    let right = place.verdicts.iter().flatten().filter(|v| v.right).count();
    let place_line = html! {
        <p class="practice-place">
            {"প্রশ্ন "}{ shown }{" · এ পর্যন্ত ঠিক "}{ bn::int(right as i64) }
        </p>
    };
    html! {
        <div class="practice-set" aria-busy="false">
            <QuestionCard key={at} {q} {verdict} {on_verdict} {on} place={place_line} />
        </div>
    }
}

/// Props of [`QuestionCard`].
#[derive(Properties, PartialEq)]
struct CardProps {
    q: Rc<Question>,
    /// The verdict, once answered.
    verdict: Option<Verdict>,
    /// An answer was graded.
    on_verdict: Callback<Verdict>,
    /// The way on, shown with the verdict ("next").
    on: Html,
    /// Where in a set (empty for a single question).
    place: Html,
}

/// One question: the operations, an answer field (or the options), then the verdict, the
/// answer, why, "show me" and the way on.
#[component]
fn QuestionCard(props: &CardProps) -> Html {
    let q = &props.q;
    let input = use_node_ref();
    let first_choice = use_node_ref();
    let result = use_node_ref();
    let unread = use_state(|| None::<String>);
    let choice = matches!(q.draft.answer, Answer::Choice { .. });
    {
        let (input, first_choice) = (input.clone(), first_choice.clone());
        let answered = props.verdict.is_some();
        use_effect_with((), move |_| {
            if !answered {
                let el = input
                    .cast::<web_sys::HtmlElement>()
                    .or_else(|| first_choice.cast::<web_sys::HtmlElement>());
                if let Some(el) = el {
                    let _ = el.focus();
                }
            }
        });
    }
    {
        let result = result.clone();
        use_effect_with(props.verdict.is_some(), move |shown| {
            if *shown {
                if let Some(el) = result.cast::<web_sys::HtmlElement>() {
                    // The whole verdict comes into view (why, and the way on), not only its
                    // heading: focus without the browser's own scroll to the heading, then the
                    // section to the nearest edge (its top, when it is taller than the screen).
                    dom::focus_quietly(&el);
                    if let Some(section) = el.parent_element() {
                        scroll_into_view(&section);
                    }
                }
            }
        });
    }
    let submit: Rc<dyn Fn()> = {
        let (q, input, unread) = (q.clone(), input.clone(), unread.clone());
        let (answered, on_verdict) = (props.verdict.is_some(), props.on_verdict.clone());
        Rc::new(move || {
            if answered {
                return;
            }
            let response = if choice {
                dom::document()
                    .query_selector("input[name=practice-choice]:checked")
                    .ok()
                    .flatten()
                    .and_then(|e| e.get_attribute("value"))
                    .unwrap_or_default()
            } else {
                input
                    .cast::<web_sys::HtmlInputElement>()
                    .map(|el| el.value())
                    .unwrap_or_default()
            };
            match practice::grade(&q, &response) {
                Ok(v) => {
                    unread.set(None);
                    on_verdict.emit(v);
                }
                Err(why) => {
                    unread.set(Some(
                        if choice && response.is_empty() && dom::touch_first() {
                            "কোনোটা বাছা হয়নি — একটায় ট্যাপ করুন, তারপর \"মিলিয়ে দেখুন\"।".into()
                        } else if choice && response.is_empty() {
                            "কোনোটা বাছা হয়নি — একটা বেছে নিন (তীর-কী দিয়ে), তারপর Enter।".into()
                        } else {
                            why
                        },
                    ));
                    if let Some(el) = input.cast::<web_sys::HtmlElement>() {
                        let _ = el.focus();
                    }
                }
            }
        })
    };
    let onsubmit = {
        let submit = submit.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            submit();
        })
    };
    let onkeydown = {
        let submit = submit.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                e.prevent_default();
                submit();
            }
        })
    };
    let kind_title = practice::topic(&q.topic).and_then(|t| {
        t.kinds
            .iter()
            .find(|k| k.id == q.kind)
            .map(|k| (t.title, k.title))
    });
    let (topic_title, kind_title) = kind_title.unwrap_or(("", ""));
    let d = &q.draft;
    let answered = props.verdict.is_some();
    let described = if unread.is_some() {
        "practice-hint practice-unread"
    } else {
        "practice-hint"
    };
    html! {
        <article class="practice-question" data-topic={q.topic.clone()} data-kind={q.kind.clone()} data-seed={q.seed.to_string()}>
            { props.place.clone() }
            <p class="practice-crumbs">
                <a href={route::practice_hash("", "")}>{"সব প্রশ্ন"}</a>
                {" · "}{ topic_title }{" · "}{ kind_title }
                // The seed names the question, but its ten digits mean nothing to a student: the crumb
                // is the question's own link (to share or come back to), the seed in its title.
                {" · "}<a class="practice-seed" href={practice::address(&q.topic, &q.kind, q.seed)} title={format!("seed {}", bn::text(&q.seed.to_string()))}>{"এই প্রশ্নের লিংক"}</a>
            </p>
            <h2 class="practice-text" id="practice-text">{ rich(&d.text) }</h2>
            { code_lines(&d.code, "practice-code") }
            <form class="practice-form" {onsubmit} novalidate=true>
                if let Answer::Choice { options, .. } = &d.answer {
                    <fieldset class="practice-choices" aria-describedby={described} onkeydown={onkeydown}>
                        <legend>{"আপনার উত্তর"}</legend>
                        { for options.iter().enumerate().map(|(i, o)| html! {
                            <label class="practice-choice">
                                <input type="radio" name="practice-choice" id={format!("practice-choice-{i}")}
                                    value={(i + 1).to_string()} disabled={answered}
                                    ref={if i == 0 { first_choice.clone() } else { NodeRef::default() }} />
                                <span class="practice-choice-label">{ choice_label(i) }</span>
                                <span class="practice-choice-text">{ rich(o) }</span>
                            </label>
                        }) }
                    </fieldset>
                    <div class="practice-row">
                        <button type="submit" class="button primary" disabled={answered}>{"মিলিয়ে দেখুন"}</button>
                    </div>
                } else {
                    <label for="practice-answer">{"আপনার উত্তর"}</label>
                    <div class="practice-row">
                        <input id="practice-answer" ref={input} type="text" autocomplete="off" spellcheck="false"
                            autocapitalize="characters" readonly={answered} aria-describedby={described} />
                        <button type="submit" class="button primary" disabled={answered}>{"মিলিয়ে দেখুন"}</button>
                    </div>
                }
                if choice {
                    // On a touch screen, what to tap (the stylesheet shows one of the two).
                    <p class="practice-hint" id="practice-hint">
                        <span class="for-keys">{ d.answer.form_hint() }</span>
                        <span class="for-touch">{"একটায় ট্যাপ করে বেছে নিন, তারপর \"মিলিয়ে দেখুন\""}</span>
                    </p>
                } else {
                    <p class="practice-hint" id="practice-hint">{ d.answer.form_hint() }</p>
                }
                if let Some(why) = &*unread {
                    <p class="practice-unread" id="practice-unread" role="alert">{ why.clone() }</p>
                }
            </form>
            if let Some(v) = &props.verdict {
                <section class={classes!("practice-result", if v.right { "right" } else { "wrong" })} aria-labelledby="practice-verdict">
                    <h3 id="practice-verdict" class="practice-verdict" tabindex="-1" ref={result}>
                        { if v.right { "ঠিক উত্তর!" } else { "হয়নি" } }
                    </h3>
                    <p class="practice-heard">{"আপনার উত্তর: "}<code>{ v.heard.clone() }</code></p>
                    if !v.right {
                        if !v.note.is_empty() {
                            <p class="practice-note">{ rich(&v.note) }</p>
                        }
                        <p class="practice-right">{"ঠিক উত্তর: "}<code>{ d.answer.right_text() }</code></p>
                    }
                    <p class="practice-why">{ rich(&d.why) }</p>
                    <p class="practice-on">
                        { props.on.clone() }
                        if let Some(show) = &d.show {
                            <a class="button practice-show" href={show.hash()} onclick={{
                                let lab = show.lab.clone();
                                Callback::from(move |_: MouseEvent| crate::labs::remember_origin(&lab))
                            }}>
                                { if show.step == 0 {
                                    "ল্যাবে চালিয়ে দেখুন (শেষ ফল)".to_string()
                                } else {
                                    format!("ল্যাবে চালিয়ে দেখুন (ধাপ {})", bn::int(show.step as i64))
                                } }
                            </a>
                        }
                    </p>
                </section>
            }
        </article>
    }
}

/// Scrolls `el` to the nearest edge of the screen (`scrollIntoView({block: "nearest"})`,
/// through the object: web-sys' ScrollIntoViewOptions would be built for this one call).
fn scroll_into_view(el: &web_sys::Element) {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"block".into(), &"nearest".into());
    if let Ok(f) = js_sys::Reflect::get(el, &"scrollIntoView".into()) {
        if let Some(f) = wasm_bindgen::JsCast::dyn_ref::<js_sys::Function>(&f) {
            let _ = f.call1(el, &options);
        }
    }
}

/// Props of [`QuizView`]: `topic=<lab>&kind=<kind>&seed=N`.
#[derive(Properties, PartialEq)]
pub struct QuizViewProps {
    /// The quiz slide's words as a query.
    pub query: AttrValue,
}

/// A deck's question slide (`:::quiz <lab> <kind> seed=N`), drawn by the labs module: the
/// question (made in the simulation worker) for a show of hands; its answer and why; the lab
/// at the question's parameters. The slide's reveal step (`data-step` of the slot around it)
/// decides which show: → reveals the answer, the next → runs the lab.
#[component]
pub fn QuizView(props: &QuizViewProps) -> Html {
    let get = |k: &str| {
        redislab_address::value(&props.query, k)
            .unwrap_or_default()
            .to_string()
    };
    let seed = get("seed").parse().unwrap_or(1);
    let job = one_job(&get("topic"), &get("kind"), seed);
    let run = crate::labs::kit::use_work::<Question, Vec<Question>>(Some(job));
    if let Some(why) = &run.failed {
        return html! { <p class="practice-bad" role="alert">{ why.clone() }</p> };
    }
    let Some(q) = run.parts.first() else {
        return html! { <div class="quiz" aria-busy="true"><p class="practice-wait">{"প্রশ্ন তৈরি হচ্ছে…"}</p></div> };
    };
    let d = &q.draft;
    let lab = d.show.as_ref().and_then(|s| {
        crate::labs::views::view(
            &s.lab,
            crate::labs::kit::LabProps {
                query: s.query.clone().into(),
                embedded: true,
                on_query: Callback::noop(),
            },
        )
    });
    html! {
        <div class="quiz" aria-busy="false" data-topic={q.topic.clone()} data-kind={q.kind.clone()} data-seed={q.seed.to_string()}>
            <p class="quiz-text">{ rich(&d.text) }</p>
            { code_lines(&d.code, "practice-code quiz-code") }
            if let Answer::Choice { options, .. } = &d.answer {
                <ul class="quiz-options">
                    { for options.iter().enumerate().map(|(i, o)| html! {
                        <li><span class="practice-choice-label">{ choice_label(i) }</span>{" "}{ rich(o) }</li>
                    }) }
                </ul>
            }
            <div class="quiz-answer" aria-live="polite">
                <p class="quiz-right">{"উত্তর: "}<strong>{ d.answer.right_text() }</strong></p>
                <p class="quiz-why">{ rich(&d.why) }</p>
            </div>
            if let Some(lab) = lab {
                <div class="quiz-run">{ lab }</div>
            }
        </div>
    }
}

/// A question's operations, each line as written. Short ones (the LRU's `GET A`) sit in
/// columns; when one is longer than a column, every line takes its own row (the box scrolls
/// sideways rather than drawing one line over the next).
fn code_lines(code: &[String], class: &'static str) -> Html {
    if code.is_empty() {
        return Html::default();
    }
    let rows = code.iter().any(|l| l.chars().count() > COLUMN_CHARS);
    html! {
        <pre class={classes!(class, rows.then_some("rows"))}><code>{ for code.iter().map(|l| html! { <span class="practice-line">{ l.clone() }</span> }) }</code></pre>
    }
}

/// The longest line that fits a column of `.practice-code` (its 8.5em at the mono font).
const COLUMN_CHARS: usize = 12;
