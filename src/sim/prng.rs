//! Our own seeded PRNG. The simulation draws every random choice from here, so the
//! same seed gives the same run on every platform. No ambient randomness anywhere.
//!
//! SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, passes BigCrush, and trivially
//! portable because it only uses wrapping 64-bit integer arithmetic.

/// Probabilities are integer ratios: parts per million. `PPM_ONE` means "always".
pub const PPM_ONE: u32 = 1_000_000;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prng {
    state: u64,
}

impl Prng {
    pub fn new(seed: u64) -> Self {
        Prng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..bound` (Lemire's multiply-shift; bias below 2^-32 for
    /// the bounds we use). `bound == 0` returns 0.
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }

    /// A uniform integer in `low..=high` (`high < low` returns `low`).
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        low + self.below(high - low + 1)
    }

    /// True with probability `ppm / 1_000_000`. Rates of 0 and 1_000_000 never draw,
    /// so turning a fault off does not shift the random stream of anything else... it
    /// does not draw at all, which keeps fault-free runs independent of fault code.
    pub fn chance_ppm(&mut self, ppm: u32) -> bool {
        if ppm == 0 {
            return false;
        }
        if ppm >= PPM_ONE {
            return true;
        }
        self.below(PPM_ONE as u64) < ppm as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_different_seeds_differ() {
        let mut a = Prng::new(42);
        let mut b = Prng::new(42);
        let mut c = Prng::new(43);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..8).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
    }

    #[test]
    fn known_first_value_pins_the_algorithm() {
        // SplitMix64 reference value for seed 0 (first output).
        assert_eq!(Prng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn chance_matches_its_rate_within_sampling_error() {
        let mut rng = Prng::new(7);
        let trials = 200_000u32;
        let hits = (0..trials).filter(|_| rng.chance_ppm(300_000)).count() as f64;
        // Binomial sd = sqrt(n p (1-p)) ~ 205; allow 5 sd.
        assert!((hits - 60_000.0).abs() < 1_025.0, "hits = {hits}");
    }

    #[test]
    fn extreme_rates_do_not_draw() {
        let mut rng = Prng::new(1);
        let before = rng.clone();
        assert!(!rng.chance_ppm(0));
        assert!(rng.chance_ppm(PPM_ONE));
        assert_eq!(rng, before);
    }

    #[test]
    fn between_stays_in_range() {
        let mut rng = Prng::new(9);
        for _ in 0..10_000 {
            let x = rng.between(10, 20);
            assert!((10..=20).contains(&x));
        }
        assert_eq!(rng.between(5, 5), 5);
        assert_eq!(rng.between(6, 5), 6);
    }
}
