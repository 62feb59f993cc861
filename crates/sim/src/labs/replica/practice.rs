//! Questions on expiry and the replica (patterns deck, "Replica ১/৫" … "৫/৫"): how many keys
//! the second server's `INFO keyspace` counts right after it has loaded the snapshot (all of
//! the primary's, or fewer by the stale ones: an old Redis left them out of the RDB, a server
//! started from it as a primary drops them while loading), how many keys a read finds on a
//! replica that counts more or fewer than its primary (the live keys are the same on both
//! sides: nothing was lost), and when a stale key a client read as nil on the replica leaves
//! its count (when the primary's DEL arrives, the replication lag later: a replica never
//! expires a key itself). Every answer is read off the lab's own run ([`ReplicaOutput`]) of
//! the question's parameters.

use crate::labs::params::Params;
use crate::labs::replica::{run, Frame, LoadAs, ReplicaOutput, ReplicaParams, SnapshotKeys, INFO};
use crate::practice::pick::{int, until, Draw};
use crate::practice::{params, show, Answer, Draft, QuestionKind};

/// The replica lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "loaded",
        title: "লোডের পরে keys= কত",
        make: loaded,
    },
    QuestionKind {
        id: "reads",
        title: "replica-তে GET কয়টা key পায়",
        make: reads,
    },
    QuestionKind {
        id: "del",
        title: "মরা key replica-র গুনতি থেকে কখন যায়",
        make: del,
    },
];

/// A run as a question draws it: inside the lab's ranges, a few thousand keys and at most
/// two minutes and a half (so a frame every 500 ms), the lag a whole number of frames (the
/// replica loads on a frame).
struct Setup {
    snapshot: SnapshotKeys,
    load: LoadAs,
    keys: u32,
    volatile: u32,
    ttl_min: u32,
    ttl_max: u32,
    sync: u32,
    lag: u32,
    reads: u32,
    hz: u32,
    duration: u32,
    seed: u32,
}

impl Setup {
    fn draw(d: &mut Draw, snapshot: SnapshotKeys, load: LoadAs) -> Setup {
        let keys = d.int(4, 30) * 50;
        let ttl_min = d.int(1, 10);
        let sync = d.int(ttl_min + 5, 30);
        let lag = d.int(1, 6) * 500;
        Setup {
            snapshot,
            load,
            keys,
            volatile: d.int(4, 20) * 5,
            ttl_min,
            ttl_max: ttl_min + d.int(5, 90),
            sync,
            lag,
            // Up to 5 % of the keys a second: enough lazy deletions to see, not so many
            // that hardly a stale key is left for the sync.
            reads: d.int(0, keys / 200) * 10,
            hz: d.one(&[1, 2, 5, 10, 10, 10, 20]),
            duration: sync + 2 * lag / 1000 + d.int(6, 30),
            seed: d.int(0, 99_999),
        }
    }

    fn lab(&self) -> Params {
        params(
            &INFO,
            &[
                ("snapshot", self.snapshot.word().into()),
                ("load", self.load.word().into()),
                ("keys", self.keys.to_string()),
                ("volatile", self.volatile.to_string()),
                ("ttl_min", self.ttl_min.to_string()),
                ("ttl_max", self.ttl_max.to_string()),
                ("sync", self.sync.to_string()),
                ("lag", self.lag.to_string()),
                ("reads", self.reads.to_string()),
                ("hz", self.hz.to_string()),
                ("duration", self.duration.to_string()),
                ("seed", self.seed.to_string()),
            ],
        )
    }

    /// The primary and its keys, in Bengali.
    fn scene(&self) -> String {
        format!(
            "primary-তে {}টা key, {}%-এ TTL ({} থেকে {} সেকেন্ড); {}, active expire চক্র সেকেন্ডে {}বার (hz)।",
            int(self.keys.into()),
            int(self.volatile.into()),
            int(self.ttl_min.into()),
            int(self.ttl_max.into()),
            if self.reads == 0 {
                "কোনো client কিছু পড়ে না".to_string()
            } else {
                format!(
                    "একটা client primary-তে সেকেন্ডে {}টা এলোমেলো key `GET` করে",
                    int(self.reads.into())
                )
            },
            int(self.hz.into())
        )
    }

    /// The Redis that wrote the snapshot, in Bengali.
    fn version(&self) -> String {
        if self.snapshot == SnapshotKeys::SkipExpired {
            format!("Redis {}", crate::bn::text("4.0.9"))
        } else {
            format!("Redis {}", crate::bn::text("7.2"))
        }
    }
}

fn run_of(p: &Params) -> ReplicaOutput {
    run(&p.read::<ReplicaParams>())
}

