//! A set of questions for a student or a class: `#/practice?labs=lru,lock&seed=42&n=8`.
//!
//! The labs (or every topic), a seed and a count fix the whole set: everyone who opens the
//! same address gets the same questions in the same order ([`picks`]); an address without a
//! seed gets a fresh one per student. The set is made in the simulation worker a question
//! at a time ([`SetRun`], the job [`JOB_LAB`]), since each question runs its lab.
//!
//! At the end the page shows a **result code** ([`code`]): the set, the score and every
//! answer in its canonical form ([`super::Verdict::canon`]), with a check sum against typing
//! mistakes. [`check`] (and `labsim practice --check <code>`) makes the set again from the
//! code, grades every answer again and refuses a code whose check sum or score does not
//! match its answers — so a score cannot be typed in by hand: only right answers make one.

use super::{generate, grade, topics, Question};
use crate::labs::lab::Run;
use crate::rng::Mulberry32;
use serde::{Deserialize, Serialize};

/// The worker job's lab name for making a set (not a lab of the registry).
pub const JOB_LAB: &str = "practice";
/// Questions in a set when the address says none.
pub const DEFAULT_N: u32 = 10;
/// The most questions a set holds.
pub const MAX_N: u32 = 30;

/// What a set's address says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spec {
    /// The topics' ids, in the registry's order; empty means every topic.
    pub labs: Vec<String>,
    /// The seed; `None` when the address has none (the page draws one per student).
    pub seed: Option<u32>,
    /// How many questions.
    pub n: u32,
}

fn short(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(24).collect()
}

impl Spec {
    /// Reads a set's query (`labs=lru,lock&seed=42&n=8`; `labs=all` or no `labs` is every
    /// topic).
    ///
    /// # Errors
    /// A Bengali message naming what is wrong: an unknown topic (with what there is), a seed
    /// that is not a whole number in range, a count outside 1..=30, an unknown key.
    pub fn parse(query: &str) -> Result<Spec, String> {
        let mut spec = Spec {
            labs: Vec::new(),
            seed: None,
            n: DEFAULT_N,
        };
        let all: Vec<&str> = topics().iter().map(|t| t.id).collect();
        for (key, v) in redislab_address::pairs(query) {
            match key {
                "labs" => {
                    let mut want = Vec::new();
                    for id in v.split(',').filter(|s| !s.is_empty() && *s != "all") {
                        if !all.contains(&id) {
                            return Err(format!(
                                "`{}` নামে কোনো ল্যাবের প্রশ্ন নেই; আছে: {}",
                                short(id),
                                all.join(", ")
                            ));
                        }
                        want.push(id);
                    }
                    // The registry's order, each once.
                    spec.labs = all
                        .iter()
                        .filter(|id| want.contains(id))
                        .map(|s| s.to_string())
                        .collect();
                }
                "seed" => {
                    spec.seed = Some(v.parse::<u32>().map_err(|_| {
                        format!(
                            "seed `{}` চলে না: ০ থেকে ৪২৯,৪৯,৬৭,২৯৫-এর মধ্যে একটা পূর্ণসংখ্যা দিন",
                            short(v)
                        )
                    })?)
                }
                "n" => {
                    spec.n = v
                        .parse::<u32>()
                        .ok()
                        .filter(|n| (1..=MAX_N).contains(n))
                        .ok_or_else(|| {
                            format!(
                                "প্রশ্নের সংখ্যা n=`{}` চলে না: ১ থেকে {}-এর মধ্যে দিন",
                                short(v),
                                crate::bn::int(MAX_N.into())
                            )
                        })?
                }
                other => {
                    return Err(format!(
                        "ঠিকানায় `{}` চেনা গেল না — চলে labs, seed আর n",
                        short(other)
                    ))
                }
            }
        }
        Ok(spec)
    }

