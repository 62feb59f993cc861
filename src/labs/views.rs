//! Every lab's view, by id: what the labs module (`src/bin/labs.rs`) draws into a
//! [`super::host::LabHost`]. Only that module names this function, so the views stay out of
//! the app's first load. The dispatch is made from the simulator's one list of labs
//! (`redislab_sim::for_each_lab`): each lab's view module, named by its id, exports `View`.

use super::kit::LabProps;
use yew::prelude::*;

macro_rules! dispatch {
    ($($lab:ident),*) => {
        /// The view of lab `id`, or `None` for an id no lab has.
        pub fn view(id: &str, p: LabProps) -> Option<Html> {
            Some(match id {
                $(stringify!($lab) => html! { <super::$lab::View ..p /> },)*
                // Not a lab, but drawn the same way, so it stays out of the first load too.
                "console" => html! { <crate::live::console::ConsoleView /> },
                "practice" => html! { <crate::practice::PracticeView query={p.query} /> },
                "quiz" => html! { <crate::practice::QuizView query={p.query} /> },
                "class" => html! { <crate::class::teach::Teach query={p.query} /> },
                "join" => html! { <crate::class::student::Join query={p.query} /> },
                _ => return None,
            })
        }
    };
}
redislab_sim::for_each_lab!(dispatch);

#[cfg(test)]
mod tests {
    use super::*;

    /// The home page's table, the deck parser's list and the views name the same labs.
    #[test]
    fn every_listed_lab_has_a_view_and_nothing_else_does() {
        let listed: Vec<&str> = super::super::LABS.iter().map(|l| l.id).collect();
        assert_eq!(listed, redislab_deck::parse::LABS);
        assert_eq!(listed, redislab_sim::labs::registry::IDS);
        for id in &listed {
            assert!(
                view(id, LabProps::default()).is_some(),
                "lab `{id}` has no view"
            );
        }
        assert!(view("no-such-lab", LabProps::default()).is_none());
    }
}
