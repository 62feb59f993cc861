//! The live controls every lab that speaks Redis shares: the "আসল Redis" switch, the time
//! scale, the connection indicator, "again" once a run has ended, what a live run runs (when
//! it is scaled down) and, when it cannot run, the clear message that the lab is simulating.

use super::{Indicator, LiveState};
use redislab_deck::bn;
use redislab_sim::wire::LiveStatus;
use yew::prelude::*;

/// Time scales of a live run: how many times slower than the lab's milliseconds.
pub const SCALES: &[u64] = &[1, 2, 4];

/// The switch's state: on or off, the time scale, and how many times "again" was pressed.
#[derive(Clone, PartialEq)]
pub struct LiveSwitch {
    /// Live mode on.
    pub on: UseStateHandle<bool>,
    /// The time scale (one of [`SCALES`]).
    pub scale: UseStateHandle<u64>,
    /// Bumped by "again": a new run of the same parameters.
    pub attempt: UseStateHandle<u32>,
}

/// The switch's state, off, at scale ×1.
#[hook]
pub fn use_live_switch() -> LiveSwitch {
    LiveSwitch {
        on: use_state_eq(|| false),
        scale: use_state_eq(|| 1u64),
        attempt: use_state_eq(|| 0u32),
    }
}

/// Props of [`LivePanel`].
#[derive(Properties, PartialEq)]
pub struct LivePanelProps {
    /// The switch.
    pub switch: LiveSwitch,
    /// The live run.
    pub live: LiveState,
    /// What a live run runs, when it is not the lab's own numbers (scaled-down counts).
    #[prop_or_default]
    pub note: Option<AttrValue>,
}

/// The live bar and, while live mode is on, the note and any failure.
#[component]
pub fn LivePanel(props: &LivePanelProps) -> Html {
    let sw = &props.switch;
    let on = *sw.on;
    let onchange = {
        let s = sw.on.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlInputElement = e.target_unchecked_into();
            s.set(el.checked());
        })
    };
    let on_scale = {
        let s = sw.scale.clone();
        Callback::from(move |e: Event| {
            let el: web_sys::HtmlSelectElement = e.target_unchecked_into();
            s.set(el.value().parse().unwrap_or(1));
        })
    };
    let again = {
        let a = sw.attempt.clone();
        Callback::from(move |_: MouseEvent| a.set(*a + 1))
    };
    let live = &props.live;
    let status = on.then(|| live.status.clone()).flatten();
    // Offline the switch cannot be turned on and says why; a run that was on starts again
    // when the network comes back.
    let online = crate::offline::use_online();
    {
        let (attempt, on) = (sw.attempt.clone(), sw.on.clone());
        let was = use_mut_ref(|| online);
        use_effect_with(online, move |&online| {
            if online && !*was.borrow() && *on {
                attempt.set(*attempt + 1);
            }
            *was.borrow_mut() = online;
        });
    }
    html! {
        <>
            <div class="live-bar" data-testid="live-bar">
                <label class="live-switch">
                    <input type="checkbox" role="switch" checked={on} disabled={!online} data-testid="live-switch" {onchange} />
                    <span>{"আসল Redis"}</span>
                </label>
                <label class="live-scale">
                    <span>{"আসল Redis-এ গতি"}</span>
                    <select data-testid="live-scale" onchange={on_scale}>
                        { for SCALES.iter().map(|&k| html! {
                            <option value={k.to_string()} selected={k == *sw.scale}>{ scale_name(k) }</option>
                        }) }
                    </select>
                </label>
                <Indicator {status} />
                if on && live.done {
                    <button class="tool" data-testid="live-again" onclick={again}>{"আবার চালান"}</button>
                }
            </div>
            if !online {
                <crate::offline::NeedsNetwork what="আসল Redis" />
            }
            if on && online {
                if let Some(note) = props.note.clone().filter(|_| live.failed.is_none() || live.got) {
                    <p class="live-note" data-testid="live-note">{ note }</p>
                }
                if let Some(why) = live.failed.clone() {
                    <p class="live-msg" role="alert" data-testid="live-msg">
                        { why }
                        if !matches!(live.status, Some(LiveStatus::Lost(_))) || !live.got {
                            <span class="live-msg-sim">{" নিচে যা দেখছেন তা সিমুলেশন।"}</span>
                        }
                    </p>
                    if matches!(live.status, Some(LiveStatus::NoProxy)) { { for_instructors() } }
                }
            }
        </>
    }
}