/// The frame (its index, the lab's timeline position) at `t_ms`.
fn frame_at(r: &ReplicaOutput, t_ms: u64) -> usize {
    r.position_of(t_ms)
}

/// Seconds in Bengali, one decimal when it has one (`৩১.৫`).
fn secs(ms: u64) -> String {
    if ms % 1000 == 0 {
        int((ms / 1000) as i64)
    } else {
        crate::bn::dec(ms as f64 / 1000.0, 1)
    }
}

fn loaded(seed: u32) -> Draft {
    let (s, p, r) = until(seed, 121, 50, |d| {
        let snapshot = d.one(SnapshotKeys::ALL);
        let load = d.one(LoadAs::ALL);
        let s = Setup::draw(d, snapshot, load);
        let p = s.lab();
        let r = run_of(&p);
        let ok = r.at_sync.is_some_and(|a| a.stale > 0);
        ok.then_some((s, p, r))
    });
    let a = r.at_sync.expect("the sync is inside the run");
    let k = frame_at(&r, r.loaded_ms);
    let f: &Frame = &r.frames[k];
    let second = f.second.expect("loaded at this frame");
    let right = i64::from(second.keys);
    let (x, y) = (i64::from(a.keys), i64::from(a.stale));
    let replica = s.load == LoadAs::Replica;
    let mut hints = vec![
        (
            x,
            if replica {
                format!(
                    "{} snapshot লেখার সময়ই মেয়াদ-পেরোনো key বাদ দিত — replica সেগুলো কখনো পায়নি; নতুন Redis হলে {}টাই আসত।",
                    s.version(),
                    int(x)
                )
            } else {
                "primary হিসেবে চালু হওয়া সার্ভার RDB লোড করার সময়ই মেয়াদ-পেরোনো key ফেলে দেয় — replica হলে রেখে দিত।".to_string()
            },
        ),
        (
            x - y,
            format!(
                "{} snapshot-এ সব key রাখে, মরাগুলোও; আর replica নিজে কোনো key মোছে না — primary-র DEL না আসা পর্যন্ত {}টা মরা key-ও গোনে।",
                s.version(),
                int(y)
            ),
        ),
        (
            y,
            "এটা তো sync-এর মুহূর্তের মরা key-র সংখ্যা — প্রশ্ন সব key-র গুনতির (`keys=`)।".into(),
        ),
    ];
    if replica && i64::from(f.primary.keys) != right {
        hints.push((
            i64::from(f.primary.keys),
            format!(
                "এটা এই মুহূর্তে primary-র গুনতি — snapshot-এর পরে primary যা মুছেছে তার DEL এখনো পথে ({} ms lag)।",
                int(s.lag.into())
            ),
        ));
    }
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    let second_told = if replica {
        format!(
            "একটা নতুন replica জোড়া হয় (`REPLICAOF`): primary snapshot নেয়, replica সেটা লোড করে {} ms পরে ({} সেকেন্ডে)।",
            int(s.lag.into()),
            secs(r.loaded_ms)
        )
    } else {
        "primary snapshot নেয় (RDB ফাইল), আর সেই ফাইল থেকে আরেকটা সার্ভার primary হিসেবে চালু হয় — রিস্টার্ট বা ব্যাকআপ থেকে রিস্টোরের মতো।".to_string()
    };
    let (who, whose) = if replica {
        ("replica", "replica-র")
    } else {
        ("নতুন চালু হওয়া সার্ভারটা", "নতুন চালু হওয়া সার্ভারের")
    };
    Draft {
        text: format!(
            "{} primary চলে {}-এ। {} সেকেন্ডে primary-র `INFO keyspace` বলে keys={}; তার {}টার মেয়াদ পেরিয়ে গেছে, কিন্তু এখনো মোছা হয়নি। {} লোড শেষ হওয়ার সাথে সাথে {} `INFO keyspace`-এ keys= কত?",
            s.scene(),
            s.version(),
            int(s.sync.into()),
            int(x),
            int(y),
            second_told,
            whose
        ),
        code: if replica {
            vec![
                "REPLICAOF <primary> 6379   # on the new server".into(),
                "INFO keyspace".into(),
            ]
        } else {
            vec![
                "BGSAVE   # on the primary".into(),
                "INFO keyspace   # on the server started from dump.rdb".into(),
            ]
        },
        answer: Answer::Count { n: right, hints },
        why: match (s.snapshot, replica) {
            (SnapshotKeys::All, true) => format!(
                "snapshot-এ {}টাই ছিল, মরা {}টা সহ; replica নিজে মেয়াদ দেখে মোছে না, primary-র DEL-এর অপেক্ষা করে — তাই লোডের মুহূর্তে গুনতি primary-র sync-এর গুনতির সমান।",
                int(x),
                int(y)
            ),
            (SnapshotKeys::All, false) => format!(
                "snapshot-এ {}টাই ছিল, কিন্তু primary হিসেবে লোড করার সময় মেয়াদ-পেরোনো {}টা ফেলে দেয় — বাকি {}টা, যার সবই বেঁচে থাকা key।",
                int(x),
                int(i64::from(a.dropped)),
                int(right)
            ),
            _ => format!(
                "{} snapshot লেখার সময় মরা {}টা বাদ দিয়েছিল — {} শুরুই হয় কম গুনতি নিয়ে, অথচ বেঁচে থাকা key একটাও হারায়নি।",
                s.version(),
                int(y),
                who
            ),
        },
        show: show(&p, k),
    }
}

