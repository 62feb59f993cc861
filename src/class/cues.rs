//! The speaker window's class controls (drawn by the labs module, as the class panel's
//! `cues=1`): give the class a practice set (which labs, how many questions, a seed), ask any
//! practice kind on every phone now (a lab, its kind, a seed), reveal. The speaker window holds
//! no class socket: it says each [`Cue`] over a BroadcastChannel to the player, whose class
//! panel sends it to the class, and the results come in on the stage.

use super::slot::cue_channel;
use redislab_deck::bn;
use redislab_sim::class::{Cue, SetSpec};
use redislab_sim::practice::{self, set};
use yew::prelude::*;

/// Says `cue` to the player of `deck`.
fn say(deck: &str, cue: &Cue) -> bool {
    match web_sys::BroadcastChannel::new(&cue_channel(deck)) {
        Ok(p) => {
            let ok = p.post_message(&cue.to_text().into()).is_ok();
            p.close();
            ok
        }
        Err(_) => false,
    }
}

fn number(r: &NodeRef) -> Option<u32> {
    r.cast::<web_sys::HtmlInputElement>()
        .and_then(|i| bn::ascii(i.value().trim()).parse().ok())
}

fn fresh_seed() -> u32 {
    (js_sys::Math::random() * 100_000.0) as u32
}

/// Props of [`Cues`].
#[derive(Properties, PartialEq)]
pub struct CuesProps {
    /// The deck's id.
    pub deck: AttrValue,
}

