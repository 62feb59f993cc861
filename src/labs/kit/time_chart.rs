//! The time chart: what most labs draw over their run's time, in one widget with its styles
//! once (`static/labs/kit.css`, `.tc-*`) — bars per bucket (stacked), lines over the buckets,
//! shaded bands, marked moments, lanes of segments and ticks under the plot (a worker, a key,
//! a student), one time axis for all of them, a y axis, a legend and the cursor. Everything
//! after the cursor is drawn dimmed, so scrubbing shows the run unfold. Numbers and times go
//! through `bn` (Bengali digits, one way to write a time); a lab gives data and tones, never
//! coordinates or colours.

use redislab_deck::bn;
use yew::prelude::*;

/// A colour of the kit's palette (the lab picks by meaning, the style sheet by colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Amber: the thing counted (queries, deliveries).
    Amber,
    /// Red: harm (a ban, a loss, a second owner).
    Red,
    /// Green: success (let in, acknowledged).
    Green,
    /// Teal: Redis, a cache entry, the calm state.
    Teal,
    /// Blue: a second kind of thing beside teal.
    Blue,
    /// Violet: a third kind.
    Violet,
    /// Grey: background, waiting.
    Muted,
    /// The text colour.
    Ink,
}

impl Tone {
    fn class(self) -> &'static str {
        match self {
            Tone::Amber => "tone-amber",
            Tone::Red => "tone-red",
            Tone::Green => "tone-green",
            Tone::Teal => "tone-teal",
            Tone::Blue => "tone-blue",
            Tone::Violet => "tone-violet",
            Tone::Muted => "tone-muted",
            Tone::Ink => "tone-ink",
        }
    }
}

/// How a legend key looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A filled box (bars, segments).
    Box,
    /// A dashed line (a line over the bars).
    Dash,
    /// A shaded box with an edge (a band).
    Band,
    /// A thin vertical bar (a marked moment, a tick).
    Tick,
}

/// One legend key.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// What it names.
    pub label: String,
    /// Its colour.
    pub tone: Tone,
    /// Its look.
    pub shape: Shape,
}

impl Key {
    /// A key.
    pub fn new(label: impl Into<String>, tone: Tone, shape: Shape) -> Self {
        Key {
            label: label.into(),
            tone,
            shape,
        }
    }
}

/// Bars, one value per bucket, stacked on the stacks before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stack {
    /// Legend label.
    pub label: String,
    /// Colour.
    pub tone: Tone,
    /// One value per bucket.
    pub values: Vec<f64>,
}

/// A line over the buckets (a step line: flat across each bucket), dashed.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Legend label.
    pub label: String,
    /// Colour.
    pub tone: Tone,
    /// One value per bucket.
    pub values: Vec<f64>,
}

/// A shaded stretch of time.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// Legend label.
    pub label: String,
    /// Colour.
    pub tone: Tone,
    /// From, ms.
    pub from_ms: f64,
    /// To, ms.
    pub to_ms: f64,
}

/// A marked moment: a vertical line through the plot and the lanes.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Legend label (empty: no key of its own, e.g. a second mark of the same kind).
    pub label: String,
    /// Colour.
    pub tone: Tone,
    /// When, ms.
    pub at_ms: f64,
    /// Drawn dashed.
    pub dashed: bool,
}

/// A stretch of a lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Seg {
    /// From, ms.
    pub from_ms: f64,
    /// To, ms.
    pub to_ms: f64,
    /// Colour.
    pub tone: Tone,
    /// What it is (the tooltip).
    pub title: String,
}

/// A moment on a lane: a command, a request, a write.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// When, ms.
    pub at_ms: f64,
    /// Colour.
    pub tone: Tone,
    /// What it is (the tooltip).
    pub title: String,
    /// A glyph drawn on it (✓ ✗), if any.
    pub glyph: Option<&'static str>,
}

/// One row under the plot on the same time axis.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// Its name, left of it.
    pub name: String,
    /// Its stretches (a thin row when it has ticks too: segments on top, ticks below).
    pub segs: Vec<Seg>,
    /// Its moments.
    pub ticks: Vec<Tick>,
}

/// What a time chart draws (see the module doc). `span_ms` is the whole axis; `now_ms` the
/// cursor (`None`: no cursor, nothing dimmed).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeChart {
    /// Above the plot (empty: none).
    pub title: String,
    /// For screen readers: what the picture says.
    pub label: String,
    /// The length of one bucket, ms (bars and lines).
    pub bucket_ms: f64,
    /// Bars.
    pub stacks: Vec<Stack>,
    /// Lines over the bars.
    pub lines: Vec<Line>,
    /// Shaded stretches.
    pub bands: Vec<Band>,
    /// Marked moments.
    pub marks: Vec<Mark>,
    /// Rows under the plot.
    pub lanes: Vec<Lane>,
    /// Legend keys of the lanes (the plot's come from its stacks, lines, bands and marks).
    pub keys: Vec<Key>,
    /// The axis' length, ms.
    pub span_ms: f64,
    /// The cursor, ms.
    pub now_ms: Option<f64>,
}

