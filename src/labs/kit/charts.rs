//! Charts the labs share, drawn as HTML and SVG: horizontal bars, line charts, histograms.
//! They take plain numbers; they know nothing of Redis.

use redislab_deck::bn;
use yew::prelude::*;

/// One horizontal bar.
#[derive(Clone, PartialEq)]
pub struct Bar {
    /// Label on the left.
    pub label: String,
    /// Length, in units of `max` of the chart.
    pub value: f64,
    /// Text at the end of the bar.
    pub text: String,
    /// Extra CSS class (colour).
    pub class: &'static str,
}

/// Horizontal bars scaled to `max`.
pub fn hbars(bars: &[Bar], max: f64) -> Html {
    let max = if max > 0.0 { max } else { 1.0 };
    html! {
        <div class="hbars">
            { for bars.iter().map(|b| html! {
                <div class={classes!("hbar", b.class)}>
                    <span class="hbar-label">{ b.label.clone() }</span>
                    <span class="hbar-track"><span class="hbar-fill" style={format!("width: {:.2}%", (b.value / max * 100.0).clamp(0.0, 100.0))}></span></span>
                    <span class="hbar-text">{ b.text.clone() }</span>
                </div>
            }) }
        </div>
    }
}

/// One line of a line chart.
#[derive(Clone, PartialEq)]
pub struct Series {
    /// Legend name.
    pub name: String,
    /// Points (x, y) in data units, x ascending.
    pub points: Vec<(f64, f64)>,
    /// CSS class (colour, dash).
    pub class: String,
}

/// Axis text of a line chart.
#[derive(Clone, PartialEq, Default)]
pub struct Axes {
    /// Under the x axis.
    pub x: String,
    /// Beside the y axis.
    pub y: String,
    /// Plot x on a log scale.
    pub log_x: bool,
}

const W: f64 = 600.0;
const H: f64 = 260.0;
const L: f64 = 52.0;
/// Room under the plot for the x ticks and the axis title: their boxes (about 1.4 em tall in
/// the Bengali font) stay apart up to 20-unit ticks under a 17-unit title (a lab's phone
/// sizes).
const B: f64 = 54.0;
/// The x ticks' baseline under the plot, and the y ticks' gap left of it: the y axis' "০"
/// and the x axis' first tick do not touch.
const X_TICK: f64 = 19.0;
const Y_TICK: f64 = 10.0;
/// The x axis title's baseline above the bottom.
const X_TITLE: f64 = 6.0;
const T: f64 = 12.0;
const R: f64 = 12.0;

/// A line chart with a legend; `cursor` draws a vertical line at that x.
pub fn line_chart(series: &[Series], axes: &Axes, y_max: f64, cursor: Option<f64>) -> Html {
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    let tx = |x: f64| -> f64 {
        let (a, b, v) = if axes.log_x {
            (x0.max(1e-9).ln(), x1.max(1e-9).ln(), x.max(1e-9).ln())
        } else {
            (x0, x1, x)
        };
        if b > a {
            L + (v - a) / (b - a) * (W - L - R)
        } else {
            L
        }
    };
    let yticks = round_ticks(y_max);
    let y_max = yticks.last().copied().unwrap_or(1.0);
    let ty = |y: f64| H - B - (y / y_max).clamp(0.0, 1.05) * (H - B - T);
    let xticks: Vec<f64> = series
        .first()
        .map(|s| s.points.iter().map(|p| p.0).collect())
        .unwrap_or_default();
    html! {
        <figure class="chart">
            <svg viewBox={format!("0 0 {W} {H}")} class="chart-svg" role="img" aria-label={format!("{} / {}", axes.y, axes.x)}>
                { for yticks.iter().map(|&y| html! {
                    <g>
                        <line x1={f(L)} x2={f(W - R)} y1={f(ty(y))} y2={f(ty(y))} class="grid" />
                        <text x={f(L - Y_TICK)} y={f(ty(y) + 4.0)} text-anchor="end" class="tick">{ num(y) }</text>
                    </g>
                }) }
                { for xticks.iter().map(|&x| html! {
                    <text x={f(tx(x))} y={f(H - B + X_TICK)} text-anchor="middle" class="tick">{ num(x) }</text>
                }) }
                <text x={f((L + W - R) / 2.0)} y={f(H - X_TITLE)} text-anchor="middle" class="axis-label">{ axes.x.clone() }</text>
                <text x="12" y={f(T + 4.0)} class="axis-label">{ axes.y.clone() }</text>
                if let Some(c) = cursor { <line x1={f(tx(c))} x2={f(tx(c))} y1={f(T)} y2={f(H - B)} class="cursor" /> }
                { for series.iter().map(|s| {
                    let pts: Vec<String> = s.points.iter().map(|&(x, y)| format!("{},{}", f(tx(x)), f(ty(y)))).collect();
                    html! {
                        <g class={classes!("series", s.class.clone())}>
                            <polyline points={pts.join(" ")} />
                            { for s.points.iter().map(|&(x, y)| html! { <circle cx={f(tx(x))} cy={f(ty(y))} r="3" /> }) }
                        </g>
                    }
                }) }
            </svg>
            <figcaption class="legend">
                { for series.iter().map(|s| html! { <span class={classes!("key", s.class.clone())}><i></i>{ s.name.clone() }</span> }) }
            </figcaption>
        </figure>
    }
}

