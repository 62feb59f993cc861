//! Questions on the auth check (production deck, slide 11): how many database queries a
//! small class's run makes without the cache (4 per request) and with it (the cold start's
//! loads, the course context shared, then 0 while the entries live), how many of a banned
//! student's requests are still let in (until the user entry cached before the ban expires,
//! its TTL counted from its `SET`, not from the ban), and how many are refused after the
//! ban's end with and without filtering the cached restrictions on read (none, or until the
//! entry that lists the ban expires). Every answer is read off the lab's own run
//! ([`AuthOutput`]) of the question's parameters.

use crate::labs::auth::{run, AuthOutput, AuthParams, Visit, INFO, QUERIES_UNCACHED};
use crate::labs::params::Params;
use crate::practice::pick::{int, until, Draw};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The auth lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "queries",
        title: "ক্যাশ ছাড়া আর ক্যাশ দিয়ে কয়টা কোয়েরি",
        make: queries,
    },
    QuestionKind {
        id: "ban",
        title: "ব্যানের পরেও কয়বার ঢোকে",
        make: ban,
    },
    QuestionKind {
        id: "ban-end",
        title: "ব্যান শেষে কয়বার ফেরায়",
        make: ban_end,
    },
];

/// The lab's parameters: its defaults with `pairs` set.
fn lab(pairs: &[(&str, String)]) -> Params {
    params(&INFO, pairs)
}

fn run_of(p: &Params) -> AuthOutput {
    run(&p.read::<AuthParams>())
}

/// Seconds with one decimal, in Bengali (`৯১.২`).
fn secs(ms: u64) -> String {
    crate::bn::dec(ms as f64 / 1000.0, 1)
}

/// A list of times, in seconds, in Bengali.
fn times(visits: &[&Visit]) -> String {
    visits
        .iter()
        .map(|v| secs(v.at_ms))
        .collect::<Vec<_>>()
        .join(", ")
}

/// No listed time is within 200 ms of `edge` (a time shown to a tenth of a second must not
/// leave which side of it a request falls in to rounding).
fn clear_of(visits: &[&Visit], edge: u64) -> bool {
    visits.iter().all(|v| v.at_ms.abs_diff(edge) >= 200)
}

/// A few students for a ban question: the user entry's TTL and a gap between requests of a
/// fifth to a half of it (a handful of requests per entry).
struct Class {
    ttl: u32,
    every: u32,
}

impl Class {
    fn draw(d: &mut Draw) -> Class {
        let ttl = d.int(2, 12) * 5;
        Class {
            ttl,
            every: (ttl * 1000 / d.int(2, 5)).max(1000),
        }
    }

    /// The run with the ban's `pairs`, to an entry's TTL and two gaps after `last` (s).
    fn run(&self, d: &mut Draw, pairs: &[(&str, String)], last: u32) -> (Params, AuthOutput) {
        let mut all = vec![
            ("students", d.int(1, 4).to_string()),
            ("every", self.every.to_string()),
            ("courses", d.int(1, 4).to_string()),
            ("lessons", d.int(1, 25).to_string()),
            ("user_ttl", self.ttl.to_string()),
            (
                "duration",
                (last + self.ttl + 2 * self.every / 1000 + 5).to_string(),
            ),
            ("seed", d.int(0, 99_999).to_string()),
        ];
        all.extend(pairs.iter().cloned());
        let p = lab(&all);
        let r = run_of(&p);
        (p, r)
    }
}

/// The watched student's requests from `from` to `to` (ms).
fn visits(r: &AuthOutput, from: u64, to: u64) -> Vec<Visit> {
    r.visits
        .iter()
        .filter(|v| v.at_ms >= from && v.at_ms <= to)
        .cloned()
        .collect()
}

