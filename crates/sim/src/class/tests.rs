use super::*;
use crate::practice::Draft;

fn question(answer: Answer) -> Question {
    Question {
        topic: "lru".into(),
        kind: "evicted".into(),
        seed: 7,
        draft: Draft {
            text: "কোন key যায়?".into(),
            code: vec!["SET A 1".into()],
            answer,
            why: "কারণ".into(),
            show: None,
        },
    }
}

fn choice() -> Question {
    question(Answer::Choice {
        options: vec!["এক".into(), "দুই".into(), "তিন".into()],
        right: 1,
        hints: vec!["একটা কম".into(), String::new(), "একটা বেশি".into()],
    })
}

#[test]
fn codes_read_in_either_script() {
    assert_eq!(read_code("482917").as_deref(), Some("482917"));
    assert_eq!(read_code("৪৮২ ৯১৭").as_deref(), Some("482917"));
    assert_eq!(read_code(" 48-29 17 ").as_deref(), Some("482917"));
    assert_eq!(read_code("৪৮২917").as_deref(), Some("482917"));
    assert_eq!(read_code("48291"), None);
    assert_eq!(read_code("4829177"), None);
    assert_eq!(read_code("48a917"), None);
    assert_eq!(
        read_code("٤٨٢٩١٧"),
        None,
        "Arabic-Indic digits are not ours"
    );
    assert_eq!(code_bn("482917"), "৪৮২ ৯১৭");
}

#[test]
fn the_class_socket_is_beside_the_page() {
    assert_eq!(
        ws_url("http://10.0.0.5:8080/#/join?code=1"),
        "ws://10.0.0.5:8080/class"
    );
    assert_eq!(
        ws_url("https://h.example/redislab/index.html#/x"),
        "wss://h.example/redislab/class"
    );
}

#[test]
fn names_and_pseudonyms() {
    assert_eq!(clean_name("  রিয়া \n  দাস\u{7} "), "রিয়া দাস");
    assert_eq!(clean_name(&"ক".repeat(40)).chars().count(), MAX_NAME);
    assert_eq!(pseudonym(12), "দোয়েল ১২");
    assert_ne!(pseudonym(1), pseudonym(2));
    let m = Member {
        who: 3,
        name: String::new(),
    };
    assert_eq!(m.shown(), pseudonym(3));
}

