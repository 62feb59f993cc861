//! Diagrams drawn by the app in HTML and SVG. A deck names one with `:::diagram NAME` and gives
//! its words as items; the picture's shape lives here, its text stays in the deck.

use crate::deck::slide::{field, Frags};
use redislab_deck::model::Diagram;
use redislab_deck::{bn, plain, List, Str, Text};
use yew::prelude::*;

type Items = [List<Text>];

/// Draws diagram `name` with these items. Names are checked by the deck parser at build time
/// against [`Diagram`], the one list, and drawn here by an exhaustive match on it. An item
/// written `+ ` is a fragment: `fr` gives its part of the picture the class that reveals it
/// step by step.
pub fn diagram(name: &str, args: &[Str], items: &Items, fr: Frags) -> Html {
    let body = match Diagram::from_name(name) {
        Some(Diagram::Roles) => roles(items, fr),
        Some(Diagram::Connections) => connections(items, fr),
        Some(Diagram::Pipeline) => pipeline(args, items, fr),
        Some(Diagram::Authq) => authq(items, fr),
        Some(Diagram::Flow) => flow(args, items, fr),
        Some(Diagram::Load) => load(args, items, fr),
        Some(Diagram::Backoff) => backoff(args, items, fr),
        None => Html::default(),
    };
    html! { <figure class={classes!("diagram", format!("dg-{name}"))} data-diagram={name.to_string()}>{ body }</figure> }
}

/// Eight roles around one Redis: in the page in their order (a phone shows them as a list),
/// placed clockwise around the hub by their `role-at-N` class on a wide stage.
fn roles(items: &Items, fr: Frags) -> Html {
    html! {
        <div class="roles-grid">
            { for items.iter().take(8).enumerate().map(|(i, it)| html! {
                <div class={classes!("role", format!("role-at-{i}"), fr.class(i))}>
                    <p class="role-head">{ field(it, 0) }</p>
                    <p class="role-sub">{ field(it, 1) }</p>
                    <p class="role-text">{ field(it, 2) }</p>
                </div>
            }) }
            <div class="role-hub" role="img" aria-label="Redis">
                <svg viewBox="0 0 100 100" class="hub-svg" aria-hidden="true">
                    { for HUB_RAYS.iter().map(|&(x2, y2)| html! {
                        <line x1="50" y1="50" {x2} {y2} class="hub-ray" />
                    }) }
                    <circle cx="50" cy="50" r="26" class="hub-core" />
                    <text x="50" y="55" text-anchor="middle" class="hub-label">{"Redis"}</text>
                </svg>
            </div>
        </div>
    }
}

/// Where the hub's eight rays end: 48 units from its centre (50, 50) every 45°, clockwise from
/// the right (written out, so the first load carries no sine or cosine for them).
const HUB_RAYS: [(&str, &str); 8] = [
    ("98.0", "50.0"),
    ("83.9", "83.9"),
    ("50.0", "98.0"),
    ("16.1", "83.9"),
    ("2.0", "50.0"),
    ("16.1", "16.1"),
    ("50.0", "2.0"),
    ("83.9", "16.1"),
];

/// One app, four connections to Redis.
fn connections(items: &Items, fr: Frags) -> Html {
    html! {
        <div class="conn-wrap">
            <div class="box app-box">{"অ্যাপ"}<small>{"Node"}</small></div>
            <div class="conn-lines">
                { for items.iter().enumerate().map(|(i, it)| html! {
                    <div class={classes!("conn", (i + 1 == items.len()).then_some("conn-cache"), fr.class(i))}>
                        <code class="conn-name">{ field(it, 0) }</code>
                        <span class="wire" aria-hidden="true"></span>
                        <span class="conn-what">{ field(it, 1) }</span>
                    </div>
                }) }
            </div>
            <div class="box redis-box">{"Redis"}</div>
        </div>
    }
}

/// A left-to-right stream pipeline; items after the first `args[0]` form the failure branch.
fn pipeline(args: &[Str], items: &Items, fr: Frags) -> Html {
    let main = args
        .first()
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(items.len().div_ceil(2))
        .min(items.len());
    let step = |i: usize, it: &List<Text>, class: &'static str| {
        html! {
            <div class={classes!("pl-step", class, fr.class(i))}>
                <code class="pl-cmd">{ field(it, 0) }</code>
                <p class="pl-text">{ field(it, 1) }</p>
            </div>
        }
    };
    html! {
        <div class="pipeline">
            <div class="pl-row pl-main">{ for items[..main].iter().enumerate().map(|(i, it)| step(i, it, "ok")) }</div>
            if main < items.len() {
                <div class="pl-row pl-fail">{ for items[main..].iter().enumerate().map(|(i, it)| step(main + i, it, "fail")) }</div>
            }
        </div>
    }
}

/// DB queries per request before and after the cache: orange = database, teal = Redis.
fn authq(items: &Items, fr: Frags) -> Html {
    let counts: Vec<u32> = items
        .iter()
        .map(|it| {
            it.get(1)
                .and_then(|t| bn::leading_number(&plain(t)))
                .unwrap_or(0)
        })
        .collect();
    let total = counts.iter().copied().max().unwrap_or(0).clamp(1, 12);
    html! {
        <div class="authq">
            { for items.iter().zip(&counts).enumerate().map(|(i, (it, &db))| html! {
                <div class={classes!("aq-row", fr.class(i))}>
                    <p class="aq-label">{ field(it, 0) }</p>
                    <div class="aq-blocks" aria-hidden="true">
                        { for (0..total).map(|k| html! {
                            <span class={classes!("aq-block", if k < db { "db" } else { "redis" })}>{ if k < db { "DB" } else { "R" } }</span>
                        }) }
                    </div>
                    <p class="aq-num">{ field(it, 1) }</p>
                </div>
            }) }
        </div>
    }
}

