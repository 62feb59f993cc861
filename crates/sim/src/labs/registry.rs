//! The one list of labs. Everything that needs "every lab" reads it: the deck parser's check
//! of `:::lab <id>`, the simulation worker's dispatch, `labsim`'s commands and help, the
//! app's table of labs and the views' dispatch, the tests.
//!
//! One line per lab, in the home page's order: the lab's module, whose name is its id. The
//! line makes several views of the same list, so each binary links only what it uses:
//! [`IDS`] and [`CARDS`] (the app's first load: addresses and the home page), [`INFOS`],
//! what each lab is (the labs' views: fields, presets, no simulation code), [`TOPICS`]
//! (practice's topics and kinds, without the code that makes the questions), and [`LABS`],
//! how each runs (the simulation worker and `labsim`). A lab module exports
//! `const INFO: LabInfo` and `LAB`, a unit struct implementing [`Lab`].

use super::def::Figure;
use super::lab::{figures_of, Json, Lab, LabInfo};

/// A lab as the home page lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Card {
    /// Id.
    pub id: &'static str,
    /// Title, in Bengali.
    pub title: &'static str,
    /// One line on what a student sees, in Bengali.
    pub blurb: &'static str,
}

macro_rules! registry {
    ($($lab:ident),* $(,)?) => {
        /// Every lab's id (its module's name), in the home page's order.
        pub const IDS: &[&str] = &[$(stringify!($lab)),*];
        /// Every lab's card, in the same order.
        pub const CARDS: &[Card] = &[$(Card {
            id: super::$lab::INFO.id,
            title: super::$lab::INFO.title,
            blurb: super::$lab::INFO.blurb,
        }),*];
        /// What every lab is, in the same order.
        pub static INFOS: &[&LabInfo] = &[$(&super::$lab::INFO),*];
        /// Every lab's practice topic, its kinds without their simulation (the practice
        /// page's and class mode's light view), in the same order.
        pub const TOPICS: &[crate::practice::Topic] = &[$(crate::practice::Topic {
            id: super::$lab::INFO.id,
            title: super::$lab::INFO.title,
            kinds: &crate::practice::light::<{ super::$lab::practice::KINDS.len() }>(
                super::$lab::practice::KINDS,
            ),
        }),*];
        /// How every lab runs, in the same order as [`INFOS`].
        pub static LABS: &[&dyn Lab] = &[$(&super::$lab::LAB),*];

        /// The figures the page of lab `id` shows for `out`, its main run's output as the
        /// simulation worker sends it ([`super::def::Figures`]); `None` for an id no lab has.
        /// Read natively, by the browser tests: as a method of [`Lab`] it was in every lab's
        /// vtable, which linked a JSON reader for every lab's output into the simulation
        /// worker (216 KB of its gzip) for nothing.
        ///
        /// # Errors
        /// When `out` is not the main run's output.
        pub fn figures(id: &str, out: &Json) -> Option<Result<Vec<Figure>, String>> {
            match id {
                $(stringify!($lab) => Some(figures_of::<super::$lab::MainRun>(out)),)*
                _ => None,
            }
        }
    };
}

/// Calls macro `$m` with every lab's id, in the home page's order: the one list of labs.
/// A lab's id is the name of its module here and of its view's module in the app, so the
/// simulator's registry ([`INFOS`], [`LABS`]), the app's view modules and their dispatch are
/// all made from this line (`redislab_sim::for_each_lab!(my_macro)` expands to
/// `my_macro!(lru, eviction, …)`).
#[macro_export]
macro_rules! for_each_lab {
    ($m:ident) => {
        $m!(
            lru,
            eviction,
            sampling,
            jitter,
            stampede,
            cache,
            aside,
            lock,
            queues,
            streams,
            broadcast,
            pubsub,
            ratelimit,
            presence,
            roundtrips,
            replica,
            redlock,
            invalidation,
            auth,
            buffer,
            failure,
            maxmemory
        );
    };
}

crate::for_each_lab!(registry);

/// The lab with this id.
pub fn info(id: &str) -> Option<&'static LabInfo> {
    INFOS.iter().copied().find(|l| l.id == id)
}

/// The runner of the lab with this id.
pub fn lab(id: &str) -> Option<&'static dyn Lab> {
    LABS.iter().copied().find(|l| l.info().id == id)
}