    /// The labs as the address names them: `lru,lock`, or `all`.
    pub fn labs_word(&self) -> String {
        if self.labs.is_empty() {
            "all".to_string()
        } else {
            self.labs.join(",")
        }
    }

    /// The address' query of this set with `seed` (`labs=lru,lock&seed=42&n=8`).
    pub fn query(&self, seed: u32) -> String {
        format!("labs={}&seed={seed}&n={}", self.labs_word(), self.n)
    }

    /// The address' query of this set without a seed (`labs=lru,lock&n=8`): every student
    /// who opens it gets a set of their own.
    pub fn query_unseeded(&self) -> String {
        format!("labs={}&n={}", self.labs_word(), self.n)
    }

    /// The topics it draws from.
    pub fn topic_ids(&self) -> Vec<&'static str> {
        topics()
            .into_iter()
            .map(|t| t.id)
            .filter(|id| self.labs.is_empty() || self.labs.iter().any(|l| l == id))
            .collect()
    }

    /// Where the set's answers and place are kept in the browser (one entry per set).
    pub fn storage_key(&self, seed: u32) -> String {
        format!("redislab.practice.set.{}", self.query(seed))
    }
}

/// The set's questions as (topic, kind, seed), in order: the kinds of the chosen topics
/// shuffled by the seed and dealt in turn (so each kind comes up before any comes twice),
/// each question with its own seed drawn from the set's.
pub fn picks(spec: &Spec, seed: u32) -> Vec<(String, String, u32)> {
    let mut pairs: Vec<(&str, &str)> = Vec::new();
    for t in topics() {
        if spec.topic_ids().contains(&t.id) {
            pairs.extend(t.kinds.iter().map(|k| (t.id, k.id)));
        }
    }
    let mut rng = Mulberry32::new(seed ^ 0x5E75_E7A1);
    let mut out = Vec::with_capacity(spec.n as usize);
    let mut deck: Vec<(&str, &str)> = Vec::new();
    while out.len() < spec.n as usize {
        if deck.is_empty() {
            deck = pairs.clone();
            for i in (1..deck.len()).rev() {
                deck.swap(i, rng.below(i as u32 + 1) as usize);
            }
            deck.reverse();
        }
        let (t, k) = deck.pop().expect("a topic has kinds");
        out.push((t.to_string(), k.to_string(), rng.next_u32()));
    }
    out
}

/// The set's questions, made one at a time in the worker: a part per question, the whole
/// set at the end.
pub struct SetRun {
    picks: Vec<(String, String, u32)>,
    made: Vec<Question>,
}

impl SetRun {
    /// The run of the set `query` names (its seed is required here: the page writes one).
    ///
    /// # Errors
    /// The Bengali message of [`Spec::parse`], or that the seed is missing.
    pub fn new(query: &str) -> Result<Self, String> {
        // One question (a quiz slide's): `one=<topic>/<kind>&seed=N`.
        if let Some(rest) = query.strip_prefix("one=") {
            let (what, seed) = rest.split_once("&seed=").unwrap_or((rest, "1"));
            let (t, k) = what.split_once('/').unwrap_or((what, ""));
            let seed = seed
                .parse::<u32>()
                .map_err(|_| format!("seed `{}` চলে না", short(seed)))?;
            let q = generate(t, k, seed)?;
            return Ok(SetRun {
                picks: vec![(q.topic, q.kind, seed)],
                made: Vec::new(),
            });
        }
        let spec = Spec::parse(query)?;
        let seed = spec.seed.ok_or_else(|| "সেটের seed নেই".to_string())?;
        Ok(SetRun {
            picks: picks(&spec, seed),
            made: Vec::new(),
        })
    }
}

