//! The LRU step-through of seed 001 §২: an LRU cache of 3 keys and the operations
//! `put A, put B, put C, get A, put D, get B, get A`, one step at a time. For the step shown
//! it draws the hash map (key → node), the doubly linked list HEAD ⇄ MRU … LRU ⇄ TAIL with the
//! touched node lit (teal for a hit, orange for a newly loaded key) and the evicted key leaving
//! with the reason, a Bengali sentence saying what happened, and the seed's printed table
//! (op, result, list) with the current row marked. A student can type their own operations,
//! cache size and any registry policy; the numbers come from `redislab_sim` (`policy_trace`).

use super::kit::{
    failed_or_progress, open_full, stat, use_lab, use_run, use_steps, Controls, LabFrame, LabProps,
    Open, ParamForm, TimeAction,
};
use redislab_deck::bn;
use redislab_sim::eviction::lru_trace::{OpKind, Outcome, TraceStep};
use redislab_sim::labs::lru::{touch, LruOutput, LruRun, PolicyText, Touch, INFO};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The lab's view, by the name the dispatch uses.
pub use LruLab as View;

fn op_text(s: &TraceStep) -> String {
    let verb = match s.op.kind {
        OpKind::Get => "get",
        OpKind::Put => "put",
    };
    format!("{verb} {}", s.op.key)
}

/// The Bengali sentence for step `n` of `total`.
fn sentence(
    run: &LruOutput,
    about: &PolicyText,
    n: usize,
    total: usize,
    step: &TraceStep,
    t: Touch,
) -> Html {
    let k = step.op.key.clone();
    let lru = run.is_lru();
    let head = format!(
        "ধাপ {}/{} · {}: ",
        bn::digits(n, 1),
        bn::digits(total, 1),
        op_text(step)
    );
    let what = match (step.outcome, t) {
        (Outcome::Hit, _) => html! {
            <><b class="lru-w-hit">{"hit"}</b>{format!(" — {k} ক্যাশেই আছে; hash map এক ধাপেই তার node দেখাল, {}।", about.hit_bn)}</>
        },
        (Outcome::MissLoad, Touch::Refused) => html! {
            <><b class="lru-w-miss">{"miss"}</b>{format!(" — {k} ক্যাশে নেই; ডেটাবেস থেকে load করে উত্তর দেওয়া হলো।")}</>
        },
        (Outcome::Stored, Touch::Refused) => html! {
            <><b class="lru-w-miss">{"stored"}</b>{format!(" — নতুন key {k} এল।")}</>
        },
        (Outcome::MissLoad, _) => html! {
            <><b class="lru-w-miss">{"miss"}</b>{format!(" — {k} ক্যাশে নেই; ডেটাবেস থেকে load করে রাখা হলো{}।", if lru { " মাথায় (MRU)" } else { "" })}</>
        },
        (Outcome::Stored, Touch::Hit) => html! {
            <><b class="lru-w-hit">{"stored"}</b>{format!(" — {k} আগেই ছিল; মান বদলাল{}।", if lru { ", node উঠল মাথায় (MRU)" } else { "" })}</>
        },
        (Outcome::Stored, _) => html! {
            <><b class="lru-w-miss">{"stored"}</b>{format!(" — নতুন key {k} রাখা হলো{}।", if lru { " মাথায় (MRU)" } else { "" })}</>
        },
    };
    let cap = bn::digits(run.capacity as usize, 1);
    let evict = match (&step.evicted, t) {
        (Some(_), Touch::Refused) => html! {
            <>{" কিন্তু policy "}<b class="lru-w-evict">{ k.clone() }</b>{format!("-কে ক্যাশে রাখল না (evict {k}) — victim {}।", about.rule_bn)}</>
        },
        (Some(x), _) => html! {
            <>{format!(" ক্যাশ ভরা ({cap}/{cap}), তাই ")}<b class="lru-w-evict">{format!("evict {x}")}</b>{format!(" — {}।", about.rule_bn)}</>
        },
        (None, Touch::New) => html! { {" জায়গা ছিল, কাউকে সরাতে হয়নি।"} },
        (None, _) => Html::default(),
    };
    html! { <>{ head }{ what }{ evict }</> }
}