fn queries(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 125);
    let cached = d.chance(60);
    let students = d.int(2, 15);
    let every = d.int(2, 20) * 500;
    let duration = d.int((2 * every).div_ceil(1000).max(10), 60);
    let user_ttl = d.one(&[60, 60, 60, 90, 120, 300]);
    let p = lab(&[
        ("cache", if cached { "on" } else { "off" }.into()),
        ("students", students.to_string()),
        ("every", every.to_string()),
        ("courses", "1".into()),
        ("lessons", "1".into()),
        ("user_ttl", user_ttl.to_string()),
        ("duration", duration.to_string()),
        ("seed", d.int(0, 99_999).to_string()),
    ]);
    let r = run_of(&p);
    let right = r.queries as i64;
    let (n, s) = (r.requests as i64, i64::from(students));
    let four = i64::from(QUERIES_UNCACHED);
    let mut hints = if cached {
        vec![
            (
                four * n,
                format!(
                    "{} হতো ক্যাশ ছাড়া — ক্যাশে তিনটা প্রশ্নের উত্তর থাকলে রিকোয়েস্ট ডেটাবেসে যায়ই না।",
                    int(four * n)
                ),
            ),
            (
                0,
                "গরম অবস্থায় রিকোয়েস্টপিছু ০ — কিন্তু প্রত্যেক স্টুডেন্টের প্রথম রিকোয়েস্টে ক্যাশ খালি, তখন লোড হয়।".into(),
            ),
            (
                four * s,
                "কোর্স-কনটেক্সটের key আইডির, স্টুডেন্টের নয় — সবাই একই ক্লাস দেখে, তাই সেটা লোড হয় একবারই।".into(),
            ),
            (
                3 * s,
                "কোর্স-কনটেক্সট শেয়ার্ড ঠিকই, কিন্তু প্রথমবার সেটাও একবার ডেটাবেস থেকে আনতে হয়।".into(),
            ),
        ]
    } else {
        vec![
            (
                3 * s + 1,
                "এটা ক্যাশ দিয়ে হতো — এখানে ক্যাশ বন্ধ, প্রতিটা রিকোয়েস্ট নিজেই ডেটাবেসে যায়।".into(),
            ),
            (
                n,
                "একটা রিকোয়েস্টে ডেটাবেসে চারটা প্রশ্ন: ইউজার, তার চলতি রেস্ট্রিকশন, আইডিটা কোন কোর্সের, আর কোর্সে অ্যাক্সেস আছে কি।".into(),
            ),
            (
                3 * n,
                "ইউজার আর তার রেস্ট্রিকশন দুটো আলাদা কোয়েরি — রিকোয়েস্টপিছু ৪, ৩ নয়।".into(),
            ),
            (0, "ক্যাশ বন্ধ — কোনো রিকোয়েস্ট ডেটাবেস এড়াতে পারে না।".into()),
        ]
    };
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    Draft {
        text: format!(
            "{} জন স্টুডেন্ট একই লাইভ ক্লাস দেখছে (একই আইডি), প্রত্যেকে গড়ে {} ms পরপর একটা সুরক্ষিত রিকোয়েস্ট পাঠায়, {} সেকেন্ড ধরে — মোট {}টা রিকোয়েস্ট। প্রতিটা রিকোয়েস্টের অথ চেক জানতে চায়: ইউজার কে (তার রেস্ট্রিকশনসহ), আইডিটা কোন কোর্সের, আর স্টুডেন্টের সেই কোর্সে অ্যাক্সেস আছে কি। {} পুরো রানে ডেটাবেস মোট কয়টা কোয়েরি পায়?",
            int(s),
            int(every.into()),
            int(duration.into()),
            int(n),
            if cached {
                format!(
                    "তিনটাই Redis-এ cache-aside (`GET`, না পেলে ডেটাবেস, তারপর `SET … EX`): ইউজারের TTL {} সেকেন্ড, কোর্স-কনটেক্সট আর অ্যাক্সেসের ১২০ সেকেন্ড।",
                    int(user_ttl.into())
                )
            } else {
                "Redis ক্যাশ বন্ধ: সবকিছু ডেটাবেস থেকে।".to_string()
            }
        ),
        code: if cached {
            vec![
                "GET cache:auth:user:v1:student:<id>".into(),
                "GET cache:authz:v1:course-context:<lesson>".into(),
                "GET cache:authz:v1:course-student:<id>:<course>".into(),
                format!("SET <key> <value> EX {user_ttl}   # on (nil): the user, after 2 queries"),
            ]
        } else {
            Vec::new()
        },
        answer: Answer::Count { n: right, hints },
        why: if cached {
            format!(
                "প্রত্যেকের প্রথম রিকোয়েস্টে ইউজার লোড ({}বার × ২ কোয়েরি) আর অ্যাক্সেস ({}বার), কোর্স-কনটেক্সট সবার একটাই ({}বার); TTL রানের চেয়ে লম্বা বলে আর কিছু লোড হয় না — মোট {}, বাকি {}টা রিকোয়েস্ট ০ কোয়েরির।",
                int(r.user_loads as i64),
                int(r.access_loads as i64),
                int(r.context_loads as i64),
                int(right),
                int(r.zero_query as i64)
            )
        } else {
            format!(
                "ক্যাশ ছাড়া প্রতিটা রিকোয়েস্টে ৪টা কোয়েরি: {} × ৪ = {}।",
                int(n),
                int(right)
            )
        },
        show: show_end(&p),
    }
}

