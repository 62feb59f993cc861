//! The deck player's state as a pure state machine: which slide, whether autoplay runs, which
//! overlay is open. The Yew component feeds it [`Action`]s (from keys, clicks, swipes, the
//! autoplay timer and the address bar) and renders what it holds.

/// Player state for one deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// 0-based current slide.
    pub index: usize,
    /// Number of slides (at least 1).
    pub len: usize,
    /// Autoplay is running.
    pub autoplay: bool,
    /// The presenter script panel is shown.
    pub script: bool,
    /// The overview of all slides is open.
    pub overview: bool,
    /// The key help is open.
    pub help: bool,
}

/// Something that changes the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Next slide (manual: pauses autoplay).
    Next,
    /// Previous slide (manual).
    Prev,
    /// First slide (manual).
    First,
    /// Last slide (manual).
    Last,
    /// Slide n, 0-based (manual: overview click, address bar, back/forward). Clamped.
    Goto(usize),
    /// The autoplay timer fired: advance, or stop at the end.
    Tick,
    /// Start or pause autoplay.
    ToggleAutoplay,
    /// Show or hide the presenter script.
    ToggleScript,
    /// Open or close the overview.
    ToggleOverview,
    /// Open or close the key help.
    ToggleHelp,
    /// Close whatever overlay is open.
    Close,
}

impl Player {
    /// A player on slide `index` (clamped) of a deck with `len` slides.
    pub fn new(len: usize, index: usize) -> Self {
        let len = len.max(1);
        Player {
            index: index.min(len - 1),
            len,
            autoplay: false,
            script: false,
            overview: false,
            help: false,
        }
    }

    /// Applies an action.
    pub fn apply(&mut self, action: Action) {
        let last = self.len - 1;
        let manual = |p: &mut Player, to: usize| {
            p.autoplay = false;
            p.index = to.min(last);
        };
        match action {
            Action::Next => manual(self, self.index + 1),
            Action::Prev => manual(self, self.index.saturating_sub(1)),
            Action::First => manual(self, 0),
            Action::Last => manual(self, last),
            Action::Goto(n) => {
                if n != self.index {
                    manual(self, n);
                }
                self.overview = false;
            }
            Action::Tick => {
                if self.autoplay {
                    if self.index < last {
                        self.index += 1;
                    }
                    if self.index == last {
                        self.autoplay = false;
                    }
                }
            }
            Action::ToggleAutoplay => {
                self.autoplay = !self.autoplay && self.index < last;
                if self.autoplay {
                    self.overview = false;
                    self.help = false;
                }
            }
            Action::ToggleScript => self.script = !self.script,
            Action::ToggleOverview => {
                self.overview = !self.overview;
                self.help = false;
            }
            Action::ToggleHelp => {
                self.help = !self.help;
                self.overview = false;
            }
            Action::Close => {
                self.help = false;
                self.overview = false;
            }
        }
    }

    /// The same player after `action`.
    pub fn with(mut self, action: Action) -> Self {
        self.apply(action);
        self
    }
}

/// What a key press asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// A player action.
    Nav(Action),
    /// Enter or leave fullscreen (the browser's Fullscreen API, outside the pure state).
    Fullscreen,
}

/// Modifier keys held with a key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    /// Shift.
    pub shift: bool,
    /// Ctrl, Alt or Meta: the browser's and the system's shortcuts, never ours.
    pub command: bool,
}

/// Maps a `KeyboardEvent.key` to a command. Keys with Ctrl/Alt/Meta are left to the browser.
pub fn key_command(key: &str, mods: Mods) -> Option<Command> {
    use Action::*;
    if mods.command {
        return None;
    }
    let nav = |a| Some(Command::Nav(a));
    match key {
        "ArrowRight" | "PageDown" => nav(Next),
        "ArrowLeft" | "PageUp" => nav(Prev),
        " " | "Spacebar" => nav(if mods.shift { Prev } else { Next }),
        "Home" => nav(First),
        "End" => nav(Last),
        "a" | "A" => nav(ToggleAutoplay),
        "n" | "N" => nav(ToggleScript),
        "o" | "O" => nav(ToggleOverview),
        "?" => nav(ToggleHelp),
        "Escape" => nav(Close),
        "f" | "F" => Some(Command::Fullscreen),
        _ => None,
    }
}

/// How long autoplay stays on a slide: long enough to say its script aloud
/// (about 14 Bengali characters a second), never under 6 s nor over 40 s.
pub fn autoplay_ms(script: &str) -> u32 {
    let chars = script.chars().count() as u32;
    (2_000 + chars * 70).clamp(6_000, 40_000)
}

