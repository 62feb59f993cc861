//! Questions on list queues with a worker that dies: what becomes of the job in its hands
//! (`BRPOP`: lost; `BLMOVE`: stuck in the processing list; with recovery: put back and done —
//! once, twice when the worker had already sent the email, or once again with the
//! idempotency key), how many of the jobs' emails go out, and how many emails are sent in all
//! (at-least-once counts a job twice). Every answer is read off the lab's own run
//! ([`QueuesOutput`]) of the question's parameters.

use crate::labs::params::{Params, Switch};
use crate::labs::queues::{run, CrashIn, Place, Queue, QueuesOutput, QueuesParams, INFO};
use crate::practice::pick::{int, options, until};
use crate::practice::{params, show, show_end, Answer, Draft, QuestionKind};

/// The queues lab's question kinds.
pub const KINDS: &[QuestionKind] = &[
    QuestionKind {
        id: "fate",
        title: "মরা worker-এর job-এর কী হয়",
        make: fate,
    },
    QuestionKind {
        id: "done",
        title: "কয়টা job-এর ইমেইল যায়",
        make: done,
    },
    QuestionKind {
        id: "sent",
        title: "মোট কয়টা ইমেইল যায়",
        make: sent,
    },
];

/// What happens to the dead worker's job: the options of the fate question, in the order of
/// the setups that lead to them.
const FATES: [&str; 5] = [
    "হারিয়ে যায় — Redis-এ আর কোথাও নেই, ইমেইল যায় না",
    "processing লিস্টে পড়ে থাকে — কেউ শেষ করে না, ইমেইল যায় না",
    "recovery ফেরত দেয়, আরেকবার চলে — ইমেইল যায় একবার",
    "recovery ফেরত দেয়, আরেকবার চলে — ইমেইল যায় দুবার",
    "recovery ফেরত দেয়, দ্বিতীয় রান `done:<id>` দেখে কিছু পাঠায় না — ইমেইল একবার",
];

/// The five setups the questions draw: queue, recovery, where the worker dies, idempotency
/// key — each leads to the fate of the same index.
const SETUPS: [(Queue, Switch, CrashIn, Switch); 5] = [
    (Queue::Simple, Switch::Off, CrashIn::Work, Switch::Off),
    (Queue::Reliable, Switch::Off, CrashIn::Work, Switch::Off),
    (Queue::Reliable, Switch::On, CrashIn::Work, Switch::Off),
    (Queue::Reliable, Switch::On, CrashIn::Ack, Switch::Off),
    (Queue::Reliable, Switch::On, CrashIn::Ack, Switch::On),
];

/// The fate (an index of [`FATES`]) of the job the dead worker held, read off a run.
fn fate_of(r: &QueuesOutput) -> Option<usize> {
    let job = r.crash()?.job?;
    let j = r.end.jobs.iter().find(|j| j.id == job)?;
    Some(match (j.place, j.effects, j.takes) {
        (Place::Lost, 0, _) => 0,
        (Place::Stuck, 0, _) => 1,
        (Place::Done, 1, t) if t >= 2 && r.end.counters.skipped > 0 => 4,
        (Place::Done, 1, t) if t >= 2 => 2,
        (Place::Done, 2, _) => 3,
        _ => return None,
    })
}

/// A run as the questions draw it: `setup` (an index of [`SETUPS`]), its worker w1 dying
/// once, drawn until the job in its hands meets that setup's fate.
struct Drawn {
    jobs: u32,
    workers: u32,
    work: u32,
    every: u32,
    visibility: u32,
    setup: usize,
    p: Params,
    r: QueuesOutput,
}

fn draw(seed: u32, salt: u32, setup: usize) -> Drawn {
    until(seed, salt, 100, |d| {
        let (queue, recovery, crash_in, idem) = SETUPS[setup];
        let jobs = d.int(3, 10);
        let workers = d.int(2, 3);
        let work = d.int(2, 15) * 100;
        let every = d.int(1, 10) * 50;
        let visibility = work + d.int(5, 30) * 100;
        let p = params(
            &INFO,
            &[
                ("queue", queue.word().into()),
                ("recovery", recovery.word().into()),
                ("idem", idem.word().into()),
                ("jobs", jobs.to_string()),
                ("workers", workers.to_string()),
                ("work", work.to_string()),
                ("every", every.to_string()),
                ("block", "5".into()),
                ("crash", "w1".into()),
                ("crash_in", crash_in.word().into()),
                ("crash_at", (d.int(0, 20) * 100).to_string()),
                ("restart", (d.int(0, 6) * 500).to_string()),
                ("visibility", visibility.to_string()),
                ("recover_every", (d.int(2, 10) * 100).to_string()),
                ("seed", d.int(0, 99_999).to_string()),
            ],
        );
        let r = run(&p.read::<QueuesParams>());
        let ok = !r.cut_short && r.end.counters.crashes == 1 && fate_of(&r) == Some(setup);
        ok.then_some(Drawn {
            jobs,
            workers,
            work,
            every,
            visibility,
            setup,
            p,
            r,
        })
    })
}

