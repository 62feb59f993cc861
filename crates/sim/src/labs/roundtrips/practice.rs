//! Questions on presence's four commands sent five ways: how long one client's update takes
//! under a drawn round trip (four round trips one by one, one in a pipeline, in MULTI/EXEC or
//! as a script, two with WATCH), how many members end up over the room's limit when several
//! clients mark at once, and what `TTL` the room's key has after an update stopped part-way at
//! an error (no rollback: the pipeline's and the transaction's `EXPIRE` still ran). Every
//! answer is read off the lab's own run ([`RoundTripsOutput`]) of the question's parameters.

use crate::labs::def::Steps;
use crate::labs::params::Params;
use crate::labs::roundtrips::{run, RoomType, RoundTripsOutput, Way, INFO, ROOM_TTL};
use crate::practice::pick::{int, options, Draw};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The round-trips lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "took",
        title: "এক আপডেটে কত সময়",
        make: took,
    },
    QuestionKind {
        id: "over",
        title: "রুম সীমা ছাড়ায় কতজন",
        make: over,
    },
    QuestionKind {
        id: "ttl-after-error",
        title: "এররের পরে রুমের TTL",
        make: ttl_after_error,
    },
];

/// The ways, with how the questions name them (Bengali) and their round trips.
const WAYS: [(Way, &str, i64); 5] = [
    (
        Way::OneByOne,
        "একটা একটা করে (প্রতিটা কমান্ড আগেরটার উত্তরের পরে)",
        4,
    ),
    (Way::Pipeline, "চারটাই এক pipeline-এ", 1),
    (Way::Multi, "`MULTI` … `EXEC`-এ মুড়ে, এক pipeline-এ", 1),
    (
        Way::Watch,
        "আগে `WATCH` আর `ZCARD`, তারপর `MULTI` … `EXEC`",
        2,
    ),
    (Way::Script, "`markactive` Lua স্ক্রিপ্ট, এক `EVALSHA`-তে", 1),
];

fn way_of(mode: Way) -> (Way, &'static str, i64) {
    *WAYS.iter().find(|w| w.0 == mode).expect("a way")
}

/// The commands of a way, as code lines.
fn code(mode: Way, limit: u32) -> Vec<String> {
    let four = [
        "PFADD hll:room:42 <viewer>".to_string(),
        "ZCARD presence:room:42".to_string(),
        match mode {
            Way::OneByOne => format!("ZADD presence:room:42 <now> <viewer>   # if ZCARD < {limit}"),
            _ => "ZADD presence:room:42 <now> <viewer>   # sent before ZCARD's reply".into(),
        },
        format!("EXPIRE presence:room:42 {ROOM_TTL}"),
    ];
    match mode {
        Way::Multi => ["MULTI".to_string()]
            .into_iter()
            .chain(four)
            .chain(["EXEC".to_string()])
            .collect(),
        Way::Watch => vec![
            "WATCH presence:room:42".into(),
            "ZCARD presence:room:42".into(),
            "MULTI".into(),
            "PFADD hll:room:42 <viewer>".into(),
            "ZADD presence:room:42 <now> <viewer>".into(),
            format!("EXPIRE presence:room:42 {ROOM_TTL}"),
            "EXEC".into(),
        ],
        Way::Script => vec![format!(
            "EVALSHA <markactive> 2 presence:room:42 hll:room:42 <now> <viewer> {limit}"
        )],
        Way::OneByOne | Way::Pipeline => four.to_vec(),
    }
}

fn lab(pairs: &[(&str, String)]) -> Params {
    let mut all: Vec<(&str, String)> = vec![
        ("spread", "0".into()),
        ("room_type", RoomType::Zset.word().into()),
    ];
    all.extend(pairs.iter().cloned());
    params(&INFO, &all)
}

fn run_of(p: &Params) -> RoundTripsOutput {
    run(&p.read())
}