/// The speaker window's two forms: a practice set for the class, and one question now.
#[component]
pub fn Cues(props: &CuesProps) -> Html {
    let topics = practice::topics();
    let boxes: Vec<NodeRef> = use_memo((), |_| {
        practice::topics()
            .iter()
            .map(|_| NodeRef::default())
            .collect::<Vec<_>>()
    })
    .to_vec();
    let (n, seed, kind, ask_seed) = (
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
        use_node_ref(),
    );
    let lab = use_state(|| 0usize);
    let seeds = *use_memo((), |_| (fresh_seed(), fresh_seed()));
    let said = use_state(|| None::<Result<String, String>>);
    let give = {
        let (deck, boxes, n, seed, said) = (
            props.deck.clone(),
            boxes.clone(),
            n.clone(),
            seed.clone(),
            said.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let all = practice::topics();
            let labs: Vec<String> = all
                .iter()
                .zip(&boxes)
                .filter(|(_, b)| {
                    b.cast::<web_sys::HtmlInputElement>()
                        .is_some_and(|i| i.checked())
                })
                .map(|(t, _)| t.id.to_string())
                .collect();
            if labs.is_empty() {
                said.set(Some(Err("অন্তত একটা ল্যাব বেছে নিন।".into())));
                return;
            }
            let (Some(count), Some(s)) = (number(&n), number(&seed)) else {
                said.set(Some(Err("প্রশ্নের সংখ্যা আর seed — দুটোই পূর্ণসংখ্যা দিন।".into())));
                return;
            };
            let spec = SetSpec::new(labs, count, s, all.len());
            let text = format!(
                "সেট দেওয়া হলো: {}টা প্রশ্ন, seed {} — ফল মঞ্চে আসবে",
                bn::int(spec.n.into()),
                bn::text(&spec.seed.to_string())
            );
            said.set(Some(if say(&deck, &Cue::Give { set: spec }) {
                Ok(text)
            } else {
                Err("ক্লাসের ট্যাবে পৌঁছানো গেল না".into())
            }));
        })
    };
    let ask = {
        let (deck, lab, kind, ask_seed, said) = (
            props.deck.clone(),
            lab.clone(),
            kind.clone(),
            ask_seed.clone(),
            said.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let all = practice::topics();
            let Some(t) = all.get(*lab) else { return };
            let k = kind
                .cast::<web_sys::HtmlSelectElement>()
                .map(|s| s.value())
                .unwrap_or_default();
            let Some(k) = t.kinds.iter().find(|x| x.id == k) else {
                return;
            };
            let Some(s) = number(&ask_seed) else {
                said.set(Some(Err("seed একটা পূর্ণসংখ্যা দিন।".into())));
                return;
            };
            let cue = Cue::Ask {
                topic: t.id.into(),
                kind: k.id.into(),
                seed: s,
            };
            said.set(Some(if say(&deck, &cue) {
                Ok(format!("জিজ্ঞেস করা হলো: {} · {}", t.title, k.title))
            } else {
                Err("ক্লাসের ট্যাবে পৌঁছানো গেল না".into())
            }));
        })
    };
    let reveal = {
        let deck = props.deck.clone();
        Callback::from(move |_: MouseEvent| {
            say(&deck, &Cue::Reveal);
        })
    };
    let pick_lab = {
        let lab = lab.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                lab.set(s.selected_index().max(0) as usize);
            }
        })
    };
    let kinds = topics.get(*lab).map(|t| t.kinds).unwrap_or_default();
    html! {
        <div class="class-cues">
            <form class="class-cue" onsubmit={give} novalidate=true aria-labelledby="cue-set-h">
                <h2 id="cue-set-h">{"ক্লাসকে একটা অনুশীলন সেট"}</h2>
                <fieldset class="class-cue-labs">
                    <legend>{"কোন ল্যাবের প্রশ্ন"}</legend>
                    { for topics.iter().zip(&boxes).map(|(t, r)| html! {
                        <label><input type="checkbox" name="cue-labs" value={t.id} checked={true} ref={r.clone()} />{ t.title }</label>
                    }) }
                </fieldset>
                <div class="class-cue-row">
                    <label for="cue-n">{"প্রশ্ন"}</label>
                    <input id="cue-n" ref={n} type="number" min="1" max={set::MAX_N.to_string()} value="5" inputmode="numeric" />
                    <label for="cue-seed">{"seed"}</label>
                    <input id="cue-seed" ref={seed} type="number" min="0" value={seeds.0.to_string()} inputmode="numeric" />
                    <button type="submit" class="button primary" data-testid="cue-set">{"সেটটা দিন"}</button>
                </div>
            </form>
            <form class="class-cue" onsubmit={ask} novalidate=true aria-labelledby="cue-ask-h">
                <h2 id="cue-ask-h">{"যেকোনো প্রশ্ন, এখনই সবার ফোনে"}</h2>
                <div class="class-cue-row">
                    <label for="cue-lab">{"ল্যাব"}</label>
                    <select id="cue-lab" onchange={pick_lab}>
                        { for topics.iter().enumerate().map(|(i, t)| html! { <option value={t.id} selected={i == *lab}>{ t.title }</option> }) }
                    </select>
                </div>
                <div class="class-cue-row">
                    <label for="cue-kind">{"প্রশ্ন"}</label>
                    <select id="cue-kind" ref={kind} key={*lab}>
                        { for kinds.iter().map(|k| html! { <option value={k.id}>{ k.title }</option> }) }
                    </select>
                </div>
                <div class="class-cue-row">
                    <label for="cue-ask-seed">{"seed"}</label>
                    <input id="cue-ask-seed" ref={ask_seed} type="number" min="0" value={seeds.1.to_string()} inputmode="numeric" />
                    <button type="submit" class="button primary" data-testid="cue-ask">{"জিজ্ঞেস করুন"}</button>
                    <button type="button" class="button" data-testid="cue-reveal" onclick={reveal}>{"উত্তর দেখান (R)"}</button>
                </div>
            </form>
            { match &*said {
                Some(Ok(t)) => html! { <p class="class-cue-said" role="status" data-testid="cue-said">{ t.clone() }</p> },
                Some(Err(t)) => html! { <p class="class-error" role="alert">{ t.clone() }</p> },
                None => Html::default(),
            } }
        </div>
    }
}
