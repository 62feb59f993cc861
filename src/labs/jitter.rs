//! TTL jitter lab, from seed 001 §৫ ("একসাথে লেখা, একসাথে মরা — TTL jitter"): N keys written
//! at the same moment with TTL T, each TTL stretched to `T · (1 + J·u)`, u uniform in [−1, 1)
//! from mulberry32(seed); round r is each key's r-th expiry when keys are rewritten as they die.
//!
//! It shows, for the chosen J and round, a histogram of expirations per second (at most 150
//! bars) swept by a timeline — bars after the cursor dimmed, with "so far / this second"
//! counters — the case's span, mean and busiest second exactly as `redislab-sim`'s
//! `JitterWave` gives them, and the seed's eight-row table recomputed live with the same keys,
//! TTL and seed. Counting runs in slices of a few milliseconds (up to 1,000,000 keys × 10
//! rounds), never as one long main-thread task.

use super::kit::{
    now, progress, use_job, use_params, use_timeline, Controls, Job, JobState, LabProps, ParamForm,
    TimeAction,
};
use super::widgets::{histogram, num, Axes};
use redislab_deck::bn;
use redislab_sim::jsfmt::to_fixed;
use redislab_sim::labs::jitter::{
    seed_cases, JitterCase, JitterConfig, JitterRun, JitterWave, HEADER,
};
use redislab_sim::labs::params::{jitter_case, jitter_config, JITTER};
use yew::prelude::*;

/// Most bars in the histogram.
const MAX_BINS: i64 = 150;
/// Narrowest window shown, in seconds (so "all in one second" reads as a wall).
const MIN_WINDOW: i64 = 60;
/// Work per slice, in milliseconds (the job runner adds slices up to ~12 ms per task).
const SLICE_MS: f64 = 4.0;
/// Generator draws between clock checks.
const DRAWS: u32 = 8_192;
/// Milliseconds per timeline tick.
const TICK_MS: u32 = 120;

/// Cases counted one after another, a chunk of keys per step.
struct WaveJob {
    cfg: JitterConfig,
    cases: Vec<JitterCase>,
    keep_histograms: bool,
    current: Option<JitterRun>,
    done: Vec<JitterWave>,
}

impl WaveJob {
    fn new(cfg: JitterConfig, cases: Vec<JitterCase>, keep_histograms: bool) -> Self {
        WaveJob {
            cfg,
            cases,
            keep_histograms,
            current: None,
            done: Vec::new(),
        }
    }

    /// Works for about `SLICE_MS`; the waves when all cases are done.
    fn work(&mut self) -> Option<Vec<JitterWave>> {
        let start = now();
        loop {
            let &case = match self.cases.get(self.done.len()) {
                Some(c) => c,
                None => return Some(std::mem::take(&mut self.done)),
            };
            let cfg = self.cfg;
            let c = self
                .current
                .get_or_insert_with(|| JitterRun::new(&cfg, case));
            if c.step(DRAWS) {
                if let Some(c) = self.current.take() {
                    let mut w = c.finish();
                    if !self.keep_histograms {
                        w.histogram = Vec::new();
                    }
                    self.done.push(w);
                }
            }
            if now() - start > SLICE_MS {
                return None;
            }
        }
    }

    fn fraction(&self) -> f64 {
        let cur = self.current.as_ref().map_or(0.0, JitterRun::progress);
        (self.done.len() as f64 + cur) / self.cases.len().max(1) as f64
    }
}

/// The seed's eight cases with the chosen keys, TTL and seed.
struct TableJob(WaveJob);

impl Job for TableJob {
    type Output = Vec<JitterWave>;
    fn slice(&mut self) -> Option<Vec<JitterWave>> {
        self.0.work()
    }
    fn progress(&self) -> f64 {
        self.0.fraction()
    }
}

/// The chosen case, binned for the chart.
#[derive(PartialEq)]
struct Chosen {
    wave: JitterWave,
    /// First second of the window.
    w0: i64,
    /// Seconds per bar.
    bin: i64,
    /// Expirations per bar.
    bins: Vec<u64>,
    /// Second of the busiest second (first of them).
    peak_at: i64,
    /// How the seconds of the span spread by load: (expirations in a second, bin start) →
    /// number of seconds, in bins of `load_bin`.
    loads: Vec<(f64, f64)>,
    load_bin: u32,
}

