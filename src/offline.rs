//! The app offline, installed and honest about the network.
//!
//! - The page's side of the service worker is `static/offline.js`, loaded once the app has
//!   started (by the page's own script, `redislab_deck::shell`): once the page is idle after
//!   the first slide it registers `sw.js` (written per release by `redislab_deck::release` from
//!   `static/sw.js`), has the release kept on the device, and offers
//!   "নতুন সংস্করণ — রিলোড" when a new one is waiting; and it keeps the slide the student is
//!   on, where an app opened from the home screen starts (the page's first script,
//!   `redislab_deck::shell`). That part is JavaScript fetched after the first slide because
//!   in the app's wasm and glue it weighed 7.7 KB gzip of a first load already at its 200 KB
//!   budget.
//! - [`use_online`] and [`NeedsNetwork`], for every part that needs the network (the labs'
//!   "আসল Redis" switch, the console, class mode): whether the browser says it is online, and
//!   the one plain sentence that says the part needs the network while the rest works.

use crate::dom::{self, Listener};
use yew::prelude::*;

/// Whether the browser says it is online (`navigator.onLine`), kept up to date by its
/// `online` and `offline` events. Every part that needs the network asks this.
#[hook]
pub fn use_online() -> bool {
    let online = use_state_eq(|| dom::window().navigator().on_line());
    {
        let online = online.clone();
        use_effect_with((), move |_| {
            let w = dom::window();
            let (a, b) = (online.clone(), online);
            let up = Listener::new(&w, "online", move |_| a.set(true));
            let down = Listener::new(&w, "offline", move |_| b.set(false));
            move || drop((up, down))
        });
    }
    *online
}

/// Props of [`NeedsNetwork`].
#[derive(Properties, PartialEq)]
pub struct NeedsNetworkProps {
    /// The part that needs the network, as the sentence's subject ("আসল Redis", "কনসোল").
    pub what: AttrValue,
}

/// The plain sentence for a part that needs the network while there is none: what needs it,
/// and that the rest of the app works on.
#[component]
pub fn NeedsNetwork(props: &NeedsNetworkProps) -> Html {
    html! {
        <p class="needs-network" role="status" data-testid="needs-network">
            <strong>{"নেটওয়ার্ক নেই। "}</strong>
            { format!("{} নেটওয়ার্ক ছাড়া চলে না; সংযোগ ফিরলে আবার চলবে। ডেক, স্লাইড, ল্যাবের সিমুলেশন আর অনুশীলন এই ডিভাইসেই চলছে।", props.what) }
        </p>
    }
}
