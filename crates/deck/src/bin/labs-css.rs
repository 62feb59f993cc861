//! Joins the labs' style sheets into the one the app links: `labs-css <folder> <out file>`
//! writes `<folder>/kit.css` (the kit every lab shares) first, then every other `*.css` of the
//! folder by file name (one file per lab, `static/labs/<id>.css`, and the pages the labs
//! module draws). Trunk runs it before each build (a `pre_build` hook in `Trunk.toml`);
//! `index.html` links the result. A lab's rules are scoped to the lab (its `lab-<id>` root,
//! its class prefix, its container), so the labs' order does not change the cascade; the kit
//! comes first so that a lab's rules win over the kit's at equal specificity.

use std::path::Path;
use std::process::ExitCode;

/// The file that comes first.
const KIT: &str = "kit.css";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, out] = args.as_slice() else {
        eprintln!("usage: labs-css <folder of style sheets> <out file>");
        return ExitCode::from(2);
    };
    match join(Path::new(dir)).and_then(|css| write(Path::new(out), &css)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The style sheets of `dir`, kit first, then the others by name, each under a comment
/// naming its file.
fn join(dir: &Path) -> Result<String, String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".css") && n != KIT)
        .collect();
    names.sort();
    names.insert(0, KIT.to_string());
    let mut css = String::new();
    for name in &names {
        let path = dir.join(name);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        css.push_str(&format!("/* ---------- {} ---------- */\n", path.display()));
        css.push_str(text.trim_end());
        css.push_str("\n\n");
    }
    Ok(css)
}

/// Writes `css` to `out` unless it already holds it.
fn write(out: &Path, css: &str) -> Result<(), String> {
    if std::fs::read_to_string(out).ok().as_deref() == Some(css) {
        return Ok(());
    }
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    std::fs::write(out, css).map_err(|e| format!("{}: {e}", out.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kit_comes_first_then_the_files_by_name() {
        let dir = std::env::temp_dir().join(format!("labs-css-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in [
            ("b.css", ".b {}"),
            ("kit.css", ".kit {}"),
            ("a.css", ".a {}\n"),
            ("notes.txt", "not css"),
        ] {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let css = join(&dir).unwrap();
        let rules: Vec<&str> = css.lines().filter(|l| !l.starts_with("/*")).collect();
        assert_eq!(rules, [".kit {}", "", ".a {}", "", ".b {}", ""]);
        assert!(css.starts_with("/* ---------- ") && css.contains("kit.css ---------- */"));
        std::fs::remove_file(dir.join("kit.css")).unwrap();
        assert!(join(&dir).unwrap_err().contains("kit.css"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The app's own folder joins, the kit first.
    #[test]
    fn the_app_s_style_sheets_join() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../static/labs");
        let css = join(&dir).unwrap();
        let first = css.lines().next().unwrap_or_default();
        assert!(first.ends_with("/kit.css ---------- */"), "{first}");
        assert!(css.contains("/lru.css ---------- */"));
    }
}
