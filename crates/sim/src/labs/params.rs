//! Lab parameters as the app's labs take them: named fields with ranges and the seeds'
//! defaults, read from and written to a URL query (`alpha=0.9&cache=300&seed=7`). A bad value
//! gets a message for a person (in Bengali) and leaves the last good value in place.

use super::lab::{Broken, LabInfo};

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// A number in `min..=max`.
    Float {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
    /// One of these words; the form shows each by its label (the word itself where
    /// `labels` is empty).
    Choice {
        /// The words, as addresses write them.
        words: &'static [&'static str],
        /// Their Bengali labels, in the same order (empty: the words).
        labels: &'static [&'static str],
    },
    /// A comma-separated list of these words (at least one, no repeats).
    Many(&'static [&'static str]),
    /// An LRU-lab operation list (`put A, get B`).
    Ops,
}

/// One field of a lab's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field {
    /// Query key.
    pub key: &'static str,
    /// Label shown beside the input.
    pub label: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// The seed's value.
    pub default: &'static str,
}

/// A whole-number field.
pub const fn int(
    key: &'static str,
    label: &'static str,
    min: i64,
    max: i64,
    default: &'static str,
) -> Field {
    Field {
        key,
        label,
        kind: Kind::Int { min, max },
        default,
    }
}
/// A number field.
pub const fn float(
    key: &'static str,
    label: &'static str,
    min: f64,
    max: f64,
    default: &'static str,
) -> Field {
    Field {
        key,
        label,
        kind: Kind::Float { min, max },
        default,
    }
}

/// A field that is one of `words`.
pub const fn choice(
    key: &'static str,
    label: &'static str,
    words: &'static [&'static str],
    default: &'static str,
) -> Field {
    Field {
        key,
        label,
        kind: Kind::Choice { words, labels: &[] },
        default,
    }
}

crate::choices! {
    /// A switch field: on or off.
    pub enum Switch {
        /// On.
        On = "on" / "চালু",
        /// Off.
        Off = "off" / "বন্ধ",
    }
}

/// The usual seed field.
pub const fn seed(default: &'static str) -> Field {
    int("seed", "seed", 0, u32::MAX as i64, default)
}

/// A rejected value: which field, and why (for a person).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// The field's key (or the unknown key).
    pub key: String,
    /// What is wrong and what would be right.
    pub message: String,
}

/// Checks `value` for `field`; returns it normalised (trimmed, lists without spaces).
///
/// # Errors
/// A message in Bengali saying what is allowed.
pub fn check(field: &Field, value: &str) -> Result<String, String> {
    let v = value.trim();
    match field.kind {
        Kind::Int { min, max } => match v.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n.to_string()),
            _ => Err(format!("{min} থেকে {max}-এর মধ্যে একটা পূর্ণসংখ্যা দিন")),
        },
        Kind::Float { min, max } => match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x >= min && x <= max => Ok(v.to_string()),
            _ => Err(format!("{min} থেকে {max}-এর মধ্যে একটা সংখ্যা দিন")),
        },
        Kind::Choice { words, .. } => {
            let w = v.to_ascii_lowercase();
            if words.contains(&w.as_str()) {
                Ok(w)
            } else {
                Err(format!("এগুলোর একটা: {}", words.join(", ")))
            }
        }
        Kind::Many(words) => {
            let list: Vec<String> = v
                .split(',')
                .map(|s| s.trim().to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect();
            if list.is_empty() {
                return Err("অন্তত একটা policy দিন".into());
            }
            if let Some(bad) = list.iter().find(|w| !words.contains(&w.as_str())) {
                return Err(format!(
                    "`{}` চেনা নেই; এগুলো থেকে: {}",
                    short(bad),
                    words.join(", ")
                ));
            }
            if let Some(dup) = list
                .iter()
                .enumerate()
                .find(|(i, w)| list[..*i].contains(w))
            {
                return Err(format!("`{}` দুবার দেওয়া হয়েছে", dup.1));
            }
            if list.len() > 8 {
                return Err("একসাথে সর্বোচ্চ ৮টা policy".into());
            }
            Ok(list.join(","))
        }
        Kind::Ops => {
            let ops = crate::eviction::lru_trace::parse_ops(v)
                .map_err(|e| format!("অপারেশন পড়া গেল না: {e}"))?;
            if ops.is_empty() || ops.len() > 40 {
                return Err("১ থেকে ৪০টা অপারেশন দিন, যেমন `put A, get A`".into());
            }
            Ok(v.split(',').map(str::trim).collect::<Vec<_>>().join(", "))
        }
    }
}

