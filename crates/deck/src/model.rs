//! The deck model. One set of types serves every side: the parser fills them with owned data
//! (`Cow::Owned`); the build writes each deck as JSON, which the app fetches and deserialises
//! when the deck is first opened; the small index every page needs (titles, slide and step
//! counts, the cover slide) is generated code holding `Cow::Borrowed` statics.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// A static or owned string.
pub type Str = Cow<'static, str>;
/// A static or owned list.
pub type List<T> = Cow<'static, [T]>;

/// One deck: a titled sequence of slides.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Deck {
    /// URL id, equal to the source file's stem (`production` for `production.md`).
    pub id: Str,
    /// Title shown on the home page and the cover.
    pub title: Str,
    /// One line under the title on the home page.
    pub subtitle: Str,
    /// Position on the home page (smaller first).
    pub order: u32,
    /// The slides, in presentation order.
    pub slides: List<Slide>,
}

/// What every page knows of a deck without loading it: enough for the home page, the
/// address (slide and step counts) and the deck's first slide.
#[derive(Clone, Debug, PartialEq)]
pub struct DeckInfo {
    /// URL id.
    pub id: Str,
    /// Title.
    pub title: Str,
    /// One line under the title.
    pub subtitle: Str,
    /// Position on the home page.
    pub order: u32,
    /// The deck's JSON file under `decks/` (its name carries a hash of its content, so a
    /// browser may cache it for ever).
    pub file: Str,
    /// Number of fragments of each slide (and so the number of slides).
    pub steps: List<u16>,
    /// The first slide, drawn on the home page before the deck is loaded.
    pub cover: Slide,
}

/// What the address needs to know of a deck: its id, its slides and their steps.
pub trait Shape {
    /// URL id.
    fn id(&self) -> &str;
    /// Number of slides.
    fn slide_count(&self) -> usize;
    /// Fragments of slide `i` (0 when out of range).
    fn steps_of(&self, i: usize) -> usize;
}

impl Shape for Deck {
    fn id(&self) -> &str {
        &self.id
    }
    fn slide_count(&self) -> usize {
        self.slides.len()
    }
    fn steps_of(&self, i: usize) -> usize {
        self.slides.get(i).map_or(0, Slide::steps)
    }
}

impl Shape for DeckInfo {
    fn id(&self) -> &str {
        &self.id
    }
    fn slide_count(&self) -> usize {
        self.steps.len()
    }
    fn steps_of(&self, i: usize) -> usize {
        self.steps.get(i).map_or(0, |&k| usize::from(k))
    }
}

impl Deck {
    /// The deck as the JSON file the app fetches.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a deck always serialises")
    }

    /// Reads a deck back from its JSON file.
    ///
    /// # Errors
    /// serde_json's message when the text is not a deck.
    pub fn from_json(text: &str) -> Result<Deck, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The index entry for this deck, whose JSON is `json`: the file name carries a 64-bit
    /// FNV-1a hash of the content.
    pub fn info(&self, json: &str) -> DeckInfo {
        let hash = json.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
        DeckInfo {
            id: self.id.clone(),
            title: self.title.clone(),
            subtitle: self.subtitle.clone(),
            order: self.order,
            file: Cow::Owned(format!("{}-{hash:016x}.json", self.id)),
            steps: self
                .slides
                .iter()
                .map(|s| s.steps().min(usize::from(u16::MAX)) as u16)
                .collect(),
            cover: self.slides[0].clone(),
        }
    }
}

/// How a slide is laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Layout {
    /// Kicker, title, body from the top.
    Default,
    /// The opening slide: big centred title.
    Cover,
    /// The closing slide: big centred title and summary figures.
    End,
}

/// One slide.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slide {
    /// Small label above the title, e.g. `ক্যাশ ইঞ্জিন ১/৩`.
    pub kicker: Str,
    /// Title lines (the source's ` // ` splits lines).
    pub title: List<Str>,
    /// Layout of the slide.
    pub layout: Layout,
    /// Body blocks in order.
    pub body: List<Block>,
    /// Presenter script: what the instructor says on this slide.
    pub script: Str,
    /// The slide's fragments in reveal order: (block, item) of each item written with `+ `
    /// instead of `- `. Step k of the slide shows the first k of them.
    pub frags: List<(u16, u16)>,
    /// Line in the deck source where the slide starts (for messages).
    pub line: u32,
}

/// A run of inline text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Inline {
    /// Plain text.
    Text(Str),
    /// `**strong**`.
    Bold(Str),
    /// `*emphasis*`.
    Em(Str),
    /// `` `code` ``.
    Code(Str),
    /// `==highlight==`: the teal "this came from Redis" colour.
    Mark(Str),
}

/// A paragraph-level run of inlines.
pub type Text = List<Inline>;

