//! Seeded randomness, bit-exact with the seeds' JavaScript.
//!
//! Every lab owns its generator and takes a seed; nothing here reads the clock or the OS.
//! All floating-point maths that is not plain IEEE arithmetic goes through [`libm`], so a
//! native build and a wasm build produce the same bits (and the same bits as V8, whose
//! `Math.pow`/`Math.log` are fdlibm ports like `libm`'s).

/// The mulberry32 generator used by every seed listing.
///
/// JavaScript original:
///
/// ```js
/// function mulberry32(a) { return () => { a = (a + 0x6D2B79F5) | 0; let t = Math.imul(a ^ (a >>> 15), 1 | a);
///   t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; }; }
/// ```
///
/// `| 0`, `Math.imul` and `>>> 0` are all 32-bit two's-complement operations, so plain
/// wrapping `u32` arithmetic reproduces them exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mulberry32 {
    state: u32,
}

impl Mulberry32 {
    /// A generator seeded like `mulberry32(seed)`.
    pub fn new(seed: u32) -> Self {
        Self { state: seed }
    }

    /// The next raw 32-bit output (the numerator of [`Mulberry32::next_f64`]).
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.state = self.state.wrapping_add(0x6D2B_79F5);
        let a = self.state;
        let mut t = (a ^ (a >> 15)).wrapping_mul(1 | a);
        t = t.wrapping_add((t ^ (t >> 7)).wrapping_mul(61 | t)) ^ t;
        t ^ (t >> 14)
    }

    /// Moves the generator `n` steps ahead in O(1): the same state as `n` calls of
    /// [`Mulberry32::next_u32`] (each step adds the same constant to the state). SimRedis
    /// skips a stretch of idle expire cycles with it.
    pub fn skip(&mut self, n: u64) {
        let steps = (n & 0xFFFF_FFFF) as u32;
        self.state = self.state.wrapping_add(steps.wrapping_mul(0x6D2B_79F5));
    }

    /// The next value in `[0, 1)`, exactly `((t ^ (t >>> 14)) >>> 0) / 4294967296`.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        f64::from(self.next_u32()) / 4_294_967_296.0
    }

    /// `Math.floor(rnd() * n)`: a uniform index in `0..n` drawn the way the seeds draw it
    /// (one generator step, multiply, floor). Returns 0 when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        // u32 / 2^32 * n < n and is exact enough that floor never reaches n.
        (self.next_f64() * f64::from(n)) as u32
    }
}

/// The seeds' Zipf sampler: key `k` (0-based) is drawn with probability proportional to
/// `(k + 1)^-alpha`.
///
/// The cumulative table is built with `libm::pow` in the same order as the JavaScript
/// (`sum += Math.pow(k, -ALPHA); cdf[k - 1] = sum`), and a draw returns what the seed's
/// binary search returns (`lo < hi`, `m = (lo + hi) >> 1`, `cdf[m] < x` moves `lo`): the
/// first index with `cdf[m] >= x`. To get there faster, a guide table (Chen & Asau's
/// indexed search) narrows the range first: with `M` a power of two, bucket `b` of the
/// uniform draw `u` brackets the answer between `first(b·sum/M)` and `first((b+1)·sum/M)`;
/// rounding is monotone and `b/M` is exact, so the bracket always holds the exact answer.
#[derive(Clone, Debug)]
pub struct Zipf {
    cdf: Vec<f64>,
    sum: f64,
    guide: Vec<u32>,
}

impl Zipf {
    /// A sampler over `keys` keys (at least 1) with exponent `alpha`.
    pub fn new(keys: u32, alpha: f64) -> Self {
        let keys = keys.max(1);
        let mut cdf = Vec::with_capacity(keys as usize);
        let mut sum = 0.0;
        for k in 1..=keys {
            sum += libm::pow(f64::from(k), -alpha);
            cdf.push(sum);
        }
        let m = keys.next_power_of_two().clamp(1, 1 << 16);
        let mut guide = Vec::with_capacity(m as usize + 1);
        let mut at = 0u32;
        for b in 0..=m {
            let y = f64::from(b) / f64::from(m) * sum;
            while at < keys - 1 && cdf[at as usize] < y {
                at += 1;
            }
            guide.push(at);
        }
        Self { cdf, sum, guide }
    }