fn took(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 61);
    let mode = d.one(Way::ALL);
    let rtt = d.int(1, 40) * 5;
    let limit = d.int(10, 1000);
    let room = d.int(0, limit - 1);
    let p = lab(&[
        ("mode", mode.word().into()),
        ("rtt", rtt.to_string()),
        ("clients", "1".into()),
        ("room", room.to_string()),
        ("limit", limit.to_string()),
        ("seed", d.int(0, 9999).to_string()),
    ]);
    let r = run_of(&p);
    let right = r.way(mode).slowest_ms as i64;
    let (_, told, _) = way_of(mode);
    let rtt = i64::from(rtt);
    let mut hints: Vec<(i64, String)> = Vec::new();
    for (m, _, trips) in WAYS {
        let v = rtt * trips;
        if v != right && !hints.iter().any(|(h, _)| *h == v) {
            hints.push((
                v,
                format!(
                    "{} রাউন্ড-ট্রিপ ({}) — এই পথে ক্লায়েন্ট {}বার উত্তরের অপেক্ষা করে; Redis-এর নিজের চালানোর সময় প্রায় শূন্য।",
                    int(trips),
                    m.label(),
                    int(right / rtt)
                ),
            ));
        }
    }
    Draft {
        text: format!(
            "একটা ক্লায়েন্ট একজন নতুন দর্শককে রুমে তোলে: `PFADD`, `ZCARD`, (রুম সীমার নিচে হলে) `ZADD`, `EXPIRE` — পাঠায় {}। ক্লায়েন্ট আর Redis-এর মাঝে রাউন্ড-ট্রিপ {} ms, রুমে আছে {} জন, সীমা {}। প্রথম পাঠানো থেকে শেষ উত্তর পাওয়া পর্যন্ত কত ms লাগে?",
            told,
            int(rtt),
            int(room.into()),
            int(limit.into())
        ),
        code: code(mode, limit),
        answer: Answer::Count { n: right, hints },
        why: format!(
            "{}: {}টা রাউন্ড-ট্রিপ, প্রতিটা {} ms — {} ms; কমান্ড কয়টা তা নয়, উত্তরের জন্য কয়বার থামতে হয় সেটাই সময় ঠিক করে।",
            told,
            int(right / rtt),
            int(rtt),
            int(right)
        ),
        show: show_end(&p),
    }
}

fn over(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 62);
    let mode = d.one(Way::ALL);
    let clients = d.int(2, 6);
    let limit = d.int(5, 600);
    let free = d.int(0, 2).min(clients - 1);
    let room = limit - free;
    let rtt = d.int(1, 20) * 5;
    let p = lab(&[
        ("mode", mode.word().into()),
        ("rtt", rtt.to_string()),
        ("clients", clients.to_string()),
        ("room", room.to_string()),
        ("limit", limit.to_string()),
        ("seed", d.int(0, 9999).to_string()),
    ]);
    let r = run_of(&p);
    let w = r.way(mode);
    let right = w.over;
    let (c, f) = (i64::from(clients), i64::from(free));
    let check_in_client =
        "যাচাই হয় ক্লায়েন্টে: সবাই একসাথে শুরু করে, তাই সবার `ZCARD` দেখে রুমে জায়গা আছে, কারও `ZADD` তখনো পৌঁছায়নি";
    let blind = "`ZADD` চলে যায় `ZCARD`-এর উত্তর আসার আগেই — যাচাই কিছুই থামাতে পারে না; MULTI শুধু মাঝে কাউকে ঢুকতে দেয় না";
    let guarded = "যাচাই আর লেখা একসাথে: স্ক্রিপ্ট Redis-এর ভেতরে এক টানে চলে, আর WATCH-এ কেউ রুম ছুঁলে `EXEC` nil দেয়, ক্লায়েন্ট আবার পড়ে";
    let mut hints: Vec<(i64, String)> = vec![
        (
            0,
            match mode {
                Way::OneByOne => check_in_client.to_string(),
                _ => blind.to_string(),
            },
        ),
        (
            c - f,
            match mode {
                Way::Pipeline | Way::Multi => {
                    format!("{} — রুম ভরা থাকলেও লেখা হয়, তাই {} জনই ঢোকে।", blind, int(c))
                }
                Way::OneByOne => "রুম আগেই সীমায়: সবার `ZCARD` সীমা দেখে, কেউ `ZADD` পাঠায় না।".into(),
                _ => format!("{guarded} — রুম ঠিক সীমায় থামে।"),
            },
        ),
        (
            c,
            match mode {
                Way::Script | Way::Watch => format!("{guarded} — রুম ঠিক সীমায় থামে।"),
                _ => format!(
                    "রুমে আগে থেকেই {} জন, সীমা {} — {} জন ঢুকলে সীমা ছাড়ায় তার বেশিটুকু।",
                    int(i64::from(room)),
                    int(i64::from(limit)),
                    int(c)
                ),
            },
        ),
    ];
    hints.retain(|(v, _)| *v != right);
    hints.dedup_by_key(|(v, _)| *v);
    let at = r.position_over_limit().unwrap_or(r.steps());
    Draft {
        text: format!(
            "রুমের sorted set-এ আছে {} জন, সীমা {}। {}টা ক্লায়েন্ট একই মুহূর্তে একজন করে নতুন দর্শক তোলে — প্রত্যেকে {} পাঠায় `PFADD`, `ZCARD`, (রুম সীমার নিচে হলে) `ZADD`, `EXPIRE`; রাউন্ড-ট্রিপ {} ms। শেষে রুম সীমার চেয়ে কতজন বেশি?",
            int(i64::from(room)),
            int(i64::from(limit)),
            int(c),
            way_of(mode).1,
            int(i64::from(rtt))
        ),
        code: code(mode, limit),
        answer: Answer::Count { n: right, hints },
        why: format!(
            "{}; শেষে রুমে {} জন, সীমা {} — {} জন বেশি।",
            match mode {
                Way::OneByOne => check_in_client,
                Way::Pipeline | Way::Multi => blind,
                _ => guarded,
            },
            int(w.room_after.unwrap_or(0)),
            int(i64::from(limit)),
            int(right)
        ),
        show: show(&p, at),
    }
}