/// A live run's speed, in words: how many times slower than the lab's own milliseconds.
fn scale_name(k: u64) -> String {
    match k {
        1 => "স্বাভাবিক".into(),
        k => format!("{} গুণ ধীর", bn::text(&k.to_string())),
    }
}

/// How to give the page a real Redis: for an instructor, folded away from a student.
pub fn for_instructors() -> Html {
    html! {
        <details class="live-howto" data-testid="live-howto">
            <summary>{"প্রশিক্ষকদের জন্য: আসল Redis চালু করা"}</summary>
            <p>
                {"যে মেশিনে Redis চলছে সেখানে অ্যাপটা প্রক্সি দিয়ে চালান, তারপর সেই ঠিকানা দিয়ে খুলুন: "}
                <code>{"cargo xtask serve --redis redis://127.0.0.1:6379"}</code>
                {" (স্থির হোস্ট বা trunk serve-এ প্রক্সি থাকে না)।"}
            </p>
        </details>
    }
}

/// One row of [`counts_table`]: its key (`data-row`), its label, the simulation's number and
/// the real run's.
pub type CountRow = (String, String, u64, u64);

/// The simulation's prediction beside the real run, a number a row, and once the run is
/// over the verdict under it (`data-testid=live-verdict`). `class` is the lab's own box class.
pub fn counts_table(class: &'static str, rows: &[CountRow], done: bool, verdict: String) -> Html {
    let n = |v: u64| bn::grouped(i64::try_from(v).unwrap_or(i64::MAX));
    html! {
        <div class={classes!("live-compare-box", class)}>
            <table class="live-compare" data-testid="live-compare">
                <caption>{ if done { "সিমুলেশনের পূর্বাভাস বনাম আসল Redis" } else { "সিমুলেশনের পূর্বাভাস বনাম আসল Redis (চলছে)" } }</caption>
                <thead><tr><td></td><th scope="col">{"সিমুলেশন"}</th><th scope="col">{"আসল Redis"}</th></tr></thead>
                <tbody>
                    { for rows.iter().map(|(key, label, a, b)| html! {
                        <tr data-row={key.clone()} data-same={(a == b).to_string()} class={classes!((done && a != b).then_some("differs"))}>
                            <th scope="row">{ label.clone() }</th>
                            <td data-side="sim" data-n={a.to_string()}>{ n(*a) }</td>
                            <td data-side="real" data-n={b.to_string()}>{ n(*b) }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            if done {
                <p class="live-verdict" data-testid="live-verdict">{ verdict }</p>
            }
        </div>
    }
}

/// One row of [`outcome_table`]: its key (`data-row`), its label, what the simulation
/// predicted and what the real run did, as words.
pub type OutcomeRow = (&'static str, &'static str, String, String);

/// The simulation's outcome beside the real run's, a row a fact; once the run is over the
/// verdict under it (`data-same` says whether every row agreed). `same_text` is the lab's
/// sentence for a run that ended as simulated.
pub fn outcome_table(rows: &[OutcomeRow], done: bool, same_text: &'static str) -> Html {
    let same = rows.iter().all(|(_, _, a, b)| a == b);
    html! {
        <div class="live-compare-box">
            <table class="live-compare" data-testid="live-compare">
                <caption>{"সিমুলেশনের পূর্বাভাস বনাম আসল Redis"}</caption>
                <thead><tr><td></td><th scope="col">{"সিমুলেশন"}</th><th scope="col">{"আসল Redis"}</th></tr></thead>
                <tbody>
                    { for rows.iter().map(|(key, label, a, b)| html! {
                        <tr data-row={*key} data-same={(a == b).to_string()} class={classes!((done && a != b).then_some("differs"))}>
                            <th scope="row">{ *label }</th><td data-side="sim">{ a.clone() }</td><td data-side="real">{ b.clone() }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
            if done {
                <p class={classes!("live-verdict", if same { "same" } else { "differs" })} data-testid="live-verdict" data-same={same.to_string()}>
                    { if same {
                        same_text
                    } else {
                        "আসল ঘড়িতে কয়েক মিলিসেকেন্ডের এদিক-ওদিক — কোথাও ফল আলাদা হলো (লাল সারি)। সময় ধীর করে আবার চালান।"
                    } }
                </p>
            }
        </div>
    }
}