fn ban(seed: u32) -> Draft {
    let (ttl, p, r, set_ms, listed) = until(seed, 126, 100, |d| {
        let c = Class::draw(d);
        let ban_at = d.int(c.ttl + 5, 3 * c.ttl);
        let (p, r) = c.run(d, &[("ban_at", ban_at.to_string())], ban_at);
        let b = r.ban.clone()?;
        // The user entry cached last before the ban, and the requests from the ban to a
        // request after the entry's expiry.
        let entry = r.entries.iter().rev().find(|e| e.set_ms <= b.at_ms)?;
        let (set_ms, expires) = (entry.set_ms, entry.expires_ms);
        let listed = visits(&r, b.at_ms, expires.max(b.at_ms) + u64::from(c.every));
        let ttl = c.ttl;
        let refs: Vec<&Visit> = listed.iter().collect();
        let ok = listed.iter().any(|v| !v.allowed)
            && listed.len() <= 12
            && clear_of(&refs, expires)
            && clear_of(&refs, b.at_ms)
            && clear_of(&refs, b.at_ms + u64::from(ttl) * 1000);
        ok.then_some((ttl, p, r, set_ms, listed))
    });
    let b = r.ban.as_ref().expect("a ban");
    let right = i64::from(b.let_in);
    let refs: Vec<&Visit> = listed.iter().collect();
    let ttl_ms = u64::from(ttl) * 1000;
    let from_ban = refs.iter().filter(|v| v.at_ms <= b.at_ms + ttl_ms).count() as i64;
    let mut hints = vec![
        (
            0,
            "ব্যান হয় শুধু ডেটাবেসে — ক্যাশের ইউজার এন্ট্রি কেউ মোছে না, তাই তার মেয়াদ থাকা পর্যন্ত অথ চেক ব্যান দেখেই না।".to_string(),
        ),
        (
            refs.len() as i64,
            "এন্ট্রির মেয়াদ ফুরোলে পরের রিকোয়েস্ট ডেটাবেস থেকে নতুন করে লোড করে — তাতে ব্যান আছে, সেখান থেকে ফেরানো শুরু।".into(),
        ),
        (
            from_ban,
            format!(
                "TTL গোনা শুরু হয় এন্ট্রির `SET` থেকে ({} সেকেন্ডে), ব্যান থেকে নয় — এন্ট্রি মোছে {} সেকেন্ডে।",
                secs(set_ms),
                secs(set_ms + ttl_ms)
            ),
        ),
    ];
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    let decides = b.last_let_in_ms.or(b.first_refused_ms).unwrap_or(b.at_ms);
    Draft {
        text: format!(
            "অথ চেক Redis-এ cache-aside, ইউজারের এন্ট্রির TTL {} সেকেন্ড। একজন স্টুডেন্টের ইউজার এন্ট্রি (নিচের key) শেষবার ক্যাশে বসেছে {} সেকেন্ডে, তখন সে ব্যান নয়। {} সেকেন্ডে অ্যাডমিন তাকে ডেটাবেসে স্থায়ীভাবে ব্যান করে — ক্যাশে কিছু মোছা হয় না। ব্যান থেকে তার রিকোয়েস্ট আসে এই সময়গুলোতে (সেকেন্ড): {}। এর কয়টায় সে ঢুকতে পারে?",
            int(ttl.into()),
            secs(set_ms),
            secs(b.at_ms),
            times(&refs)
        ),
        code: vec![
            "GET cache:auth:user:v1:student:a91f".into(),
            format!("SET cache:auth:user:v1:student:a91f <user> EX {ttl}   # on (nil)"),
        ],
        answer: Answer::Count { n: right, hints },
        why: if b.stale_until_ms > b.at_ms {
            format!(
                "ব্যানের আগের এন্ট্রি থাকে {} সেকেন্ড পর্যন্ত ({} + {}); তার মধ্যের {}টা রিকোয়েস্ট ক্যাশ থেকে ঢোকে, তারপর নতুন লোডে ব্যান ধরা পড়ে — দেরি বড়জোর TTL।",
                secs(b.stale_until_ms),
                secs(set_ms),
                int(ttl.into()),
                int(right)
            )
        } else {
            format!(
                "এন্ট্রিটা {} সেকেন্ডেই মুছে গেছে, ব্যানের আগে — ব্যানের পরের প্রথম রিকোয়েস্টই ডেটাবেস থেকে লোড করে ব্যান দেখে।",
                secs(set_ms + ttl_ms)
            )
        },
        show: show(&p, r.position_of(decides)),
    }
}

