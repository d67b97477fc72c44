//! [`CachedEvaluator`]: any evaluator behind a cache of evaluations keyed
//! by position ([`Game::eval_key`]).
//!
//! Transpositions are common in draughts, and every search of a game
//! revisits its predecessor's leaves, so self-play answers many leaves from
//! the cache instead of the network.

use std::borrow::BorrowMut;
use std::collections::HashMap;

use crate::evaluator::{Evaluation, Evaluator, Leaf};
use crate::game::Game;

/// A bounded map from [`Game::eval_key`] to the evaluation of that
/// position. When full it is cleared: positions drift as games go on, so
/// recency beats bookkeeping.
#[derive(Clone, Debug, Default)]
pub struct EvalCache {
    map: HashMap<u64, Evaluation>,
    capacity: usize,
}

impl EvalCache {
    /// A cache holding up to `capacity` evaluations (0 disables it).
    #[must_use]
    pub fn new(capacity: usize) -> EvalCache {
        EvalCache {
            map: HashMap::with_capacity(capacity.min(1 << 20)),
            capacity,
        }
    }

    /// The most evaluations the cache holds.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Evaluations held now (never more than [`EvalCache::capacity`]).
    #[must_use]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the cache holds nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The evaluation stored under `key`.
    #[must_use]
    pub fn get(&self, key: u64) -> Option<&Evaluation> {
        self.map.get(&key)
    }

    /// Stores `eval` under `key`, first clearing the cache if it is full.
    pub fn insert(&mut self, key: u64, eval: Evaluation) {
        if self.capacity == 0 {
            return;
        }
        if self.map.len() >= self.capacity {
            self.map.clear();
        }
        self.map.insert(key, eval);
    }

    /// Forgets everything (after the network changed).
    pub fn clear(&mut self) {
        self.map.clear();
    }
}

/// Why a [`CachedEvaluator`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError<E: std::error::Error + 'static> {
    /// The wrapped evaluator failed.
    #[error(transparent)]
    Evaluator(E),
    /// The wrapped evaluator returned another number of evaluations than
    /// positions it was given.
    #[error("{got} evaluations for {expected} positions")]
    BatchSize {
        /// Positions given.
        expected: usize,
        /// Evaluations returned.
        got: usize,
    },
}

/// An evaluator that answers the positions its [`EvalCache`] holds and
/// sends the others, as one batch, to the evaluator it wraps.
///
/// The cache is owned (`C = EvalCache`) or borrowed (`C = &mut EvalCache`,
/// to keep it beyond the wrapper, as self-play does between games).
/// A hit returns exactly what the wrapped evaluator said about the same
/// key, so the searches are the same with or without the cache as long as
/// the wrapped evaluator is a function of [`Game::eval_key`]'s position.
///
/// # Examples
///
/// ```
/// use dama_mcts::{toy::TicTacToe, CachedEvaluator, EvalCache, Search, SearchConfig, UniformEvaluator};
/// use rand::SeedableRng;
///
/// let mut rng = rand::rngs::StdRng::seed_from_u64(0);
/// let mut net = CachedEvaluator::new(UniformEvaluator::default(), EvalCache::new(10_000));
/// let config = SearchConfig { simulations: 100, ..SearchConfig::default() };
/// Search::new(config.clone(), TicTacToe::default())?.run(&mut net, &mut rng)?;
/// let misses = net.misses();
/// // The same search again: every leaf is a hit.
/// Search::new(config, TicTacToe::default())?.run(&mut net, &mut rng)?;
/// assert_eq!(net.misses(), misses);
/// assert!(net.hits() > 0);
/// # Ok::<(), dama_mcts::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CachedEvaluator<E, C = EvalCache> {
    inner: E,
    cache: C,
    hits: u64,
    misses: u64,
}

impl<E, C: BorrowMut<EvalCache>> CachedEvaluator<E, C> {
    /// `inner` behind `cache`.
    pub fn new(inner: E, cache: C) -> Self {
        CachedEvaluator {
            inner,
            cache,
            hits: 0,
            misses: 0,
        }
    }

    /// Leaves answered from the cache so far.
    #[must_use]
    pub fn hits(&self) -> u64 {
        self.hits
    }

    /// Leaves sent to the wrapped evaluator so far.
    #[must_use]
    pub fn misses(&self) -> u64 {
        self.misses
    }

    /// The wrapped evaluator.
    #[must_use]
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// The wrapped evaluator, mutably.
    pub fn inner_mut(&mut self) -> &mut E {
        &mut self.inner
    }

    /// The cache.
    #[must_use]
    pub fn cache(&self) -> &EvalCache {
        self.cache.borrow()
    }

    /// The cache, mutably (for example to clear it).
    pub fn cache_mut(&mut self) -> &mut EvalCache {
        self.cache.borrow_mut()
    }

    /// The wrapped evaluator and the cache.
    pub fn into_parts(self) -> (E, C) {
        (self.inner, self.cache)
    }
}

impl<G, E, C> Evaluator<G> for CachedEvaluator<E, C>
where
    G: Game,
    E: Evaluator<G>,
    C: BorrowMut<EvalCache>,
{
    type Error = CacheError<E::Error>;

    fn evaluate(&mut self, batch: &[Leaf<'_, G>]) -> Result<Vec<Evaluation>, Self::Error> {
        let cache: &mut EvalCache = self.cache.borrow_mut();
        let keys: Vec<u64> = batch.iter().map(|l| l.state.eval_key()).collect();
        let mut out: Vec<Option<Evaluation>> =
            keys.iter().map(|&k| cache.get(k).cloned()).collect();
        let misses: Vec<usize> = (0..batch.len()).filter(|&i| out[i].is_none()).collect();
        self.hits += (batch.len() - misses.len()) as u64;
        self.misses += misses.len() as u64;
        if !misses.is_empty() {
            let leaves: Vec<Leaf<'_, G>> = misses.iter().map(|&i| batch[i]).collect();
            let evals = self
                .inner
                .evaluate(&leaves)
                .map_err(CacheError::Evaluator)?;
            if evals.len() != leaves.len() {
                return Err(CacheError::BatchSize {
                    expected: leaves.len(),
                    got: evals.len(),
                });
            }
            for (&i, e) in misses.iter().zip(evals) {
                cache.insert(keys[i], e.clone());
                out[i] = Some(e);
            }
        }
        Ok(out.into_iter().flatten().collect())
    }
}