fn f(v: f64) -> String {
    format!("{v:.2}")
}

/// Tick spacing for an axis of `span_ms`: the smallest of the usual steps that gives at most
/// six intervals.
fn step_ms(span_ms: f64) -> f64 {
    const STEPS: [f64; 16] = [
        1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1_000.0, 2_000.0, 5_000.0, 10_000.0,
        15_000.0, 30_000.0, 60_000.0,
    ];
    STEPS
        .iter()
        .copied()
        .find(|s| span_ms / s <= 6.0)
        .unwrap_or_else(|| {
            let minutes = (span_ms / 60_000.0 / 6.0).ceil().max(1.0);
            [1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0]
                .into_iter()
                .find(|m| *m >= minutes)
                .unwrap_or(minutes)
                * 60_000.0
        })
}

/// A moment on an axis whose ticks are `step` apart, in the axis' unit: ms under a second's
/// steps, seconds up to minute steps, minutes beyond. `unit`: written after the number (the
/// axis' last tick; the others are bare numbers, so a phone's narrow axis stays legible).
pub fn axis_time(ms: f64, step: f64, unit: bool) -> String {
    let (v, u) = if step < 1_000.0 {
        (ms, bn::Unit::Ms)
    } else if step < 60_000.0 {
        (ms / 1000.0, bn::Unit::S)
    } else {
        (ms / 60_000.0, bn::Unit::Min)
    };
    if unit {
        bn::qty(v, 0, u)
    } else {
        bn::grouped(v.round() as i64)
    }
}

/// The time axis of `span_ms`: tick labels at round moments, placed along the width, the unit
/// after the last.
pub fn time_axis(span_ms: f64) -> Html {
    let span = span_ms.max(1.0);
    let step = step_ms(span);
    let n = (span / step).floor() as usize;
    html! {
        <div class="tc-axis" aria-hidden="true">
            { for (0..=n).map(|i| {
                let t = i as f64 * step;
                let x = t / span * 100.0;
                // The last label leans left so it stays inside the chart.
                let cls = if x > 92.0 { "end" } else if i == 0 { "start" } else { "mid" };
                html! { <span class={classes!("tc-tick", cls)} style={format!("left: {x:.2}%")}>{ axis_time(t, step, i == n) }</span> }
            }) }
        </div>
    }
}

fn legend(c: &TimeChart) -> Html {
    let keys = c
        .stacks
        .iter()
        .map(|s| Key::new(s.label.clone(), s.tone, Shape::Box))
        .chain(
            c.lines
                .iter()
                .map(|l| Key::new(l.label.clone(), l.tone, Shape::Dash)),
        )
        .chain(
            c.bands
                .iter()
                .map(|b| Key::new(b.label.clone(), b.tone, Shape::Band)),
        )
        .chain(
            c.marks
                .iter()
                .map(|m| Key::new(m.label.clone(), m.tone, Shape::Tick)),
        )
        .chain(c.keys.iter().cloned())
        .filter(|k| !k.label.is_empty());
    let mut seen: Vec<Key> = Vec::new();
    for k in keys {
        if !seen.contains(&k) {
            seen.push(k);
        }
    }
    html! {
        <div class="tc-legend">
            { for seen.iter().map(|k| {
                let shape = match k.shape { Shape::Box => "k-box", Shape::Dash => "k-dash", Shape::Band => "k-band", Shape::Tick => "k-tick" };
                html! { <span class={classes!("tc-key", shape, k.tone.class())}>{ k.label.clone() }</span> }
            }) }
        </div>
    }
}