fn ban_end(seed: u32) -> Draft {
    let (ttl, p, r, set_ms, listed) = until(seed, 127, 100, |d| {
        let filter = d.one(&["read", "none"]);
        let c = Class::draw(d);
        let ban_at = d.int(5, 2 * c.ttl);
        let ban_for = d.int(c.ttl + 2 * c.every / 1000, 3 * c.ttl + 10);
        let pairs = [
            ("ban_at", ban_at.to_string()),
            ("ban_for", ban_for.to_string()),
            ("filter", filter.into()),
        ];
        let (p, r) = c.run(d, &pairs, ban_at + ban_for);
        let b = r.ban.clone()?;
        let end = b.ends_ms?;
        // The entry that lists the ban, cached when it ends, and the requests from the end
        // to a little after that entry's expiry.
        let expires = b.listed_until_ms?;
        let entry = r.entries.iter().find(|e| e.expires_ms == expires)?;
        let set_ms = entry.set_ms;
        let listed = visits(&r, end, expires + 2 * u64::from(c.every));
        let ttl = c.ttl;
        let refs: Vec<&Visit> = listed.iter().collect();
        // A listed request after the entry's expiry: the list shows where the refusals
        // stop whichever way the application reads the entry.
        let ok = listed.iter().any(|v| v.at_ms > expires)
            && listed.len() <= 12
            && clear_of(&refs, expires)
            && clear_of(&refs, end)
            && clear_of(&refs, end + u64::from(ttl) * 1000);
        ok.then_some((ttl, p, r, set_ms, listed))
    });
    let b = r.ban.as_ref().expect("a ban");
    let end = b.ends_ms.expect("the ban ends");
    let expires = b.listed_until_ms.expect("an entry lists the ban");
    let filters = r.params.filters();
    let right = i64::from(b.refused_after_end);
    let refs: Vec<&Visit> = listed.iter().collect();
    let ttl_ms = u64::from(ttl) * 1000;
    let until_expiry = refs.iter().filter(|v| v.at_ms <= expires).count() as i64;
    let from_end = refs.iter().filter(|v| v.at_ms <= end + ttl_ms).count() as i64;
    let mut hints = if filters {
        vec![
            (
                until_expiry,
                "এটা হতো ছাঁকা ছাড়া — এখানে অ্যাপ ক্যাশ থেকে পড়ে `endsAt` দেখে, মেয়াদ-পেরোনো রেস্ট্রিকশন ফেলে দেয়; ব্যান শেষ হওয়ার পরের প্রথম রিকোয়েস্টই ঢোকে।".to_string(),
            ),
            (
                from_end,
                "ব্যান শেষে নতুন কোনো TTL শুরু হয় না — আর ছাঁকা চালু থাকায় এন্ট্রির মেয়াদেরও অপেক্ষা নেই।".into(),
            ),
        ]
    } else {
        vec![
            (
                0,
                "ছাঁকা নেই: অ্যাপ ক্যাশের লিস্ট যেমন আছে মেনে নেয় — তাতে BAN লেখা, `endsAt` দেখে না; এন্ট্রির মেয়াদ ফুরোনো পর্যন্ত ফেরায়।".to_string(),
            ),
            (
                from_end,
                format!(
                    "এন্ট্রির TTL গোনা শুরু তার `SET` থেকে ({} সেকেন্ডে), ব্যান শেষ হওয়া থেকে নয় — মেয়াদ ফুরোয় {} সেকেন্ডে।",
                    secs(set_ms),
                    secs(expires)
                ),
            ),
            (
                refs.len() as i64,
                "এন্ট্রির মেয়াদ ফুরোলে পরের রিকোয়েস্ট ডেটাবেস থেকে লোড করে — ব্যান ততক্ষণে শেষ, তাই ঢোকে।".into(),
            ),
        ]
    };
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    let decides = b.back_in_ms.unwrap_or(end);
    Draft {
        text: format!(
            "অথ চেক Redis-এ cache-aside, ইউজারের এন্ট্রির TTL {} সেকেন্ড। অ্যাডমিন একজন স্টুডেন্টকে {} সেকেন্ড থেকে {} সেকেন্ড পর্যন্ত ব্যান করে (ডেটাবেসে, শেষের সময়সহ)। ব্যানের মধ্যে, {} সেকেন্ডে, তার এন্ট্রি ডেটাবেস থেকে নতুন করে ক্যাশে বসে — রেস্ট্রিকশনের লিস্টে BAN, সাথে `endsAt`। {} ব্যান শেষ হওয়া থেকে তার রিকোয়েস্ট আসে এই সময়গুলোতে (সেকেন্ড): {}। এর কয়টা ফেরানো হয় (৪০৩)?",
            int(ttl.into()),
            secs(b.at_ms),
            secs(end),
            secs(set_ms),
            if filters {
                "অ্যাপ ক্যাশ থেকে পড়ার পরে যেসব রেস্ট্রিকশনের `endsAt` পেরিয়ে গেছে সেগুলো ফেলে দেয়।"
            } else {
                "অ্যাপ ক্যাশের রেস্ট্রিকশনের লিস্ট যেমন আছে তেমনই মেনে নেয়।"
            },
            times(&refs)
        ),
        code: vec![
            "GET cache:auth:user:v1:student:a91f".into(),
            if filters {
                "restrictions.filter(r => r.endsAt == null || r.endsAt > now)".into()
            } else {
                "restrictions   # as cached".into()
            },
        ],
        answer: Answer::Count { n: right, hints },
        why: if filters {
            format!(
                "ক্যাশের এন্ট্রিতে BAN থাকলেও তার `endsAt` ({} সেকেন্ড) পেরিয়ে গেছে — পড়ার পরে ছেঁকে ফেলায় ব্যান শেষের প্রথম রিকোয়েস্টই ঢোকে, কোনোটা ফেরে না।",
                secs(end)
            )
        } else {
            format!(
                "ছাঁকা ছাড়া ক্যাশের BAN-ই শেষ কথা: এন্ট্রি মোছে {} সেকেন্ডে ({} + {}) — ততক্ষণের {}টা রিকোয়েস্ট ব্যান শেষ হওয়ার পরেও ফেরে।",
                secs(expires),
                secs(set_ms),
                int(ttl.into()),
                int(right)
            )
        },
        show: show(&p, r.position_of(decides)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: AuthOutput = lab_output(show);
        match q.kind.as_str() {
            "queries" => Truth::Count(out.queries as i64),
            "ban" => {
                let b = out.ban.expect("a ban");
                // "Show me" opens after the second of the last let-in (or the first refusal).
                let t = b.last_let_in_ms.or(b.first_refused_ms).unwrap();
                assert_eq!(show.at, Some((t / 1000) as usize + 1));
                let n = out
                    .visits
                    .iter()
                    .filter(|v| v.allowed && v.at_ms >= b.at_ms)
                    .count();
                Truth::Count(n as i64)
            }
            "ban-end" => {
                let b = out.ban.expect("a ban");
                let end = b.ends_ms.expect("the ban ends");
                let n = out
                    .visits
                    .iter()
                    .filter(|v| !v.allowed && v.at_ms >= end)
                    .count();
                Truth::Count(n as i64)
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn auth_questions_over_1000_seeds() {
        every_seed("auth", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("auth");
    }
}