fn short(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(24).collect()
}

/// A lab's parameter values (always valid).
#[derive(Clone)]
pub struct Params {
    lab: &'static LabInfo,
    values: Vec<String>,
}

impl PartialEq for Params {
    fn eq(&self, o: &Self) -> bool {
        self.lab.id == o.lab.id && self.values == o.values
    }
}

impl std::fmt::Debug for Params {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Params({}: {})", self.lab.id, self.to_query())
    }
}

impl Params {
    /// The seed's defaults.
    pub fn defaults(lab: &'static LabInfo) -> Self {
        Params {
            lab,
            values: lab.fields.iter().map(|f| f.default.to_string()).collect(),
        }
    }

    /// The lab these are the parameters of.
    pub fn lab(&self) -> &'static LabInfo {
        self.lab
    }

    /// The fields.
    pub fn fields(&self) -> &'static [Field] {
        self.lab.fields
    }

    /// Reads `a=1&b=2` (also `a=1 b=2`, as deck presets write it) over the defaults;
    /// `preset=<id>` stands for that preset's values, which the other pairs override. Bad
    /// values and unknown keys are reported and leave the default in place.
    pub fn from_query(lab: &'static LabInfo, query: &str) -> (Self, Vec<FieldError>) {
        Params::from_pairs(
            lab,
            redislab_address::pairs(query)
                .map(|(k, v)| (k.to_string(), redislab_address::decode(v))),
        )
    }

    /// Sets `(key, value)` pairs over the defaults, each checked on its own, then the rules
    /// between fields once (so `requests=6000&warmup=1000` is as good as the other order).
    /// A `preset` pair stands for the preset's values, set before every other pair. Bad values
    /// and unknown keys are reported and leave the default in place.
    pub fn from_pairs(
        lab: &'static LabInfo,
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> (Self, Vec<FieldError>) {
        let mut p = Params::defaults(lab);
        let mut errors = Vec::new();
        let (presets, pairs): (Vec<_>, Vec<_>) = pairs
            .into_iter()
            .partition(|(k, _)| k == "preset" && !lab.presets.is_empty());
        let expanded = presets.into_iter().flat_map(|(_, id)| {
            match lab.presets.iter().find(|pr| pr.id == id.trim()) {
                Some(pr) => pr
                    .pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                None => {
                    let ids: Vec<&str> = lab.presets.iter().map(|p| p.id).collect();
                    errors.push(FieldError {
                        key: "preset".into(),
                        message: format!(
                            "`{}` নামে কোনো প্রিসেট নেই; আছে: {}",
                            short(&id),
                            ids.join(", ")
                        ),
                    });
                    Vec::new()
                }
            }
        });
        let all: Vec<(String, String)> = expanded
            .collect::<Vec<_>>()
            .into_iter()
            .chain(pairs)
            .collect();
        for (k, v) in all {
            let checked = match p.index(&k) {
                None => Err(format!("`{}` নামে কোনো প্যারামিটার নেই", short(&k))),
                Some(i) => check(&lab.fields[i], &v).map(|v| p.values[i] = v),
            };
            if let Err(message) = checked {
                errors.push(FieldError {
                    key: short(&k),
                    message,
                });
            }
        }
        // Each broken rule puts its field back to the default (which keeps every rule).
        while let Err((key, message)) = (lab.rules)(&p) {
            let d = Params::defaults(lab);
            let i = p.index(key).expect("a rule names a known key");
            if p.values[i] == d.values[i] {
                return (d, errors);
            }
            p.values[i] = d.values[i].clone();
            errors.push(FieldError {
                key: key.into(),
                message,
            });
        }
        (p, errors)
    }

    /// The defaults plus `preset`'s values (a preset in a query or on the command line).
    pub fn with_preset(lab: &'static LabInfo, preset: &str) -> Option<Self> {
        let pr = lab.presets.iter().find(|p| p.id == preset)?;
        let pairs = pr.pairs.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        Some(Params::from_pairs(lab, pairs).0)
    }

    /// What a preset's button gives, in every lab: the defaults plus the preset's values, with
    /// this seed kept unless the preset sets one (a preset is a scenario; the seed says which
    /// run of it).
    pub fn choose_preset(&self, preset: &str) -> Option<Self> {
        let mut p = Params::with_preset(self.lab, preset)?;
        let sets_seed = self
            .lab
            .presets
            .iter()
            .any(|pr| pr.id == preset && pr.pairs.iter().any(|(k, _)| *k == "seed"));
        if !sets_seed && self.index("seed").is_some() {
            // The same field, a value it already held: always valid.
            let _ = p.set("seed", self.get("seed"));
        }
        Some(p)
    }

    /// The preset these values are (its button shows pressed): its values with this seed.
    pub fn preset(&self) -> Option<&'static super::preset::Preset> {
        self.lab
            .presets
            .iter()
            .find(|pr| self.choose_preset(pr.id).as_ref() == Some(self))
    }

    fn index(&self, key: &str) -> Option<usize> {
        self.lab.fields.iter().position(|f| f.key == key)
    }

    /// Sets one field after checking it, and the rules between fields.
    ///
    /// # Errors
    /// The message for the field; the value is left unchanged.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let Some(i) = self.index(key) else {
            return Err(format!("`{}` নামে কোনো প্যারামিটার নেই", short(key)));
        };
        let v = check(&self.lab.fields[i], value)?;
        let old = std::mem::replace(&mut self.values[i], v);
        if let Err((_, message)) = (self.lab.rules)(self) {
            self.values[i] = old;
            return Err(message);
        }
        Ok(())
    }

    /// A field's value as text.
    pub fn get(&self, key: &str) -> &str {
        self.index(key).map_or("", |i| self.values[i].as_str())
    }

    /// A whole-number field's value (0 if the key is not a whole-number field).
    pub fn int(&self, key: &str) -> i64 {
        self.get(key).parse().unwrap_or(0)
    }

    /// The values as the lab's parameter struct declared with [`crate::params!`].
    pub fn read<P: super::def::LabParams>(&self) -> P {
        P::from_values(&self.values)
    }

    /// The query that reproduces these values (`alpha=0.9&cache=300&…`).
    pub fn to_query(&self) -> String {
        redislab_address::join(
            self.lab
                .fields
                .iter()
                .zip(&self.values)
                .map(|(f, v)| (f.key, redislab_address::encode(v))),
        )
    }
}

