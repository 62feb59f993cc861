//! Named sets of parameter values ("presets") that a lab offers as buttons and a deck names
//! in its embeds (`:::lab lock preset=token`), shared by the labs that have them.

use super::params::Params;

/// A named set of values for some fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preset {
    /// Id (`labsim <lab> --preset <id>`, `preset=<id>` in a query).
    pub id: &'static str,
    /// Button text, in Bengali.
    pub label: &'static str,
    /// What it shows, in Bengali.
    pub about: &'static str,
    /// The values it sets.
    pub pairs: &'static [(&'static str, &'static str)],
}

/// The preset with this id.
pub fn find(presets: &'static [Preset], id: &str) -> Option<&'static Preset> {
    presets.iter().find(|p| p.id == id.trim())
}

/// Expands `preset=<id>` in a query (`&` or space separated) into the preset's pairs, placed
/// first so the query's other pairs override them. An unknown preset is left as it is (the
/// parameter check then reports it).
pub fn expand(presets: &'static [Preset], query: &str) -> String {
    let mut head = Vec::new();
    let mut rest = Vec::new();
    for pair in query.split(['&', ' ']).filter(|s| !s.is_empty()) {
        match pair.split_once('=') {
            Some(("preset", v)) if find(presets, v).is_some() => head.extend(
                find(presets, v)
                    .into_iter()
                    .flat_map(|p| p.pairs.iter().map(|(k, v)| format!("{k}={v}"))),
            ),
            _ => rest.push(pair.to_string()),
        }
    }
    head.extend(rest);
    head.join("&")
}

/// The first preset whose values `p` has, if any.
pub fn of(presets: &'static [Preset], p: &Params) -> Option<&'static Preset> {
    presets
        .iter()
        .find(|pr| pr.pairs.iter().all(|(k, v)| p.get(k) == *v))
}
