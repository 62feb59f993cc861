//! A lab's typed definition: the pieces every lab declares once and everything else reads.
//!
//! * [`params!`](crate::params) — a lab's parameters, declared once: the struct, its field
//!   table (`FIELDS`: ranges, Bengali labels, the seed's defaults, which the form, links, deck
//!   lines and `labsim` check) and the typed read ([`LabParams`]). A choice is an enum made by
//!   [`choices!`](crate::choices) (its words in addresses, its Bengali labels in the form), so
//!   a lab and its view compare variants, never text.
//! * [`RunDef`] — one of a lab's runs, named by a type: its name in a [`Job`](super::lab::Job),
//!   its partial result and its output. The lab starts it with [`RunDef::erase`] and the view
//!   asks for it with the kit's `use_run::<R>`, so the compiler holds both to the same types.
//! * [`Steps`] — the output's steps, the one convention of every lab's scrubber: positions
//!   `0..=steps()`, 0 before the first step, `n` after the `n`-th, the last the whole run. The
//!   view's scrubber and practice's "show me" (`Show::at`) both count so.
//! * [`Figures`] — the numbers a lab's page shows for a finished run, by the `data-figure` key
//!   of their `stat`: the browser tests compare them with this, for every lab and preset.

use super::lab::{erase, AnyRun, Broken, Ready, Run};
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A lab's parameters as a typed struct, read from the checked field values
/// ([`super::params::Params::read`]). Made by [`params!`](crate::params).
pub trait LabParams: Sized {
    /// The struct from the field values, in the field table's order (each already checked).
    fn from_values(values: &[String]) -> Self;

    /// The rules between fields (a warm-up shorter than the run …): the field to put back and
    /// why, in Bengali.
    ///
    /// # Errors
    /// The first rule these values break.
    fn check(&self) -> Result<(), Broken> {
        Ok(())
    }
}

/// The rules of `P`, as a lab's [`super::lab::LabInfo::rules`] takes them.
///
/// # Errors
/// The first rule the values break.
pub fn rules_of<P: LabParams>(p: &super::params::Params) -> Result<(), Broken> {
    p.read::<P>().check()
}

/// A field's value from its checked text (a value the field table accepted).
pub trait FromField {
    /// The value of `text`.
    fn from_field(text: &str) -> Self;
}

macro_rules! from_parse {
    ($($t:ty),*) => {
        $(impl FromField for $t {
            fn from_field(text: &str) -> Self {
                text.parse().unwrap_or_default()
            }
        })*
    };
}
from_parse!(u8, u16, u32, u64, usize, i32, i64, f64);

impl FromField for String {
    fn from_field(text: &str) -> Self {
        text.to_string()
    }
}

/// A list field (`lru,arc,opt`): its words.
impl FromField for Vec<String> {
    fn from_field(text: &str) -> Self {
        text.split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }
}

/// A choice field's type: an enum made by [`choices!`](crate::choices).
pub trait Choice: Copy + 'static {
    /// The words, as addresses and `labsim` write them, in order.
    const WORDS: &'static [&'static str];
    /// The Bengali labels the form shows, in the same order.
    const LABELS: &'static [&'static str];
}

/// One of a lab's runs (see the module doc). Made by [`run_def!`](crate::run_def).
pub trait RunDef: 'static {
    /// Its name in a job (`Job::run`).
    const NAME: &'static str;
    /// A partial result (`()` when it has none).
    type Part: Serialize + DeserializeOwned + 'static;
    /// Its output.
    type Output: Serialize + DeserializeOwned + 'static;

    /// `run` as the simulation worker drives it: its parts and output are this run's types.
    fn erase<R: Run<Part = Self::Part, Output = Self::Output> + 'static>(
        run: R,
    ) -> Box<dyn AnyRun> {
        erase(run)
    }

    /// An output that is ready at once.
    fn ready(out: Self::Output) -> Box<dyn AnyRun>
    where
        Self: RunDef<Part = ()>,
    {
        erase(Ready::new(out))
    }
}

/// The steps of a run's output: its scrubber's positions are `0..=steps()` (see the module
/// doc). A view draws position `k` as the state after `k` steps.
pub trait Steps {
    /// How many steps the run has (its last position).
    fn steps(&self) -> usize;

    /// How many positions its scrubber has: the steps and the start.
    fn positions(&self) -> usize {
        self.steps() + 1
    }
}

/// A number a lab's page shows for a finished run: the key of its `stat` (`data-figure`) and
/// its value (`data-n`).
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Figure {
    /// The `stat`'s key.
    pub key: String,
    /// Its value.
    pub value: f64,
}

impl Figure {
    /// Figure `key` of `value`.
    pub fn new(key: &str, value: impl Into<f64>) -> Self {
        Figure {
            key: key.into(),
            value: value.into(),
        }
    }