/// The plot: bars, lines, bands, marks, the cursor (SVG stretched to the plot's box; strokes
/// keep their width).
fn plot(c: &TimeChart, span: f64, top: f64) -> Html {
    let nb = c
        .stacks
        .iter()
        .map(|s| s.values.len())
        .chain(c.lines.iter().map(|l| l.values.len()))
        .max()
        .unwrap_or(0);
    let bucket = if c.bucket_ms > 0.0 {
        c.bucket_ms
    } else {
        span / nb.max(1) as f64
    };
    let x = |ms: f64| (ms / span * 1000.0).clamp(0.0, 1000.0);
    let y = |v: f64| 100.0 - (v / top * 100.0).clamp(0.0, 100.0);
    let now = c.now_ms.unwrap_or(f64::INFINITY);
    let mut base = vec![0.0; nb];
    let bars: Vec<Html> = c
        .stacks
        .iter()
        .map(|s| {
            let (mut done, mut later) = (String::new(), String::new());
            for (i, &v) in s.values.iter().enumerate() {
                if v <= 0.0 {
                    continue;
                }
                let (x0, x1) = (x(i as f64 * bucket), x((i as f64 + 0.85) * bucket));
                let d = format!(
                    "M{} {}V{}H{}V{}Z",
                    f(x0),
                    f(y(base[i])),
                    f(y(base[i] + v)),
                    f(x1),
                    f(y(base[i]))
                );
                base[i] += v;
                let past = (i as f64 + 1.0) * bucket <= now + 1e-9;
                if past { &mut done } else { &mut later }.push_str(&d);
            }
            html! {
                <g class={classes!("tc-bars", s.tone.class())}>
                    <path class="done" d={done} />
                    <path class="later" d={later} />
                </g>
            }
        })
        .collect();
    html! {
        <svg viewBox="0 0 1000 100" preserveAspectRatio="none" aria-hidden="true">
            { for c.bands.iter().map(|b| html! {
                <rect class={classes!("tc-band", b.tone.class())} x={f(x(b.from_ms))} y="0"
                    width={f((x(b.to_ms) - x(b.from_ms)).max(0.0))} height="100" />
            }) }
            { for bars }
            { for c.lines.iter().map(|l| {
                let mut d = String::new();
                for (i, &v) in l.values.iter().enumerate() {
                    d.push_str(&format!("{}{} {}H{}", if i == 0 { "M" } else { "L" }, f(x(i as f64 * bucket)), f(y(v)), f(x((i as f64 + 1.0) * bucket))));
                }
                html! { <path class={classes!("tc-line", l.tone.class())} d={d} /> }
            }) }
            { for c.marks.iter().map(|m| html! {
                <line class={classes!("tc-mark", m.tone.class(), m.dashed.then_some("dashed"))}
                    x1={f(x(m.at_ms))} x2={f(x(m.at_ms))} y1="0" y2="100" />
            }) }
            if let Some(t) = c.now_ms {
                <line class="tc-cursor" x1={f(x(t))} x2={f(x(t))} y1="0" y2="100" />
            }
        </svg>
    }
}

fn lane(l: &Lane, span: f64, now: f64, marks: &[Mark]) -> Html {
    let pc = |ms: f64| (ms / span * 100.0).clamp(0.0, 100.0);
    html! {
        <>
            <div class="tc-lane-name">{ l.name.clone() }</div>
            <div class={classes!("tc-lane", (!l.segs.is_empty() && !l.ticks.is_empty()).then_some("both"))}>
                { for l.segs.iter().map(|s| html! {
                    <span class={classes!("tc-seg", s.tone.class(), (s.from_ms > now).then_some("later"))} title={s.title.clone()}
                        style={format!("left: {:.3}%; width: {:.3}%", pc(s.from_ms), (pc(s.to_ms.min(now.max(s.from_ms))) - pc(s.from_ms)).max(0.3))}></span>
                }) }
                { for l.ticks.iter().map(|t| html! {
                    <span class={classes!("tc-tickmark", t.tone.class(), (t.at_ms > now).then_some("later"), t.glyph.is_some().then_some("glyph"))}
                        title={t.title.clone()} style={format!("left: {:.3}%", pc(t.at_ms))}>{ t.glyph.unwrap_or("") }</span>
                }) }
                { for marks.iter().map(|m| html! {
                    <span class={classes!("tc-lane-mark", m.tone.class(), m.dashed.then_some("dashed"))} style={format!("left: {:.3}%", pc(m.at_ms))}></span>
                }) }
                if now.is_finite() { <span class="tc-lane-cursor" style={format!("left: {:.3}%", pc(now))}></span> }
            </div>
        </>
    }
}

/// Draws `c` (see [`TimeChart`]). The plot is left out when there is nothing to plot (a chart
/// of lanes alone).
pub fn time_chart(c: &TimeChart) -> Html {
    let span = c.span_ms.max(1.0);
    let has_plot = !(c.stacks.is_empty() && c.lines.is_empty());
    let nb = c.stacks.first().map_or(0, |s| s.values.len());
    let stacked = (0..nb).map(|i| {
        c.stacks
            .iter()
            .map(|s| s.values.get(i).copied().unwrap_or(0.0))
            .sum::<f64>()
    });
    let lines = c.lines.iter().flat_map(|l| l.values.iter().copied());
    let top = stacked.chain(lines).fold(0.0, f64::max).max(1.0);
    let now = c.now_ms.unwrap_or(f64::INFINITY);
    html! {
        <figure class={classes!("tc", has_plot.then_some("has-plot"))} role="img" aria-label={c.label.clone()}>
            if !c.title.is_empty() { <figcaption class="tc-title">{ c.title.clone() }</figcaption> }
            <div class="tc-body">
                if has_plot {
                    <div class="tc-y" aria-hidden="true"><span>{ bn::grouped(top.round() as i64) }</span><span>{ bn::int(0) }</span></div>
                    <div class="tc-plot">{ plot(c, span, top) }</div>
                }
                { for c.lanes.iter().map(|l| lane(l, span, now, &c.marks)) }
                <div class="tc-x">{ time_axis(span) }</div>
            </div>
            { legend(c) }
        </figure>
    }
}