/// The `TTL` question's options, Redis' replies as `redis-cli` prints them.
fn ttl_options() -> [String; 3] {
    [
        format!("(integer) {ROOM_TTL}"),
        "(integer) -1".into(),
        "(integer) -2".into(),
    ]
}

fn ttl_after_error(seed: u32) -> Draft {
    let mut d = Draw::new(seed, 63);
    let mode = d.one(Way::ALL);
    let rtt = d.int(1, 200);
    let clients = d.int(1, 4);
    let p = lab(&[
        ("mode", mode.word().into()),
        ("rtt", rtt.to_string()),
        ("clients", clients.to_string()),
        ("room_type", RoomType::String.word().into()),
        ("seed", d.int(0, 9999).to_string()),
    ]);
    let r = run_of(&p);
    let w = r.way(mode);
    let got = format!("(integer) {}", w.room_ttl);
    let opts = ttl_options();
    let right = opts.iter().position(|o| *o == got).unwrap_or(0);
    let ran_on = matches!(mode, Way::Pipeline | Way::Multi);
    let why_wrong = [
        "`EXPIRE` পর্যন্ত পৌঁছায়ই না: এই পথে `ZCARD`-এর এরর ক্লায়েন্ট (বা স্ক্রিপ্ট) সাথে সাথে থামায়, পরের কমান্ড আর যায় না।".to_string(),
        "pipeline আর `EXEC` এরর পেলেও পরের কমান্ডগুলো চালায় — rollback নেই; `EXPIRE` string key-তেও TTL বসায়।".to_string(),
        "key মোছে না কেউ: এরর মানে শুধু ওই কমান্ডটা চলেনি, string key যেমন ছিল তেমনই থাকে।".to_string(),
    ];
    let all: Vec<(&str, String)> = opts.iter().map(String::as_str).zip(why_wrong).collect();
    let at = r.position_of_error().unwrap_or(r.steps());
    Draft {
        text: format!(
            "একটা বাগে রুমের key-তে sorted set-এর জায়গায় একটা string বসে আছে (TTL নেই), তাই `ZCARD` `WRONGTYPE` এরর দেয়। {}টা ক্লায়েন্ট একজন করে দর্শক তোলে, পাঠায় {}; রাউন্ড-ট্রিপ {} ms। সব শেষে `TTL` কী উত্তর দেয়?",
            int(clients.into()),
            way_of(mode).1,
            int(i64::from(rtt))
        ),
        code: code(mode, 500)
            .into_iter()
            .chain(["TTL presence:room:42   # at the end".to_string()])
            .collect(),
        answer: options(&all, right),
        why: if ran_on {
            format!(
                "Redis rollback করে না: pipeline বা `EXEC`-এর ভেতরে `ZCARD` এরর দিলেও বাকি কমান্ড চলে, `EXPIRE` string key-তে {} s TTL বসায়।",
                int(ROOM_TTL as i64)
            )
        } else {
            "`ZCARD`-এর এররে ক্লায়েন্ট থামে (স্ক্রিপ্টও সেখানেই থামে), `EXPIRE` কখনো চলে না — string-টা TTL ছাড়াই থাকে; আগের `PFADD` অবশ্য থেকে যায়, rollback নেই।".into()
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
        let out: RoundTripsOutput = lab_output(show);
        let w = out.shown();
        match q.kind.as_str() {
            "took" => {
                assert_eq!(show.at, None, "the whole run");
                Truth::Count(w.clients[0].took_ms as i64)
            }
            "over" => {
                // Opens where the room first goes over its limit (or at the end).
                let at = out.position_over_limit().unwrap_or(out.steps());
                assert_eq!(show.at, Some(at));
                Truth::Count(w.room_after.expect("a sorted set") - i64::from(out.params.limit))
            }
            "ttl-after-error" => {
                // Opens after the first error reply: `ZCARD` on the string.
                let at = out.position_of_error().expect("an error");
                assert_eq!(show.at, Some(at));
                assert!(w.ran[at - 1].reply.is_error());
                Truth::Choice(format!("(integer) {}", w.room_ttl))
            }
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn roundtrips_questions_over_1000_seeds() {
        every_seed("roundtrips", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("roundtrips");
    }
}
