//! The join card's QR code, drawn as SVG: the `qrcodegen` crate (Nayuki's reference encoder,
//! no dependencies) makes the modules; this draws them as one path with the four-module quiet
//! zone the standard asks for. A crate rather than our own encoder: Reed–Solomon, the eight
//! masks and their penalties are easy to get subtly wrong, and a wrong QR code fails only on
//! some phones. Its cost is in `docs/class-mode.md` ("The pages").

use qrcodegen::{QrCode, QrCodeEcc};
use yew::prelude::*;

/// The modules of `text` (medium error correction: a projector's glare and a phone's angle),
/// row by row; `None` when it does not fit a QR code.
pub fn modules(text: &str) -> Option<Vec<Vec<bool>>> {
    let qr = QrCode::encode_text(text, QrCodeEcc::Medium).ok()?;
    let n = qr.size();
    Some(
        (0..n)
            .map(|y| (0..n).map(|x| qr.get_module(x, y)).collect())
            .collect(),
    )
}

/// The SVG path of the dark modules, offset by the quiet zone.
pub fn path(m: &[Vec<bool>]) -> String {
    let mut d = String::new();
    for (y, row) in m.iter().enumerate() {
        for (x, &dark) in row.iter().enumerate() {
            if dark {
                d.push_str(&format!("M{} {}h1v1h-1z", x + 4, y + 4));
            }
        }
    }
    d
}

/// Props of [`Qr`].
#[derive(Properties, PartialEq)]
pub struct QrProps {
    /// What the code says.
    pub text: AttrValue,
    /// Its accessible name.
    pub label: AttrValue,
}

/// A QR code of `text`, dark on white, scaled to its box.
#[component]
pub fn Qr(props: &QrProps) -> Html {
    let Some(m) = modules(&props.text) else {
        return Html::default();
    };
    let side = m.len() + 8;
    html! {
        <svg class="class-qr" viewBox={format!("0 0 {side} {side}")} role="img" aria-label={props.label.clone()}
            shape-rendering="crispEdges" data-modules={m.len().to_string()}>
            <rect width={side.to_string()} height={side.to_string()} fill="#fff" />
            <path d={path(&m)} fill="#000" />
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_join_address_fits_a_small_code_with_its_finders() {
        let m = modules("http://192.168.1.20:8080/#/join?code=482917").unwrap();
        // 44 bytes at level M: version 4 (version 3 holds 42), 33 modules a side.
        assert_eq!(m.len(), 33);
        // The three finder patterns: a dark 7×7 ring in three corners.
        for (x, y) in [(0, 0), (26, 0), (0, 26)] {
            assert!(m[y][x] && m[y + 6][x + 6] && m[y][x + 6] && !m[y + 1][x + 1]);
        }
        assert!(path(&m).starts_with("M4 4h1v1h-1z"));
    }
}
