//! Writes every deck as the JSON file the app fetches when the deck is opened:
//! `deck-json <decks folder> <out folder>` writes `<out>/<id>-<hash>.json` for each deck and
//! removes older files there. Trunk runs it before each build (a `pre_build` hook in
//! `Trunk.toml`) and copies the folder into `dist/decks/`; `build.rs` compiles the matching
//! index (same parser, same JSON, same hash) into the app.
//!
//! `deck-json --shell <decks folder>` writes each deck's first slide into the `index.html`
//! trunk is about to publish (`$TRUNK_STAGING_DIR`; a `post_build` hook), see
//! `redislab_deck::shell`, and then makes the folder one release: its file list and service
//! worker (`sw.js`, from `static/sw.js`), see `redislab_deck::release`. One step, because
//! trunk runs a stage's hooks side by side and the list must see the finished `index.html`.
//! A release build (`$TRUNK_PROFILE` = `release`) that is not for `trunk serve` is published;
//! any other gets the development worker, which keeps nothing.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, src] = args.as_slice() {
        if flag == "--shell" {
            return match shell(Path::new(src)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            };
        }
    }
    let [src, out] = args.as_slice() else {
        eprintln!(
            "usage: deck-json <decks folder> <out folder> | deck-json --shell <decks folder>"
        );
        return ExitCode::from(2);
    };
    match write(Path::new(src), Path::new(out)) {
        Ok(n) => {
            println!("deck-json: {n} decks → {out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: malformed deck: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write(src: &Path, out: &Path) -> Result<usize, String> {
    let (decks, _) = redislab_deck::parse::load_dir(src)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut keep = Vec::new();
    for d in &decks {
        let json = d.to_json();
        let info = d.info(&json);
        let path = out.join(info.file.as_ref());
        if std::fs::read_to_string(&path).ok().as_deref() != Some(json.as_str()) {
            std::fs::write(&path, &json).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        keep.push(info.file.to_string());
    }
    // Files of older versions would be served for ever: remove them.
    for entry in std::fs::read_dir(out).map_err(|e| format!("{}: {e}", out.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name().to_string_lossy().to_string();
        if name.ends_with(".json") && !keep.contains(&name) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    Ok(decks.len())
}

fn shell(src: &Path) -> Result<(), String> {
    let dir = std::env::var_os("TRUNK_STAGING_DIR")
        .ok_or("--shell runs as trunk's post_build hook (TRUNK_STAGING_DIR is not set)")?;
    let index = Path::new(&dir).join("index.html");
    let (decks, _) = redislab_deck::parse::load_dir(src)?;
    let infos: Vec<_> = decks.iter().map(|d| d.info(&d.to_json())).collect();
    let page = std::fs::read_to_string(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    let page = redislab_deck::shell::insert(&page, &infos)?;
    std::fs::write(&index, &page).map_err(|e| format!("{}: {e}", index.display()))?;
    let source = std::env::var_os("TRUNK_SOURCE_DIR").map_or_else(|| ".".into(), PathBuf::from);
    let template_path = source.join("static/sw.js");
    let template = std::fs::read_to_string(&template_path)
        .map_err(|e| format!("{}: {e}", template_path.display()))?;
    let publish = std::env::var("TRUNK_PROFILE").as_deref() == Ok("release")
        && !redislab_deck::release::is_dev_server_page(&page);
    redislab_deck::release::write(Path::new(&dir), &template, publish)?;
    Ok(())
}
