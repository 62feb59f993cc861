//! The LRU step-through's parameters, declared once ([`crate::params!`]): the seed's cache of
//! 3 keys and its seven operations, through LRU or any policy of the registry.

use crate::labs::eviction::Policy;

crate::params! {
    /// The LRU step-through's parameters.
    #[derive(Clone, Debug, PartialEq)]
    pub struct LruParams {
        /// Cache size in keys.
        pub capacity: u32 = int(3, 1..=12, "ক্যাশের আকার"),
        /// The operations, `put A, get B, …`.
        pub ops: String = ops("put A, put B, put C, get A, put D, get B, get A", "অপারেশন"),
        /// The policy.
        pub policy: Policy = choice(Policy::Lru, "কোন policy"),
        /// Seed of the policy's own randomness.
        pub seed: u32 = seed(1),
    }
}

impl Default for LruParams {
    fn default() -> Self {
        crate::labs::params::Params::defaults(&super::INFO).read()
    }
}
