//! The frame every lab shares, the command log, and the small pieces every lab draws the
//! same way (the link to the full lab, the figures, the progress bar).

use super::{LabState, ParamForm, RunState};
use redislab_deck::bn;
use redislab_sim::labs::log::CmdLine;
use yew::prelude::*;

/// Props of [`LabFrame`].
#[derive(Properties, PartialEq)]
pub struct LabFrameProps {
    /// The lab.
    pub lab: LabState,
    /// Still computing (`aria-busy`).
    #[prop_or_default]
    pub busy: bool,
    /// What the lab shows, a sentence or two (on its own page).
    #[prop_or_default]
    pub lead: Html,
    /// The live panel (its own page, labs that speak Redis).
    #[prop_or_default]
    pub live: Html,
    /// What goes under the form (notes, scripts) on its own page.
    #[prop_or_default]
    pub after: Html,
    /// Show every field in the folded form (the LRU lab draws its own few fields).
    #[prop_or(true)]
    pub form: bool,
    /// The preset buttons inside a slide too (a lab with many presets leaves them to its page).
    #[prop_or(true)]
    pub slide_presets: bool,
    /// Inside a slide, the frame draws the link to the whole lab under the picture (a view
    /// that has a better place for it in its own layout draws [`open_full`] itself).
    #[prop_or(true)]
    pub link: bool,
    /// The picture and its transport.
    pub children: Html,
}

/// One frame for every lab. The lab comes first: its picture and transport, then the presets
/// (with what the chosen one shows), the live panel and every field folded until opened (or
/// while a field holds a message). Inside a slide: the picture, the presets and a link to the
/// whole lab with these parameters.
#[component]
pub fn LabFrame(props: &LabFrameProps) -> Html {
    let lab = &props.lab;
    let info = lab.info;
    let embedded = lab.embedded;
    let open = use_state_eq(|| false);
    let current = lab.params().preset().map(|p| p.id);
    let presets = (!info.presets.is_empty() && (props.slide_presets || !embedded)).then(|| {
        html! {
            <div class="lab-presets" role="group" aria-label="প্রিসেট">
                <span class="lab-presets-label">{"প্রিসেট:"}</span>
                { for info.presets.iter().map(|pr| {
                    let choose = lab.preset.clone();
                    let on = current == Some(pr.id);
                    let id = pr.id;
                    html! {
                        <button class={classes!("tool", "lab-preset", on.then_some("on"))} aria-pressed={on.to_string()}
                            data-preset={id} title={pr.about.replace('`', "")} onclick={Callback::from(move |_: MouseEvent| choose.emit(id))}>{ pr.label }</button>
                    }
                }) }
            </div>
        }
    });
    let about = current
        .and_then(|id| info.presets.iter().find(|p| p.id == id))
        .filter(|_| !embedded)
        .map(|pr| html! { <p class="lab-about">{ with_code(pr.about) }</p> });
    let has_errors = !lab.form.errors.is_empty();
    // The fields are drawn only while the box is open (or holds a message): closed, they
    // are many elements built on every opening for nobody.
    let show = has_errors || *open;
    let on_toggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            open.set(
                e.target_unchecked_into::<web_sys::Element>()
                    .has_attribute("open"),
            );
        })
    };
    html! {
        <div class={classes!("lab", format!("lab-{}", info.id), embedded.then_some("embedded"))} data-lab={info.id} aria-busy={props.busy.to_string()}>
            <div class="lab-picture">{ props.children.clone() }</div>
            if !embedded && props.lead != Html::default() {
                <p class="lab-lead">{ props.lead.clone() }</p>
            }
            <div class="lab-choose">
                { presets.unwrap_or_default() }
                if embedded && props.link { { open_full(lab) } }
            </div>
            { about.unwrap_or_default() }
            if !embedded {
                { props.live.clone() }
                if props.form {
                    <details class="lab-form-box" open={show} ontoggle={on_toggle}>
                        <summary>{"সব প্যারামিটার — প্রতিটা সংখ্যা বদলানো যায়"}</summary>
                        if show { <ParamForm state={lab.form.clone()} set={lab.set.clone()} /> }
                    </details>
                }
                { props.after.clone() }
            }
        </div>
    }
}

/// Props of [`CmdLog`].
#[derive(Properties, PartialEq)]
pub struct CmdLogProps {
    /// The lines shown, each with the classes of its row (the lab's: who sent it, what it did).
    pub lines: Vec<(CmdLine, Classes)>,
    /// The lab's id: the list is `data-testid="<lab>-log"`, a round trip `<lab>-rtt`.
    pub lab: &'static str,
    /// A live run's log (each line with its round trip).
    #[prop_or_default]
    pub live: bool,
    /// Times in seconds with one decimal (`১.২ s`); otherwise in milliseconds (`১২৩ ms`).
    #[prop_or_default]
    pub secs: bool,
    /// The lab's own class for the list.
    #[prop_or_default]
    pub class: Classes,
    /// What an empty log says.
    #[prop_or_default]
    pub empty: Option<AttrValue>,
    /// The whole log's commands counted by name (`GET 140 SET 25`), as `data-by-command`:
    /// what a live test compares with the real Redis' command statistics (the lines shown
    /// may be fewer).
    #[prop_or_default]
    pub by_command: Option<AttrValue>,
}

