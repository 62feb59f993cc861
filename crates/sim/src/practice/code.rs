//! Result codes: a short line a student pastes to the instructor at the end of a set, and
//! `labsim practice --check <code>` verifies.
//!
//! A code is `<labs>-<seed>-<answers>-<score>-<check>`, e.g. `lru.lock-42-bdyan-3-K7P2QX`:
//! the set (its topics, `all` for every topic, and its seed; the number of questions is the
//! number of answers), one letter per question (`a`–`h` the option chosen, `y`/`n` a typed
//! number right or wrong, `x` skipped), the score, and six characters of a keyed checksum
//! over everything before them.
//!
//! What it protects against: a score typed in by hand, or a code edited by hand (another
//! score, another answer, another set) — the checksum then fails, except by a chance of about
//! one in a billion; and a chosen option that was wrong counted as right — `--check`
//! regenerates the set's questions and grades every chosen option itself.
//!
//! What it does not: the key is in the app (anyone who reads its source or its wasm can make
//! a code for any score); a student can ask `labsim practice` or a friend for the answers, or
//! take the same set twice; a typed number's right/wrong (`y`/`n`) is only as good as the key.
//! Codes are checked by the same version of the app's questions that made them (a changed
//! question kind changes the questions of a seed).

use super::{grade, plan, Answer, Response, SetSpec};

/// The checksum's key. Not a secret from anyone who reads this file: see the module doc.
const KEY: u64 = 0x52_65_64_69_73_4C_61_62; // "RedisLab"

/// The alphabet of the checksum (Crockford's base 32: no I, L, O, U).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The letter a response is written as in a code.
pub fn letter(r: &Response, right: bool) -> char {
    match r {
        Response::Choice(i) if *i < 8 => char::from(b'a' + *i as u8),
        Response::Number(_) => {
            if right {
                'y'
            } else {
                'n'
            }
        }
        _ => 'x',
    }
}

/// Keyed 64-bit mix of `msg` (FNV-1a over the key, the text and the key again, then
/// splitmix64's finaliser): not cryptographic, see the module doc.
fn mac(msg: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let key = KEY.to_le_bytes();
    for &b in key.iter().chain(msg.as_bytes()).chain(&key) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    (0..6)
        .map(|i| char::from(ALPHABET[((h >> (5 * i)) & 31) as usize]))
        .collect()
}

fn labs_part(spec: &SetSpec) -> String {
    if spec.topics.is_empty() {
        "all".into()
    } else {
        spec.topics.join(".")
    }
}

/// The code for set `spec` answered with `letters` (one per question, see [`letter`]) and
/// `score` right.
pub fn make(spec: &SetSpec, letters: &str, score: usize) -> String {
    let body = format!("{}-{}-{letters}-{score}", labs_part(spec), spec.seed);
    format!("{body}-{}", mac(&body))
}

/// What a valid code says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The set.
    pub spec: SetSpec,
    /// The answers' letters.
    pub letters: String,
    /// Right answers.
    pub score: usize,
}

/// Checks `code`: its form, its checksum, and its score against the set's own questions
/// (every chosen option graded again).
///
/// # Errors
/// Why the code is not valid, in English (the command line's language).
pub fn check(code: &str) -> Result<Checked, String> {
    let code = code.trim();
    let parts: Vec<&str> = code.split('-').collect();
    let [labs, seed, letters, score, sum] = parts[..] else {
        return Err("not a result code: want <labs>-<seed>-<answers>-<score>-<check>".into());
    };
    let body = format!("{labs}-{seed}-{letters}-{score}");
    if !sum.eq_ignore_ascii_case(&mac(&body)) {
        return Err("the checksum does not match: the code was changed or mistyped".into());
    }
    if letters.is_empty() || letters.chars().any(|c| !matches!(c, 'a'..='h' | 'y' | 'n' | 'x')) {
        return Err(format!("bad answers `{letters}`"));
    }
    let labs = if labs == "all" {
        String::new()
    } else {
        labs.replace('.', ",")
    };
    let spec = SetSpec::from_query(&format!(
        "labs={labs}&seed={seed}&n={}",
        letters.chars().count()
    ))
    .map_err(|e| format!("not a set of this app: {e}"))?;
    let score: usize = score.parse().map_err(|_| format!("bad score `{score}`"))?;
    let mut right = 0;
    for (slot, c) in plan(&spec).iter().zip(letters.chars()) {
        let q = super::generate(slot.topic, slot.kind, slot.seed)?;
        right += match (c, &q.draft.answer) {
            ('y', Answer::Number { .. }) => 1,
            ('n' | 'x', _) => 0,
            ('a'..='h', Answer::Choice { .. }) => {
                usize::from(grade(&q, &Response::Choice(c as usize - 'a' as usize)))
            }
            _ => {
                return Err(format!(
                    "answer `{c}` does not fit question {} / {}",
                    q.topic, q.kind
                ))
            }
        };
    }
    if right != score {
        return Err(format!(
            "the score says {score}, the answers give {right}: the code was not made by the app"
        ));
    }
    Ok(Checked {
        spec,
        letters: letters.into(),
        score,
    })
}