impl Drawn {
    /// The run, in Bengali.
    fn told(&self) -> String {
        let (queue, recovery, crash_in, idem) = SETUPS[self.setup];
        let crash = self.r.crash().expect("w1 died");
        format!(
            "producer `queue:emails`-এ {}টা ইমেইল job `LPUSH` করে, প্রতি {} ms-এ একটা; {}টা worker {} দিয়ে job নেয়, প্রতিটায় কাজ {} ms{}। worker `w1` {} ms-এ মারা যায় — {}।{}{}",
            int(self.jobs.into()),
            int(self.every.into()),
            int(self.workers.into()),
            if queue == Queue::Simple {
                "`BRPOP`"
            } else {
                "`BLMOVE`-এ processing লিস্টে সরিয়ে"
            },
            int(self.work.into()),
            if queue == Queue::Simple {
                String::new()
            } else {
                ", শেষে `LREM` দিয়ে processing থেকে সরায়".to_string()
            },
            int(crash.at_ms as i64),
            if crash_in == CrashIn::Work {
                "হাতের job-এর কাজের মাঝখানে, ইমেইল পাঠানোর আগে"
            } else {
                "হাতের job-এর ইমেইল পাঠানোর ঠিক পরে, `LREM`-এর আগে"
            },
            if recovery == Switch::On {
                format!(
                    " recovery চালু: {} ms-এর বেশি আগে শুরু হওয়া job processing থেকে ফেরত যায় queue-তে।",
                    int(self.visibility.into())
                )
            } else {
                String::new()
            },
            if idem == Switch::On {
                " idempotency key চালু: কাজের আগে `GET done:<id>`, ইমেইলের সাথে `SET done:<id> … NX`।"
            } else {
                ""
            }
        )
    }

    fn code(&self) -> Vec<String> {
        let (queue, recovery, _, idem) = SETUPS[self.setup];
        let mut c = vec!["LPUSH queue:emails <job>".to_string()];
        if queue == Queue::Simple {
            c.push("BRPOP queue:emails 5".into());
        } else {
            c.push("BLMOVE queue:emails queue:emails:processing RIGHT LEFT 5".into());
            if idem == Switch::On {
                c.push("GET done:<id>   # before the work".into());
                c.push("SET done:<id> 1 NX EX 86400   # with the email".into());
            }
            c.push("LREM queue:emails:processing 1 <job>".into());
            if recovery == Switch::On {
                c.push(format!(
                    "ZRANGEBYSCORE queue:emails:started -INF <now-{}>   # recovery",
                    self.visibility
                ));
            }
        }
        c
    }

    /// The timeline's position (1-based) that shows the crash.
    fn crash_step(&self) -> usize {
        let s = self.r.crash().expect("w1 died").step;
        self.r
            .commands
            .iter()
            .position(|c| c.step >= s)
            .map_or(self.r.commands.len(), |i| i + 1)
            .max(1)
    }
}

fn fate(seed: u32) -> Draft {
    let setup = crate::practice::pick::Draw::new(seed, 91).int(0, 4) as usize;
    let d = draw(seed, 92, setup);
    let hints: Vec<(&str, String)> = vec![
        (
            FATES[0],
            "job হারায় কেবল `BRPOP`-এ: সেখানে নেওয়ার মুহূর্তেই সেটা Redis থেকে চলে যায়; `BLMOVE` একই ধাপে processing লিস্টে রেখে দেয়।".into(),
        ),
        (
            FATES[1],
            if setup == 0 {
                "`BRPOP`-এ processing লিস্ট বলে কিছু নেই — নেওয়ার সাথে সাথে job Redis থেকে চলে যায়।".into()
            } else {
                "recovery চালু থাকলে processing-এ পড়ে থাকা পুরোনো job visibility পেরোলে queue-তে ফেরত যায়।".into()
            },
        ),
        (
            FATES[2],
            if setup == 3 {
                "`w1` ইমেইল পাঠিয়ে ফেলেছিল, শুধু `LREM` বাকি ছিল — ফেরত আসা job আবার চলে, ইমেইল যায় আবার।".into()
            } else {
                "ফেরত দেওয়ার কেউ নেই: recovery বন্ধ থাকলে মরা worker-এর job কেউ ছোঁয় না।".into()
            },
        ),
        (
            FATES[3],
            if setup == 4 {
                "দ্বিতীয় রান কাজের আগে `GET done:<id>` দেখে — key আছে, তাই শুধু acknowledge করে, ইমেইল আর যায় না।".into()
            } else {
                "`w1` মরেছে ইমেইল পাঠানোর আগেই — প্রথম রানের ইমেইল যায়নি, তাই দুবার হওয়ার উপায় নেই।".into()
            },
        ),
        (
            FATES[4],
            "idempotency key বন্ধ — দ্বিতীয় রানকে থামানোর মতো `done:<id>` কেউ লেখে না।".into(),
        ),
    ];
    let job = d.r.crash().and_then(|c| c.job).expect("a job in hand");
    Draft {
        text: format!(
            "{} `w1`-এর হাতের job-টার শেষমেশ কী হয়?",
            d.told()
        ),
        code: d.code(),
        answer: options(&hints, setup),
        why: format!(
            "{} — এই রানে job {}: {}।",
            match setup {
                0 => "`BRPOP` নেওয়ার সাথে সাথে job Redis থেকে মুছে যায়; worker মরলে আর কোথাও থাকে না",
                1 => "`BLMOVE` job-টা processing লিস্টে রাখে, কিন্তু recovery না থাকলে সেখান থেকে কেউ ফেরত আনে না",
                2 => "processing লিস্টে থাকা job visibility পেরোলে recovery queue-তে ফেরত দেয়, আরেক worker সেটা করে",
                3 => "ইমেইল চলে গিয়েছিল, `LREM` হয়নি — recovery ফেরত দেয়, আবার চলে: at-least-once মানে দুবারও হতে পারে",
                _ => "ফেরত আসা job-এর দ্বিতীয় রান `done:<id>` পেয়ে শুধু acknowledge করে",
            },
            int(job.into()),
            FATES[setup]
        ),
        show: show(&d.p, d.crash_step()),
    }
}

