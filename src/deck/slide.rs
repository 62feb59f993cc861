//! Draws one slide from its static data: kicker, title and body blocks. The same component
//! renders the big stage, the overview's thumbnails and the home page's previews; every size in
//! the stylesheet is relative to the slide's own width, so a thumbnail is the slide, smaller.

use crate::diagrams;
use redislab_deck::{Block, Inline, Layout, Reveal, Slide, Tok};
use yew::prelude::*;

/// Props of [`SlideView`].
#[derive(Properties, PartialEq)]
pub struct SlideViewProps {
    /// The slide to draw.
    pub slide: &'static Slide,
    /// Reference to the slide element (the player uses it to fit the content).
    #[prop_or_default]
    pub node: NodeRef,
    /// Run embedded labs (the big stage); thumbnails show a still card instead.
    #[prop_or_default]
    pub live: bool,
    /// Fragments revealed; the default shows the slide fully built.
    #[prop_or(usize::MAX)]
    pub step: usize,
}

/// Which fragments of one block show: gives each item its class.
#[derive(Clone, Copy)]
pub struct Frags<'a> {
    slide: &'a Slide,
    block: usize,
    step: usize,
}

impl Frags<'_> {
    /// Classes of item `item`: none for an ordinary item, `frag` for one still to come (its
    /// space kept, invisible), `frag shown` for one revealed.
    pub fn class(&self, item: usize) -> Classes {
        match self.slide.reveal(self.block, item, self.step) {
            Reveal::Always => Classes::new(),
            Reveal::Shown => classes!("frag", "shown"),
            Reveal::Hidden => classes!("frag"),
        }
    }
}

/// One slide.
#[component]
pub fn SlideView(props: &SlideViewProps) -> Html {
    let s = props.slide;
    let layout = match s.layout {
        Layout::Default => "layout-default",
        Layout::Cover => "layout-cover",
        Layout::End => "layout-end",
    };
    let has_lab = s.has_lab();
    html! {
        <div class={classes!("slide", layout, has_lab.then_some("has-lab"))} ref={props.node.clone()}>
            <div class="slide-inner">
                <p class="kicker">{ s.kicker.as_ref() }</p>
                <h1 class="slide-title">
                    { for s.title.iter().enumerate().map(|(i, line)| html! {
                        <span class={classes!("title-line", (i > 0).then_some("title-accent"))}>{ line.as_ref() }</span>
                    }) }
                </h1>
                <div class="slide-body">
                    { for s.body.iter().enumerate().map(|(i, b)| block(b, props.live, Frags { slide: s, block: i, step: props.step })) }
                </div>
            </div>
        </div>
    }
}

/// Inline text with its markup.
pub fn inline(text: &[Inline]) -> Html {
    html! {
        { for text.iter().map(|i| match i {
            Inline::Text(s) => html! { { s.as_ref() } },
            Inline::Bold(s) => html! { <strong>{ s.as_ref() }</strong> },
            Inline::Em(s) => html! { <em>{ s.as_ref() }</em> },
            Inline::Code(s) => html! { <code>{ s.as_ref() }</code> },
            Inline::Mark(s) => html! { <mark>{ s.as_ref() }</mark> },
        }) }
    }
}

/// Field `i` of a container item, or nothing.
pub fn field(item: &[redislab_deck::Text], i: usize) -> Html {
    item.get(i).map(|t| inline(t)).unwrap_or_default()
}

