//! The x87 `long double` that INCRBYFLOAT and HINCRBYFLOAT compute in on Redis' x86-64
//! builds: a 64-bit significand, `strtold`'s correctly rounded parsing, one correctly
//! rounded addition, and `ld2string`'s human form (`%.17Lf` with trailing zeros cut).
//!
//! An `f64` gives other texts (`INCRBYFLOAT k 0.1` on `10.5` is `10.6` in Redis and would be
//! `10.59999999999999964` in f64), so the 64-bit significand is emulated with integer
//! arithmetic: a few lines of big-integer code (parse and print are exact, as glibc's are)
//! rather than a crate for arbitrary precision. Subnormal long doubles are not modelled
//! (values below 2^-16382 read as zero, which Redis refuses as an underflow anyway), nor
//! are `strtold`'s hexadecimal floats (`0x1p3`), which nobody types at INCRBYFLOAT.

use std::cmp::Ordering;

/// A finite, non-NaN long double: `(-1)^neg · mant · 2^exp`, `mant` normalised (top bit
/// set) unless the value is zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ld {
    neg: bool,
    mant: u64,
    exp: i32,
}

const MAX_EXP: i32 = 16384 - 64; // mant · 2^exp < 2^16384
const MIN_EXP: i32 = -16382 - 63;

/// Why a text is not a long double.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LdError {
    /// Not a number (or NaN, or out of range): Redis' "value is not a valid float".
    Invalid,
    /// A valid infinity (`inf`): INCRBYFLOAT then refuses the result.
    Infinite,
}

impl Ld {
    pub(crate) fn from_i64(v: i64) -> Ld {
        round(v < 0, Big::from_u64(v.unsigned_abs()), 0, false).expect("in range")
    }

