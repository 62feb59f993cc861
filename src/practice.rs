//! Practice (`#/practice`): questions the simulator writes from a seed and grades
//! (`redislab_sim::practice`). The app draws the page's frame ([`PracticePage`]); the labs
//! module draws the questions ([`PracticeView`], named only by `labs::views`), so the first
//! load carries none of the question code.
//!
//! One address per question: `#/practice/<topic>/<kind>?seed=N`. Without a seed the page
//! picks one and writes it into the address, so a reload or a shared link shows the same
//! question. A bad address gets a Bengali message and a way back to the list.

use crate::dom;
use redislab_deck::{bn, route};
use redislab_sim::practice::{self, Place, Question, Verdict};
use yew::prelude::*;

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

/// The practice page's body (drawn by the labs module): the list, a question, or why the
/// address names none.
#[component]
pub fn PracticeView(props: &PracticeViewProps) -> Html {
    let (path, query) = props.query.split_once('?').unwrap_or((&props.query, ""));
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
        Ok(Place::Index) => index(),
        Ok(Place::Fresh { topic, kind }) => {
            let (seed, key) = (*fresh, format!("{topic}/{kind}/{}", *fresh));
            html! { <QuestionView {key} {topic} {kind} {seed} fresh={true} /> }
        }
        Ok(Place::Question { topic, kind, seed }) => {
            let key = format!("{topic}/{kind}/{seed}");
            html! { <QuestionView {key} {topic} {kind} {seed} fresh={false} /> }
        }
    }
}

/// The list: every topic and its kinds, each a link to a fresh question.
fn index() -> Html {
    html! {
        <div class="practice-index">
            <p class="practice-lead">{"ল্যাবের সিমুলেটর নিজেই প্রশ্ন বানায় আর নিজেই মিলিয়ে দেখে। প্রতিটা প্রশ্নের নিজের ঠিকানা আছে: লিংকটা দিলে অন্যরাও ঠিক একই প্রশ্ন পাবে। উত্তর দেওয়ার পরে \"ল্যাবে চালিয়ে দেখুন\" দিয়ে একই অপারেশন ল্যাবে চালান।"}</p>
            { for practice::topics().into_iter().map(|t| html! {
                <section class="practice-topic">
                    <h2>{ t.title }</h2>
                    <ul class="practice-kinds">
                        { for t.kinds.iter().map(|k| html! {
                            <li><a class="practice-kind" href={route::practice_hash(&format!("{}/{}", t.id, k.id), "")}>{ k.title }</a></li>
                        }) }
                    </ul>
                </section>
            }) }
        </div>
    }
}

/// Props of [`QuestionView`].
#[derive(Properties, PartialEq)]
struct QuestionProps {
    topic: String,
    kind: String,
    seed: u32,
    /// The address had no seed: write this one into it.
    fresh: bool,
}

/// One question: the operations, an answer field, then the verdict, the answer, why, and
/// the ways on.
#[component]
fn QuestionView(props: &QuestionProps) -> Html {
    let q: Result<Question, String> = practice::generate(&props.topic, &props.kind, props.seed);
    let input = use_node_ref();
    let result = use_node_ref();
    let verdict = use_state(|| None::<Verdict>);
    let unread = use_state(|| None::<String>);
    {
        let hash = practice::address(&props.topic, &props.kind, props.seed);
        let (fresh, input) = (props.fresh, input.clone());
        use_effect_with((), move |_| {
            if fresh {
                dom::replace_hash(&hash);
            }
            if let Some(el) = input.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    {
        let result = result.clone();
        use_effect_with(verdict.is_some(), move |shown| {
            if *shown {
                if let Some(el) = result.cast::<web_sys::HtmlElement>() {
                    let _ = el.focus();
                }
            }
        });
    }
    let q = match q {
        Ok(q) => q,
        Err(why) => return html! { <p class="practice-bad" role="alert">{ why }</p> },
    };
    let onsubmit = {
        let (q, input, verdict, unread) =
            (q.clone(), input.clone(), verdict.clone(), unread.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if verdict.is_some() {
                return;
            }
            let Some(el) = input.cast::<web_sys::HtmlInputElement>() else {
                return;
            };
            match practice::grade(&q, &el.value()) {
                Ok(v) => {
                    unread.set(None);
                    verdict.set(Some(v));
                }
                Err(why) => {
                    unread.set(Some(why));
                    let _ = el.focus();
                }
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
    let answered = verdict.is_some();
    let described = if unread.is_some() {
        "practice-hint practice-unread"
    } else {
        "practice-hint"
    };
    let (nt, nk, ns) = practice::next(&q);
    let next = practice::address(&nt, &nk, ns);
    html! {
        <article class="practice-question" data-topic={q.topic.clone()} data-kind={q.kind.clone()} data-seed={q.seed.to_string()}>
            <p class="practice-crumbs">
                <a href={route::practice_hash("", "")}>{"সব প্রশ্ন"}</a>
                {" · "}{ topic_title }{" · "}{ kind_title }
                {" · "}<span class="practice-seed">{"seed "}{ bn::text(&q.seed.to_string()) }</span>
            </p>
            <h2 class="practice-text" id="practice-text">{ rich(&d.text) }</h2>
            if !d.code.is_empty() {
                <pre class="practice-code"><code>{ for d.code.iter().map(|l| html! { <span class="practice-line">{ bn::text(l) }</span> }) }</code></pre>
            }
            <form class="practice-form" {onsubmit} novalidate=true>
                <label for="practice-answer">{"আপনার উত্তর"}</label>
                <div class="practice-row">
                    <input id="practice-answer" ref={input} type="text" autocomplete="off" spellcheck="false"
                        autocapitalize="characters" readonly={answered} aria-describedby={described} />
                    <button type="submit" class="button primary" disabled={answered}>{"মিলিয়ে দেখুন"}</button>
                </div>
                <p class="practice-hint" id="practice-hint">{ d.answer.form_hint() }</p>
                if let Some(why) = &*unread {
                    <p class="practice-unread" id="practice-unread" role="alert">{ why.clone() }</p>
                }
            </form>
            if let Some(v) = &*verdict {
                <section class={classes!("practice-result", if v.right { "right" } else { "wrong" })} aria-labelledby="practice-verdict">
                    <h3 id="practice-verdict" class="practice-verdict" tabindex="-1" ref={result}>
                        { if v.right { "ঠিক উত্তর!" } else { "হয়নি" } }
                    </h3>
                    <p class="practice-heard">{"আপনার উত্তর: "}<code>{ v.heard.clone() }</code></p>
                    if !v.right {
                        <p class="practice-note">{ rich(&v.note) }</p>
                        <p class="practice-right">{"ঠিক উত্তর: "}<code>{ d.answer.right_text() }</code></p>
                    }
                    <p class="practice-why">{ rich(&d.why) }</p>
                    <p class="practice-on">
                        <a class="button primary practice-next" href={next}>{"পরের প্রশ্ন →"}</a>
                        if let Some(show) = &d.show {
                            <a class="button practice-show" href={show.hash()}>
                                { format!("ল্যাবে চালিয়ে দেখুন (ধাপ {})", bn::int(show.step as i64)) }
                            </a>
                        }
                    </p>
                </section>
            }
        </article>
    }
}