impl Run for SetRun {
    type Part = Question;
    type Output = Vec<Question>;
    fn step(&mut self) -> Option<Question> {
        let (t, k, s) = self.picks.get(self.made.len())?.clone();
        let q = generate(&t, &k, s).expect("a pick names a topic's kind");
        self.made.push(q.clone());
        Some(q)
    }
    fn is_done(&self) -> bool {
        self.made.len() == self.picks.len()
    }
    fn progress(&self) -> f64 {
        self.made.len() as f64 / self.picks.len().max(1) as f64
    }
    fn output(&mut self) -> Vec<Question> {
        std::mem::take(&mut self.made)
    }
}

/// FNV-1a, 64 bits: the result code's check sum (against typing mistakes and edits; the
/// answers, graded again, are what make the score).
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The result code of set `spec` with `seed`: its score and each answer's canonical form
/// (`None`: not answered), then a check sum — `lru,lock-42-8-6-B_C+A+B_3_…-9F3C2A`.
pub fn code(spec: &Spec, seed: u32, score: u32, answers: &[Option<String>]) -> String {
    let labs = spec.labs_word();
    let answers: Vec<&str> = answers.iter().map(|a| a.as_deref().unwrap_or("")).collect();
    let body = format!("{labs}-{seed}-{}-{score}-{}", spec.n, answers.join("_"));
    format!("{body}-{:06X}", fnv(&body) & 0xFF_FFFF)
}

/// What [`check`] found in a result code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The set.
    pub spec: Spec,
    /// Its seed.
    pub seed: u32,
    /// Right answers, graded again.
    pub score: u32,
    /// Each question with the answer given (canonical form, `None` if unanswered) and
    /// whether it is right.
    pub answers: Vec<(Question, Option<String>, bool)>,
}