impl Chosen {
    fn new(wave: JitterWave) -> Self {
        let h = &wave.histogram;
        let (first, last) = match (h.first(), h.last()) {
            (Some(a), Some(b)) => (a.0, b.0),
            _ => (0, 0),
        };
        let span = last - first + 1;
        let total = (span + 2 * (span / 20).max(1)).max(MIN_WINDOW);
        let w0 = first - (total - span) / 2;
        let bin = ((total + MAX_BINS - 1) / MAX_BINS).max(1);
        let n = ((total + bin - 1) / bin).max(1) as usize;
        let mut bins = vec![0u64; n];
        for &(s, c) in h {
            if let Some(b) = usize::try_from((s - w0) / bin)
                .ok()
                .and_then(|i| bins.get_mut(i))
            {
                *b += u64::from(c);
            }
        }
        let peak_at = h.iter().find(|x| x.1 == wave.max).map_or(first, |x| x.0);
        // Every second of the span, the empty ones too.
        let empty = u64::try_from(span)
            .unwrap_or(0)
            .saturating_sub(h.len() as u64);
        let low = if empty > 0 {
            0
        } else {
            h.iter().map(|x| x.1).min().unwrap_or(0)
        };
        let load_bin = (wave.max - low + 1).div_ceil(40).max(1);
        let mut counts = vec![0u64; ((wave.max - low) / load_bin + 1) as usize];
        counts[0] += empty;
        for &(_, c) in h {
            if let Some(b) = counts.get_mut(((c - low) / load_bin) as usize) {
                *b += 1;
            }
        }
        let loads = counts
            .iter()
            .enumerate()
            .map(|(i, &n)| (f64::from(low + i as u32 * load_bin), n as f64))
            .collect();
        Chosen {
            wave,
            w0,
            bin,
            bins,
            peak_at,
            loads,
            load_bin,
        }
    }

    /// Keys expired in the first `bars` bars, i.e. before second `w0 + bin · bars`.
    fn before(&self, bars: usize) -> u64 {
        self.bins.iter().take(bars).sum()
    }

    /// Keys expiring in second `s`.
    fn at(&self, s: i64) -> u32 {
        let h = &self.wave.histogram;
        h.binary_search_by_key(&s, |x| x.0).map_or(0, |i| h[i].1)
    }
}

struct ChosenJob(WaveJob);

impl Job for ChosenJob {
    type Output = Chosen;
    fn slice(&mut self) -> Option<Chosen> {
        let waves = self.0.work()?;
        let wave = waves.into_iter().next().unwrap_or(JitterWave {
            case: self.0.cases.first().copied().unwrap_or(JitterCase {
                jitter: 0.0,
                round: 1,
            }),
            keys: 0,
            span: 0,
            mean: 0.0,
            max: 0,
            histogram: Vec::new(),
        });
        Some(Chosen::new(wave))
    }
    fn progress(&self) -> f64 {
        self.0.fraction()
    }
}