    /// Number of keys.
    pub fn keys(&self) -> u32 {
        self.cdf.len() as u32
    }

    /// The normalising sum `Σ k^-alpha`.
    pub fn sum(&self) -> f64 {
        self.sum
    }

    /// Draws one key (consumes exactly one generator step, like `zipf()` in the seed).
    #[inline]
    pub fn sample(&self, rng: &mut Mulberry32) -> u32 {
        let u = rng.next_f64();
        let x = u * self.sum;
        let b = (u * (self.guide.len() - 1) as f64) as usize;
        let (mut lo, mut hi) = (self.guide[b], self.guide[b + 1]);
        while lo < hi {
            let m = (lo + hi) >> 1;
            if self.cdf[m as usize] < x {
                lo = m + 1;
            } else {
                hi = m;
            }
        }
        lo
    }

    /// The seed's plain binary search over the whole table (reference for [`Zipf::sample`]).
    pub fn search(&self, x: f64) -> u32 {
        let (mut lo, mut hi) = (0u32, self.cdf.len() as u32 - 1);
        while lo < hi {
            let m = (lo + hi) >> 1;
            if self.cdf[m as usize] < x {
                lo = m + 1;
            } else {
                hi = m;
            }
        }
        lo
    }
}

/// One exponential inter-arrival gap of a Poisson process with `rate` events per unit time,
/// computed as the seed does: `-Math.log(1 - rnd()) / RATE` (one generator step).
#[inline]
pub fn exp_gap(rng: &mut Mulberry32, rate: f64) -> f64 {
    -libm::log(1.0 - rng.next_f64()) / rate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mulberry32_matches_node() {
        // node: const r = mulberry32(7); r() x5
        let mut r = Mulberry32::new(7);
        let got: Vec<f64> = (0..5).map(|_| r.next_f64()).collect();
        assert_eq!(
            got,
            [
                0.011704753153026104,
                0.06195825757458806,
                0.97690763277933,
                0.6990287057124078,
                0.5214452685322613
            ]
        );
    }

    #[test]
    fn zipf_sum_is_bit_exact() {
        // node: Σ_{k=1}^{10000} Math.pow(k, -0.9) → bits 0x402f60b457250d79
        assert_eq!(
            Zipf::new(10_000, 0.9).sum().to_bits(),
            0x402f_60b4_5725_0d79
        );
    }

    #[test]
    fn guided_sampling_equals_the_seeds_binary_search() {
        for (keys, alpha) in [
            (10_000, 0.9),
            (1, 0.9),
            (7, 0.0),
            (1000, 3.0),
            (100_000, 1.2),
            (50, 400.0),
        ] {
            let z = Zipf::new(keys, alpha);
            let mut a = Mulberry32::new(keys);
            let mut b = a.clone();
            for _ in 0..20_000 {
                let x = b.next_f64() * z.sum();
                assert_eq!(z.sample(&mut a), z.search(x), "keys {keys} alpha {alpha}");
            }
        }
    }

    #[test]
    fn poisson_gaps_are_bit_exact() {
        // node: Σ of 200000 gaps of -Math.log(1 - rnd()) / 2000 with mulberry32(2026)
        let mut r = Mulberry32::new(2026);
        let mut s = 0.0;
        for _ in 0..200_000 {
            s += exp_gap(&mut r, 2000.0);
        }
        assert_eq!(s.to_bits(), 0x4058_fd78_8f33_a5f7);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Mulberry32::new(1);
        for n in 1..200 {
            assert!(r.below(n) < n);
        }
        assert_eq!(r.below(0), 0);
    }
}
