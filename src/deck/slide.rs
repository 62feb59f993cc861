//! Draws one slide from its static data: kicker, title and body blocks. The same component
//! renders the big stage, the overview's thumbnails and the home page's previews; every size in
//! the stylesheet is relative to the slide's own width, so a thumbnail is the slide, smaller.

use crate::diagrams;
use redislab_deck::{Block, Inline, Layout, List, Reveal, Slide, Text, Tok};
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
        // On the stage a table sorts by any column (its header is a button); thumbnails and
        // handouts keep the deck's order.
        Block::Table { head, rows } if live => {
            html! { <SortTable head={head.clone()} rows={rows.clone()} /> }
        }
        Block::Table { head, rows } => table(head, &rows.iter().collect::<Vec<_>>(), None, None),
        // A question slide: the question first; → reveals the answer, → again runs the lab at
        // the question's parameters (the labs module draws all three; the step shows them).
        Block::Container { kind, args, .. } if kind == "quiz" => {
            let word = |i: usize| args.get(i).map_or("", |a| a.as_ref()).to_string();
            let seed = args[2.min(args.len())..]
                .iter()
                .find_map(|a| a.strip_prefix("seed="))
                .unwrap_or("1")
                .to_string();
            if live {
                let shown = (0..2)
                    .filter(|&k| fr.slide.reveal(fr.block, k, fr.step) == Reveal::Shown)
                    .count();
                let query = format!("topic={}&kind={}&seed={seed}", word(0), word(1));
                html! {
                    <div class="quiz-slot" data-step={shown.to_string()}>
                        <crate::labs::host::LabHost id="quiz" query={query} embedded={true} />
                    </div>
                }
            } else {
                html! { <div class="lab-still"><span aria-hidden="true">{"?"}</span>{" প্রশ্ন: "}{ crate::labs::title(&word(0)) }</div> }
            }
        }
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

/// A table's rows in the order given. Each cell carries its column's name: on a phone a row
/// becomes a card of labelled cells. With `sort`, the header cells are buttons that sort by
/// their column (`by`: the column and whether ascending).
fn table(
    head: &[Text],
    rows: &[&List<Text>],
    by: Option<(usize, bool)>,
    sort: Option<Callback<usize>>,
) -> Html {
    let focusable = sort.is_some().then_some("0");
    html! {
        <table class={classes!("table", sort.is_some().then_some("sortable"))} tabindex={focusable}>
            <thead><tr>{ for head.iter().enumerate().map(|(i, c)| {
                let aria_sort = match by {
                    Some((col, asc)) if col == i => if asc { "ascending" } else { "descending" },
                    _ => "none",
                };
                match &sort {
                    Some(cb) => {
                        let cb = cb.clone();
                        html! {
                            <th scope="col" aria-sort={aria_sort}>
                                <button type="button" class="th-sort" onclick={Callback::from(move |_| cb.emit(i))}
                                    title="এই কলাম ধরে সাজান">
                                    { inline(c) }
                                    <span class="th-arrow" aria-hidden="true">{ match by {
                                        Some((col, true)) if col == i => "▲",
                                        Some((col, false)) if col == i => "▼",
                                        _ => "↕",
                                    } }</span>
                                </button>
                            </th>
                        }
                    }
                    None => html! { <th scope="col">{ inline(c) }</th> },
                }
            }) }</tr></thead>
            <tbody>{ for rows.iter().map(|r| html! {
                <tr>{ for r.iter().enumerate().map(|(i, c)| html! {
                    <td data-label={head.get(i).map(|h| redislab_deck::plain(h))}>{ inline(c) }</td>
                }) }</tr>
            }) }</tbody>
        </table>
    }
}

/// How a cell sorts: by its leading number (`২০s` → 20, `১,২০০` → 1200) when it has one,
/// else by its text.
fn sort_key(c: &Text) -> (Option<u32>, String) {
    let t = redislab_deck::plain(c);
    (redislab_deck::bn::leading_number(&t), t)
}

/// Props of [`SortTable`].
#[derive(Properties, PartialEq)]
struct SortTableProps {
    head: List<Text>,
    rows: List<List<Text>>,
}

/// A deck's table on the stage: a click on a column's header sorts the rows by it (numbers as
/// numbers when every cell of the column starts with one), again to reverse.
#[component]
fn SortTable(props: &SortTableProps) -> Html {
    let by = use_state(|| None::<(usize, bool)>);
    let mut rows: Vec<&List<Text>> = props.rows.iter().collect();
    if let Some((col, asc)) = *by {
        let keys: Vec<(Option<u32>, String)> = rows
            .iter()
            .map(|r| r.get(col).map(sort_key).unwrap_or_default())
            .collect();
        let numeric = keys.iter().all(|k| k.0.is_some());
        let mut order: Vec<usize> = (0..rows.len()).collect();
        order.sort_by(|&a, &b| {
            let o = if numeric {
                keys[a].0.cmp(&keys[b].0)
            } else {
                keys[a].1.cmp(&keys[b].1)
            };
            if asc {
                o
            } else {
                o.reverse()
            }
        });
        rows = order.into_iter().map(|i| rows[i]).collect();
    }
    let sort = {
        let by = by.clone();
        Callback::from(move |col: usize| {
            by.set(match *by {
                Some((c, asc)) if c == col => Some((col, !asc)),
                _ => Some((col, true)),
            })
        })
    };
    table(&props.head, &rows, *by, Some(sort))
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
