//! What the stage and the phones both draw: a question, the answer chart, the reveal, a
//! deck's slide at a position, "show me"'s lab — and the quiz slide's question as the
//! simulation worker makes it.

use crate::catalog::{DeckRef, WithDeck, DECK_INDEX};
use crate::deck::slide::SlideView;
use redislab_deck::{bn, Block, Slide};
use redislab_sim::class::{Asked, Bar, Form, Position, Tally};
use redislab_sim::practice::{choice_label, Show};
use yew::prelude::*;

/// Text with `backticked` parts as code.
pub fn rich(s: &str) -> Html {
    html! {
        { for s.split('`').enumerate().map(|(i, part)| if i % 2 == 1 {
            html! { <code>{ part.to_string() }</code> }
        } else {
            html! { { part.to_string() } }
        }) }
    }
}

/// A question's text and code lines.
pub fn question(a: &Asked) -> Html {
    html! {
        <>
            <p class="class-q-text">{ rich(&a.text) }</p>
            if !a.code.is_empty() {
                <pre class="practice-code rows class-q-code"><code>{ for a.code.iter().map(|l| html! { <span class="practice-line">{ l.clone() }</span> }) }</code></pre>
            }
        </>
    }
}

/// What the answer field asks for (the options are buttons).
pub fn form_hint(f: &Form) -> &'static str {
    match f {
        Form::Key => "একটা key লিখুন, যেমন A",
        Form::Keys => "key-গুলো ক্রমে লিখুন, যেমন C B A",
        Form::Count => "একটা সংখ্যা লিখুন, যেমন ৩ বা 3",
        Form::Choice { .. } => "একটা বেছে নিন",
        Form::Percent => "শতাংশে একটা সংখ্যা, যেমন ৪২.৫",
    }
}

/// The option buttons' labels: `ক) …`.
pub fn option_label(i: usize, o: &str) -> Html {
    html! { <><span class="practice-choice-label">{ choice_label(i) }</span>{" "}{ rich(o) }</> }
}

/// The chart: one bar per option or value; `right` marks the right one (after the reveal).
pub fn chart(t: &Tally, right: bool) -> Html {
    let max = t.bars.iter().map(|b| b.count).max().unwrap_or(0).max(1);
    html! {
        <ol class="class-chart" data-answered={t.answered.to_string()}>
            { for t.bars.iter().map(|b: &Bar| {
                let w = format!("width: {:.1}%", f64::from(b.count) * 100.0 / f64::from(max));
                let mark = right && b.right;
                html! {
                    <li class={classes!("class-bar-row", mark.then_some("right"))} data-count={b.count.to_string()}>
                        <span class="class-bar-label">{ rich(&b.label) }{ if mark { " ✓" } else { "" } }</span>
                        <span class="class-bar-track"><span class="class-bar-fill" style={w}></span></span>
                        <span class="class-bar-count">{ bn::int(i64::from(b.count)) }</span>
                    </li>
                }
            }) }
        </ol>
    }
}

/// The share right, as the reveal says it.
pub fn share(t: &Tally) -> String {
    if t.answered == 0 {
        return "কেউ উত্তর দেয়নি".into();
    }
    format!(
        "{} জনের {} জন ঠিক — {}",
        bn::int(i64::from(t.answered)),
        bn::int(i64::from(t.right)),
        bn::share(f64::from(t.right) / f64::from(t.answered), 0)
    )
}

/// The deck with this id, as an index into the decks.
pub fn deck_index(id: &str) -> Option<usize> {
    DECK_INDEX.iter().position(|d| d.id == id)
}

/// Props of [`SlideAt`].
#[derive(Properties, PartialEq)]
pub struct SlideAtProps {
    /// The deck, slide and fragments.
    pub at: Position,
}

/// A deck's slide at a position (the deck fetched if needed), live: its lab runs.
#[component]
pub fn SlideAt(props: &SlideAtProps) -> Html {
    let Some(i) = deck_index(&props.at.deck) else {
        return html! { <p class="class-error" role="alert">{"এই ডেকটা এখানে নেই: "}{ props.at.deck.clone() }</p> };
    };
    let (slide, step) = (props.at.slide as usize, props.at.step as usize);
    let render = Callback::from(move |d: DeckRef| {
        let Some(s) = d.0.slides.get(slide) else {
            return Html::default();
        };
        html! {
            <section class="stage class-slide" aria-roledescription="স্লাইড" data-slide={(slide + 1).to_string()} data-step={step.to_string()}>
                <SlideView key={slide} slide={s} live=true {step} />
            </section>
        }
    });
    html! { <WithDeck key={i} deck={i} {render} /> }
}

/// "Show me": the lab at the question's deciding step.
pub fn show_me(s: &Show) -> Html {
    let hash = s.hash();
    let query = hash
        .split_once('?')
        .map(|(_, q)| q.to_string())
        .unwrap_or_default();
    html! {
        <div class="class-show" data-lab={s.lab.clone()}>
            <crate::labs::host::LabHost id={s.lab.clone()} {query} embedded={true} />
        </div>
    }
}

/// The quiz of a slide (`:::quiz <lab> <kind> seed=N`): lab, kind, seed.
pub fn quiz_of(slide: &Slide) -> Option<(String, String, u32)> {
    slide.body.iter().find_map(|b| match b {
        Block::Container { kind, args, .. } if kind == "quiz" => {
            let word = |i: usize| args.get(i).map_or("", |a| a.as_ref()).to_string();
            let seed = args
                .iter()
                .find_map(|a| a.strip_prefix("seed="))
                .and_then(|s| s.parse().ok())
                .unwrap_or(1);
            Some((word(0), word(1), seed))
        }
        _ => None,
    })
}

/// How to start server mode, said where class mode cannot run.
pub fn needs_server() -> Html {
    html! {
        <div class="class-noproxy" role="alert" data-testid="class-noproxy">
            <p><strong>{"ক্লাস মোড চালাতে সার্ভার মোড লাগে।"}</strong></p>
            <p>{"এই পাতাটা একটা সাধারণ স্ট্যাটিক সার্ভার থেকে এসেছে (বা trunk serve) — এখানে শিক্ষার্থীদের ফোন যুক্ত করার প্রক্সি নেই। Redis চালু করে অ্যাপটা প্রক্সির ভেতর দিয়ে খুলুন:"}</p>
            <pre class="class-cmd"><code>{"cargo xtask serve --redis redis://127.0.0.1:6379"}</code></pre>
            <p>{"তারপর সেই ঠিকানায় ডেক খুলে C চাপুন। স্লাইড আর ল্যাব এখানেও আগের মতোই চলবে।"}</p>
        </div>
    }
}
