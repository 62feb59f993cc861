//! Compiles the decks in `src/decks/*.md` into Rust statics (`$OUT_DIR/decks.rs`). A malformed
//! deck fails the build with `src/decks/<file>.md:<line>: <what is wrong>`.

use std::path::Path;

fn main() {
    let dir = Path::new("src/decks");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| {
            fail(&format!(
                "{}: cannot read the deck folder: {e}",
                dir.display()
            ))
        })
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let mut decks = Vec::new();
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let src = std::fs::read_to_string(path)
            .unwrap_or_else(|e| fail(&format!("{}: cannot read: {e}", path.display())));
        match redislab_deck::parse::parse_deck(&src, stem) {
            Ok(deck) => decks.push(deck),
            Err(e) => fail(&format!("{}:{}: {}", path.display(), e.line, e.message)),
        }
    }
    if decks.is_empty() {
        fail(&format!("{}: no decks (*.md) found", dir.display()));
    }
    decks.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("decks.rs");
    std::fs::write(&out, redislab_deck::codegen::decks_source(&decks))
        .unwrap_or_else(|e| fail(&format!("{}: cannot write: {e}", out.display())));
}

/// Stops the build with one clear line (cargo shows a build script's stderr on failure).
fn fail(message: &str) -> ! {
    eprintln!("error: malformed deck: {message}");
    std::process::exit(1);
}
