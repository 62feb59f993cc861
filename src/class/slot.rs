//! Class mode's small part in the app's first load: the place in the player where a class
//! is run ([`ClassSlot`]: the C key or the key help's button starts it), the join page's
//! frame ([`JoinPage`]) and the speaker window's count ([`SpeakerCount`]). Everything else —
//! the socket, the join card and its QR code, the chart, the student's page, the grader —
//! is drawn by the labs module (`LabHost` ids `class` and `join`), so a deck that never
//! starts a class never loads it.

use crate::dom;
use crate::labs::host::LabHost;
use yew::prelude::*;

/// The window event that starts (`redislab-class-on`) or closes (`redislab-class-off`) a
/// class in the player.
pub const ON: &str = "redislab-class-on";
/// …
pub const OFF: &str = "redislab-class-off";

/// Where a deck's running class is remembered for this tab (a reload takes it back).
pub fn on_key(deck: &str) -> String {
    format!("redislab.class.on.{deck}")
}

/// The BroadcastChannel between the player's class and the speaker window.
pub fn channel_name(deck: &str) -> String {
    format!("redislab-class:{deck}")
}

/// The BroadcastChannel on which the speaker window cues the player's class
/// (`redislab_sim::class::Cue`: give a set, ask a kind, reveal).
pub fn cue_channel(deck: &str) -> String {
    format!("redislab-class-cue:{deck}")
}

fn fire(kind: &str) {
    if let Ok(e) = web_sys::Event::new(kind) {
        let _ = dom::window().dispatch_event(&e);
    }
}

/// Props of [`ClassSlot`].
#[derive(Properties, PartialEq)]
pub struct ClassSlotProps {
    /// The deck's id.
    pub deck: AttrValue,
}

/// The player's class: nothing until C (or the key help's button) starts one; then the
/// labs module's class panel, over the stage.
#[component]
pub fn ClassSlot(props: &ClassSlotProps) -> Html {
    let key = on_key(&props.deck);
    let on = use_state_eq(|| super::socket::tab_stored(&key).is_some());
    let now = use_mut_ref(|| *on);
    *now.borrow_mut() = *on;
    {
        let (on, now, key) = (on.clone(), now.clone(), key.clone());
        use_effect_with((), move |_| {
            let w = dom::window();
            let start = {
                let (on, key) = (on.clone(), key.clone());
                move |_| {
                    super::socket::tab_store(&key, Some("1"));
                    on.set(true);
                }
            };
            let a = dom::Listener::new(&w, ON, start.clone());
            let b = {
                let (on, key) = (on.clone(), key.clone());
                dom::Listener::new(&w, OFF, move |_| {
                    super::socket::tab_store(&key, None);
                    on.set(false);
                })
            };
            // C starts a class; once one runs, the class panel has the key (its join card).
            let c = dom::Listener::new(&dom::document(), "keydown", move |e: web_sys::Event| {
                use wasm_bindgen::JsCast;
                let Some(k) = e.dyn_ref::<web_sys::KeyboardEvent>() else {
                    return;
                };
                let plain = !(k.ctrl_key() || k.alt_key() || k.meta_key());
                if plain
                    && k.key().eq_ignore_ascii_case("c")
                    && !*now.borrow()
                    && !dom::typing_into(&e)
                {
                    e.prevent_default();
                    start(e.clone());
                }
            });
            move || drop((a, b, c))
        });
    }
    if !*on {
        return Html::default();
    }
    html! {
        <div class="class-slot">
            <LabHost id="class" query={format!("deck={}", props.deck)} embedded={true} />
        </div>
    }
}

/// The key help's button that starts a class.
#[component]
pub fn HelpButton() -> Html {
    html! {
        <p class="help-class">
            <button type="button" class="button primary" data-testid="class-start" onclick={Callback::from(|_| fire(ON))}>
                {"ক্লাস শুরু করুন (C)"}
            </button>
            {" — শিক্ষার্থীদের ফোন আপনার স্লাইডের সাথে চলবে, প্রশ্নের উত্তর সেখানেই"}
        </p>
    }
}

/// Props of [`JoinPage`].
#[derive(Properties, PartialEq)]
pub struct JoinPageProps {
    /// The address' query (`code=482917`).
    pub query: AttrValue,
}

/// `#/join`: the student's page; the labs module draws it.
#[component]
pub fn JoinPage(props: &JoinPageProps) -> Html {
    use_effect_with((), |_| {
        dom::document().set_title("ক্লাসে যোগ দিন · Redis Lab")
    });
    html! {
        <div class="class-page">
            <LabHost id="join" query={props.query.clone()} embedded={false} />
        </div>
    }
}

/// Props of [`SpeakerCount`].
#[derive(Properties, PartialEq)]
pub struct SpeakerCountProps {
    /// The deck's id.
    pub deck: AttrValue,
}

/// The speaker window's line about the class: how many students are connected (the
/// player's class tells it over a BroadcastChannel), and a button that opens the class'
/// controls (a practice set, any question now: the labs module draws them); nothing while
/// no class runs.
#[component]
pub fn SpeakerCount(props: &SpeakerCountProps) -> Html {
    let said = use_state_eq(|| None::<String>);
    let cues = use_state_eq(|| false);
    {
        let said = said.clone();
        use_effect_with(props.deck.clone(), move |deck| {
            let port = web_sys::BroadcastChannel::new(&channel_name(deck)).ok();
            let l = port.as_ref().map(|p| {
                dom::Listener::new(p, "message", move |e: web_sys::Event| {
                    use wasm_bindgen::JsCast;
                    let text = e
                        .dyn_ref::<web_sys::MessageEvent>()
                        .and_then(|m| m.data().as_string());
                    said.set(text.filter(|t| !t.is_empty()));
                })
            });
            move || {
                drop(l);
                if let Some(p) = port {
                    p.close();
                }
            }
        });
    }
    let Some(t) = &*said else {
        return Html::default();
    };
    let toggle = {
        let cues = cues.clone();
        Callback::from(move |_: MouseEvent| cues.set(!*cues))
    };
    html! {
        <>
            <span class="speaker-class" data-testid="class-count">{ t.clone() }</span>
            <button type="button" class="tool" data-testid="class-cues" aria-expanded={cues.to_string()} onclick={toggle}>
                { if *cues { "ক্লাসের প্রশ্ন ✕" } else { "ক্লাসে প্রশ্ন / সেট" } }
            </button>
            if *cues {
                <div class="speaker-cues" role="region" aria-label="ক্লাসের প্রশ্ন আর অনুশীলন সেট">
                    <LabHost id="class" query={format!("deck={}&cues=1", props.deck)} embedded={true} />
                </div>
            }
        </>
    }
}