/// The command log every lab that speaks Redis draws: when, who, the command as redis-cli
/// echoes it, Redis' reply as redis-cli prints it (or why there was none), a live run's round
/// trip, the lab's note. The one place a command and a reply become text.
#[component]
pub fn CmdLog(props: &CmdLogProps) -> Html {
    let label = if props.live {
        "আসল Redis-এ পাঠানো কমান্ড, তার উত্তর আর আসা-যাওয়ার সময়"
    } else {
        "Redis-এ পাঠানো কমান্ড"
    };
    html! {
        <ol class={classes!("cmd-log", props.class.clone(), props.live.then_some("live"))} aria-label={label} data-testid={format!("{}-log", props.lab)}
            data-by-command={props.by_command.clone()}>
            { for props.lines.iter().map(|(l, cls)| {
                let cmd = l.cmd_text();
                let reply = l.reply_text();
                html! {
                    <li class={classes!(cls.clone(), (!l.note.is_empty()).then_some("noted"))}>
                        <span class="cmd-log-t">{ if props.secs {
                            bn::text(&format!("{:.1} s", l.at_ms as f64 / 1000.0))
                        } else {
                            format!("{} ms", bn::text(&l.at_ms.to_string()))
                        } }</span>
                        <span class="cmd-log-who">{ &l.actor }</span>
                        if l.cmd.is_empty() {
                            <span class="cmd-log-note">{ &l.note }</span>
                        } else {
                            <code class="cmd-log-cmd" title={cmd.clone()}>{ cmd }</code>
                            <code class={classes!("cmd-log-reply", l.reply.is_err().then_some("none"))} title={reply.clone()}>{ format!("→ {reply}") }</code>
                            if let Some(us) = l.rtt_us {
                                <span class="cmd-log-rtt" data-testid={format!("{}-rtt", props.lab)} title="আসা-যাওয়ার সময় (round trip)">{ format!("{:.2} ms", f64::from(us) / 1000.0) }</span>
                            }
                        }
                    </li>
                }
            }) }
            if props.lines.is_empty() {
                if let Some(e) = props.empty.clone() { <li class="cmd-log-empty">{ e }</li> }
            }
        </ol>
    }
}

/// The link from an embedded lab to its own page with its current parameters.
pub fn open_full(lab: &LabState) -> Html {
    crate::labs::open_full(lab.info.id, &lab.params().to_query())
}

/// One number of a lab: a label, the value (Bengali digits, Indian grouping) and, when `bad`
/// and not zero, the warning colour. `data-testid` is `<lab>-<key>`, `data-figure` the key
/// (the figure of the lab's output it shows: `redislab_sim::labs::def::Figures`), `data-n`
/// the number.
pub fn stat(lab: &str, key: &'static str, label: &'static str, v: u64, bad: bool) -> Html {
    let shown = bn::grouped(i64::try_from(v).unwrap_or(i64::MAX));
    figure(lab, key, html! { label }, v as f64, shown, bad && v > 0)
}

/// A number with its own text (a decimal, a time): like [`stat`], `data-n` the value.
pub fn stat_f(lab: &str, key: &'static str, label: impl Into<Html>, v: f64, shown: String) -> Html {
    figure(lab, key, label.into(), v, shown, false)
}

fn figure(lab: &str, key: &'static str, label: Html, v: f64, shown: String, bad: bool) -> Html {
    html! {
        <div class={classes!("lab-stat", key, bad.then_some("bad"))}>
            <dt>{ label }</dt>
            <dd data-testid={format!("{lab}-{key}")} data-figure={key} data-n={v.to_string()}>{ shown }</dd>
        </div>
    }
}

/// Milliseconds since the page started (high resolution).
pub fn now() -> f64 {
    crate::dom::window().performance().map_or(0.0, |p| p.now())
}

/// A progress bar for a running job.
pub fn progress(p: f64) -> Html {
    html! {
        <div class="lab-progress" role="progressbar" aria-valuemin="0" aria-valuemax="100" aria-valuenow={format!("{:.0}", p * 100.0)}>
            <div class="lab-progress-fill" style={format!("width: {:.1}%", p * 100.0)}></div>
            <span>{ format!("হিসাব চলছে… {:.0}%", p * 100.0) }</span>
        </div>
    }
}

/// The progress bar of a run, or why it failed.
pub fn failed_or_progress<P, O>(run: &RunState<P, O>) -> Html {
    match &run.failed {
        Some(why) => html! { <p class="field-error" role="alert">{ why.clone() }</p> },
        None => progress(run.progress),
    }
}

/// A percentage with one decimal, as the seed prints it.
pub fn pct(hits: u64, of: u64) -> f64 {
    if of == 0 {
        0.0
    } else {
        hits as f64 * 100.0 / of as f64
    }
}

/// A preset's words with its `backticked` parts (commands, keys) as code.
fn with_code(text: &str) -> Html {
    text.split('`')
        .enumerate()
        .map(|(i, part)| {
            if i % 2 == 1 {
                html! { <code>{ part.to_string() }</code> }
            } else {
                html! { { part.to_string() } }
            }
        })
        .collect::<Html>()
}
