//! Class mode in the pages (`docs/class-mode.md`): the instructor's class over the player's
//! stage ([`teach`]), the student's page ([`student`]), what both draw ([`parts`]), the join
//! card's QR code ([`qr`]) and the class socket ([`socket`]). All of it but [`slot`] is drawn
//! by the labs module (`LabHost` ids `class` and `join`), so the first load carries only the
//! slot: the key, the help's button, the join page's frame and the speaker window's count.

pub mod cues;
pub mod parts;
pub mod qr;
pub mod results;
pub mod slot;
pub mod socket;
pub mod student;
pub mod teach;