/// Every lab's id, in order.
pub fn ids() -> impl Iterator<Item = &'static str> {
    IDS.iter().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labs::lab::{Body, Job};
    use crate::labs::params::{check, Params};
    use crate::labs::work::Work;

    /// Runs `job` to the end; its output as JSON.
    fn output(job: Job) -> serde_json::Value {
        let msgs = Work::new(job.clone())
            .unwrap_or_else(|e| panic!("{job:?}: {e}"))
            .run_to_end();
        for m in &msgs {
            if let Body::Part(p) = m {
                p.read::<serde_json::Value>()
                    .unwrap_or_else(|e| panic!("{job:?}: a part is not JSON: {e}"));
            }
        }
        match msgs.last() {
            Some(Body::Done(o)) => o.read().unwrap_or_else(|e| panic!("{job:?}: {e}")),
            other => panic!("{job:?} ended without output: {other:?}"),
        }
    }

    #[test]
    fn the_two_lists_are_one() {
        assert_eq!(INFOS.len(), LABS.len());
        for (((i, l), id), card) in INFOS.iter().zip(LABS).zip(IDS).zip(CARDS) {
            assert_eq!(i.id, l.info().id, "{} is out of order", i.id);
            assert_eq!(i.id, *id, "a lab's id is its module's name");
            assert_eq!((card.id, card.title, card.blurb), (i.id, i.title, i.blurb));
        }
        let mut ids: Vec<&str> = ids().collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), INFOS.len(), "two labs share an id");
        assert!(info("nope").is_none() && lab("nope").is_none());
    }

    /// "Has a live mode" is said once, by `LabInfo::live` (the views show the switch by it):
    /// a lab that says so has a live driver for its defaults or one of its presets, one that
    /// does not has none for any of them (the driver may still decline some parameters, as
    /// broadcast's loop mode, which sends nothing to Redis).
    #[test]
    fn live_mode_is_said_once() {
        let url = "ws://127.0.0.1:1/ws".to_string();
        for (info, lab) in INFOS.iter().zip(LABS) {
            let mut all = vec![Params::defaults(info)];
            all.extend(
                info.presets
                    .iter()
                    .filter_map(|p| Params::with_preset(info, p.id)),
            );
            let drivers = all
                .iter()
                .filter(|p| {
                    let job = Job::new(info, p).scaled(10).live(url.clone());
                    lab.live(&job, p).is_some()
                })
                .count();
            assert_eq!(
                info.live,
                drivers > 0,
                "{}: live {} but {drivers} drivers",
                info.id,
                info.live
            );
            let job = Job::new(info, &all[0]).scaled(10).live(url.clone());
            if !info.live {
                let e = crate::labs::work::live(&job).err().unwrap_or_default();
                assert!(e.contains("no live mode"), "{}: {e}", info.id);
            }
        }
    }

    /// Every lab's defaults and presets are valid values of its fields, every run of the
    /// defaults and the main run of every preset finishes and serialises.
    #[test]
    fn every_lab_runs_its_defaults_and_presets() {
        for &info in INFOS {
            assert!(!info.runs.is_empty(), "{} has no run", info.id);
            assert!(!info.title.is_empty() && !info.blurb.is_empty());
            for f in info.fields {
                assert_eq!(
                    check(f, f.default).as_deref(),
                    Ok(f.default),
                    "{}.{}",
                    info.id,
                    f.key
                );
            }
            let d = Params::defaults(info);
            assert!(
                (info.rules)(&d).is_ok(),
                "{}: the defaults break a rule",
                info.id
            );
            for run in info.runs {
                let out = output(Job::new(info, &d).run(run));
                assert!(!out.is_null(), "{}.{run}", info.id);
            }
            for pr in info.presets {
                let (p, errs) = Params::from_query(info, &format!("preset={}", pr.id));
                assert!(errs.is_empty(), "{}: preset {}: {errs:?}", info.id, pr.id);
                assert_eq!(Some(&p), Params::with_preset(info, pr.id).as_ref());
                // The preset the values are (the first of two presets with the same values).
                let shown = p.preset().expect("a preset's values are a preset");
                assert_eq!(Params::with_preset(info, shown.id), Some(p.clone()));
                for (k, v) in pr.pairs {
                    assert_eq!(p.get(k), *v, "{}: preset {} sets {k}", info.id, pr.id);
                }
                output(Job::new(info, &p));
            }
        }
    }
}