/// A horizontal swipe on a touch screen: at least 50 px sideways and mostly sideways.
pub fn swipe(dx: f64, dy: f64) -> Option<Action> {
    if dx.abs() < 50.0 || dx.abs() < dy.abs() * 1.5 {
        None
    } else if dx < 0.0 {
        Some(Action::Next)
    } else {
        Some(Action::Prev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Action::*;

    #[test]
    fn bounds_hold_at_both_ends() {
        let p = Player::new(22, 0);
        assert_eq!(p.clone().with(Prev).index, 0);
        assert_eq!(p.clone().with(Last).index, 21);
        assert_eq!(p.clone().with(Last).with(Next).index, 21);
        assert_eq!(p.clone().with(Goto(500)).index, 21);
        assert_eq!(Player::new(22, 99).index, 21);
        assert_eq!(Player::new(0, 0).len, 1);
        let mut q = p;
        for _ in 0..30 {
            q.apply(Next);
        }
        assert_eq!(q.index, 21);
        assert_eq!(q.with(First).index, 0);
    }

    #[test]
    fn autoplay_advances_and_stops_at_the_end() {
        let mut p = Player::new(3, 0).with(ToggleAutoplay);
        assert!(p.autoplay);
        p.apply(Tick);
        assert_eq!((p.index, p.autoplay), (1, true));
        p.apply(Tick);
        assert_eq!((p.index, p.autoplay), (2, false));
        p.apply(Tick);
        assert_eq!(p.index, 2);
        // At the last slide there is nothing to play.
        assert!(!Player::new(3, 2).with(ToggleAutoplay).autoplay);
        // Ticks without autoplay do nothing.
        assert_eq!(Player::new(3, 0).with(Tick).index, 0);
    }

    #[test]
    fn any_manual_navigation_pauses_autoplay() {
        for action in [Next, Prev, First, Last, Goto(2)] {
            let p = Player::new(5, 1).with(ToggleAutoplay).with(action);
            assert!(!p.autoplay, "{action:?} should pause autoplay");
        }
        // Going to the slide we are on (the address bar echoing us) does not pause.
        assert!(
            Player::new(5, 1)
                .with(ToggleAutoplay)
                .with(Goto(1))
                .autoplay
        );
        // Toggling the script does not pause either.
        assert!(
            Player::new(5, 1)
                .with(ToggleAutoplay)
                .with(ToggleScript)
                .autoplay
        );
    }

    #[test]
    fn overlays() {
        let p = Player::new(5, 0).with(ToggleOverview);
        assert!(p.overview);
        let p = p.with(Goto(3));
        assert!(!p.overview && p.index == 3);
        let p = p.with(ToggleHelp);
        assert!(p.help);
        assert!(!p.clone().with(Close).help);
        assert!(!p.with(ToggleOverview).help);
    }

    #[test]
    fn keys() {
        let k = |key| key_command(key, Mods::default());
        assert_eq!(k("ArrowRight"), Some(Command::Nav(Next)));
        assert_eq!(k("PageDown"), Some(Command::Nav(Next)));
        assert_eq!(k(" "), Some(Command::Nav(Next)));
        assert_eq!(
            key_command(
                " ",
                Mods {
                    shift: true,
                    command: false
                }
            ),
            Some(Command::Nav(Prev))
        );
        assert_eq!(k("ArrowLeft"), Some(Command::Nav(Prev)));
        assert_eq!(k("PageUp"), Some(Command::Nav(Prev)));
        assert_eq!(k("Home"), Some(Command::Nav(First)));
        assert_eq!(k("End"), Some(Command::Nav(Last)));
        assert_eq!(k("a"), Some(Command::Nav(ToggleAutoplay)));
        assert_eq!(k("N"), Some(Command::Nav(ToggleScript)));
        assert_eq!(k("o"), Some(Command::Nav(ToggleOverview)));
        assert_eq!(k("?"), Some(Command::Nav(ToggleHelp)));
        assert_eq!(k("f"), Some(Command::Fullscreen));
        assert_eq!(k("Escape"), Some(Command::Nav(Close)));
        assert_eq!(k("x"), None);
        assert_eq!(
            key_command(
                "ArrowRight",
                Mods {
                    shift: false,
                    command: true
                }
            ),
            None
        );
        assert_eq!(
            key_command(
                "f",
                Mods {
                    shift: false,
                    command: true
                }
            ),
            None
        );
    }

    #[test]
    fn autoplay_pace_follows_the_script() {
        assert_eq!(autoplay_ms(""), 6_000);
        assert!(autoplay_ms(&"ক".repeat(300)) > autoplay_ms(&"ক".repeat(150)));
        assert_eq!(autoplay_ms(&"ক".repeat(5000)), 40_000);
    }

    #[test]
    fn swipes() {
        assert_eq!(swipe(-120.0, 10.0), Some(Next));
        assert_eq!(swipe(120.0, -10.0), Some(Prev));
        assert_eq!(swipe(30.0, 0.0), None);
        assert_eq!(swipe(-80.0, 200.0), None);
    }
}
