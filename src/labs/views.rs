//! Every lab's view, by id: what the labs module (`src/bin/labs.rs`) draws into a
//! [`super::host::LabHost`]. Only that module names this function, so the views stay out of
//! the app's first load. A lab's row in [`super::LABS`] and its arm here go together (a test
//! checks every listed lab has a view).

use super::kit::LabProps;
use super::{broadcast, cache, eviction, jitter, lock, lru, sampling, stampede, streams};
use yew::prelude::*;

/// The view of lab `id`, or `None` for an id no lab has.
pub fn view(id: &str, p: LabProps) -> Option<Html> {
    Some(match id {
        "lru" => html! { <lru::LruLab ..p /> },
        "eviction" => html! { <eviction::EvictionLab ..p /> },
        "sampling" => html! { <sampling::SamplingLab ..p /> },
        "jitter" => html! { <jitter::JitterLab ..p /> },
        "stampede" => html! { <stampede::StampedeLab ..p /> },
        "cache" => html! { <cache::CacheLab ..p /> },
        "lock" => html! { <lock::LockLab ..p /> },
        "streams" => html! { <streams::StreamsLab ..p /> },
        "broadcast" => html! { <broadcast::BroadcastLab ..p /> },
        // Not a lab, but drawn the same way, so it stays out of the first load too.
        "console" => html! { <crate::live::console::ConsoleView /> },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The home page's table, the deck parser's list and the views name the same labs.
    #[test]
    fn every_listed_lab_has_a_view_and_nothing_else_does() {
        let listed: Vec<&str> = super::super::LABS.iter().map(|l| l.id).collect();
        assert_eq!(listed, redislab_deck::parse::LABS);
        for id in &listed {
            assert!(
                view(id, LabProps::default()).is_some(),
                "lab `{id}` has no view"
            );
        }
        assert!(view("no-such-lab", LabProps::default()).is_none());
    }
}
