//! Questions on Socket.IO's Redis adapters: how many messages Redis pushes to the instances
//! with the plain adapter (every instance gets every message), how many with the sharded
//! adapter's per-room channels (multiple choice: the users' rooms are drawn at random, so the
//! options are the run's figure and the figures a student confuses it with), and what becomes
//! of a message published while an instance's subscriber is away (lost: Pub/Sub keeps
//! nothing). Every answer is read off the lab's own run ([`PubSubOutput`]) of the question's
//! parameters.

use crate::labs::def::Steps;
use crate::labs::params::Params;
use crate::labs::pubsub::{run, Adapter, PubSubOutput, Summary, INFO};
use crate::practice::pick::{counts, int, options, until, Draw};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The Pub/Sub lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "plain-deliveries",
        title: "সাধারণ adapter-এ কতবার পৌঁছায়",
        make: plain_deliveries,
    },
    QuestionKind {
        id: "sharded-deliveries",
        title: "রুমপ্রতি চ্যানেলে কতবার পৌঁছায়",
        make: sharded_deliveries,
    },
    QuestionKind {
        id: "away",
        title: "সংযোগ না থাকলে মেসেজের কী হয়",
        make: away,
    },
];

/// A chat's parameters as a question draws them (inside the lab's ranges, small enough that
/// the three adapters run in a few milliseconds).
struct Chat {
    instances: u32,
    rooms: u32,
    users: u32,
    alpha: u32,
    rate: u32,
    seconds: u32,
    seed: u32,
}

impl Chat {
    fn draw(d: &mut Draw) -> Chat {
        Chat {
            instances: d.int(2, 8),
            rooms: d.int(2, 20),
            users: d.int(4, 12) * 5,
            alpha: d.int(0, 1),
            rate: d.int(2, 20),
            seconds: d.int(1, 3),
            seed: d.int(0, 99_999),
        }
    }

    /// Messages published in all.
    fn publishes(&self) -> u64 {
        u64::from(self.rate * self.seconds)
    }