/// A histogram: `bins` of (x, count), with the bins up to `upto` highlighted.
pub fn histogram(bins: &[(f64, f64)], axes: &Axes, upto: Option<f64>) -> Html {
    let yticks = round_ticks(bins.iter().map(|b| b.1).fold(0.0, f64::max));
    let y_max = yticks.last().copied().unwrap_or(1.0);
    let (x0, x1) = (
        bins.first().map_or(0.0, |b| b.0),
        bins.last().map_or(1.0, |b| b.0),
    );
    let span = (x1 - x0).max(1.0);
    let bw = ((W - L - R) / bins.len().max(1) as f64).max(0.5);
    let tx = |x: f64| L + (x - x0) / span * (W - L - R - bw);
    let ty = |y: f64| H - B - y / y_max * (H - B - T);
    html! {
        <figure class="chart">
            <svg viewBox={format!("0 0 {W} {H}")} class="chart-svg" role="img" aria-label={format!("{} / {}", axes.y, axes.x)}>
                { for yticks.iter().map(|&y| { html! {
                    <g>
                        <line x1={f(L)} x2={f(W - R)} y1={f(ty(y))} y2={f(ty(y))} class="grid" />
                        <text x={f(L - Y_TICK)} y={f(ty(y) + 4.0)} text-anchor="end" class="tick">{ num(y) }</text>
                    </g>
                } }) }
                { for bins.iter().map(|&(x, c)| html! {
                    <rect x={f(tx(x))} y={f(ty(c))} width={f(bw)} height={f((H - B - ty(c)).max(0.0))}
                        class={classes!("bin", upto.is_some_and(|u| x > u).then_some("later"))} />
                }) }
                <text x={f(L)} y={f(H - B + X_TICK)} text-anchor="start" class="tick">{ num(x0) }</text>
                <text x={f(W - R)} y={f(H - B + X_TICK)} text-anchor="end" class="tick">{ num(x1) }</text>
                <text x={f((L + W - R) / 2.0)} y={f(H - X_TITLE)} text-anchor="middle" class="axis-label">{ axes.x.clone() }</text>
                <text x="12" y={f(T + 4.0)} class="axis-label">{ axes.y.clone() }</text>
            </svg>
        </figure>
    }
}

fn f(v: f64) -> String {
    format!("{v:.1}")
}

/// Round ticks for an axis from 0 up to at least `max`: steps of 1, 2, 2.5 or 5 × 10ⁿ, at most
/// four of them, the last tick the axis' top (`৫০, ১০০, ১৫০, ২০০` for a tallest bar of 162, not
/// quarters of it: `৪০.৫`).
pub fn round_ticks(max: f64) -> Vec<f64> {
    let max = if max > 0.0 && max.is_finite() {
        max
    } else {
        1.0
    };
    let raw = max / 4.0;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p);
    let n = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=n).map(|i| step * i as f64).collect()
}

/// A number for a tick, in Bengali digits: whole numbers grouped (`১০,০০০`), others with one
/// decimal (`০.৫`).
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 || v.abs() >= 100.0 {
        bn::grouped(v.round() as i64)
    } else {
        bn::dec(v, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::round_ticks;

    #[test]
    fn ticks_are_round_and_reach_the_top() {
        assert_eq!(round_ticks(162.0), [0.0, 50.0, 100.0, 150.0, 200.0]);
        assert_eq!(round_ticks(100.0), [0.0, 25.0, 50.0, 75.0, 100.0]);
        assert_eq!(round_ticks(7.0), [0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(round_ticks(0.0), [0.0, 0.25, 0.5, 0.75, 1.0]);
        for max in [0.3, 1.0, 3.0, 9.5, 10.0, 41.0, 333.0, 12_345.0, 5e5] {
            let t = round_ticks(max);
            let top = *t.last().unwrap();
            assert!(top >= max && top < max * 2.6, "{max}: {t:?}");
            assert!((2..=5).contains(&t.len()), "{max}: {t:?}");
        }
    }
}