/// Boxes joined by arrows, left to right (top to bottom on a phone): who hands what to whom.
/// `args` give each box its kind in order — `app`, `redis`, `db`, `ext` (an outside service),
/// `users` — and `app` when there are fewer words than boxes. A third field is a stamp: `✓ …`
/// is drawn green, `✗ …` red (and marks the box as where it breaks), anything else amber.
fn flow(args: &[Str], items: &Items, fr: Frags) -> Html {
    html! {
        <div class="flow">
            { for items.iter().enumerate().map(|(i, it)| {
                let kind = args.get(i).map_or("app", |a| a.as_ref());
                let stamp = it.get(2).map(|t| plain(t));
                let tone = match stamp.as_deref().and_then(|s| s.trim_start().chars().next()) {
                    Some('✓') => "fw-good",
                    Some('✗') => "fw-bad",
                    _ => "fw-note",
                };
                let broken = tone == "fw-bad";
                html! {
                    <div class={classes!("fw-node", format!("fw-{kind}"), broken.then_some("fw-broken"), fr.class(i))}>
                        <p class="fw-name">{ field(it, 0) }</p>
                        if it.len() > 1 { <p class="fw-sub">{ field(it, 1) }</p> }
                        if stamp.is_some() { <p class={classes!("fw-stamp", tone)}>{ field(it, 2) }</p> }
                    </div>
                }
            }) }
        </div>
    }
}

/// Rows of bars over time, all on one scale: `label | numbers | caption`, the numbers
/// space-separated (Bengali or ASCII digits). `args` mark each row `bad` (orange) or `good`
/// (teal); without them the first row is bad and the rest good. A bar above zero is never
/// drawn flatter than a sliver, so a small steady load stays visible beside a spike.
fn load(args: &[Str], items: &Items, fr: Frags) -> Html {
    let series: Vec<Vec<f64>> = items
        .iter()
        .map(|it| {
            plain(it.get(1).map_or(&[][..], |t| t))
                .split_whitespace()
                .map(|w| f64::from(bn::leading_number(w).unwrap_or(0)))
                .collect()
        })
        .collect();
    let max = series.iter().flatten().copied().fold(1.0, f64::max);
    html! {
        <div class="load">
            { for items.iter().zip(&series).enumerate().map(|(i, (it, vals))| {
                let good = args.get(i).map_or(i > 0, |a| a.as_ref() == "good");
                let w = vals.len().max(1) * 10;
                let label = format!(
                    "{} — {}",
                    plain(it.first().map_or(&[][..], |t| t)),
                    plain(it.get(2).map_or(&[][..], |t| t))
                );
                html! {
                    <div class={classes!("ld-row", if good { "ld-good" } else { "ld-bad" }, fr.class(i))}>
                        <p class="ld-label">{ field(it, 0) }</p>
                        <svg viewBox={format!("0 0 {w} 40")} preserveAspectRatio="none" class="ld-svg" role="img" aria-label={label}>
                            { for vals.iter().enumerate().filter(|(_, &v)| v > 0.0).map(|(k, &v)| {
                                let h = (v / max * 38.0).max(3.0);
                                html! { <rect x={fmt(k as f64 * 10.0 + 1.5)} y={fmt(40.0 - h)} width="7" height={fmt(h)} class="ld-bar" /> }
                            }) }
                            <line x1="0" y1="40" x2={w.to_string()} y2="40" class="ld-axis" />
                        </svg>
                        <p class="ld-cap">{ field(it, 2) }</p>
                    </div>
                }
            }) }
        </div>
    }
}

/// Retries on a time line: `label | wait | text` per run, the wait before it drawn as a bar
/// whose length is that many seconds (the first run's wait is `0`). `args[0]` is how many runs
/// really happen; runs after it are drawn dashed, as what would happen with more attempts.
/// A run whose text starts with `✗` failed, `✓` succeeded.
fn backoff(args: &[Str], items: &Items, fr: Frags) -> Html {
    let real = args
        .first()
        .and_then(|a| a.parse::<usize>().ok())
        .unwrap_or(items.len());
    html! {
        <div class="backoff">
            { for items.iter().enumerate().map(|(i, it)| {
                let wait = it
                    .get(1)
                    .and_then(|t| bn::leading_number(&plain(t)))
                    .unwrap_or(0);
                let text = plain(it.get(2).map_or(&[][..], |t| t));
                let tone = match text.trim_start().chars().next() {
                    Some('✗') => Some("bo-failed"),
                    Some('✓') => Some("bo-done"),
                    _ => None,
                };
                let ghost = (i >= real).then_some("bo-ghost");
                html! {
                    <>
                        if wait > 0 {
                            <div class={classes!("bo-wait", ghost, fr.class(i))} style={format!("flex-grow: {wait}")}>
                                <span class="bo-bar" aria-hidden="true"></span>
                                <span class="bo-secs">{ field(it, 1) }</span>
                            </div>
                        }
                        <div class={classes!("bo-run", tone, ghost, fr.class(i))}>
                            <p class="bo-label">{ field(it, 0) }</p>
                            <p class="bo-text">{ field(it, 2) }</p>
                        </div>
                    </>
                }
            }) }
        </div>
    }
}

fn fmt(v: f64) -> String {
    crate::dom::fixed(v, 1)
}