    /// A count (the lossless conversion of a u64 that fits in an f64's 53 bits).
    pub fn count(key: &str, n: u64) -> Self {
        Figure::new(key, n as f64)
    }
}

/// The numbers a finished run's page shows (see [`Figure`]).
pub trait Figures {
    /// Every figure the lab's page shows at the run's end.
    fn figures(&self) -> Vec<Figure>;
}

/// Declares an enum for a choice field: each variant with its word (addresses, `labsim`, the
/// output's JSON) and its Bengali label (the form). Derives the usual traits and serde with the
/// words, `word()`, `from_word()`, `Display` (the word) and the field's [`FromField`].
///
/// ```
/// redislab_sim::choices! {
///     /// Whether the cache is on.
///     pub enum Cache { On = "on" / "চালু", Off = "off" / "বন্ধ" }
/// }
/// assert_eq!(Cache::On.word(), "on");
/// assert_eq!(Cache::from_word("off"), Some(Cache::Off));
/// ```
#[macro_export]
macro_rules! choices {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vmeta:meta])* $var:ident = $word:literal / $label:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, ::serde::Serialize, ::serde::Deserialize)]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $word)] $var, )+
        }

        impl $name {
            /// Every variant, in the field's order.
            pub const ALL: &'static [$name] = &[$($name::$var),+];

            /// Its word (addresses, `labsim`, JSON).
            pub const fn word(self) -> &'static str {
                match self { $($name::$var => $word,)+ }
            }

            /// Its Bengali label (the form).
            #[allow(dead_code)]
            pub const fn label(self) -> &'static str {
                match self { $($name::$var => $label,)+ }
            }

            /// The variant of `word`.
            pub fn from_word(word: &str) -> Option<Self> {
                match word { $($word => Some($name::$var),)+ _ => None }
            }
        }

        impl $crate::labs::def::Choice for $name {
            const WORDS: &'static [&'static str] = &[$($word),+];
            const LABELS: &'static [&'static str] = &[$($label),+];
        }

        impl $crate::labs::def::FromField for $name {
            fn from_field(text: &str) -> Self {
                Self::from_word(text).unwrap_or(Self::ALL[0])
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.pad(self.word())
            }
        }
    };
}

/// Declares a lab's parameters once: the struct, its field table `FIELDS` and its typed read
/// ([`LabParams`]); `rules = path;` after the struct names the rules between fields (a
/// `fn(&Self) -> Result<(), Broken>`). Each field is `name: Type = kind(…)`:
///
/// * `int(default, min..=max, "label")` — a whole number;
/// * `float(default, min..=max, "label")` — a number;
/// * `choice(Enum::Variant, "label")` — one of an enum made by [`choices!`](crate::choices);
/// * `many("a,b", WORDS, "label")` — a list of these words (`Vec<String>`);
/// * `ops("put A, get A", "label")` — an LRU operation list (`String`);
/// * `seed(default)` — the usual seed (`u32`).
///
/// Defaults are written as the address writes them (no `_` in numbers); the registry's tests
/// check each against its field.
#[macro_export]
macro_rules! params {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $fvis:vis $field:ident : $ty:ty = $kind:ident ( $($arg:tt)* )
            ),+ $(,)?
        }
        $(rules = $rules:path;)?
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$fmeta])* $fvis $field: $ty, )+
        }

        impl $name {
            /// The lab's fields, in order: one per member of the struct.
            pub const FIELDS: &'static [$crate::labs::params::Field] = &[
                $( $crate::__lab_field!(stringify!($field), $ty, $kind($($arg)*)), )+
            ];
        }

        impl $crate::labs::def::LabParams for $name {
            fn from_values(values: &[String]) -> Self {
                let mut it = values.iter().map(String::as_str);
                $name {
                    $( $field: $crate::labs::def::FromField::from_field(it.next().unwrap_or("")), )+
                }
            }
            $(
                fn check(&self) -> Result<(), $crate::labs::lab::Broken> {
                    $rules(self)
                }
            )?
        }
    };
}

/// One row of a [`params!`](crate::params) field table.
#[doc(hidden)]
#[macro_export]
macro_rules! __lab_field {
    ($key:expr, $ty:ty, int($d:literal, $min:literal ..= $max:expr, $label:expr)) => {
        $crate::labs::params::int($key, $label, $min, ($max) as i64, stringify!($d))
    };
    ($key:expr, $ty:ty, float($d:literal, $min:literal ..= $max:literal, $label:expr)) => {
        $crate::labs::params::float($key, $label, $min as f64, $max as f64, stringify!($d))
    };
    ($key:expr, $ty:ty, choice($d:expr, $label:expr)) => {
        $crate::labs::params::Field {
            key: $key,
            label: $label,
            kind: $crate::labs::params::Kind::Choice {
                words: <$ty as $crate::labs::def::Choice>::WORDS,
                labels: <$ty as $crate::labs::def::Choice>::LABELS,
            },
            default: <$ty>::word($d),
        }
    };
    ($key:expr, $ty:ty, many($d:literal, $words:expr, $label:expr)) => {
        $crate::labs::params::Field {
            key: $key,
            label: $label,
            kind: $crate::labs::params::Kind::Many($words),
            default: $d,
        }
    };
    ($key:expr, $ty:ty, ops($d:literal, $label:expr)) => {
        $crate::labs::params::Field {
            key: $key,
            label: $label,
            kind: $crate::labs::params::Kind::Ops,
            default: $d,
        }
    };
    ($key:expr, $ty:ty, seed($d:literal)) => {
        $crate::labs::params::seed(stringify!($d))
    };
}