/// Hints for a count of emails: the jobs, and one fewer.
fn email_hints(d: &Drawn, right: i64) -> Vec<(i64, String)> {
    let n = i64::from(d.jobs);
    let mut h = vec![
        (
            n,
            match d.setup {
                0 => "মরা worker-এর job `BRPOP`-এ Redis থেকে চলে গিয়েছিল — সেটার ইমেইল কখনো যায় না।"
                    .into(),
                1 => "মরা worker-এর job processing লিস্টে পড়ে থাকে, recovery নেই — সেটার ইমেইল যায় না।"
                    .into(),
                _ => "একটা job দুবার চলে: ইমেইল পাঠানোর পরে worker মরেছিল, ফেরত আসা job আবার পাঠায়।".into(),
            },
        ),
        (
            n - 1,
            "মরা worker-এর job হারায় না: processing লিস্ট থেকে recovery ফেরত দেয়, আরেকজন শেষ করে।"
                .into(),
        ),
        (
            n + 1,
            "দ্বিতীয় রান থামে idempotency key-তে, বা প্রথম রানের ইমেইল যায়ইনি — কোনো ইমেইল দুবার যায় না।"
                .into(),
        ),
    ];
    h.retain(|(v, _)| *v != right);
    h
}

fn done(seed: u32) -> Draft {
    let setup = crate::practice::pick::Draw::new(seed, 93).int(0, 4) as usize;
    let d = draw(seed, 94, setup);
    let right = i64::from(d.r.end.counters.done);
    let mut hints = email_hints(&d, right);
    hints.retain(|(v, _)| *v <= i64::from(d.jobs));
    Draft {
        text: format!("{} সব শেষে কয়টা job-এর ইমেইল অন্তত একবার যায়?", d.told()),
        code: d.code(),
        answer: Answer::Count { n: right, hints },
        why: format!(
            "{}টা job-এর মধ্যে {}টার ইমেইল যায় — `w1`-এর হাতের job: {}।",
            int(d.jobs.into()),
            int(right),
            FATES[d.setup]
        ),
        show: show_end(&d.p),
    }
}

fn sent(seed: u32) -> Draft {
    let setup = crate::practice::pick::Draw::new(seed, 95).int(0, 4) as usize;
    let d = draw(seed, 96, setup);
    let c = d.r.end.counters;
    let right: i64 = d.r.end.jobs.iter().map(|j| i64::from(j.effects)).sum();
    Draft {
        text: format!(
            "{} সব শেষে মোট কয়টা ইমেইল পাঠানো হয় (একই job-এর ইমেইল দুবার গেলে দুটো গোনা)?",
            d.told()
        ),
        code: d.code(),
        answer: Answer::Count {
            n: right,
            hints: email_hints(&d, right),
        },
        why: format!(
            "{}টা job-এর {}টার ইমেইল যায়, দুবার যায় {}টার — মোট {}টা; `w1`-এর হাতের job: {}।",
            int(d.jobs.into()),
            int(c.done.into()),
            int(c.effects_twice.into()),
            int(right),
            FATES[d.setup]
        ),
        show: show_end(&d.p),
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
        let out: QueuesOutput = lab_output(show);
        assert_eq!(out.end.counters.crashes, 1);
        match q.kind.as_str() {
            "fate" => Truth::Choice(FATES[fate_of(&out).expect("a fate")].into()),
            "done" => Truth::Count(i64::from(out.end.counters.done)),
            "sent" => Truth::Count(i64::from(
                out.end.counters.done + out.end.counters.effects_twice,
            )),
            k => panic!("no rerun for {k}"),
        }
    }

    #[test]
    fn queues_questions_over_1000_seeds() {
        every_seed("queues", rerun);
    }

    #[test]
    fn answers_vary() {
        crate::practice::tests::answers_vary("queues");
    }
}
