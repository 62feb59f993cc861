//! Handouts (`#/<deck>/print`): every slide of a deck, fully built, one per printed page
//! (16:9 landscape), so the browser's Print → "Save as PDF" gives one slide a page. The
//! toolbar (hidden on paper) adds each slide's script under it (`?script`, which opens in the
//! light, ink-friendly theme) and switches the theme. On paper a slide with its script
//! shrinks to leave the script its lines: the page never spills onto a second.

use crate::catalog::DeckRef;
use crate::deck::slide::SlideView;
use crate::dom;
use redislab_deck::{bn, route, Deck};
use yew::prelude::*;

/// Props of [`PrintView`].
#[derive(Properties, PartialEq)]
pub struct PrintViewProps {
    /// The deck (loaded).
    pub deck: DeckRef,
    /// Each slide's presenter script under it.
    pub script: bool,
}

/// Every slide of a deck laid out for printing.
#[component]
pub fn PrintView(props: &PrintViewProps) -> Html {
    let deck: &'static Deck = props.deck.0;
    // A handout with scripts is for reading on paper: light unless asked otherwise.
    let light = use_state_eq(|| props.script);
    {
        let light = light.clone();
        use_effect_with(props.script, move |&script| light.set(script));
    }
    {
        let t = format!("হ্যান্ডআউট · {} · Redis Lab", deck.title);
        use_effect_with(t, |t| dom::document().set_title(t));
    }
    let toggle_light = {
        let light = light.clone();
        Callback::from(move |_: Event| light.set(!*light))
    };
    let print = Callback::from(|_: MouseEvent| {
        let _ = dom::window().print();
    });
    let len = deck.slides.len();
    html! {
        <div class={classes!("print-view", props.script.then_some("with-script"), (*light).then_some("print-light"))}>
            <header class="print-toolbar">
                <a class="brand" href="#/"><span class="brand-mark" aria-hidden="true">{"◆"}</span>{" Redis Lab"}</a>
                <span class="deck-name">{ deck.title.as_ref() }{" — হ্যান্ডআউট, "}{ bn::digits(len, 1) }{" পাতা"}</span>
                <a class="button" href={route::print_hash(&deck.id, !props.script)} aria-pressed={props.script.to_string()} role="button">
                    { if props.script { "✓ স্ক্রিপ্টসহ" } else { "স্ক্রিপ্টসহ" } }
                </a>
                <label class="print-theme"><input type="checkbox" checked={*light} onchange={toggle_light} />{" হালকা থিম (কালি বাঁচায়)"}</label>
                <button class="button primary" onclick={print}>{"প্রিন্ট / PDF"}</button>
                <a class="button" href={route::slide_hash(&deck.id, 0)}>{"← ডেকে ফিরুন"}</a>
            </header>
            <main class="print-pages">
                { for deck.slides.iter().enumerate().map(|(i, s)| html! {
                    <section class="print-page" aria-label={format!("স্লাইড {}", bn::counter(i, len))}>
                        <div class="print-fit"><div class="print-slide"><SlideView slide={s} /></div></div>
                        if props.script {
                            <p class="print-script"><span class="print-num">{ bn::counter(i, len) }</span>{" "}{ s.script.as_ref() }</p>
                        }
                    </section>
                }) }
            </main>
        </div>
    }
}