fn reads(seed: u32) -> Draft {
    let (s, p, r, k) = until(seed, 122, 50, |d| {
        let snapshot = d.one(&[
            SnapshotKeys::All,
            SnapshotKeys::All,
            SnapshotKeys::SkipExpired,
        ]);
        let s = Setup::draw(d, snapshot, LoadAs::Replica);
        let p = s.lab();
        let r = run_of(&p);
        // A frame after the load where the two counts differ.
        let from = frame_at(&r, r.loaded_ms) + 1;
        let differ: Vec<usize> = (from..r.frames.len())
            .filter(|&i| {
                let f = &r.frames[i];
                f.second.is_some_and(|c| c.keys != f.primary.keys)
            })
            .collect();
        if differ.is_empty() {
            return None;
        }
        let k = differ[d.int(0, differ.len() as u32 - 1) as usize];
        Some((s, p, r, k))
    });
    // Which of the two the question asks: the live keys or the stale ones.
    let ask_live = Draw::new(seed, 124).chance(50);
    let f = &r.frames[k];
    let c = f.second.expect("after the load");
    let (x, a, y) = (
        i64::from(f.primary.keys),
        i64::from(f.primary.stale),
        i64::from(c.keys),
    );
    let (right, hints) = if ask_live {
        let right = i64::from(c.live());
        let mut h = vec![
            (
                y,
                "replica-র keys= মরা key-ও গোনে — মেয়াদ পেরোনো key-তে replica `GET`-এ (nil) দেয়।".to_string(),
            ),
            (
                x,
                "এটা primary-র keys= — তাতেও মোছা-বাকি মরা key গোনা আছে।".into(),
            ),
            (
                y - a,
                "replica-র মরা key primary-র সমান নয়: primary যা মুছেছে তার DEL পথে থাকলে replica সেগুলোও ধরে রাখে। বেঁচে থাকা key-র হিসাব primary থেকে করুন।".into(),
            ),
        ];
        h.retain(|(v, _)| *v != right);
        (right, h)
    } else {
        let right = i64::from(c.stale);
        let mut h = vec![
            (
                a,
                "এটা primary-র মরা key — replica-তে এগুলো তো আছেই, সাথে আছে primary-র মুছে ফেলা সেই key-গুলো যাদের DEL এখনো পৌঁছায়নি।".to_string(),
            ),
            (
                0,
                "replica নিজে মেয়াদ দেখে কিছু মোছে না — মরা key তার গুনতিতে থাকে primary-র DEL আসা পর্যন্ত।".into(),
            ),
            (
                (y - x).abs(),
                "এটা শুধু দুই গুনতির ফারাক — দুদিকেই যে মরা key এখনো মোছা হয়নি, সেগুলোও replica-র keys=-এ আছে।".into(),
            ),
        ];
        h.retain(|(v, _)| *v != right);
        h.dedup_by_key(|(v, _)| *v);
        (right, h)
    };
    let question = if ask_live {
        "replica-র কয়টা key-তে `GET` করলে মান পাওয়া যায় (nil নয়)?"
    } else {
        "replica-র keys=-এ গোনা key-গুলোর কয়টা আসলে মরা — মেয়াদ পেরোনো, শুধু মোছা বাকি?"
    };
    Draft {
        text: format!(
            "{} primary চলে {}-এ; {} সেকেন্ডে replica জোড়া হয়, replication lag {} ms। {} সেকেন্ডে primary-র `INFO keyspace` বলে keys={}, তার {}টার মেয়াদ পেরিয়ে গেছে (মোছা বাকি); replica-র `INFO keyspace` বলে keys={}। {}",
            s.scene(),
            s.version(),
            int(s.sync.into()),
            int(s.lag.into()),
            secs(f.t_ms),
            int(x),
            int(a),
            int(y),
            question
        ),
        code: vec!["INFO keyspace   # on both".into(), "GET <key>   # on the replica".into()],
        answer: Answer::Count { n: right, hints },
        why: format!(
            "কিছুই হারায়নি: বেঁচে থাকা key দুদিকে সমান — primary-তে {} − {} = {}; replica-র {}টার বাকি {}টা মরা, primary-র DEL-এর অপেক্ষায়।",
            int(x),
            int(a),
            int(x - a),
            int(y),
            int(y - (x - a))
        ),
        show: show(&p, k),
    }
}