/// The broken rule as [`Broken`], for a lab's rules.
pub fn broken(key: &'static str, message: impl Into<String>) -> Broken {
    (key, message.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eviction::POLICIES;
    use crate::labs::eviction::{EvictionParams, POLICY_NAMES};
    use crate::labs::jitter::JitterParams;
    use crate::labs::lru::LruParams;
    use crate::labs::registry::INFOS;
    use crate::labs::sampling::SamplingParams;
    use crate::labs::stampede::StampedeParams;

    const EVICTION: &LabInfo = &crate::labs::eviction::INFO;
    const LRU: &LabInfo = &crate::labs::lru::INFO;
    const JITTER: &LabInfo = &crate::labs::jitter::INFO;
    const STAMPEDE: &LabInfo = &crate::labs::stampede::INFO;
    const SAMPLING: &LabInfo = &crate::labs::sampling::INFO;

    #[test]
    fn default_eviction_parameters_are_the_seed_table() {
        let c = Params::defaults(EVICTION).read::<EvictionParams>().config();
        let t = crate::eviction_table(&c).unwrap().to_text();
        assert!(t.contains("LRU          39.1%     31.9%     39.0%"), "{t}");
        assert_eq!(
            t,
            crate::eviction_table(&crate::EvictionConfig::default())
                .unwrap()
                .to_text()
        );
    }

    #[test]
    fn default_jitter_and_stampede_parameters_are_the_seeds() {
        let p: JitterParams = Params::defaults(JITTER).read();
        assert_eq!(p.config(), super::super::jitter::JitterConfig::default());
        let c = p.case();
        assert_eq!((c.jitter, c.round), (0.1, 1));
        let s: StampedeParams = Params::defaults(STAMPEDE).read();
        assert_eq!(
            super::super::stampede::StampedeConfig {
                bucket: 0.1,
                ..s.config()
            },
            super::super::stampede::StampedeConfig::default()
        );
    }

    #[test]
    fn defaults_are_the_seeds() {
        let p: EvictionParams = Params::defaults(EVICTION).read();
        assert_eq!((p.alpha, p.cache, p.seed), (0.9, 300, 7));
        assert_eq!(p.policies, ["fifo", "random", "lru", "lfu", "opt"]);
        assert_eq!(p.kind(), crate::TraceKind::Zipf);
        assert_eq!(
            Params::defaults(JITTER).read::<JitterParams>().keys,
            100_000
        );
        assert_eq!(
            Params::defaults(STAMPEDE).read::<StampedeParams>().delta,
            0.05
        );
        assert_eq!(Params::defaults(LRU).read::<LruParams>().capacity, 3);
        let s: SamplingParams = Params::defaults(SAMPLING).read();
        assert_eq!((s.keys, s.kmax, s.trials, s.seed), (1000, 16, 2000, 1));
    }

    #[test]
    fn query_round_trip() {
        let (p, errs) = Params::from_query(
            EVICTION,
            "alpha=1.1&cache=500&policies=lru,arc,opt&trace=scan",
        );
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(p.read::<EvictionParams>().alpha, 1.1);
        let (q, errs) = Params::from_query(EVICTION, &p.to_query());
        assert!(errs.is_empty());
        assert_eq!(p, q);
        let (l, errs) = Params::from_query(LRU, "ops=get+A%2C+put+B&capacity=2");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(l.get("ops"), "get A, put B");
        assert_eq!(Params::from_query(LRU, &l.to_query()).0, l);
        // The order of the pairs does not matter for the rules between fields.
        let (a, e1) = Params::from_query(EVICTION, "requests=6000&warmup=1000");
        let (b, e2) = Params::from_query(EVICTION, "warmup=1000&requests=6000");
        assert!(e1.is_empty() && e2.is_empty(), "{e1:?} {e2:?}");
        assert_eq!(a, b);
        // Deck presets write pairs separated by spaces.
        let (d, errs) =
            Params::from_query(EVICTION, "trace=scan policies=lru,slru,arc,w-tinylfu,opt");
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(d.get("trace"), "scan");
    }

    #[test]
    fn bad_values_are_reported_and_change_nothing() {
        for (q, key) in [
            ("alpha=abc", "alpha"),
            ("alpha=-1", "alpha"),
            ("alpha=NaN", "alpha"),
            ("alpha=inf", "alpha"),
            ("cache=0", "cache"),
            ("cache=1.5", "cache"),
            ("seed=-3", "seed"),
            ("seed=99999999999", "seed"),
            ("policies=lru,nope", "policies"),
            ("policies=lru,lru", "policies"),
            ("policies=", "policies"),
            ("trace=zigzag", "trace"),
            ("colour=red", "colour"),
            ("warmup=60000", "warmup"),
            ("cache=20000", "cache"),
            ("%ZZ=1", "%ZZ"),
        ] {
            let (p, errs) = Params::from_query(EVICTION, q);
            assert_eq!(errs.len(), 1, "{q}: {errs:?}");
            assert_eq!(errs[0].key, key, "{q}");
            assert!(!errs[0].message.is_empty());
            assert_eq!(p, Params::defaults(EVICTION), "{q} changed a value");
        }
        // Two rules broken at once: both fields back to the seed's values.
        let (p, errs) = Params::from_query(EVICTION, "warmup=70000&cache=20000");
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(p, Params::defaults(EVICTION));
        let mut p = Params::defaults(LRU);
        assert!(p.set("ops", "fly A").is_err());
        assert!(p.set("capacity", "13").is_err());
        assert_eq!(p, Params::defaults(LRU));
        assert!(p.set("capacity", " 5 ").is_ok());
        assert_eq!(p.read::<LruParams>().capacity, 5);
    }

    /// Every field of every lab refuses every malformed and out-of-range value with a
    /// message in Bengali, and the last good values (typed ones too) stay as they were.
    #[test]
    fn every_bad_value_of_every_lab_gets_a_bengali_message_and_changes_nothing() {
        let bengali = |m: &str| m.chars().any(|c| ('\u{0980}'..='\u{09FF}').contains(&c));
        for &info in INFOS {
            let lab = info.id;
            let good = Params::defaults(info);
            for f in info.fields {
                let mut bad: Vec<String> = vec!["".into(), "abc".into(), "\u{0}".into()];
                match f.kind {
                    Kind::Int { min, max } => bad.extend([
                        (min - 1).to_string(),
                        (max + 1).to_string(),
                        "1.5".into(),
                        "1e3".into(),
                        "99999999999999999999".into(),
                    ]),
                    Kind::Float { min, max } => bad.extend([
                        (min - 1.0).to_string(),
                        (max * 2.0 + 1.0).to_string(),
                        "NaN".into(),
                        "inf".into(),
                        "-inf".into(),
                        "1e999".into(),
                    ]),
                    Kind::Choice { .. } => bad.extend(["nope".into(), "lru,fifo".into()]),
                    Kind::Many(_) => bad.extend([
                        "lru,lru".into(),
                        "lru,nope".into(),
                        ",,".into(),
                        "fifo,random,lru,lfu,opt,clock,sieve,arc,2q".into(),
                    ]),
                    Kind::Ops => bad.extend(["fly A".into(), "get".into(), "put A B".into()]),
                }
                for v in &bad {
                    let mut p = good.clone();
                    let m = p
                        .set(f.key, v)
                        .expect_err(&format!("{lab}.{} accepted {v:?}", f.key));
                    assert!(bengali(&m), "{lab}.{} {v:?}: {m}", f.key);
                    assert_eq!(p, good, "{lab}.{} {v:?} changed a value", f.key);
                    assert_eq!(p.to_query(), good.to_query(), "{lab}.{} {v:?}", f.key);
                }
            }
        }
    }

    #[test]
    fn every_lab_has_fields_with_valid_defaults() {
        for &info in INFOS {
            let lab = info.id;
            for field in info.fields {
                assert_eq!(
                    check(field, field.default).as_deref(),
                    Ok(field.default),
                    "{lab}.{}",
                    field.key
                );
            }
        }
        assert!(crate::labs::registry::info("nope").is_none());
        for name in POLICY_NAMES {
            assert!(
                POLICIES
                    .iter()
                    .any(|p| p.name == *name || p.aliases.contains(name)),
                "{name} is not in the registry"
            );
        }
    }
}