/// `h:mm:ss` in Bengali digits.
fn clock(t: i64) -> String {
    let t = t.max(0);
    bn::text(&format!("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60))
}

/// A round number at or above `v` (1, 2, 2.5, 5 × 10ⁿ).
fn nice_ceil(v: f64) -> f64 {
    if v <= 1.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|&x| x >= v)
        .unwrap_or(10.0 * p)
}

/// J as a share, `±10%` (the seed prints `+-10%`).
fn share(j: f64) -> String {
    format!("±{}%", to_fixed(j * 100.0, 0))
}

fn chart(c: &Chosen, cursor: usize) -> Html {
    let n = c.bins.len();
    let per_s: Vec<f64> = c.bins.iter().map(|&b| b as f64 / c.bin as f64).collect();
    let top = nice_ceil(
        per_s
            .iter()
            .copied()
            .fold(f64::from(c.wave.max), f64::max)
            .max(c.wave.mean),
    );
    let y = |v: f64| 100.0 - (v / top * 100.0).clamp(0.0, 100.0);
    let bars = |range: std::ops::Range<usize>| -> String {
        range
            .filter(|&i| per_s[i] > 0.0)
            .map(|i| format!("M{i} 100V{:.2}h1V100Z", y(per_s[i])))
            .collect()
    };
    let cur = cursor.min(n);
    let peak_x = (c.peak_at - c.w0) as f64 / c.bin as f64 + 0.5 / c.bin as f64;
    let w1 = c.w0 + c.bin * n as i64;
    let unit = if c.bin == 1 {
        "প্রতিটি বার ১ সেকেন্ড".to_string()
    } else {
        format!("প্রতিটি বার {} সেকেন্ড, তার গড়", bn::text(&c.bin.to_string()))
    };
    let mean_y = y(c.wave.mean);
    let peak_y = y(f64::from(c.wave.max));
    html! {
        <figure class="jt-chart">
            <div class="jt-y" aria-hidden="true">
                <span>{ num(top) }</span><span>{ num(top / 2.0) }</span><span>{"0"}</span>
            </div>
            <div class="jt-plot">
                <svg viewBox={format!("0 0 {n} 100")} preserveAspectRatio="none" role="img"
                    aria-label={format!("প্রতি সেকেন্ডে মেয়াদ শেষ, {} থেকে {} সেকেন্ড", c.w0, w1)}>
                    <line class="jt-grid" x1="0" x2={n.to_string()} y1="50" y2="50" />
                    <path class="jt-bars done" d={bars(0..cur)} />
                    <path class="jt-bars later" d={bars(cur..n)} />
                    <line class="jt-mean" x1="0" x2={n.to_string()} y1={format!("{mean_y:.2}")} y2={format!("{mean_y:.2}")} />
                    <line class="jt-peak" x1={format!("{peak_x:.3}")} x2={format!("{peak_x:.3}")} y1="100" y2={format!("{peak_y:.2}")} />
                    <line class="jt-cursor" x1={cur.to_string()} x2={cur.to_string()} y1="0" y2="100" />
                </svg>
                <span class="jt-tag mean" style={format!("top: {:.1}%", mean_y.clamp(16.0, 100.0))}>
                    { format!("গড় {}/s", to_fixed(c.wave.mean, 1)) }
                </span>
                <span class={classes!("jt-tag", "peak", (peak_x > n as f64 * 0.6).then_some("left"))}
                    style={format!("top: {:.1}%; left: {:.2}%", peak_y.clamp(16.0, 100.0), peak_x / n as f64 * 100.0)}>
                    { format!("▲ সর্বোচ্চ {}/s", c.wave.max) }
                </span>
            </div>
            <div class="jt-x" aria-hidden="true">
                <span>{ format!("{} s", c.w0) }</span>
                <span>{ format!("{} s", c.w0 + c.bin * (n as i64 / 2)) }</span>
                <span>{ format!("{w1} s") }</span>
            </div>
            <figcaption class="jt-axis">
                { format!("x: লেখার পর সময় (সেকেন্ড) — {unit} (সর্বোচ্চ ১৫০টি বার) · y: সেকেন্ডে কয়টি key মরছে") }
            </figcaption>
        </figure>
    }
}

/// How many seconds carry each load: the mean is in the middle, the database must take the tail.
fn spread(c: &Chosen) -> Html {
    let unit = if c.load_bin == 1 {
        String::new()
    } else {
        format!(", প্রতিটি বার {}টি মানের", bn::text(&c.load_bin.to_string()))
    };
    html! {
        <div class="jt-spread">
            <p class="jt-spread-cap">
                { format!("জানালার {} সেকেন্ডের ভার কেমন ছড়ানো — গড় {}, কিন্তু ডেটাবেসকে সামলাতে হয় ডানের লেজ, সর্বোচ্চ {}",
                    bn::grouped(c.wave.span as i64), bn::text(&to_fixed(c.wave.mean, 1)), bn::grouped(i64::from(c.wave.max))) }
            </p>
            { histogram(&c.loads, &Axes { x: format!("এক সেকেন্ডে কয়টি key মরল{unit} · উচ্চতা: এমন কত সেকেন্ড"), y: String::new(), log_x: false }, None) }
        </div>
    }
}

fn figures(c: &Chosen, keys: u32) -> Html {
    let w = &c.wave;
    let calmer = if w.max > 0 {
        f64::from(keys) / f64::from(w.max)
    } else {
        1.0
    };
    let verdict = if w.case.jitter == 0.0 {
        "jitter নেই: সব key একই সেকেন্ডে — ডেটাবেসে একটা দেয়াল".to_string()
    } else {
        format!(
            "jitter ছাড়া সবচেয়ে ভারী সেকেন্ডে {} key; এখানে {} — প্রায় {} গুণ কম",
            bn::grouped(i64::from(keys)),
            bn::grouped(i64::from(w.max)),
            bn::text(&format!("{calmer:.0}"))
        )
    };
    html! {
        <div class="jt-figures">
            <div class="jt-fig"><span class="jt-fig-num" data-testid="jitter-span">{ w.span }</span><span class="jt-fig-label">{"জানালা (span, s)"}</span></div>
            <div class="jt-fig"><span class="jt-fig-num" data-testid="jitter-mean">{ to_fixed(w.mean, 1) }</span><span class="jt-fig-label">{"সেকেন্ডে গড়"}</span></div>
            <div class="jt-fig peak"><span class="jt-fig-num" data-testid="jitter-max">{ w.max }</span><span class="jt-fig-label">{"সবচেয়ে ভারী সেকেন্ডে"}</span></div>
            <p class="jt-verdict">{ verdict }</p>
        </div>
    }
}

fn table(waves: &[JitterWave], chosen: JitterCase, cfg: &JitterConfig) -> Html {
    // The seed's table text, to the last space, for anyone comparing with `labsim jitter`.
    let text: String = std::iter::once(HEADER.to_string())
        .chain(waves.iter().map(JitterWave::row))
        .map(|l| l + "\n")
        .collect();
    html! {
        <div class="jt-table-wrap">
            <table class="jt-table" data-testid="jitter-table" data-table={text}>
                <caption>{ format!("seed-এর আট সারি: {} key, TTL {} s, seed {}", cfg.keys, cfg.ttl, cfg.seed) }</caption>
                <thead><tr>
                    <th scope="col">{"jitter"}</th>
                    <th scope="col">{"round"}</th>
                    <th scope="col">{"span (s)"}</th>
                    <th scope="col">{"mean per s"}</th>
                    <th scope="col">{"max per s"}</th>
                </tr></thead>
                <tbody>
                    { for waves.iter().map(|w| {
                        let here = w.case == chosen;
                        // The sim's own row text, cell by cell: the numbers are the seed's.
                        let row = w.row();
                        let cells: Vec<String> = row.split_whitespace().map(|s| s.replace("+-", "±")).collect();
                        html! {
                            <tr class={classes!(here.then_some("current"))} aria-current={here.then_some("true")}>
                                { for cells.into_iter().map(|c| html! { <td>{ c }</td> }) }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// The TTL-jitter lab.
#[component]
pub fn JitterLab(props: &LabProps) -> Html {
    let p = use_params(JITTER, &props.query, props.on_query.clone());
    let params = p.state.good.clone();
    let cfg = jitter_config(&params);
    let case = jitter_case(&params);

    let chosen = use_job((cfg, case), |&(cfg, case)| {
        ChosenJob(WaveJob::new(cfg, vec![case], true))
    });
    let rows = use_job(cfg, |&cfg| TableJob(WaveJob::new(cfg, seed_cases(), false)));

    let frames = match &chosen {
        JobState::Done(c) => c.bins.len() + 1,
        JobState::Running(_) => 1,
    };
    let t = use_timeline(frames, TICK_MS);
    {
        // A new result opens on the whole picture; ▶ replays it from the start.
        let d = t.dispatcher();
        use_effect_with(frames, move |&n| {
            if n > 1 {
                d.dispatch(TimeAction::End);
            }
        });
    }

    let view = match &chosen {
        JobState::Running(x) => progress(*x),
        JobState::Done(c) => {
            let cur = t.cursor.min(c.bins.len());
            let at = c.w0 + c.bin * cur as i64;
            let gone = c.before(cur);
            let this = c.at(at - 1);
            let label = format!("t = {} s ({})", bn::grouped(at), clock(at));
            html! {
                <>
                    <Controls timeline={t.clone()} label={label} />
                    <p class="jt-now" data-testid="jitter-counter" aria-live="polite">
                        { format!("এখন পর্যন্ত {} key মরেছে, এই সেকেন্ডে {}", bn::grouped(gone as i64), bn::grouped(i64::from(this))) }
                        <span class="jt-now-case">{ format!(" · J = {}, round {}", share(case.jitter), bn::text(&case.round.to_string())) }</span>
                    </p>
                    { chart(c, cur) }
                    { figures(c, cfg.keys) }
                    if !props.embedded && c.wave.span > 1 { { spread(c) } }
                </>
            }
        }
    };
    let rows_view = match &rows {
        JobState::Running(x) => progress(*x),
        JobState::Done(w) => table(w, case, &cfg),
    };
    let form = html! {
        <ParamForm state={(*p.state).clone()} set={p.set.clone()}
            only={if props.embedded { vec!["jitter", "round"] } else { Vec::new() }} />
    };
    html! {
        <div class={classes!("lab", "lab-jitter", props.embedded.then_some("embedded"))} data-lab="jitter">
            if !props.embedded {
                <p class="jt-lead">
                    { format!("{} key একই মুহূর্তে লেখা, TTL {} s; প্রতিটির মেয়াদ TTL × (১ + J·u), u −১ থেকে ১-এর মধ্যে সমবণ্টিত (mulberry32({})). মরলেই আবার লেখা হয় — round মানে কততম মেয়াদ।",
                        bn::grouped(i64::from(cfg.keys)), bn::grouped(cfg.ttl as i64), cfg.seed) }
                </p>
                { form.clone() }
            }
            <div class="jt-body">
                <div class="jt-main">{ view }</div>
                <div class="jt-side">
                    if props.embedded { { form } }
                    { rows_view }
                    if props.embedded { { super::open_full("jitter", &params.to_query()) } }
                </div>
            </div>
        </div>
    }
}