/// Declares one of a lab's runs ([`RunDef`]): `pub struct AuthRun = "run", () => AuthOutput;`.
#[macro_export]
macro_rules! run_def {
    ($(#[$meta:meta])* $vis:vis struct $name:ident = $word:literal, $part:ty => $out:ty;) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug)]
        $vis struct $name;

        impl $crate::labs::def::RunDef for $name {
            const NAME: &'static str = $word;
            type Part = $part;
            type Output = $out;
        }
    };
}

/// The methods every lab's [`Lab`](crate::labs::lab::Lab) impl has alike, written inside it:
/// `crate::lab_basics!();` — what the lab is (the module's `INFO`) and its practice kinds
/// (`practice::KINDS`).
#[macro_export]
macro_rules! lab_basics {
    () => {
        fn info(&self) -> &'static $crate::labs::lab::LabInfo {
            &INFO
        }

        fn questions(&self) -> &'static [$crate::practice::QuestionKind] {
            practice::KINDS
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::lab::{no_rules, LabInfo};
    use crate::labs::params::{check, Kind, Params};

    crate::choices! {
        /// A test choice.
        pub enum Colour { Red = "red" / "লাল", DarkBlue = "dark-blue" / "গাঢ় নীল" }
    }

    fn small(p: &Demo) -> Result<(), Broken> {
        if u64::from(p.n) > p.m {
            return Err(("n", "n ≤ m".into()));
        }
        Ok(())
    }

    crate::params! {
        /// A test lab's parameters.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Demo {
            /// A count.
            pub n: u32 = int(3, 1..=10, "n"),
            /// Another.
            pub m: u64 = int(5, 1..=100, "m"),
            /// A ratio.
            pub alpha: f64 = float(0.9, 0..=3, "alpha"),
            /// A colour.
            pub colour: Colour = choice(Colour::DarkBlue, "রং"),
            /// Policies.
            pub policies: Vec<String> = many("lru,fifo", &["lru", "fifo", "opt"], "policies"),
            /// Operations.
            pub ops: String = ops("put A, get A", "ops"),
            /// The seed.
            pub seed: u32 = seed(7),
        }
        rules = small;
    }

    const INFO: LabInfo = LabInfo {
        id: "demo",
        title: "ডেমো",
        blurb: "ডেমো",
        fields: Demo::FIELDS,
        presets: &[],
        rules: rules_of::<Demo>,
        runs: &["run"],
        live: false,
    };

    #[test]
    fn a_declaration_gives_the_table_and_the_typed_read() {
        let keys: Vec<&str> = Demo::FIELDS.iter().map(|f| f.key).collect();
        assert_eq!(
            keys,
            ["n", "m", "alpha", "colour", "policies", "ops", "seed"]
        );
        for f in Demo::FIELDS {
            assert_eq!(check(f, f.default).as_deref(), Ok(f.default), "{}", f.key);
        }
        assert_eq!(
            Demo::FIELDS[3].kind,
            Kind::Choice {
                words: &["red", "dark-blue"],
                labels: &["লাল", "গাঢ় নীল"]
            }
        );
        let d: Demo = Params::defaults(&INFO).read();
        assert_eq!(
            d,
            Demo {
                n: 3,
                m: 5,
                alpha: 0.9,
                colour: Colour::DarkBlue,
                policies: vec!["lru".into(), "fifo".into()],
                ops: "put A, get A".into(),
                seed: 7
            }
        );
        let (p, errs) = Params::from_query(&INFO, "colour=red&n=9&m=10&seed=4294967295");
        assert!(errs.is_empty(), "{errs:?}");
        let t: Demo = p.read();
        assert_eq!((t.colour, t.n, t.m, t.seed), (Colour::Red, 9, 10, u32::MAX));
        // The rule between fields, typed: n beyond m puts n back.
        let (p, errs) = Params::from_query(&INFO, "n=9");
        assert_eq!(errs.len(), 1);
        assert_eq!(p.read::<Demo>().n, 3);
        assert_eq!(
            serde_json::to_string(&Colour::DarkBlue).unwrap(),
            "\"dark-blue\""
        );
        assert_eq!(Colour::from_word("green"), None);
        assert_eq!(Colour::Red.to_string(), "red");
        let _ = no_rules;
    }
}
