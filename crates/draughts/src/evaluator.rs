//! What the alpha-beta engine calls at its leaves: an [`Evaluator`].
//!
//! The handcrafted evaluation ([`Handcrafted`]) is one; a learned network
//! ([`Learned`], from `dama-nnue`) is another. An evaluator may keep a state
//! per node of the search (the network's accumulator), made from the
//! parent's as each move is played, so that a leaf costs a small update
//! rather than a full computation. [`Evaluation`] is the choice made at run
//! time; the search is compiled once per evaluator.

use std::path::Path;
use std::sync::Arc;

use dama_engine::{Position, Rules};
use dama_game::EvalSource;
use dama_nnue::Accumulator;

use crate::error::EngineError;
use crate::features::DraughtsFeatures;

/// A learned evaluation of draughts: the network over [`DraughtsFeatures`].
pub type Network = dama_nnue::Network<DraughtsFeatures>;
/// A training sample of draughts.
pub type Sample = dama_nnue::Sample<DraughtsFeatures>;

/// A static evaluation for the alpha-beta engine, in centi-men for the side
/// to move.
pub trait Evaluator {
    /// What the evaluator keeps per node (`()` if nothing).
    type State: Clone;
    /// The state of the search's root position.
    fn root(&self, pos: &Position) -> Self::State;
    /// The state of `after`, reached from `before` (whose state is
    /// `parent`) by one move.
    fn child(&self, parent: &Self::State, before: &Position, after: &Position) -> Self::State;
    /// The score of `pos`, whose state is `state`, for the side to move.
    fn evaluate(&self, pos: &Position, state: &Self::State) -> i32;
}

/// The handcrafted evaluation ([`crate::alphabeta::evaluate`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Handcrafted;

impl Evaluator for Handcrafted {
    type State = ();
    #[inline]
    fn root(&self, _: &Position) {}
    #[inline]
    fn child(&self, _: &(), _: &Position, _: &Position) {}
    #[inline]
    fn evaluate(&self, pos: &Position, _: &()) -> i32 {
        crate::alphabeta::evaluate(pos)
    }
}

/// Learned scores are kept below this, far from the tablebase and mate
/// scores of the search.
pub const LEARNED_SCORE_LIMIT: i32 = 10_000;

/// A learned evaluation (an NNUE-style network) with incremental
/// accumulators.
#[derive(Clone, Debug)]
pub struct Learned(pub Arc<Network>);

impl Evaluator for Learned {
    type State = Accumulator;
    #[inline]
    fn root(&self, pos: &Position) -> Accumulator {
        self.0.refresh(pos)
    }
    #[inline]
    fn child(&self, parent: &Accumulator, before: &Position, after: &Position) -> Accumulator {
        self.0.update(parent, before, after)
    }
    #[inline]
    fn evaluate(&self, pos: &Position, state: &Accumulator) -> i32 {
        self.0
            .evaluate(state, pos.turn().index())
            .clamp(-LEARNED_SCORE_LIMIT, LEARNED_SCORE_LIMIT)
    }
}

/// Which evaluation an engine plays with.
#[derive(Clone, Debug, Default)]
pub enum Evaluation {
    /// The handcrafted evaluation.
    #[default]
    Handcrafted,
    /// A learned network, loaded from `evaluator`.
    Learned {
        /// The shipped network or the evaluator file.
        evaluator: EvalSource,
        /// The quantized network.
        network: Arc<Network>,
    },
}

impl Evaluation {
    /// Loads the evaluator file at `path`; with `rules`, refuses a network
    /// trained for other rules.
    ///
    /// # Errors
    ///
    /// [`EngineError::Evaluator`] naming the file and the problem.
    pub fn load(path: &Path, rules: Option<&Rules>) -> Result<Evaluation, EngineError> {
        let (float, _) = dama_nnue::read_network::<DraughtsFeatures>(path, rules)?;
        let network = Network::from_float(&float)?;
        Ok(Evaluation::Learned {
            evaluator: EvalSource::File(path.to_path_buf()),
            network: Arc::new(network),
        })
    }

    /// The network dama ships for the standard Turkish rules
    /// ([`crate::shipped`]); with `rules`, refuses other rules.
    ///
    /// # Errors
    ///
    /// [`EngineError::Rules`] for other rules.
    pub fn shipped(rules: Option<&Rules>) -> Result<Evaluation, EngineError> {
        let evaluation = Evaluation::Learned {
            evaluator: EvalSource::Shipped,
            network: crate::shipped::shipped_network()?,
        };
        if let Some(rules) = rules {
            evaluation.check_rules(rules)?;
        }
        Ok(evaluation)
    }

    /// The evaluation an `alphabeta:` spec names: the handcrafted one
    /// without `eval=`, else the shipped network or the learned one in
    /// that file.
    ///
    /// # Errors
    ///
    /// As [`Evaluation::load`] and [`Evaluation::shipped`].
    pub fn of_spec(
        eval: Option<&EvalSource>,
        rules: Option<&Rules>,
    ) -> Result<Evaluation, EngineError> {
        match eval {
            None => Ok(Evaluation::Handcrafted),
            Some(EvalSource::Shipped) => Evaluation::shipped(rules),
            Some(EvalSource::File(path)) => Evaluation::load(path, rules),
        }
    }

    /// The rules a learned evaluation was trained for (`None` for the
    /// handcrafted one, which plays every variant).
    pub fn rules(&self) -> Option<&Rules> {
        match self {
            Evaluation::Handcrafted => None,
            Evaluation::Learned { network, .. } => Some(network.rules()),
        }
    }

    /// Checks that the evaluation can play under `rules`.
    ///
    /// # Errors
    ///
    /// [`EngineError::Rules`] naming both rules.
    pub fn check_rules(&self, rules: &Rules) -> Result<(), EngineError> {
        match self {
            // Another variant is refused; other rule options (a
            // no-capture limit) are the search's, as for networks.
            Evaluation::Learned { evaluator, network }
                if network.rules().variant != rules.variant =>
            {
                Err(EngineError::Rules {
                    evaluator: evaluator.clone(),
                    trained: *network.rules(),
                    asked: *rules,
                })
            }
            _ => Ok(()),
        }
    }
}
