//! The end of a class set: the score, each answer, and the result code that one tap copies
//! (and hands to the system's share sheet where the browser has one).

use crate::dom;
use js_sys::{Function, Object, Promise, Reflect};
use redislab_deck::{bn, route};
use redislab_sim::practice::set::{self, Spec};
use redislab_sim::practice::{self, Verdict};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// Props of [`SetScore`].
#[derive(Properties, PartialEq)]
pub(super) struct ScoreProps {
    pub(super) spec: Spec,
    pub(super) seed: u32,
    pub(super) verdicts: Vec<Option<Verdict>>,
    /// Start the same set again.
    pub(super) on_again: Callback<()>,
}

/// The end of a set: the score, each question right or wrong (a link to it), the result
/// code, and the ways on.
#[component]
pub(super) fn SetScore(props: &ScoreProps) -> Html {
    let heading = use_node_ref();
    {
        let heading = heading.clone();
        use_effect_with((), move |_| {
            if let Some(el) = heading.cast::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        });
    }
    let picks = set::picks(&props.spec, props.seed);
    let score = props.verdicts.iter().flatten().filter(|v| v.right).count();
    let canons: Vec<Option<String>> = props
        .verdicts
        .iter()
        .map(|v| v.as_ref().map(|v| v.canon.clone()))
        .collect();
    let code = set::code(&props.spec, props.seed, score as u32, &canons);
    let again = props.on_again.reform(|_: MouseEvent| ());
    let copied = use_state_eq(|| Copied::Not);
    let copy = {
        let (copied, code) = (copied.clone(), code.clone());
        Callback::from(move |_: MouseEvent| {
            let (copied, code) = (copied.clone(), code.clone());
            wasm_bindgen_futures::spawn_local(async move {
                if copy_text(&code).await {
                    copied.set(Copied::Yes);
                } else {
                    select_code();
                    copied.set(Copied::Failed);
                }
            });
        })
    };
    let can_share = navigator_fn("share").is_some();
    let share = {
        let code = code.clone();
        Callback::from(move |_: MouseEvent| share_text(&code))
    };
    let fresh_hash = route::practice_hash("", &props.spec.query_unseeded());
    let class_link = format!(
        "{}{}",
        dom::page_url().split('#').next().unwrap_or_default(),
        route::practice_hash("", &props.spec.query(props.seed))
    );
    html! {
        <section class="practice-score" aria-labelledby="practice-score-h">
            <h2 id="practice-score-h" class="practice-score-h" tabindex="-1" ref={heading}>
                {"স্কোর: "}<span class="practice-score-n" data-n={score.to_string()}>{ bn::int(score as i64) }</span>
                {" / "}{ bn::int(props.verdicts.len() as i64) }
            </h2>
            <ol class="practice-answers">
                { for picks.iter().zip(&props.verdicts).map(|((t, k, s), v)| {
                    let title = practice::topic(t)
                        .and_then(|tp| tp.kinds.iter().find(|x| x.id == *k).map(|x| format!("{} · {}", tp.title, x.title)))
                        .unwrap_or_default();
                    let (mark, cls) = match v {
                        Some(v) if v.right => ("✓ ঠিক", "right"),
                        Some(_) => ("✗ হয়নি", "wrong"),
                        None => ("— উত্তর নেই", "wrong"),
                    };
                    html! {
                        <li class={classes!("practice-answer", cls)}>
                            <span class="practice-mark">{ mark }</span>{" "}
                            <a href={practice::address(t, k, *s)}>{ title }</a>
                        </li>
                    }
                }) }
            </ol>
            <div class="practice-code-box">
                <p class="practice-code-label" id="practice-code-label">{"ফলাফলের কোড — প্রশিক্ষককে পাঠান"}</p>
                // One tap copies it; the code wraps, so all of it shows on a phone.
                <button type="button" id="practice-result-code" class="practice-result-code" data-code={code.clone()}
                    aria-describedby="practice-code-label practice-code-hint" onclick={copy}>
                    <code class="practice-code-text">{ code.clone() }</code>
                    <span class="practice-copy-word" aria-hidden="true">
                        if *copied == Copied::Yes {
                            {"✓ কপি হয়েছে"}
                        } else {
                            <span class="for-keys">{"কপি করুন"}</span><span class="for-touch">{"ট্যাপ করে কপি"}</span>
                        }
                    </span>
                </button>
                if can_share {
                    <button type="button" class="button practice-share" onclick={share}>{"শেয়ার করুন…"}</button>
                }
                <p class="practice-copied" role="status">{ match *copied {
                    Copied::Not => "",
                    Copied::Yes => "কোড কপি হয়েছে — মেসেজে পেস্ট করে প্রশিক্ষককে পাঠান।",
                    Copied::Failed => "কপি করা গেল না — কোডটা বাছাই করা আছে, নিজে কপি করে নিন।",
                } }</p>
                <p class="practice-hint" id="practice-code-hint">{"প্রশিক্ষক "}<code>{"labsim practice --check <কোড>"}</code>{" দিয়ে মিলিয়ে নেন: কোডে আপনার উত্তরগুলো আছে, সেগুলো আবার মিলিয়ে স্কোর বের হয় — হাতে লেখা স্কোর চলে না।"}</p>
            </div>
            <p class="practice-hint">{"এই সেটের লিংক (সবাই একই প্রশ্ন পায়): "}<code class="practice-class-link">{ class_link }</code></p>
            <p class="practice-on">
                <a class="button primary practice-new-set" href={fresh_hash}>{"নতুন সেট"}</a>
                <button type="button" class="button practice-again" onclick={again}>{"একই সেট আবার"}</button>
                <a class="button" href={route::practice_hash("", "")}>{"সব প্রশ্ন"}</a>
            </p>
        </section>
    }
}