#[test]
fn requests_are_typed_and_refuse_what_is_not_theirs() {
    let r = Request::parse(r#"{"id":3,"op":"join","code":"৪৮২৯১৭","name":"রিয়া"}"#).unwrap();
    assert_eq!(r.id, 3);
    assert!(
        matches!(&r.op, Op::Join { code, name, resume } if code == "৪৮২৯১৭" && name == "রিয়া" && resume.is_empty())
    );
    assert_eq!(Request::parse(&r.to_text()).unwrap(), r);
    // A forged field (answering for someone else, claiming a verdict) is refused.
    for bad in [
        r#"{"id":4,"op":"answer","q":1,"value":"A","who":7}"#,
        r#"{"id":4,"op":"answer","q":1,"value":"A","right":true}"#,
        r#"{"id":4,"op":"subscribe","channel":"x"}"#,
        r#"{"id":4,"cmd":["PUBLISH","x","y"]}"#,
    ] {
        match *Request::parse(bad).unwrap_err() {
            Down::Err { id, code, .. } => {
                assert_eq!((id, code), (Some(4), Refusal::BadRequest), "{bad}")
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        *Request::parse("nonsense").unwrap_err(),
        Down::Err { id: None, .. }
    ));
    assert!(matches!(
        *Request::parse(r#"{"op":"end"}"#).unwrap_err(),
        Down::Err { id: None, .. }
    ));
    let end = Request::parse(r#"{"id":9,"op":"end"}"#).unwrap();
    assert_eq!(end.op, Op::End {});
}

#[test]
fn pushes_round_trip() {
    let v = Down::View {
        seq: 4,
        q: 2,
        open: true,
        set: 0,
        view: Box::new(View {
            at: Position {
                deck: "production".into(),
                slide: 12,
                step: 1,
            },
            question: Some(Asked::of(&choice())),
            ..View::default()
        }),
    };
    let text = v.to_text();
    assert!(text.starts_with(r#"{"t":"view""#), "{text}");
    assert!(
        !text.contains("একটা কম"),
        "no answer, no hint before the reveal"
    );
    assert_eq!(Down::parse(&text), Some(v));
}

#[test]
fn a_choice_is_counted_per_option_with_the_hints() {
    let q = choice();
    let t = Tally::count(&q, ["খ", "2", "ক", "গ", "গ", "", "zz"]);
    assert_eq!((t.answered, t.right, t.unreadable), (7, 2, 2));
    let counts: Vec<u32> = t.bars.iter().map(|b| b.count).collect();
    assert_eq!(counts, [1, 2, 2]);
    assert!(t.bars[1].right && !t.bars[0].right);
    let wrong = t.wrong();
    assert_eq!(wrong.len(), 2);
    assert_eq!(wrong[0].note, "একটা বেশি");
}

#[test]
fn values_are_counted_as_the_grader_heard_them() {
    let q = question(Answer::Count {
        n: 3,
        hints: vec![(4, "একটা বেশি গুনেছেন".into())],
    });
    // ৩ and 3 and "তিন" are one value.
    let t = Tally::count(&q, ["৩", "3", "তিন", "4", "৪টা", "9"]);
    assert_eq!((t.answered, t.right), (6, 3));
    assert_eq!(t.bars[0].label, "৩");
    assert_eq!(t.bars[0].count, 3);
    assert!(t.bars[0].right);
    assert_eq!(t.bars[1].label, "৪");
    assert_eq!(t.bars[1].note, "একটা বেশি গুনেছেন");
    // Many values fold into "other".
    let many: Vec<String> = (10..30).map(|i| i.to_string()).collect();
    let t = Tally::count(&q, many.iter().map(String::as_str));
    assert_eq!(t.bars.len(), Tally::MAX_BARS);
    assert_eq!(t.bars.last().unwrap().label, "অন্যান্য");
    assert_eq!(t.bars.iter().map(|b| b.count).sum::<u32>(), 20);
}

#[test]
fn a_set_report_grades_what_was_sent_not_what_was_claimed() {
    let qs = vec![
        choice(),
        question(Answer::Key {
            key: "B".into(),
            hints: vec![],
        }),
    ];
    let m = |who| Member {
        who,
        name: if who == 1 {
            "রিয়া, দাস".into()
        } else {
            String::new()
        },
    };
    let r = Report::grade(
        &qs,
        &[
            (m(2), vec!["1".into(), "b".into()]),
            (m(1), vec!["2".into(), "B".into()]),
        ],
    );
    assert_eq!(r.students[0].member.who, 1);
    assert_eq!((r.students[0].right, r.students[1].right), (2, 1));
    assert_eq!(r.students[1].wrong, ["lru/evicted"]);
    assert_eq!(r.kinds, [("lru/evicted".to_string(), 4, 3)]);
    let csv = r.csv(2);
    assert_eq!(
        csv,
        "number,name,answered,right,out_of,kinds_wrong\r\n1,\"রিয়া, দাস\",2,2,2,\r\n2,টিয়া ২,2,1,2,lru/evicted\r\n"
    );
}

#[test]
fn the_speakers_cues_round_trip_and_refuse_what_is_not_one() {
    let give = Cue::Give {
        set: SetSpec::new(vec!["lru".into()], 99, 42, 5),
    };
    assert_eq!(
        give,
        Cue::Give {
            set: SetSpec {
                labs: vec!["lru".into()],
                n: crate::practice::set::MAX_N,
                seed: 42
            }
        },
        "the count is kept within the set's bound"
    );
    let ask = Cue::Ask {
        topic: "lru".into(),
        kind: "evicted".into(),
        seed: 7,
    };
    for c in [give, ask, Cue::Reveal] {
        assert_eq!(Cue::parse(&c.to_text()), Some(c));
    }
    assert_eq!(
        Cue::parse(r#"{"do":"reveal"}"#),
        Some(Cue::Reveal),
        "{}",
        Cue::Reveal.to_text()
    );
    // The count the player posts on the same channel, and anything else, is not a cue.
    assert_eq!(Cue::parse("ক্লাসে ৩ জন"), None);
    assert_eq!(Cue::parse(r#"{"do":"end"}"#), None);
    assert_eq!(
        Cue::parse(r#"{"do":"ask","topic":"lru","kind":"evicted","seed":1,"who":3}"#),
        None
    );
}

#[test]
fn a_given_set_is_the_practice_pages_set() {
    // Every lab ticked is "all"; zero questions is one.
    let all = SetSpec::new(vec!["a".into(), "b".into()], 0, 5, 2);
    assert_eq!((all.labs.len(), all.n), (0, 1));
    assert_eq!(all.query(), "labs=all&seed=5&n=1");
    let s = SetSpec::new(vec!["lru".into()], 4, 42, 5);
    let p = s.practice();
    assert_eq!(p.query(42), s.query(), "the same questions");
    assert_eq!(
        crate::practice::set::Spec::parse(&s.query()),
        Ok(p),
        "the phones read it as the practice page does"
    );
}