    /// A finite double, exactly (`(long double)d`).
    pub(crate) fn from_f64(d: f64) -> Ld {
        let bits = d.to_bits();
        let neg = bits >> 63 == 1;
        let e = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1 << 52) - 1);
        let (m, exp) = if e == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), e - 1075)
        };
        round(neg, Big::from_u64(m), exp, false).expect("a double fits")
    }

    /// `getLongDoubleFromObject`: `strtold` of the whole text, no leading space, not NaN,
    /// no overflow, no underflow to zero; at most 5,120 characters.
    pub(crate) fn parse(s: &[u8]) -> Result<Ld, LdError> {
        if s.is_empty() || s.len() > 5 * 1024 || s[0].is_ascii_whitespace() {
            return Err(LdError::Invalid);
        }
        let (neg, body) = match s[0] {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let lower = body.to_ascii_lowercase();
        if lower == b"inf" || lower == b"infinity" {
            return Err(LdError::Infinite);
        }
        if lower.starts_with(b"0x") {
            return parse_hex(neg, &lower[2..]);
        }
        let mut digits = Big::zero();
        let mut nonzero = false;
        let (mut any, mut exp10, mut i) = (false, 0i64, 0);
        let mut seen_dot = false;
        while i < body.len() {
            let c = body[i];
            if c.is_ascii_digit() {
                any = true;
                if c != b'0' || nonzero {
                    nonzero = true;
                    if digits.limbs.len() < 600 {
                        digits.mul_small(10);
                        digits.add_small(u32::from(c - b'0'));
                        if seen_dot {
                            exp10 -= 1;
                        }
                    } else if !seen_dot {
                        exp10 += 1; // beyond 5,000 digits only the scale matters
                    }
                } else if seen_dot {
                    exp10 -= 1;
                }
            } else if c == b'.' && !seen_dot {
                seen_dot = true;
            } else {
                break;
            }
            i += 1;
        }
        if !any {
            return Err(LdError::Invalid);
        }
        if i < body.len() {
            if body[i] != b'e' && body[i] != b'E' {
                return Err(LdError::Invalid);
            }
            let e = std::str::from_utf8(&body[i + 1..]).map_err(|_| LdError::Invalid)?;
            let digits_only = e.trim_start_matches(['+', '-']);
            if digits_only.is_empty() || !digits_only.bytes().all(|c| c.is_ascii_digit()) {
                return Err(LdError::Invalid);
            }
            let v: i64 = e.parse().unwrap_or(if e.starts_with('-') {
                -1_000_000
            } else {
                1_000_000
            });
            exp10 = exp10.saturating_add(v.clamp(-1_000_000, 1_000_000));
        }
        if digits.is_zero() {
            return Ok(Ld {
                neg,
                mant: 0,
                exp: 0,
            });
        }
        if exp10 > 5000 {
            return Err(LdError::Invalid);
        }
        if exp10 < -5100 {
            return Err(LdError::Invalid); // underflows to zero: ERANGE
        }
        let v = if exp10 >= 0 {
            let mut n = digits;
            for _ in 0..exp10 {
                n.mul_small(10);
            }
            round(neg, n, 0, false)
        } else {
            let mut m = Big::from_u64(1);
            for _ in 0..-exp10 {
                m.mul_small(10);
            }
            let s = (66 + m.bits() as i64 - digits.bits() as i64).max(0) as u32;
            let mut n = digits;
            n.shl(s);
            let (q, rem) = n.divmod(&m);
            round(neg, q, -(s as i32), !rem.is_zero())
        };
        v.ok_or(LdError::Invalid)
    }

    /// The nearest `f64` (±inf past its range; a tiny non-zero value stays non-zero).
    pub(crate) fn to_f64(self) -> f64 {
        if self.mant == 0 {
            return if self.neg { -0.0 } else { 0.0 };
        }
        let mut v = self.mant as f64;
        let mut e = self.exp;
        while e > 0 {
            let step = e.min(1000);
            v *= 2f64.powi(step);
            e -= step;
        }
        while e < 0 {
            let step = e.max(-1000);
            v *= 2f64.powi(step);
            e -= step;
        }
        if v == 0.0 {
            v = f64::MIN_POSITIVE;
        }
        if self.neg {
            -v
        } else {
            v
        }
    }

    /// `self + o`, rounded to nearest even; `None` when it overflows to infinity.
    pub(crate) fn add(self, o: Ld) -> Option<Ld> {
        if self.mant == 0 {
            return Some(if o.mant == 0 {
                Ld {
                    neg: self.neg && o.neg,
                    ..o
                }
            } else {
                o
            });
        }
        if o.mant == 0 {
            return Some(self);
        }
        let (x, y) = if self.exp >= o.exp {
            (self, o)
        } else {
            (o, self)
        };
        let shift = (x.exp - y.exp) as u32;
        let xm = u128::from(x.mant) << 63;
        let ym_full = u128::from(y.mant) << 63;
        let (ym, sticky) = if shift >= 127 {
            (0, true)
        } else {
            let ym = ym_full >> shift;
            (ym, (ym << shift) != ym_full)
        };
        let ym = ym | u128::from(sticky);
        let base = x.exp - 63;
        if x.neg == y.neg {
            let s = xm + ym;
            round(x.neg, Big::from_u128(s), base, false)
        } else {
            match xm.cmp(&ym) {
                Ordering::Equal => Some(Ld {
                    neg: false,
                    mant: 0,
                    exp: 0,
                }),
                Ordering::Greater => round(x.neg, Big::from_u128(xm - ym), base, false),
                Ordering::Less => round(y.neg, Big::from_u128(ym - xm), base, false),
            }
        }
    }

    /// `ld2string(…, LD_STR_HUMAN)`: `%.17Lf`, trailing zeros and a bare `.` cut, `-0` as
    /// `0`.
    pub(crate) fn human(self) -> String {
        let mut int_part;
        let frac_digits;
        if self.exp >= 0 {
            int_part = Big::from_u64(self.mant);
            int_part.shl(self.exp as u32);
            frac_digits = Big::zero();
        } else {
            let s = (-self.exp) as u32;
            let mut whole = Big::from_u64(self.mant);
            whole.shr(s);
            int_part = whole;
            let mut frac = Big::from_u64(self.mant);
            frac.low_bits(s);
            for _ in 0..17 {
                frac.mul_small(10);
            }
            let mut q = frac.clone();
            q.shr(s);
            let mut rem = frac;
            rem.low_bits(s);
            // Round half to even on the exact value, as glibc's printf does.
            let mut half = Big::from_u64(1);
            half.shl(s - 1);
            let up = match rem.cmp(&half) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => q.limbs.first().is_some_and(|l| l & 1 == 1),
            };
            if up {
                q.add_small(1);
            }
            if q.cmp(&Big::from_u64(100_000_000_000_000_000)) != Ordering::Less {
                int_part.add_small(1);
                q = Big::zero();
            }
            frac_digits = q;
        }
        let mut s = String::new();
        if self.neg {
            s.push('-');
        }
        s.push_str(&int_part.to_decimal());
        let f = frac_digits.to_decimal();
        let f = format!("{}{}", "0".repeat(17 - f.len().min(17)), f);
        let f = f.trim_end_matches('0');
        if !f.is_empty() {
            s.push('.');
            s.push_str(f);
        }
        if s == "-0" {
            s = "0".into();
        }
        s
    }
}

