//! The app's style sheets are well formed: every `{` has its `}` (comments and strings
//! aside), and no rule block is left open at the end of a file. A merge once dropped the `}`
//! of two `@container` blocks in what was then one `static/labs.css`, so every lab's styles
//! after them applied only inside the query; the browser tests caught it only as a slide
//! 1,092 px too tall. Every file is checked on its own (`static/*.css`, the kit and each lab's
//! in `static/labs/`), so a slip names its file and line, not a line of the joined sheet.
//! This needs no browser.

use std::path::{Path, PathBuf};

/// The line of every unmatched brace of `css`, or where a comment or string is left open.
fn unbalanced(css: &str) -> Result<(), String> {
    let mut open: Vec<usize> = Vec::new();
    let mut line = 1;
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let from = line;
                let mut closed = false;
                while let Some(c) = chars.next() {
                    if c == '\n' {
                        line += 1;
                    } else if c == '*' && chars.peek() == Some(&'/') {
                        chars.next();
                        closed = true;
                        break;
                    }
                }
                if !closed {
                    return Err(format!("a comment opened on line {from} never closes"));
                }
            }
            '"' | '\'' => {
                let from = line;
                let mut closed = false;
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '\n' => line += 1,
                        _ if d == c => {
                            closed = true;
                            break;
                        }
                        _ => {}
                    }
                }
                if !closed {
                    return Err(format!("a string opened on line {from} never closes"));
                }
            }
            '{' => open.push(line),
            '}' => {
                open.pop()
                    .ok_or_else(|| format!("line {line}: a `}}` that closes nothing"))?;
            }
            _ => {}
        }
    }
    match open.last() {
        Some(l) => Err(format!(
            "{} block(s) never closed; the innermost opened on line {l}",
            open.len()
        )),
        None => Ok(()),
    }
}

/// The style sheets under `dir` and its folders, by path.
fn style_sheets(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            out.extend(style_sheets(&path));
        } else if path.extension().is_some_and(|e| e == "css") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn every_style_sheet_closes_what_it_opens() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../static");
    let sheets = style_sheets(&dir);
    for path in &sheets {
        let css = std::fs::read_to_string(path).expect("a readable style sheet");
        if let Err(e) = unbalanced(&css) {
            panic!("{}: {e}", path.display());
        }
    }
    let names: Vec<String> = sheets
        .iter()
        .map(|p| p.strip_prefix(&dir).unwrap_or(p).display().to_string())
        .collect();
    for want in ["style.css", "labs/kit.css", "labs/lru.css"] {
        assert!(
            names.iter().any(|n| n == want),
            "{want} not among {names:?}"
        );
    }
}

#[test]
fn the_check_finds_what_a_merge_drops() {
    assert!(unbalanced(".a { b: c; }\n@media (x) { .d { e: f; } }").is_ok());
    assert!(unbalanced(".a { content: \"}\"; } /* { */").is_ok());
    let e = unbalanced(".a { b: c; }\n@container (x) {\n  .d { e: f; }\n.g { h: i; }").unwrap_err();
    assert!(e.contains("line 2"), "{e}");
    let e = unbalanced(".a { b: c; }\n}").unwrap_err();
    assert!(e.contains("line 2"), "{e}");
    assert!(unbalanced(".a { b: c; } /* open")
        .unwrap_err()
        .contains("comment"));
}