/// What the last tap on the result code did.
#[derive(Clone, Copy, PartialEq)]
enum Copied {
    Not,
    Yes,
    /// The browser refused the clipboard (an address without HTTPS, a denied permission): the
    /// code is selected instead, for the student to copy.
    Failed,
}

/// `navigator.<name>` when it is a function, bound to `navigator` (through the object, as
/// web-sys' Clipboard and Share features would be built for these two calls).
fn navigator_fn(name: &str) -> Option<(JsValue, Function)> {
    let nav = Reflect::get(&dom::window(), &"navigator".into()).ok()?;
    let f = Reflect::get(&nav, &name.into())
        .ok()?
        .dyn_into::<Function>()
        .ok()?;
    Some((nav, f))
}

/// Writes `text` to the clipboard (`navigator.clipboard.writeText`); whether it went.
async fn copy_text(text: &str) -> bool {
    let Some(clipboard) = Reflect::get(&dom::window(), &"navigator".into())
        .and_then(|n| Reflect::get(&n, &"clipboard".into()))
        .ok()
        .filter(|c| c.is_object())
    else {
        return false;
    };
    let write = Reflect::get(&clipboard, &"writeText".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok());
    let Some(promise) = write
        .and_then(|f| f.call1(&clipboard, &text.into()).ok())
        .and_then(|p| p.dyn_into::<Promise>().ok())
    else {
        return false;
    };
    JsFuture::from(promise).await.is_ok()
}

/// Selects the result code's text on the page (where the clipboard refused it).
fn select_code() {
    let doc = dom::document();
    let (Some(code), Ok(selection)) = (
        doc.query_selector(".practice-code-text").ok().flatten(),
        Reflect::get(&dom::window(), &"getSelection".into())
            .and_then(|f| f.dyn_into::<Function>())
            .and_then(|f| f.call0(&dom::window())),
    ) else {
        return;
    };
    if let Ok(f) = Reflect::get(&selection, &"selectAllChildren".into()) {
        if let Some(f) = f.dyn_ref::<Function>() {
            let _ = f.call1(&selection, &code);
        }
    }
}

/// Opens the system's share sheet with the code (`navigator.share`); a student who closes it
/// has shared nothing, and nothing more is said.
fn share_text(code: &str) {
    let Some((nav, share)) = navigator_fn("share") else {
        return;
    };
    let data = Object::new();
    let _ = Reflect::set(&data, &"title".into(), &"Redis Lab — ফলাফলের কোড".into());
    let _ = Reflect::set(&data, &"text".into(), &code.into());
    if let Some(p) = share
        .call1(&nav, &data)
        .ok()
        .and_then(|p| p.dyn_into::<Promise>().ok())
    {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = JsFuture::from(p).await;
        });
    }
}
