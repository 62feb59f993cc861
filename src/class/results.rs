//! The practice set's results on the stage, as they come in: the instructor's page makes the
//! set's questions in the simulation worker from the same spec and seed as the phones, grades
//! what each student sent (`redislab_sim::class::Report`: a phone's own verdict counts for
//! nothing), and shows per student (their chosen name or pseudonym) the score and the kinds
//! they got wrong, per kind the share right, and a CSV to download.

use redislab_deck::bn;
use redislab_sim::class::{Member, Report, SetSpec};
use redislab_sim::labs::lab::Job;
use redislab_sim::practice::{self, set, Question};
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// A kind (`lru/evicted`) as a person reads it: the lab's title and the kind's.
fn kind_title(k: &str) -> String {
    let (topic, kind) = k.split_once('/').unwrap_or((k, ""));
    practice::topic(topic)
        .and_then(|t| {
            t.kinds
                .iter()
                .find(|x| x.id == kind)
                .map(|x| format!("{} · {}", t.title, x.title))
        })
        .unwrap_or_else(|| k.to_string())
}

/// The CSV as a download address. A byte-order mark first, so a spreadsheet reads the
/// Bengali names as UTF-8.
fn csv_href(csv: &str) -> String {
    format!(
        "data:text/csv;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(&format!("\u{feff}{csv}")))
    )
}

/// Props of [`SetResults`].
#[derive(Properties, PartialEq)]
pub struct SetResultsProps {
    /// The set given.
    pub spec: SetSpec,
    /// The class' code (the CSV's name).
    pub code: AttrValue,
    /// Every student so far, by number.
    pub members: Rc<BTreeMap<u32, Member>>,
    /// Each student's answers to the set so far, by number.
    pub results: Rc<BTreeMap<u32, Vec<String>>>,
    /// The panel closed.
    pub on_close: Callback<()>,
}

/// The results panel.
#[component]
pub fn SetResults(p: &SetResultsProps) -> Html {
    let job = Job {
        lab: set::JOB_LAB.into(),
        run: String::new(),
        query: p.spec.query(),
        live_scale: None,
        live_url: None,
    };
    let made = crate::labs::kit::use_work::<Question, Vec<Question>>(Some(job));
    let n = p.spec.n as usize;
    let close = p.on_close.reform(|_: MouseEvent| ());
    let head = html! {
        <p class="class-results-head">
            <strong>{"অনুশীলন সেট"}</strong>
            { format!(" · {}টা প্রশ্ন · seed {} · ফল পাঠিয়েছে {} জন", bn::int(n as i64), bn::text(&p.spec.seed.to_string()), bn::int(p.results.len() as i64)) }
        </p>
    };
    let body = if let Some(why) = &made.failed {
        html! { <p class="class-error" role="alert">{ why.clone() }</p> }
    } else if made.parts.len() < n {
        html! { <p class="practice-wait" aria-busy="true">{"প্রশ্নগুলো তৈরি হচ্ছে — ফল মেলানো হবে সেগুলো দিয়েই…"}</p> }
    } else {
        let sent: Vec<(Member, Vec<String>)> = p
            .results
            .iter()
            .map(|(&who, a)| {
                let m = p.members.get(&who).cloned().unwrap_or(Member {
                    who,
                    name: String::new(),
                });
                (m, a.clone())
            })
            .collect();
        let report = Report::grade(&made.parts[..n], &sent);
        let csv = report.csv(n);
        html! {
            <>
                if report.students.is_empty() {
                    <p class="class-results-none">{"এখনো কেউ উত্তর পাঠায়নি — ফোনে প্রশ্নের উত্তর দিলেই এখানে আসবে।"}</p>
                } else {
                    <table class="class-results-table" data-testid="class-results-students">
                        <thead><tr><th scope="col">{"শিক্ষার্থী"}</th><th scope="col">{"ঠিক"}</th><th scope="col">{"ভুল হয়েছে"}</th></tr></thead>
                        <tbody>
                            { for report.students.iter().map(|s| html! {
                                <tr data-who={s.member.who.to_string()} data-right={s.right.to_string()} data-answered={s.answered.to_string()}>
                                    <th scope="row">{ s.member.shown() }</th>
                                    <td class="class-results-score">{ format!("{} / {}", bn::int(s.right.into()), bn::int(n as i64)) }
                                        if (s.answered as usize) < n { <span class="class-results-part">{ format!(" ({}টার উত্তর)", bn::int(s.answered.into())) }</span> }
                                    </td>
                                    <td class="class-results-wrong">{ s.wrong.iter().map(|k| kind_title(k)).collect::<Vec<_>>().join("; ") }</td>
                                </tr>
                            }) }
                        </tbody>
                    </table>
                }
                <table class="class-results-table class-results-kinds" data-testid="class-results-kinds">
                    <thead><tr><th scope="col">{"প্রশ্নের ধরন"}</th><th scope="col">{"ঠিকের হার"}</th></tr></thead>
                    <tbody>
                        { for report.kinds.iter().map(|(k, asked, right)| html! {
                            <tr data-kind={k.clone()} data-asked={asked.to_string()} data-right={right.to_string()}>
                                <th scope="row">{ kind_title(k) }</th>
                                <td>{ if *asked == 0 { "—".to_string() } else { format!("{} — {} জনের {} জন", bn::share(f64::from(*right) / f64::from(*asked), 0), bn::int((*asked).into()), bn::int((*right).into())) } }</td>
                            </tr>
                        }) }
                    </tbody>
                </table>
                <p class="class-results-on">
                    <a class="button primary" data-testid="class-csv" href={csv_href(&csv)} download={format!("class-{}-set-{}.csv", p.code, p.spec.seed)}>{"CSV নামান"}</a>
                </p>
            </>
        }
    };
    html! {
        <section class="class-results" data-testid="class-results" aria-label="অনুশীলন সেটের ফল">
            { head }
            { body }
            <button type="button" class="tool class-results-close" onclick={close} aria-label="ফল বন্ধ">{"✕"}</button>
        </section>
    }
}