/// `strtold`'s hexadecimal form after `0x`: hex digits with an optional point, then an
/// optional binary exponent `p±d`.
fn parse_hex(neg: bool, s: &[u8]) -> Result<Ld, LdError> {
    let mut m = Big::zero();
    let (mut exp, mut any, mut dot, mut i) = (0i64, false, false, 0);
    while i < s.len() {
        let c = s[i];
        if let Some(d) = (c as char).to_digit(16) {
            any = true;
            if m.limbs.len() < 600 {
                m.mul_small(16);
                m.add_small(d);
                if dot {
                    exp -= 4;
                }
            } else if !dot {
                exp += 4;
            }
        } else if c == b'.' && !dot {
            dot = true;
        } else {
            break;
        }
        i += 1;
    }
    if !any {
        return Err(LdError::Invalid);
    }
    if i < s.len() {
        if s[i] != b'p' {
            return Err(LdError::Invalid);
        }
        let e = std::str::from_utf8(&s[i + 1..]).map_err(|_| LdError::Invalid)?;
        let digits = e.trim_start_matches(['+', '-']);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(LdError::Invalid);
        }
        let v: i64 = e.parse().unwrap_or(if e.starts_with('-') {
            -100_000
        } else {
            100_000
        });
        exp = exp.saturating_add(v.clamp(-100_000, 100_000));
    }
    if m.is_zero() {
        return Ok(Ld {
            neg,
            mant: 0,
            exp: 0,
        });
    }
    let top = exp + i64::from(m.bits());
    if top > 16384 {
        return Err(LdError::Invalid);
    }
    if top < -16445 {
        return Err(LdError::Invalid);
    }
    round(neg, m, exp as i32, false).ok_or(LdError::Invalid)
}

/// Rounds `n · 2^exp` (plus a sticky bit below it) to a 64-bit significand.
fn round(neg: bool, n: Big, exp: i32, sticky: bool) -> Option<Ld> {
    if n.is_zero() {
        return Some(Ld {
            neg,
            mant: 0,
            exp: 0,
        });
    }
    let bits = n.bits();
    let (mant, e) = if bits <= 64 {
        // Callers pass at least 66 bits whenever a sticky tail exists.
        (n.low_u64() << (64 - bits), exp - (64 - bits) as i32)
    } else {
        let shift = bits - 64;
        let mut top = n.clone();
        top.shr(shift);
        let mut low = n;
        low.low_bits(shift);
        let mut half = Big::from_u64(1);
        half.shl(shift - 1);
        let m = top.low_u64();
        let up = match low.cmp(&half) {
            Ordering::Greater => true,
            Ordering::Less => false,
            Ordering::Equal => sticky || m & 1 == 1,
        };
        let e = exp + shift as i32;
        if up {
            match m.checked_add(1) {
                Some(m) => (m, e),
                None => (1 << 63, e + 1),
            }
        } else {
            (m, e)
        }
    };
    if e > MAX_EXP {
        return None;
    }
    if e < MIN_EXP {
        return Some(Ld {
            neg,
            mant: 0,
            exp: 0,
        });
    }
    Some(Ld { neg, mant, exp: e })
}

