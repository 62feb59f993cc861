//! What the speaker window asks of the class (a [`Cue`]): give the class a practice set, ask
//! any practice kind now, reveal the open question. The speaker window is another tab of the
//! same instructor; it says these over a BroadcastChannel to the player, whose class panel
//! holds the class' socket and does them (`docs/class-mode.md`). Plain data and serde, so the
//! page that sends and the page that hears read one type.

use super::SetSpec;
use crate::practice::set::{Spec, MAX_N};
use serde::{Deserialize, Serialize};

/// A request from the speaker window to the player's class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum Cue {
    /// Give the class this practice set (every phone answers it, the results come in).
    Give {
        /// The set.
        set: SetSpec,
    },
    /// Ask this practice kind on every phone now, like a `:::quiz` slide.
    Ask {
        /// The lab.
        topic: String,
        /// Its kind of question.
        kind: String,
        /// The seed.
        seed: u32,
    },
    /// Reveal the open question's answer (as R on the stage does).
    Reveal,
}

impl Cue {
    /// As the channel carries it.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).expect("cues serialize")
    }

    /// Reads a channel message (`None`: not a cue, e.g. the class' count going the other way).
    pub fn parse(text: &str) -> Option<Cue> {
        serde_json::from_str(text).ok()
    }
}

impl SetSpec {
    /// A set as the speaker's form gives it: the labs ticked (all of them: empty), the count
    /// kept within 1..=[`MAX_N`], the seed.
    pub fn new(labs: Vec<String>, n: u32, seed: u32, every: usize) -> SetSpec {
        SetSpec {
            labs: if labs.len() >= every {
                Vec::new()
            } else {
                labs
            },
            n: n.clamp(1, MAX_N),
            seed,
        }
    }

    /// The practice page's set of the same questions (the phones answer it with the practice
    /// page's own question flow).
    pub fn practice(&self) -> Spec {
        Spec {
            labs: self.labs.clone(),
            seed: Some(self.seed),
            n: self.n,
        }
    }
}