    /// The lab's parameters: this chat with `adapter`, the first instance away from
    /// `away_at` for `away` ms (0: never).
    fn lab(&self, adapter: Adapter, away_at: u32, away: u32) -> Params {
        params(
            &INFO,
            &[
                ("adapter", adapter.word().into()),
                ("instances", self.instances.to_string()),
                ("rooms", self.rooms.to_string()),
                ("users", self.users.to_string()),
                ("alpha", self.alpha.to_string()),
                ("rate", self.rate.to_string()),
                ("seconds", self.seconds.to_string()),
                ("away_at", away_at.to_string()),
                ("away", away.to_string()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// The setup, in Bengali.
    fn scene(&self) -> String {
        format!(
            "{}টা API ইনস্ট্যান্স (আলাদা Node প্রসেস); {} জন ইউজার এলোমেলোভাবে ইনস্ট্যান্সগুলোতে আর {}টা রুমে ছড়ানো ({})। সবাই ঢোকার পরে {} সেকেন্ড ধরে সেকেন্ডে {}টা চ্যাট মেসেজ, প্রতিটা কোনো এক ইউজার থেকে তার রুমে।",
            int(self.instances.into()),
            int(self.users.into()),
            int(self.rooms.into()),
            if self.alpha == 0 {
                "রুমগুলো সমান জনপ্রিয়"
            } else {
                "কয়েকটা রুমে ভিড় বেশি"
            },
            int(self.seconds.into()),
            int(self.rate.into())
        )
    }
}

fn run_of(p: &Params) -> PubSubOutput {
    run(&p.read())
}

fn summary(r: &PubSubOutput, adapter: Adapter) -> &Summary {
    r.of(adapter)
}

fn plain_deliveries(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 41);
    let c = Chat::draw(&mut d);
    let p = c.lab(Adapter::Plain, 0, 0);
    let r = run_of(&p);
    let plain = summary(&r, Adapter::Plain);
    let right = plain.deliveries as i64;
    let pubs = c.publishes() as i64;
    let n = i64::from(c.instances);
    let mut hints = vec![
        (
            pubs,
            format!(
                "{} তো মোট PUBLISH — প্রতিটা মেসেজ pattern-এ মেলে এমন প্রত্যেক subscriber পায়, আর {}টা ইনস্ট্যান্সই `socket.io#/#*` শোনে।",
                int(pubs),
                int(n)
            ),
        ),
        (
            pubs * (n - 1),
            "প্রেরকের নিজের ইনস্ট্যান্সও নিজের subscriber সংযোগে মেসেজটা ফেরত পায় (পেয়ে \"same uid\" দেখে ফেলে দেয়) — সেটাও Redis-এর পাঠানো।".to_string(),
        ),
    ];
    let dynamic = summary(&r, Adapter::Dynamic).deliveries as i64;
    if dynamic != right {
        hints.push((
            dynamic,
            "এটা sharded adapter-এর রুমপ্রতি চ্যানেলে হতো — সাধারণ adapter-এ রুম যা-ই হোক, সব ইনস্ট্যান্স সব পায়।".into(),
        ));
    }
    hints.retain(|(v, _)| *v != right);
    Draft {
        text: format!(
            "{} সাধারণ adapter (`createAdapter`): প্রতিটা ইনস্ট্যান্স `PSUBSCRIBE` করে, মেসেজ যায় `PUBLISH`-এ। পুরো সময়ে Redis মোট কতবার কোনো ইনস্ট্যান্সের subscriber-কে মেসেজ পাঠায় (deliveries)?",
            c.scene()
        ),
        code: vec![
            "PSUBSCRIBE socket.io#/#*".into(),
            "PUBLISH socket.io#/#<room># <message>".into(),
        ],
        answer: Answer::Count { n: right, hints },
        why: format!(
            "{}টা মেসেজ, প্রতিটা pattern-এ মেলে বলে {}টা ইনস্ট্যান্সের সবাই পায় (প্রেরকেরটাও) — {} × {} = {}; যার রুমে কেউ নেই সে পেয়ে ফেলে দেয়: এই রানে {}টা অকারণ।",
            int(pubs),
            int(n),
            int(pubs),
            int(n),
            int(right),
            int(plain.wasted as i64)
        ),
        show: show_end(&p),
    }
}

fn sharded_deliveries(seed: u32) -> Draft {
    // A run where the per-room channels save something, and the options are all different.
    let (c, p, r) = until(seed, 42, 100, |d| {
        let c = Chat::draw(d);
        let p = c.lab(Adapter::Dynamic, 0, 0);
        let r = run_of(&p);
        let dy = summary(&r, Adapter::Dynamic);
        let pubs = c.publishes();
        let ok = dy.deliveries < pubs * u64::from(c.instances) && dy.deliveries > 2 * pubs;
        ok.then_some((c, p, r))
    });
    let dy = summary(&r, Adapter::Dynamic);
    let pubs = c.publishes() as i64;
    let n = i64::from(c.instances);
    let right = dy.deliveries as i64;
    let answer = counts(
        right,
        vec![
            (
                pubs * n,
                format!(
                    "{} হয় সাধারণ adapter-এ বা static মোডে — রুমপ্রতি চ্যানেলে মেসেজ পায় কেবল সেই ইনস্ট্যান্স, যার কাছে রুমের কেউ আছে।",
                    int(pubs * n)
                ),
            ),
            (
                pubs,
                "প্রতিটা মেসেজ অন্তত প্রেরকের ইনস্ট্যান্স পায় (নিজের চ্যানেলে সে-ও subscribed); রুমের সদস্য অন্য ইনস্ট্যান্সে থাকলে তারাও পায়।".into(),
            ),
            (
                right - pubs,
                "প্রেরকের ইনস্ট্যান্সও রুমের চ্যানেলে subscribed, তাই নিজের মেসেজ ফেরত পায় — সেটা ফেলে দেয়, কিন্তু Redis পাঠায় ঠিকই।".into(),
            ),
        ],
    );
    Draft {
        text: format!(
            "{} sharded adapter-এর default (dynamic) মোড: কোনো ইনস্ট্যান্সে রুমের প্রথম সদস্য এলে সে ওই রুমের চ্যানেলে `SSUBSCRIBE` করে, মেসেজ যায় সেই চ্যানেলে `SPUBLISH`-এ। পুরো সময়ে Redis মোট কতবার ইনস্ট্যান্সগুলোকে মেসেজ পাঠায়?",
            c.scene()
        ),
        code: vec![
            "SSUBSCRIBE socket.io#/#<room>#".into(),
            "SPUBLISH socket.io#/#<room># <message>".into(),
        ],
        answer,
        why: format!(
            "প্রতিটা মেসেজ পায় কেবল রুমের সদস্য আছে এমন ইনস্ট্যান্সগুলো (প্রেরকেরটা সহ): {}টা মেসেজে মোট {}টা — সাধারণ adapter-এর {}-এর চেয়ে কম; অকারণ শুধু প্রেরকের নিজের ফেরত {}টা।",
            int(pubs),
            int(right),
            int(pubs * n),
            int(dy.wasted as i64)
        ),
        show: show_end(&p),
    }
}

/// The away question's options: what happens to the first instance's users' messages.
const FATES: [&str; 4] = [
    "হারিয়ে যায় — প্রথম ইনস্ট্যান্সের ইউজাররা সেই সময়ের মেসেজ কখনো পায় না",
    "Redis জমিয়ে রাখে — সংযোগ ফিরলে ইনস্ট্যান্স সেগুলো একসাথে পায়",
    "শুধু সাধারণ adapter-এ হারায়; sharded adapter-এ `SSUBSCRIBE` থাকায় পরে পায়",
    "কিছুই হারায় না — সংযোগ যখন নেই তখন কোনো মেসেজই পাঠানো হয় না",
];

fn away(seed: u32) -> Draft {
    let adapter = Draw::new(seed, 43).one(Adapter::ALL);
    // The window inside the messages (something is lost) or after them (nothing is).
    let (c, away_at, gone, p, r) = until(seed, 44, 100, |d| {
        let c = Chat::draw(d);
        let span = c.seconds * 1000;
        let inside = d.chance(70);
        let away_at = if inside {
            d.int(0, span / 100 - 6) * 100
        } else {
            span + d.int(1, 10) * 100
        };
        let gone = d.int(5, 20) * 100;
        let p = c.lab(adapter, away_at, gone);
        let r = run_of(&p);
        (inside == (r.summary.lost > 0)).then_some((c, away_at, gone, p, r))
    });
    let lost = r.summary.lost;
    let right = if lost > 0 { 0 } else { 3 };
    let hints: Vec<(&str, String)> = vec![
        (
            FATES[0],
            format!(
                "সংযোগটা ছিন্ন হয় মেসেজ শেষ হওয়ার পরে ({} ms পর থেকে) — তখন আর কেউ কিছু পাঠায় না, তাই কিছুই হারায় না।",
                int(i64::from(c.seconds) * 1000)
            ),
        ),
        (
            FATES[1],
            "Pub/Sub কিছুই জমায় না: `PUBLISH`-এর মুহূর্তে যে subscriber শুনছে সে-ই পায়, বাকিদের জন্য মেসেজটা আর কোথাও নেই (জমাতে চাইলে Stream)।".into(),
        ),
        (
            FATES[2],
            "`SSUBSCRIBE`-ও Pub/Sub: shard চ্যানেলও কিছু জমায় না — তিন adapter-এই একই ইউজাররা একই মেসেজ হারায়।".into(),
        ),
        (
            FATES[3],
            "মেসেজ চলাকালেই সংযোগ ছিন্ন — তখন অন্য ইনস্ট্যান্সের ইউজাররা মেসেজ পাঠাতেই থাকে, শুধু প্রথম ইনস্ট্যান্স শোনে না।".into(),
        ),
    ];
    // The first bucket that loses a message; with nothing lost, the end.
    let at = r.position_of_first_loss().unwrap_or(r.steps());
    Draft {
        text: format!(
            "{} adapter: {}। মেসেজ শুরুর {} ms পরে প্রথম ইনস্ট্যান্সের subscriber সংযোগ ছিন্ন হয়, ফেরে {} ms পরে (তারপর আবার subscribe করে)। সংযোগ না থাকার সময়ে তার ইউজারদের রুমে পাঠানো মেসেজের কী হয়?",
            c.scene(),
            match adapter {
                Adapter::Plain => "সাধারণ (`PSUBSCRIBE`)",
                Adapter::Static => "sharded, static মোড (এক shard চ্যানেলে `SSUBSCRIBE`)",
                Adapter::Dynamic => "sharded, dynamic মোড (রুমপ্রতি চ্যানেলে `SSUBSCRIBE`)",
            },
            int(away_at.into()),
            int(gone.into())
        ),
        code: Vec::new(),
        answer: options(&hints, right),
        why: if lost > 0 {
            format!(
                "Pub/Sub কিছু রাখে না: সংযোগ না থাকার সময়ে প্রকাশিত মেসেজ প্রথম ইনস্ট্যান্সে আর কখনো পৌঁছায় না — এই রানে {}টা সকেট তাদের মেসেজ পায়নি, যে adapter-ই হোক।",
                int(lost as i64)
            )
        } else {
            format!(
                "মেসেজ চলে {} ms, সংযোগ ছিন্ন হয় তার পরে — সেই সময়ে কিছু প্রকাশিতই হয় না, তাই কারও কিছু হারায় না।",
                int(i64::from(c.seconds) * 1000)
            )
        },
        show: show(&p, at),
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
        let out: PubSubOutput = lab_output(show);
        match q.kind.as_str() {
            "plain-deliveries" => Truth::Count(out.of(Adapter::Plain).deliveries as i64),
            "sharded-deliveries" => Truth::Choice(int(out.of(Adapter::Dynamic).deliveries as i64)),
            "away" => {
                // Every adapter loses the same sockets; the chosen one is the one asked about.
                assert!(out.compare.iter().all(|s| s.lost == out.summary.lost));
                // Opens after the first bucket that loses a message (the end: nothing lost).
                let at = out.position_of_first_loss().unwrap_or(out.steps());
                assert_eq!(show.at, Some(at));
                Truth::Choice(FATES[if out.summary.lost > 0 { 0 } else { 3 }].into())
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn pubsub_questions_over_1000_seeds() {
        every_seed("pubsub", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("pubsub");
    }
}
