//! Named sets of parameter values ("presets") that a lab offers as buttons and a deck names
//! in its embeds (`:::lab lock preset=token`). One rule for every lab: a preset is the lab's
//! defaults plus its pairs ([`super::params::Params::with_preset`]); in a query,
//! `preset=<id>` stands for those values and the query's other pairs override them.

/// A named set of values for some fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Id (`labsim <lab> --preset <id>`, `preset=<id>` in a query).
    pub id: &'static str,
    /// Button text, in Bengali.
    pub label: &'static str,
    /// What it shows, in Bengali.
    pub about: &'static str,
    /// The values it sets (over the defaults).
    pub pairs: &'static [(&'static str, &'static str)],
}