/// A small unsigned big integer (little-endian 32-bit limbs).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big {
    limbs: Vec<u32>,
}

impl Big {
    fn zero() -> Big {
        Big { limbs: Vec::new() }
    }

    fn from_u64(v: u64) -> Big {
        let mut b = Big {
            limbs: vec![v as u32, (v >> 32) as u32],
        };
        b.trim();
        b
    }

    fn from_u128(v: u128) -> Big {
        let mut b = Big {
            limbs: (0..4).map(|i| (v >> (32 * i)) as u32).collect(),
        };
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    fn bits(&self) -> u32 {
        match self.limbs.last() {
            None => 0,
            Some(&top) => 32 * (self.limbs.len() as u32 - 1) + (32 - top.leading_zeros()),
        }
    }

    fn low_u64(&self) -> u64 {
        let l = |i: usize| u64::from(self.limbs.get(i).copied().unwrap_or(0));
        l(0) | (l(1) << 32)
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for l in &mut self.limbs {
            let v = u64::from(*l) * u64::from(m) + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for l in &mut self.limbs {
            if carry == 0 {
                break;
            }
            let v = u64::from(*l) + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.limbs.push(carry as u32);
        }
    }

    fn shl(&mut self, n: u32) {
        if self.is_zero() {
            return;
        }
        let (words, bits) = ((n / 32) as usize, n % 32);
        let mut out = vec![0u32; words];
        let mut carry = 0u32;
        for &l in &self.limbs {
            if bits == 0 {
                out.push(l);
            } else {
                out.push((l << bits) | carry);
                carry = l >> (32 - bits);
            }
        }
        if carry > 0 {
            out.push(carry);
        }
        self.limbs = out;
        self.trim();
    }

    fn shr(&mut self, n: u32) {
        let (words, bits) = ((n / 32) as usize, n % 32);
        if words >= self.limbs.len() {
            self.limbs.clear();
            return;
        }
        let src = &self.limbs[words..];
        let mut out = Vec::with_capacity(src.len());
        for i in 0..src.len() {
            let hi = src.get(i + 1).copied().unwrap_or(0);
            out.push(if bits == 0 {
                src[i]
            } else {
                (src[i] >> bits) | (hi << (32 - bits))
            });
        }
        self.limbs = out;
        self.trim();
    }

    /// Keeps the lowest `n` bits.
    fn low_bits(&mut self, n: u32) {
        let (words, bits) = ((n / 32) as usize, n % 32);
        if words < self.limbs.len() {
            self.limbs.truncate(words + 1);
            self.limbs[words] &= if bits == 0 { 0 } else { (1u32 << bits) - 1 };
        }
        self.trim();
    }

    fn cmp(&self, o: &Big) -> Ordering {
        self.limbs
            .len()
            .cmp(&o.limbs.len())
            .then_with(|| self.limbs.iter().rev().cmp(o.limbs.iter().rev()))
    }

    fn sub(&mut self, o: &Big) {
        let mut borrow = 0i64;
        for i in 0..self.limbs.len() {
            let v =
                i64::from(self.limbs[i]) - i64::from(o.limbs.get(i).copied().unwrap_or(0)) - borrow;
            if v < 0 {
                self.limbs[i] = (v + (1i64 << 32)) as u32;
                borrow = 1;
            } else {
                self.limbs[i] = v as u32;
                borrow = 0;
            }
        }
        self.trim();
    }

    fn bit(&self, i: u32) -> bool {
        self.limbs
            .get((i / 32) as usize)
            .is_some_and(|l| (l >> (i % 32)) & 1 == 1)
    }

    /// `(self / d, self % d)` by shift and subtract (the quotients here are ~66 bits).
    fn divmod(&self, d: &Big) -> (Big, Big) {
        let mut q = Big::zero();
        let mut r = Big::zero();
        for i in (0..self.bits()).rev() {
            r.shl(1);
            if self.bit(i) {
                if r.is_zero() {
                    r.limbs.push(1);
                } else {
                    r.limbs[0] |= 1;
                }
            }
            q.shl(1);
            if r.cmp(d) != Ordering::Less {
                r.sub(d);
                if q.is_zero() {
                    q.limbs.push(1);
                } else {
                    q.limbs[0] |= 1;
                }
            }
        }
        (q, r)
    }

    fn divmod_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for l in self.limbs.iter_mut().rev() {
            let v = (rem << 32) | u64::from(*l);
            *l = (v / u64::from(d)) as u32;
            rem = v % u64::from(d);
        }
        self.trim();
        rem as u32
    }

    fn to_decimal(&self) -> String {
        if self.is_zero() {
            return "0".into();
        }
        let mut n = self.clone();
        let mut chunks = Vec::new();
        while !n.is_zero() {
            chunks.push(n.divmod_small(1_000_000_000));
        }
        let mut s = chunks.pop().expect("non-zero").to_string();
        for c in chunks.iter().rev() {
            s.push_str(&format!("{c:09}"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incr(a: &str, b: &str) -> String {
        let x = Ld::parse(a.as_bytes()).unwrap();
        let y = Ld::parse(b.as_bytes()).unwrap();
        x.add(y).unwrap().human()
    }

    #[test]
    fn like_redis_7_0_on_x86_64() {
        // INCRBYFLOAT replies of redis-server 7.0.15.
        assert_eq!(incr("10.5", "0.1"), "10.6");
        assert_eq!(incr("0", "0.1"), "0.1");
        assert_eq!(incr("5.0e3", "2.0e2"), "5200");
        assert_eq!(incr("3", "-3"), "0");
        assert_eq!(incr("0.1", "0.2"), "0.3");
        assert_eq!(incr("1", "1e-20"), "1");
        assert_eq!(incr("-1", "0.5"), "-0.5");
        assert_eq!(incr("0", "1e17"), "100000000000000000");
        assert_eq!(incr("0", "3.0000000000000001"), "3.0000000000000001");
        assert_eq!(incr("0", "1e-5"), "0.00001");
        assert_eq!(incr("0", "0x1.8p3"), "12");
        assert_eq!(incr("0", "-0x.8"), "-0.5");
        assert_eq!(incr("0", "0x1p-2"), "0.25");
        assert_eq!(Ld::from_i64(-7).human(), "-7");
        assert_eq!(Ld::parse(b"inf"), Err(LdError::Infinite));
        for bad in [
            &b""[..],
            b" 1",
            b"1x",
            b"x",
            b"nan",
            b"1e99999",
            b"1e-99999",
            b".",
            b"e5",
            b"0x",
            b"0xG",
            b"1.2e4932",
        ] {
            assert_eq!(
                Ld::parse(bad),
                Err(LdError::Invalid),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let huge = Ld::parse(b"1e4000")
            .unwrap()
            .add(Ld::from_i64(1))
            .unwrap()
            .human();
        assert!(huge.starts_with(
            "99999999999999999999654638730996237849324925835069576313015083330432619433063"
        ));
        assert_eq!(huge.len(), 4000);
        assert!(Ld::parse(b"1e4932")
            .unwrap()
            .human()
            .starts_with("10000000000000000000060189493879638913238377742545"));
        let big = Ld::parse(b"1e4932").unwrap();
        assert_eq!(big.add(big), None, "overflows to infinity");
    }
}
