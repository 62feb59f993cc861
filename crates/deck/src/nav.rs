//! The deck player's state as a pure state machine: which slide and reveal step, whether
//! autoplay runs, which overlay is open, whether the screen is blanked, what slide number is
//! being typed. The Yew component feeds it [`Action`]s (from keys, clicks, swipes, the autoplay
//! timer, the address bar and the speaker window) and renders what it holds.

/// What a blanked screen shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blank {
    /// All black (B or `.`).
    Black,
    /// All white (W).
    White,
}

/// Player state for one deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// 0-based current slide.
    pub index: usize,
    /// Number of slides (at least 1).
    pub len: usize,
    /// Fragments revealed on the current slide (0 = none yet).
    pub step: usize,
    /// Number of fragments of each slide.
    pub steps: Vec<usize>,
    /// Autoplay is running.
    pub autoplay: bool,
    /// The presenter script panel is shown.
    pub script: bool,
    /// The overview of all slides is open.
    pub overview: bool,
    /// The slide selected in the overview (moved with the arrow keys).
    pub selected: usize,
    /// Columns of the overview's grid, as laid out (for ↑ ↓).
    pub columns: usize,
    /// The key help is open.
    pub help: bool,
    /// The "go to slide" field is open.
    pub goto: bool,
    /// The screen is blanked.
    pub blank: Option<Blank>,
    /// A slide number being typed (digits, then Enter).
    pub jump: Option<usize>,
}

/// Something that changes the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Next fragment, or the next slide when all are shown (manual: pauses autoplay). In the
    /// overview: the next thumbnail.
    Next,
    /// Hide the last fragment, or the previous slide fully built (manual). In the overview: the
    /// previous thumbnail.
    Prev,
    /// In the overview, the thumbnail above; elsewhere nothing.
    Up,
    /// In the overview, the thumbnail below; elsewhere nothing.
    Down,
    /// First slide (manual).
    First,
    /// Last slide (manual).
    Last,
    /// Slide n, 0-based, from its start (manual: overview click, the jump). Clamped.
    Goto(usize),
    /// Slide n at step k exactly (the address bar, back/forward, the other window). Clamped.
    At(usize, usize),
    /// The autoplay timer fired: the next slide fully built, or stop at the end.
    Tick,
    /// Start or pause autoplay.
    ToggleAutoplay,
    /// Show or hide the presenter script.
    ToggleScript,
    /// Open or close the overview.
    ToggleOverview,
    /// Open or close the key help.
    ToggleHelp,
    /// Open or close the "go to slide" field.
    ToggleGoto,
    /// Blank the screen this way, or bring the slide back if it already is.
    Blank(Blank),
    /// Blank the screen, or not, as the other window does.
    SetBlank(Option<Blank>),
    /// A digit of a slide number typed on the keyboard.
    Digit(u8),
    /// Enter: go to the typed slide number, or in the overview to the selected slide.
    Enter,
    /// The typed number is forgotten (it waited too long).
    ClearJump,
    /// The overview's grid has this many columns.
    Columns(usize),
    /// Close whatever is open: overlays, the script, the typed number, the blank screen.
    Close,
}

impl Player {
    /// A player on slide `index` (clamped) of a deck whose slides have these fragment counts.
    pub fn new(steps: Vec<usize>, index: usize) -> Self {
        let steps = if steps.is_empty() { vec![0] } else { steps };
        let len = steps.len();
        let index = index.min(len - 1);
        Player {
            index,
            len,
            step: 0,
            steps,
            autoplay: false,
            script: false,
            overview: false,
            selected: index,
            columns: 4,
            help: false,
            goto: false,
            blank: None,
            jump: None,
        }
    }

    /// Fragments of the current slide.
    pub fn steps_here(&self) -> usize {
        self.steps[self.index]
    }

    /// Where the next → would go: (slide, step), or None at the very end.
    pub fn next_position(&self) -> Option<(usize, usize)> {
        if self.step < self.steps_here() {
            Some((self.index, self.step + 1))
        } else if self.index + 1 < self.len {
            Some((self.index + 1, 0))
        } else {
            None
        }
    }

    /// Is this the very start (first slide, nothing revealed)?
    pub fn at_start(&self) -> bool {
        self.index == 0 && self.step == 0
    }

    /// Is this the very end (last slide fully built)?
    pub fn at_end(&self) -> bool {
        self.next_position().is_none()
    }

    fn place(&mut self, index: usize, step: usize) {
        self.index = index.min(self.len - 1);
        self.step = step.min(self.steps_here());
        self.selected = self.index;
    }