/// Verifies a result code: makes its set again, grades every answer again.
///
/// # Errors
/// Why the code is refused: not a result code, a check sum that does not match (a typing
/// mistake or an edit), a score that is not what its answers earn, more answers than
/// questions, an answer that cannot be read.
pub fn check(code: &str) -> Result<Report, String> {
    let code = code.trim();
    let bad = |why: &str| Err(format!("result code refused: {why}"));
    let Some((body, sum)) = code.rsplit_once('-') else {
        return bad("not a result code");
    };
    if u64::from_str_radix(sum, 16).ok() != Some(fnv(body) & 0xFF_FFFF) || sum.len() != 6 {
        return bad("its check sum does not match (mistyped or edited)");
    }
    let parts: Vec<&str> = body.splitn(5, '-').collect();
    let [labs, seed, n, score, answers] = parts.as_slice() else {
        return bad("not a result code");
    };
    let (Ok(seed), Ok(claimed)) = (seed.parse::<u32>(), score.parse::<u32>()) else {
        return bad("its seed or score is not a number");
    };
    let spec = Spec::parse(&format!("labs={labs}&n={n}"))
        .map_err(|e| format!("result code refused: its set is not one the page makes ({e})"))?;
    let answers: Vec<Option<String>> = answers
        .split('_')
        .map(|a| (!a.is_empty()).then(|| a.to_string()))
        .collect();
    if answers.len() != spec.n as usize {
        return bad("its number of answers is not its number of questions");
    }
    let mut out = Vec::new();
    let mut score = 0;
    for ((t, k, s), a) in picks(&spec, seed).into_iter().zip(answers) {
        let q = generate(&t, &k, s).map_err(|e| format!("result code refused: {e}"))?;
        let right = match &a {
            None => false,
            Some(a) => {
                let v = grade(&q, &a.replace('+', " ")).map_err(|_| {
                    format!("result code refused: answer `{}` cannot be read", short(a))
                })?;
                if v.canon != *a {
                    return bad("an answer is not in the form the page writes");
                }
                v.right
            }
        };
        score += u32::from(right);
        out.push((q, a, right));
    }
    if score != claimed {
        return Err(format!(
            "result code refused: it claims {claimed} right, its answers earn {score}"
        ));
    }
    Ok(Report {
        spec,
        seed,
        score,
        answers: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(q: &str) -> Spec {
        Spec::parse(q).unwrap()
    }

    #[test]
    fn a_set_is_fixed_by_its_address_and_deals_every_kind() {
        let s = spec("labs=lru,lock&seed=42&n=8");
        assert_eq!(s.labs, vec!["lru", "lock"]);
        assert_eq!(s.seed, Some(42));
        let a = picks(&s, 42);
        assert_eq!(a, picks(&spec("labs=lock,lru,lock&n=8"), 42), "order-free");
        assert_eq!(a.len(), 8);
        assert_ne!(a, picks(&s, 43));
        let kinds: usize = topics()
            .iter()
            .filter(|t| t.id == "lru" || t.id == "lock")
            .map(|t| t.kinds.len())
            .sum();
        let first: std::collections::BTreeSet<_> = a
            .iter()
            .take(kinds.min(8))
            .map(|(t, k, _)| (t.clone(), k.clone()))
            .collect();
        assert_eq!(
            first.len(),
            kinds.min(8),
            "no kind twice before every kind once"
        );
        assert!(a.iter().all(|(t, _, _)| t == "lru" || t == "lock"));
        let all = spec("labs=all&n=30");
        assert!(all.labs.is_empty());
        assert_eq!(spec("").n, DEFAULT_N);
        assert_eq!(all.query(7), "labs=all&seed=7&n=30");
        assert_eq!(all.query_unseeded(), "labs=all&n=30");
    }

    #[test]
    fn bad_set_addresses_say_what_is_wrong() {
        for (q, says) in [
            ("labs=nope", "nope"),
            ("n=0", "n="),
            ("n=31", "n="),
            ("n=x", "n="),
            ("seed=-3", "seed"),
            ("colour=red", "colour"),
        ] {
            let e = Spec::parse(q).unwrap_err();
            assert!(e.contains(says), "{q}: {e}");
        }
    }

    fn answer_all(s: &Spec, seed: u32, right: &[bool]) -> (u32, Vec<Option<String>>) {
        let mut score = 0;
        let mut out = Vec::new();
        for (i, (t, k, qs)) in picks(s, seed).into_iter().enumerate() {
            let q = generate(&t, &k, qs).unwrap();
            let resp = if right[i % right.len()] {
                super::super::tests::right_response(&q)
            } else {
                super::super::tests::wrong_response(&q)
            };
            let v = grade(&q, &resp).unwrap();
            assert_eq!(v.right, right[i % right.len()], "{}/{}", q.topic, q.kind);
            score += u32::from(v.right);
            out.push(Some(v.canon));
        }
        (score, out)
    }

    #[test]
    fn a_result_code_checks_and_a_tampered_one_is_refused() {
        let s = spec("labs=lru,lock&n=6");
        let (score, answers) = answer_all(&s, 42, &[true, false, true]);
        assert_eq!(score, 4);
        let c = code(&s, 42, score, &answers);
        let r = check(&c).unwrap_or_else(|e| panic!("{c}: {e}"));
        assert_eq!((r.score, r.seed, r.answers.len()), (4, 42, 6));
        // A score typed in by hand, with a check sum made to match: refused all the same.
        let forged = code(&s, 42, 6, &answers);
        assert!(check(&forged).unwrap_err().contains("earn 4"), "{forged}");
        // One character changed anywhere: the check sum refuses it.
        for i in 0..c.len() {
            let mut b: Vec<char> = c.chars().collect();
            b[i] = if b[i] == '7' { '8' } else { '7' };
            let t: String = b.into_iter().collect();
            if t != c {
                assert!(check(&t).is_err(), "{t} accepted");
            }
        }
        // Unanswered questions count as wrong.
        let mut some = answers.clone();
        some[0] = None;
        let c2 = code(&s, 42, 3, &some);
        assert_eq!(check(&c2).unwrap().score, 3);
        assert!(check("hello").is_err() && check("").is_err());
    }
}