fn del(seed: u32) -> Draft {
    let (s, p, r) = until(seed, 123, 50, |d| {
        let snapshot = d.one(SnapshotKeys::ALL);
        let s = Setup::draw(d, snapshot, LoadAs::Replica);
        let p = s.lab();
        let r = run_of(&p);
        // The probe found a stale key the replica holds, and its DEL's arrival is noted.
        let noted = r
            .log
            .iter()
            .any(|l| l.actor == "replica" && l.cmd.is_empty());
        noted.then_some((s, p, r))
    });
    let get = r
        .log
        .iter()
        .find(|l| l.actor == "replica" && l.cmd.first().is_some_and(|w| w == "GET"))
        .expect("the probe's GET on the replica");
    let key = get.cmd[1].clone();
    let t = get.at_ms;
    let arrived = r
        .log
        .iter()
        .find(|l| l.actor == "replica" && l.cmd.is_empty())
        .expect("the DEL's note");
    let right = arrived.at_ms as i64;
    let lag = i64::from(s.lag);
    let mut hints = vec![
        (
            t as i64,
            "replica-র `GET` (nil) দেয়, কিন্তু key মোছে না — replica কখনো নিজে মেয়াদ ধরে মোছে না।"
                .to_string(),
        ),
        (
            t as i64 + 1000 / i64::from(s.hz),
            "replica-তে active expire চক্র মরা key মোছে না — মোছা আসে শুধু primary-র DEL হয়ে।".into(),
        ),
        (
            t as i64 + 2 * lag,
            "DEL যায় একবারই, primary থেকে replica-তে — একটা lag, আসা-যাওয়া নয়।".into(),
        ),
    ];
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    let k = frame_at(&r, arrived.at_ms);
    Draft {
        text: format!(
            "{} primary চলে {}-এ; {} সেকেন্ডে replica জোড়া হয়, replication lag {} ms, replica লোড শেষ করে {} সেকেন্ডে। রানের {} ms-এ একটা key-র মেয়াদ পেরিয়ে গেছে, কিন্তু কোনো দিকেই এখনো মোছা হয়নি। তখন একটা client আগে replica-তে সেটা `GET` করে, তারপর primary-তে (নিচের কমান্ডগুলো)। রানের শুরু থেকে কত ms-এ replica-র keys= থেকে key-টা বাদ পড়ে?",
            s.scene(),
            s.version(),
            int(s.sync.into()),
            int(lag),
            secs(r.loaded_ms),
            int(t as i64)
        ),
        code: vec![
            format!("GET {key}   # on the replica"),
            "DBSIZE   # on the replica".into(),
            format!("GET {key}   # on the primary"),
        ],
        answer: Answer::Count { n: right, hints },
        why: format!(
            "replica-তে `GET` (nil) দেয় কিন্তু key রেখে দেয়; primary-র `GET` key-টা lazy-ভাবে মোছে আর replica-কে DEL পাঠায়, যা পৌঁছায় {} ms পরে — {} + {} = {} ms।",
            int(lag),
            int(t as i64),
            int(lag),
            int(right)
        ),
        show: show(&p, k),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::practice::tests::{every_seed, lab_output, Truth};
    use crate::practice::Question;

    /// What the lab's own run (through the worker protocol) says the answer is, at the frame
    /// "show me" opens on.
    fn rerun(q: &Question) -> Truth {
        let show = q.draft.show.as_ref().expect("every question shows the lab");
        let out: ReplicaOutput = lab_output(show);
        let f = &out.frames[show.at.expect("a frame")];
        let second = f.second.expect("the second server has loaded");
        match q.kind.as_str() {
            "loaded" => {
                assert_eq!(f.t_ms, out.loaded_ms, "the frame of the load");
                Truth::Count(second.keys.into())
            }
            "reads" if q.draft.text.contains("মান পাওয়া যায়") => {
                assert_eq!(second.live(), f.primary.live(), "nothing lost");
                Truth::Count((second.keys - second.stale).into())
            }
            "reads" => Truth::Count(second.stale.into()),
            "del" => {
                let l = out
                    .log
                    .iter()
                    .find(|l| l.note.contains("পৌঁছল"))
                    .expect("the DEL arrives");
                assert_eq!(f.t_ms, l.at_ms, "the frame of the DEL");
                Truth::Count(l.at_ms as i64)
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn replica_questions_over_1000_seeds() {
        every_seed("replica", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("replica");
    }
}