    /// Applies an action.
    pub fn apply(&mut self, action: Action) {
        let last = self.len - 1;
        // Any move by hand pauses autoplay and brings the slide back from a blank screen.
        let manual = |p: &mut Player, index: usize, step: usize| {
            p.autoplay = false;
            p.blank = None;
            p.jump = None;
            p.place(index, step);
        };
        if self.overview {
            let grid = |p: &mut Player, to: usize| p.selected = to.min(last);
            match action {
                Action::Next => return grid(self, self.selected + 1),
                Action::Prev => return grid(self, self.selected.saturating_sub(1)),
                Action::Down => return grid(self, self.selected + self.columns),
                Action::Up => {
                    return grid(self, self.selected.saturating_sub(self.columns));
                }
                Action::Enter => return self.apply(Action::Goto(self.selected)),
                _ => {}
            }
        }
        match action {
            Action::Next => match self.next_position() {
                Some((i, k)) => manual(self, i, k),
                None => manual(self, self.index, self.step),
            },
            Action::Prev => {
                if self.step > 0 {
                    manual(self, self.index, self.step - 1);
                } else if self.index > 0 {
                    let i = self.index - 1;
                    manual(self, i, self.steps[i]);
                } else {
                    manual(self, 0, 0);
                }
            }
            Action::Up | Action::Down => {}
            Action::ClearJump => self.jump = None,
            Action::First => manual(self, 0, 0),
            Action::Last => manual(self, last, 0),
            Action::Goto(n) => {
                if n != self.index || self.step != 0 {
                    manual(self, n, 0);
                }
                self.overview = false;
                self.goto = false;
                self.jump = None;
            }
            Action::At(n, k) => {
                if (n, k) != (self.index, self.step) {
                    manual(self, n, k);
                }
            }
            Action::Tick => {
                if self.autoplay {
                    if self.index < last {
                        let i = self.index + 1;
                        self.place(i, self.steps[i]);
                    }
                    if self.index == last {
                        self.autoplay = false;
                    }
                }
            }
            Action::ToggleAutoplay => {
                self.autoplay = !self.autoplay && self.index < last;
                if self.autoplay {
                    // Autoplay shows slides fully built.
                    self.step = self.steps_here();
                    self.overview = false;
                    self.help = false;
                    self.goto = false;
                    self.blank = None;
                }
            }
            Action::ToggleScript => self.script = !self.script,
            Action::ToggleOverview => {
                self.overview = !self.overview;
                self.selected = self.index;
                self.help = false;
                self.goto = false;
            }
            Action::ToggleHelp => {
                self.help = !self.help;
                self.overview = false;
                self.goto = false;
            }
            Action::ToggleGoto => {
                self.goto = !self.goto;
                self.overview = false;
                self.help = false;
                self.jump = None;
            }
            Action::Blank(b) => {
                self.blank = if self.blank == Some(b) { None } else { Some(b) };
            }
            Action::SetBlank(b) => self.blank = b,
            Action::Digit(d) => {
                let n = self.jump.unwrap_or(0) * 10 + usize::from(d.min(9));
                // Four digits are more slides than any deck has: start again from this one.
                self.jump = Some(if n > 9_999 { usize::from(d) } else { n });
            }
            Action::Enter => {
                if let Some(n) = self.jump.take() {
                    if (1..=self.len).contains(&n) {
                        self.apply(Action::Goto(n - 1));
                    }
                }
            }
            Action::Columns(c) => self.columns = c.max(1),
            Action::Close => {
                self.help = false;
                self.overview = false;
                self.goto = false;
                self.script = false;
                self.jump = None;
                self.blank = None;
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
    /// Open the speaker window.
    Speaker,
    /// Show or hide the laser pointer.
    Laser,
    /// Enlarge the slide's embedded lab to the whole stage, or back.
    Enlarge,
}

/// Modifier keys held with a key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mods {
    /// Shift.
    pub shift: bool,
    /// Ctrl, Alt or Meta: the browser's and the system's shortcuts, never ours.
    pub command: bool,
}

/// The value of a digit key, ASCII (`7`) or Bengali (`৭`).
pub fn digit(key: &str) -> Option<u8> {
    let mut chars = key.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return None;
    }
    match c {
        '0'..='9' => Some(c as u8 - b'0'),
        '০'..='৯' => Some((c as u32 - '০' as u32) as u8),
        _ => None,
    }
}

/// A slide number typed into the "go to" field, in ASCII or Bengali digits (1-based).
pub fn parse_number(text: &str) -> Option<usize> {
    let t = text.trim();
    if t.is_empty() || t.chars().count() > 6 {
        return None;
    }
    t.chars().try_fold(0usize, |n, c| {
        let d = digit(c.encode_utf8(&mut [0; 4]))?;
        Some(n * 10 + usize::from(d))
    })
}

/// Maps a `KeyboardEvent.key` to a command. Keys with Ctrl/Alt/Meta are left to the browser.
pub fn key_command(key: &str, mods: Mods) -> Option<Command> {
    use Action::*;
    if mods.command {
        return None;
    }
    if let Some(d) = digit(key) {
        return Some(Command::Nav(Digit(d)));
    }
    let nav = |a| Some(Command::Nav(a));
    match key {
        "ArrowRight" | "PageDown" => nav(Next),
        "ArrowLeft" | "PageUp" => nav(Prev),
        "ArrowUp" => nav(Up),
        "ArrowDown" => nav(Down),
        " " | "Spacebar" => nav(if mods.shift { Prev } else { Next }),
        "Home" => nav(First),
        "End" => nav(Last),
        "Enter" => nav(Enter),
        "a" | "A" => nav(ToggleAutoplay),
        "n" | "N" => nav(ToggleScript),
        "o" | "O" => nav(ToggleOverview),
        "g" | "G" => nav(ToggleGoto),
        "b" | "B" | "." => nav(Blank(self::Blank::Black)),
        "w" | "W" => nav(Blank(self::Blank::White)),
        "?" => nav(ToggleHelp),
        "Escape" => nav(Close),
        "f" | "F" => Some(Command::Fullscreen),
        "s" | "S" => Some(Command::Speaker),
        "l" | "L" => Some(Command::Laser),
        "z" | "Z" => Some(Command::Enlarge),
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
        let p = Player::new(vec![0; 22], 0);
        assert_eq!(p.clone().with(Prev).index, 0);
        assert_eq!(p.clone().with(Last).index, 21);
        assert_eq!(p.clone().with(Last).with(Next).index, 21);
        assert_eq!(p.clone().with(Goto(500)).index, 21);
        assert_eq!(Player::new(vec![0; 22], 99).index, 21);
        assert_eq!(Player::new(vec![], 0).len, 1);
        let mut q = p;
        for _ in 0..30 {
            q.apply(Next);
        }
        assert_eq!(q.index, 21);
        assert_eq!(q.with(First).index, 0);
    }

    #[test]
    fn autoplay_advances_and_stops_at_the_end() {
        let mut p = Player::new(vec![0; 3], 0).with(ToggleAutoplay);
        assert!(p.autoplay);
        p.apply(Tick);
        assert_eq!((p.index, p.autoplay), (1, true));
        p.apply(Tick);
        assert_eq!((p.index, p.autoplay), (2, false));
        p.apply(Tick);
        assert_eq!(p.index, 2);
        // At the last slide there is nothing to play.
        assert!(!Player::new(vec![0; 3], 2).with(ToggleAutoplay).autoplay);
        // Ticks without autoplay do nothing.
        assert_eq!(Player::new(vec![0; 3], 0).with(Tick).index, 0);
    }

    #[test]
    fn any_manual_navigation_pauses_autoplay() {
        for action in [Next, Prev, First, Last, Goto(2)] {
            let p = Player::new(vec![0; 5], 1).with(ToggleAutoplay).with(action);
            assert!(!p.autoplay, "{action:?} should pause autoplay");
        }
        // Going to the slide we are on (the address bar echoing us) does not pause.
        assert!(
            Player::new(vec![0; 5], 1)
                .with(ToggleAutoplay)
                .with(Goto(1))
                .autoplay
        );
        // Toggling the script does not pause either.
        assert!(
            Player::new(vec![0; 5], 1)
                .with(ToggleAutoplay)
                .with(ToggleScript)
                .autoplay
        );
    }

    #[test]
    fn overlays() {
        let p = Player::new(vec![0; 5], 0).with(ToggleOverview);
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

    #[test]
    fn fragments_come_before_the_next_slide_and_go_in_reverse() {
        // Slide 2 (index 1) has three fragments.
        let mut p = Player::new(vec![0, 3, 0], 0);
        p.apply(Next);
        assert_eq!((p.index, p.step), (1, 0));
        for k in 1..=3 {
            p.apply(Next);
            assert_eq!((p.index, p.step), (1, k), "press {k} reveals a fragment");
        }
        p.apply(Next);
        assert_eq!((p.index, p.step), (2, 0));
        // ← goes back to the previous slide fully built, then hides one fragment at a time.
        p.apply(Prev);
        assert_eq!((p.index, p.step), (1, 3));
        p.apply(Prev);
        assert_eq!((p.index, p.step), (1, 2));
        assert_eq!(p.next_position(), Some((1, 3)));
        // An exact position (the address, the speaker window) is clamped to what exists.
        assert_eq!(p.clone().with(At(1, 9)).step, 3);
        assert_eq!(p.clone().with(At(0, 0)).step, 0);
        // Goto starts a slide from its beginning; the end is the last slide fully built.
        assert_eq!(p.clone().with(Goto(1)).step, 0);
        let end = Player::new(vec![0, 0, 2], 2).with(Next).with(Next);
        assert!(end.at_end() && end.step == 2);
        assert!(Player::new(vec![1, 0], 0).at_start());
    }

    #[test]
    fn autoplay_shows_slides_fully_built() {
        let mut p = Player::new(vec![2, 3, 1], 0).with(ToggleAutoplay);
        assert_eq!(p.step, 2);
        p.apply(Tick);
        assert_eq!((p.index, p.step), (1, 3));
        p.apply(Tick);
        assert_eq!((p.index, p.step, p.autoplay), (2, 1, false));
    }

    #[test]
    fn blank_screen_until_the_same_key_or_any_move() {
        let p = Player::new(vec![0, 1, 0], 1).with(Blank(super::Blank::Black));
        assert_eq!(p.blank, Some(super::Blank::Black));
        // The same key brings the slide back; the slide and step are kept.
        let back = p.clone().with(Blank(super::Blank::Black));
        assert_eq!((back.blank, back.index, back.step), (None, 1, 0));
        // The other colour switches; any navigation ends it.
        assert_eq!(
            p.clone().with(Blank(super::Blank::White)).blank,
            Some(super::Blank::White)
        );
        for a in [Next, Prev, First, Last, Goto(0), Close] {
            assert_eq!(p.clone().with(a).blank, None, "{a:?}");
        }
        // Opening the script does not.
        assert!(p.with(ToggleScript).blank.is_some());
    }

    #[test]
    fn typed_numbers_jump_in_either_script() {
        let p = Player::new(vec![0; 22], 0);
        let typed = p.clone().with(Digit(1)).with(Digit(2));
        assert_eq!(typed.jump, Some(12));
        assert_eq!(typed.clone().with(Enter).index, 11);
        // Out of range: nothing moves, the number is dropped.
        let bad = p.clone().with(Digit(9)).with(Digit(9)).with(Enter);
        assert_eq!((bad.index, bad.jump), (0, None));
        assert_eq!(p.clone().with(Digit(0)).with(Enter).index, 0);
        // Enter with nothing typed does nothing; Esc forgets the number.
        assert_eq!(p.clone().with(Enter), p);
        assert_eq!(p.clone().with(Digit(3)).with(Close).jump, None);
        let k = |key| key_command(key, Mods::default());
        assert_eq!(k("১"), Some(Command::Nav(Digit(1))));
        assert_eq!(k("২"), Some(Command::Nav(Digit(2))));
        assert_eq!(k("7"), Some(Command::Nav(Digit(7))));
        assert_eq!(k("১২"), None);
        assert_eq!(parse_number("১২"), Some(12));
        assert_eq!(parse_number(" 12 "), Some(12));
        assert_eq!(parse_number("1২"), Some(12));
        for bad in ["", "x", "1.5", "-3", "১২৩৪৫৬৭"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn arrows_move_through_the_overview_grid() {
        let mut p = Player::new(vec![0; 10], 5)
            .with(ToggleOverview)
            .with(Columns(4));
        assert_eq!(p.selected, 5);
        p.apply(Next);
        assert_eq!((p.selected, p.index, p.overview), (6, 5, true));
        p.apply(Up);
        assert_eq!(p.selected, 2);
        p.apply(Down);
        p.apply(Down);
        assert_eq!(p.selected, 9, "clamped to the last slide");
        p.apply(Prev);
        p.apply(Enter);
        assert_eq!((p.index, p.overview), (8, false));
        // Outside the overview ↑ ↓ do nothing.
        assert_eq!(p.clone().with(Up), p);
    }

    #[test]
    fn escape_closes_everything_including_the_script() {
        let p = Player::new(vec![0; 3], 0)
            .with(ToggleScript)
            .with(ToggleGoto);
        assert!(p.script && p.goto);
        let closed = p.with(Close);
        assert!(!closed.script && !closed.goto && !closed.help && !closed.overview);
        let k = |key| key_command(key, Mods::default());
        assert_eq!(k("b"), Some(Command::Nav(Blank(super::Blank::Black))));
        assert_eq!(k("."), Some(Command::Nav(Blank(super::Blank::Black))));
        assert_eq!(k("W"), Some(Command::Nav(Blank(super::Blank::White))));
        assert_eq!(k("g"), Some(Command::Nav(ToggleGoto)));
        assert_eq!(k("s"), Some(Command::Speaker));
        assert_eq!(k("L"), Some(Command::Laser));
        assert_eq!(k("ArrowUp"), Some(Command::Nav(Up)));
    }
}