/// The LRU step-through lab.
#[component]
pub fn LruLab(props: &LabProps) -> Html {
    let lab = use_lab(&INFO, props);
    let work = use_run::<LruRun>(&lab, true);
    let walk = work.result();
    let total = walk.map_or(0, |w| w.steps.len());
    let t = use_steps(walk, 700, Open::Start);
    let cursor = t.cursor.min(total);
    let wrap = use_node_ref();
    {
        let wrap = wrap.clone();
        use_effect_with(cursor, move |_| {
            if let Some(w) = wrap.cast::<web_sys::HtmlElement>() {
                // Keep the current row of a scrolling table in view (inside the table only,
                // never the page).
                if w.scroll_height() > w.client_height() {
                    if let Some(row) = w
                        .query_selector("tr.current")
                        .ok()
                        .flatten()
                        .and_then(|r| r.dyn_into::<web_sys::HtmlElement>().ok())
                    {
                        // Centre the row, so the steps before and after it show too.
                        let (top, h) = (row.offset_top(), row.offset_height());
                        w.set_scroll_top((top - (w.client_height() - h) / 2).max(0));
                    } else {
                        w.set_scroll_top(0);
                    }
                }
            }
        });
    }
    let only = if props.embedded {
        vec!["ops", "capacity"]
    } else {
        Vec::new()
    };
    let top = html! {
        <div class="lru-top">
            <ParamForm state={lab.form.clone()} set={lab.set.clone()} only={only} />
            if props.embedded { { open_full(&lab) } }
        </div>
    };
    let note = html! {
        <p class="lru-note">
            {"hash map বলে node কোথায় ("}<code>{"O(1)"}</code>{"-এ খোঁজ); doubly linked list রাখে ক্রম — মাথায় সবচেয়ে সাম্প্রতিক (MRU), লেজে সবচেয়ে পুরোনো (LRU)। Node-এর ঠিকানা জানা থাকলে তাকে খুলে মাথায় বসানো মাত্র দুটি pointer বদল, তাই get আর put দুটোই "}<code>{"O(1)"}</code>{"। অন্য policy বেছে দেখুন একই অপারেশনে কে সরে।"}
        </p>
    };
    let (Some(run), Some(about)) = (walk, walk.and_then(|w| w.about.as_ref())) else {
        return html! {
            <LabFrame lab={lab.clone()} busy={work.busy()} after={note} link={false}>
                { top }
                { failed_or_progress(&work) }
            </LabFrame>
        };
    };
    let step = cursor.checked_sub(1).and_then(|i| run.steps.get(i));
    let before = run.order_at(cursor.saturating_sub(1));
    let order = run.order_at(cursor);
    let touched = step.map(|s| (s.op.key.clone(), touch(s, before)));
    let [end_a, end_b] = &about.order_bn;
    let linked = about.linked;

    let label = match step {
        Some(s) => format!(
            "ধাপ {}/{} · {}",
            bn::digits(cursor, 1),
            bn::digits(total, 1),
            op_text(s)
        ),
        None => "শুরু · খালি ক্যাশ".to_string(),
    };

    let text = match step {
        Some(s) => sentence(run, about, cursor, total, s, touch(s, before)),
        None => html! { <>{format!(
            "শুরু: ক্যাশ খালি, জায়গা {}টি key-এর। ▶ চাপুন বা এক ধাপ করে এগোন — {}টি অপারেশন।",
            bn::digits(run.capacity as usize, 1),
            bn::digits(total, 1)
        )}</> },
    };

    // (b) the list: HEAD ⇄ nodes ⇄ TAIL, then the evicted key leaving.
    let last = order.len().saturating_sub(1);
    let node = |i: usize, k: &String| {
        let cls = match &touched {
            Some((tk, Touch::Hit)) if tk == k => Some("hit"),
            Some((tk, Touch::New)) if tk == k => Some("new"),
            _ => None,
        };
        let tag = if i == 0 && i == last {
            format!("{end_a} = {end_b}")
        } else if i == 0 {
            end_a.to_string()
        } else if i == last {
            end_b.to_string()
        } else {
            String::new()
        };
        html! {
            <>
                if linked || i > 0 { <span class="lru-arrow" aria-hidden="true">{"⇄"}</span> }
                <span class={classes!("lru-node", cls)} data-key={k.clone()}>
                    <span class="lru-node-key">{ k.clone() }</span>
                    <span class="lru-node-tag">{ tag }</span>
                </span>
            </>
        }
    };
    let evicted = step.and_then(|s| s.evicted.clone());
    let why_short = if run.is_lru() {
        "tail = least recently used"
    } else {
        about.rule.as_str()
    };
    let list = html! {
        <div class="lru-list-wrap">
            <p class="lru-cap">{ if linked {
                format!("doubly linked list · {end_a} … {end_b}")
            } else {
                format!("policy-র ক্রম · {end_a} … {end_b}")
            } }</p>
            <div class="lru-list" aria-label={format!("ক্রম: {}", if order.is_empty() { "খালি".to_string() } else { order.join(", ") })}>
                if linked { <span class="lru-node sentinel">{"HEAD"}</span> }
                if order.is_empty() {
                    if linked { <span class="lru-arrow" aria-hidden="true">{"⇄"}</span> }
                    <span class="lru-empty">{"(খালি)"}</span>
                }
                { for order.iter().enumerate().map(|(i, k)| node(i, k)) }
                if linked { <span class="lru-arrow" aria-hidden="true">{"⇄"}</span><span class="lru-node sentinel">{"TAIL"}</span> }
                if let Some(x) = evicted.clone() {
                    <span class="lru-leave" aria-hidden="true">{"→"}</span>
                    <span class="lru-node gone" data-key={x.clone()}>
                        <span class="lru-node-key"><s>{ x }</s></span>
                        <span class="lru-node-tag">{"evict"}</span>
                    </span>
                }
            </div>
            if let Some(x) = evicted {
                <p class="lru-why"><b>{ format!("evict {x}: ") }</b><span lang="en">{ why_short }</span></p>
            }
        </div>
    };

    // (a) the hash map: key → node, sorted by key.
    let mut map: Vec<(usize, &String)> = order.iter().enumerate().collect();
    map.sort_by(|a, b| a.1.cmp(b.1));
    let map_view = html! {
        <div class="lru-map">
            <p class="lru-cap">{ format!("hash map · {}/{} ভরা", bn::digits(order.len(), 1), bn::digits(run.capacity as usize, 1)) }</p>
            <table class="lru-map-table">
                <thead><tr><th scope="col">{"key"}</th><th scope="col">{"→ node"}</th></tr></thead>
                <tbody>
                    { for map.iter().map(|(pos, k)| {
                        let cls = match &touched {
                            Some((tk, Touch::Hit)) if tk == *k => Some("hit"),
                            Some((tk, Touch::New)) if tk == *k => Some("new"),
                            _ => None,
                        };
                        html! {
                            <tr class={classes!(cls)}>
                                <td class="lru-map-key">{ (*k).clone() }</td>
                                <td>{ format!("node {k} · list-এ {}", bn::digits(pos + 1, 1)) }</td>
                            </tr>
                        }
                    }) }
                    if map.is_empty() { <tr><td colspan="2" class="lru-map-none">{"খালি"}</td></tr> }
                </tbody>
            </table>
        </div>
    };

    // (d) the seed's table, the current row marked; a click on an operation jumps there.
    let (hits, misses, evictions) = run.so_far(cursor);
    // Inside a slide the table shows a window of rows around the current step (the slide
    // has no room to scroll in); the full lab page shows them all.
    let (first, shown) = if props.embedded {
        const ROWS: usize = 3;
        let first = cursor.saturating_sub(2).min(total.saturating_sub(ROWS));
        (first, ROWS)
    } else {
        (0, total)
    };
    let table = html! {
        <div class="lru-table-wrap" ref={wrap}>
            <table class="lru-table" data-testid="lru-table">
                <thead><tr>
                    <th scope="col">{"op"}</th>
                    <th scope="col">{"result"}</th>
                    <th scope="col">{ format!("list ({end_a} ... {end_b})") }</th>
                </tr></thead>
                <tbody>
                    { for run.steps.iter().enumerate().skip(first).take(shown).map(|(i, s)| {
                        let d = t.dispatcher();
                        let onclick = Callback::from(move |_: MouseEvent| d.dispatch(TimeAction::Seek(i + 1)));
                        let cls = if i + 1 == cursor { Some("current") } else if i + 1 > cursor { Some("later") } else { None };
                        html! {
                            <tr class={classes!(cls)} aria-current={(i + 1 == cursor).then_some("step")}>
                                <td><button class="lru-seek" {onclick} title="এই ধাপে যান">{ op_text(s) }</button></td>
                                <td class={classes!("lru-result", match s.outcome { Outcome::Hit => "hit", Outcome::MissLoad => "miss", Outcome::Stored => "stored" })}>{ s.note() }</td>
                                <td class="lru-order">{ s.order.join(" <-> ") }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    };

    html! {
        <LabFrame lab={lab.clone()} after={note} link={false}>
            { top }
            <Controls timeline={t.clone()} label={label} />
            <div class="lru-stage">
                { list }
                <p class="lru-step" data-testid="lru-step" aria-live="polite">{ text }</p>
            </div>
            <div class="lru-grid">
                { map_view }
                <div class="lru-trace">
                    <div class="lru-head">
                        <p class="lru-cap">{ "ধাপের তালিকা" }</p>
                        <dl class="lab-stats lru-tally">
                            { stat("lru", "hits", "hit", hits, false) }
                            { stat("lru", "misses", "miss, load", misses, false) }
                            { stat("lru", "evictions", "evict", evictions, false) }
                        </dl>
                    </div>
                    { table }
                </div>
            </div>
        </LabFrame>
    }
}