fn block(b: &Block, live: bool, fr: Frags) -> Html {
    // On the stage a code block or table that scrolls (phones) must be reachable by keyboard;
    // thumbnails are hidden from assistive technology and take no focus.
    let focusable = live.then_some("0");
    match b {
        Block::Para(t) => html! { <p>{ inline(t) }</p> },
        Block::Lead(t) => html! { <p class="lead">{ inline(t) }</p> },
        Block::Note(t) => html! { <p class="note">{ inline(t) }</p> },
        // A correction: one small line; the fact itself is the slide's own bullet or diagram.
        Block::Fix(t) => {
            html! { <p class="fix"><span class="fix-tag">{"সংশোধন"}</span>{" "}{ inline(t) }</p> }
        }
        Block::Bullets(items) => html! {
            <ul class="bullets">{ for items.iter().enumerate().map(|(i, t)| html! { <li class={fr.class(i)}>{ inline(t) }</li> }) }</ul>
        },
        Block::Numbered(items) => html! {
            <ol class="numbered">{ for items.iter().map(|t| html! { <li>{ inline(t) }</li> }) }</ol>
        },
        Block::Code { lang, tokens } => html! {
            <pre class={classes!("code", format!("lang-{lang}"))} tabindex={focusable}><code>
                { for tokens.iter().map(|(tok, s)| match tok {
                    Tok::Plain => html! { { s.as_ref() } },
                    other => html! { <span class={token_class(*other)}>{ s.as_ref() }</span> },
                }) }
            </code></pre>
        },
        // Each cell carries its column's name: on a phone a row becomes a card of labelled cells.
        Block::Table { head, rows } => html! {
            <table class="table" tabindex={focusable}>
                <thead><tr>{ for head.iter().map(|c| html! { <th scope="col">{ inline(c) }</th> }) }</tr></thead>
                <tbody>{ for rows.iter().map(|r| html! {
                    <tr>{ for r.iter().enumerate().map(|(i, c)| html! {
                        <td data-label={head.get(i).map(|h| redislab_deck::plain(h))}>{ inline(c) }</td>
                    }) }</tr>
                }) }</tbody>
            </table>
        },
        Block::Container { kind, args, .. } if kind == "lab" => {
            let id = args.first().map_or("", |a| a.as_ref());
            if live {
                let query = args[1..]
                    .iter()
                    .map(|a| a.as_ref())
                    .collect::<Vec<_>>()
                    .join("&");
                html! { <crate::labs::host::LabHost id={id.to_string()} query={query} embedded={true} /> }
            } else {
                html! { <div class="lab-still"><span aria-hidden="true">{"▶"}</span>{" লাইভ ল্যাব: "}{ crate::labs::title(id) }</div> }
            }
        }
        Block::Container { kind, args, items } => container(kind, args, items, fr),
    }
}

fn token_class(t: Tok) -> &'static str {
    match t {
        Tok::Plain => "",
        Tok::Keyword => "tk-kw",
        Tok::Str => "tk-str",
        Tok::Num => "tk-num",
        Tok::Comment => "tk-com",
        Tok::Prop => "tk-prop",
    }
}

fn container(
    kind: &str,
    args: &[redislab_deck::Str],
    items: &[redislab_deck::List<redislab_deck::Text>],
    fr: Frags,
) -> Html {
    match kind {
        "cards" => {
            let cols = args
                .first()
                .map(|a| format!("cols-{a}"))
                .unwrap_or_else(|| "cols-auto".into());
            html! {
                <div class={classes!("cards", cols)}>
                    { for items.iter().enumerate().map(|(i, it)| html! {
                        <div class={classes!("card", fr.class(i))}>
                            <p class="card-head">{ field(it, 0) }</p>
                            if it.len() > 1 { <p class="card-sub">{ field(it, 1) }</p> }
                            if it.len() > 2 { <p class="card-text">{ field(it, 2) }</p> }
                        </div>
                    }) }
                </div>
            }
        }
        "stats" => html! {
            <div class="stats">
                { for items.iter().enumerate().map(|(i, it)| html! {
                    <div class={classes!("stat", fr.class(i))}><span class="stat-num">{ field(it, 0) }</span><span class="stat-label">{ field(it, 1) }</span></div>
                }) }
            </div>
        },
        "steps" => html! {
            <ol class="steps">
                { for items.iter().enumerate().map(|(i, it)| html! {
                    <li class={classes!("step", fr.class(i))}>
                        <span class="step-marker" aria-hidden="true">{ field(it, 0) }</span>
                        <div class="step-body">
                            <p class="step-title">{ field(it, 1) }</p>
                            if it.len() > 2 { <p class="step-text">{ field(it, 2) }</p> }
                        </div>
                    </li>
                }) }
            </ol>
        },
        "defs" => html! {
            <dl class="defs">
                { for items.iter().enumerate().map(|(i, it)| html! {
                    <div class={classes!("def", fr.class(i))}><dt>{ field(it, 0) }</dt><dd>{ field(it, 1) }</dd></div>
                }) }
            </dl>
        },
        "levels" => html! {
            <div class="levels">
                { for items.iter().enumerate().map(|(i, it)| html! {
                    <div class={classes!("level", format!("level-{i}"), fr.class(i))}>
                        <span class="level-label">{ field(it, 0) }</span>
                        <span class="level-text">{ field(it, 1) }</span>
                    </div>
                }) }
            </div>
        },
        "diagram" => diagrams::diagram(
            args.first().map_or("", |a| a.as_ref()),
            &args[1.min(args.len())..],
            items,
            fr,
        ),
        // The parser accepts only the kinds above; anything else would be a build error.
        _ => Html::default(),
    }
}