macro_rules! diagrams {
    ($($v:ident = $name:literal $(: [$($word:literal),*])?),* $(,)?) => {
        /// A diagram the app draws (`:::diagram <name> [words]`): the one list of them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Diagram {
            $(#[doc = concat!("`", $name, "`")] $v),*
        }

        impl Diagram {
            /// Every diagram, in this order.
            pub const ALL: &'static [Diagram] = &[$(Diagram::$v),*];

            /// Its name in a deck.
            pub fn name(self) -> &'static str {
                match self {
                    $(Diagram::$v => $name),*
                }
            }

            /// The words it takes after its name (`:::diagram flow app redis`); `None`: any.
            pub fn words(self) -> Option<&'static [&'static str]> {
                match self {
                    $(Diagram::$v => diagrams!(@words $($($word),*)?)),*
                }
            }
        }
    };
    (@words $($word:literal),+) => { Some(&[$($word),+]) };
    (@words) => { None };
}

diagrams! {
    Roles = "roles",
    Connections = "connections",
    Pipeline = "pipeline",
    Authq = "authq",
    Flow = "flow": ["app", "redis", "db", "ext", "users"],
    Load = "load": ["bad", "good"],
    Backoff = "backoff",
}

impl Diagram {
    /// The diagram with this name.
    pub fn from_name(name: &str) -> Option<Diagram> {
        Diagram::ALL.iter().copied().find(|d| d.name() == name)
    }
}

/// The kind of a highlighted code token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tok {
    /// Anything else.
    Plain,
    /// Language keyword, or a Redis command in `redis` code.
    Keyword,
    /// String literal.
    Str,
    /// Number literal.
    Num,
    /// Comment.
    Comment,
    /// Property or key name in JSON.
    Prop,
}

/// A body block.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Block {
    /// A paragraph.
    Para(Text),
    /// The slide's main sentence, shown larger.
    Lead(Text),
    /// A highlighted aside.
    Note(Text),
    /// A correction marker (`! সংশোধন: …`): one small line saying which fact of the slide
    /// corrects a common mistake; the slide states the right fact in its own bullet or diagram,
    /// and the presenter script names the source it was checked against.
    Fix(Text),
    /// A bullet list.
    Bullets(List<Text>),
    /// A numbered list.
    Numbered(List<Text>),
    /// A code sample, already split into highlighted tokens.
    Code {
        /// Language name as written after the fence.
        lang: Str,
        /// Tokens in order; their texts concatenate to the source.
        tokens: List<(Tok, Str)>,
    },
    /// A table.
    Table {
        /// Header cells.
        head: List<Text>,
        /// Body rows.
        rows: List<List<Text>>,
    },
    /// A container (`cards`, `stats`, `steps`, `defs`, `levels`, `diagram NAME`).
    Container {
        /// Container kind.
        kind: Str,
        /// Arguments after the kind (for `diagram`, the diagram's name first).
        args: List<Str>,
        /// Items, each split into fields on ` | `.
        items: List<List<Text>>,
    },
}

impl Slide {
    /// Whether a live lab sits on this slide (`:::lab …`, or a `:::quiz …` that runs one).
    pub fn has_lab(&self) -> bool {
        self.body
            .iter()
            .any(|b| matches!(b, Block::Container { kind, .. } if kind == "lab" || kind == "quiz"))
    }

    /// The title as one line of plain text (for announcements and the overview).
    pub fn title_text(&self) -> String {
        self.title.join(" ")
    }

    /// Number of reveal steps after the first view: the slide is fully built at this step.
    pub fn steps(&self) -> usize {
        self.frags.len()
    }

    /// How item `item` of block `block` shows at reveal step `step`.
    pub fn reveal(&self, block: usize, item: usize, step: usize) -> Reveal {
        match self
            .frags
            .iter()
            .position(|&(b, i)| usize::from(b) == block && usize::from(i) == item)
        {
            None => Reveal::Always,
            Some(k) if k < step => Reveal::Shown,
            Some(_) => Reveal::Hidden,
        }
    }
}

/// How one item of a slide shows at a reveal step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reveal {
    /// Not a fragment: always on screen.
    Always,
    /// A fragment already revealed.
    Shown,
    /// A fragment still to come (its space is kept, so nothing moves when it appears).
    Hidden,
}

/// Plain text of an inline run (markup dropped).
pub fn plain(text: &[Inline]) -> String {
    text.iter()
        .map(|i| match i {
            Inline::Text(s)
            | Inline::Bold(s)
            | Inline::Em(s)
            | Inline::Code(s)
            | Inline::Mark(s) => s.as_ref(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Diagram;

    #[test]
    fn diagrams_are_named_once() {
        for &d in Diagram::ALL {
            assert_eq!(Diagram::from_name(d.name()), Some(d));
        }
        let mut names: Vec<&str> = Diagram::ALL.iter().map(|d| d.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Diagram::ALL.len(), "two diagrams share a name");
        assert_eq!(Diagram::from_name("nope"), None);
        assert_eq!(Diagram::Load.words(), Some(&["bad", "good"][..]));
        assert_eq!(Diagram::Roles.words(), None);
    }
}
