//! Checks every deck in `src/decks/*.md` and compiles their index (titles, slide and step
//! counts, first slides, JSON file names) into the app (`$OUT_DIR/decks.rs`). The decks
//! themselves travel as JSON (`deck-json`, run by trunk before each build) and are fetched when
//! opened. A malformed deck fails the build with `src/decks/<file>.md:<line>: <what is wrong>`.

use std::path::Path;

fn main() {
    let dir = Path::new("src/decks");
    println!("cargo:rerun-if-changed={}", dir.display());
    let (decks, files) = redislab_deck::parse::load_dir(dir).unwrap_or_else(|e| fail(&e));
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let infos: Vec<_> = decks.iter().map(|d| d.info(&d.to_json())).collect();
    let out = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("decks.rs");
    std::fs::write(&out, redislab_deck::codegen::index_source(&infos))
        .unwrap_or_else(|e| fail(&format!("{}: cannot write: {e}", out.display())));
}

/// Stops the build with one clear line (cargo shows a build script's stderr on failure).
fn fail(message: &str) -> ! {
    eprintln!("error: malformed deck: {message}");
    std::process::exit(1);
}
