//! What a bot is ([`BotSpec`], parsed from the command line), how long it
//! may think ([`Limit`]) and what else building it needs ([`BotOptions`]).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use dama_eval::{AlphaBetaLimit, PlayerSpec, DEFAULT_CKPT_SEARCH, DEFAULT_CKPT_SIMS};
use dama_mcts::Algorithm;

use crate::Error;

/// Simulations per move when neither the spec, the bundle nor the caller
/// says: the one default of checkpoint players, [`DEFAULT_CKPT_SIMS`].
pub const DEFAULT_SIMS: u32 = DEFAULT_CKPT_SIMS;

/// How long a bot may think about one move: simulations per decision or
/// time per move, the checkpoint players' [`dama_eval::SearchBudget`].
pub use dama_eval::SearchBudget as Limit;

/// What the bot is.
#[derive(Clone, Debug, PartialEq)]
pub enum BotSpec {
    /// A bundle directory written by `dama export`: a network
    /// (TorchScript) or a learned evaluator for the alpha-beta engine.
    Bundle(PathBuf),
    /// A checkpoint with search.
    Checkpoint {
        /// The weights file.
        path: PathBuf,
        /// Simulations per decision or time per move (the bot's default
        /// limit).
        limit: Limit,
        /// Root search.
        algorithm: Algorithm,
        /// Leaves per network call and network copies (`batch=`,
        /// `threads=`).
        inference: dama_eval::Inference,
    },
    /// MCTS with random rollouts (no network).
    Rollout {
        /// Simulations per decision.
        sims: u32,
    },
    /// The alpha-beta engine.
    AlphaBeta {
        /// Depth or time.
        limit: AlphaBetaLimit,
        /// Table size in MiB.
        tt_mb: usize,
        /// A learned evaluation (the shipped network or a file) instead of
        /// the handcrafted one.
        eval: Option<dama_game::EvalSource>,
        /// Search threads (Lazy SMP; 1 searches on the bot's thread alone).
        threads: usize,
    },
    /// Another player of `dama_eval` (random, greedy, policy).
    Player(PlayerSpec),
}

impl BotSpec {
    /// The game and rules the bot's network (or learned evaluator) was
    /// trained under, read from the checkpoint's sidecar, the bundle's
    /// `bundle.json` or the evaluator file's header without building the
    /// bot; `None` for bots without one, which play any rules. `game` is
    /// the game the bot is asked to play: it decides whose network
    /// `eval=shipped` is, which no file says.
    ///
    /// # Errors
    ///
    /// A sidecar, `bundle.json` or evaluator file that cannot be read or is
    /// not this build's format.
    pub fn trained_rules(
        &self,
        game: dama_nn::GameName,
    ) -> Result<Option<dama_nn::GameRules>, Error> {
        match self {
            BotSpec::Bundle(dir) => Ok(Some(crate::BundleContents::read(dir)?.game_rules())),
            BotSpec::Checkpoint { path, .. } | BotSpec::Player(PlayerSpec::Policy { path }) => {
                Ok(Some(dama_nn::read_meta(path)?.game_rules()))
            }
            BotSpec::AlphaBeta {
                eval: Some(source), ..
            } => {
                let game = self.game()?.unwrap_or(game);
                evaluator_trained(game, source)
            }
            _ => Ok(None),
        }
    }
}

/// The rules the learned evaluator `source` of `game` was trained for
/// (`None`: it plays every rule set), as its alpha-beta engine loads it.
///
/// # Errors
///
/// The game's refusal of the file, in words ([`Error::Input`]).
fn evaluator_trained(
    game: dama_nn::GameName,
    source: &dama_game::EvalSource,
) -> Result<Option<dama_nn::GameRules>, Error> {
    struct Load<'a>(&'a dama_game::EvalSource);
    impl dama_nn::WithGame for Load<'_> {
        type Output = Result<Option<dama_nn::GameRules>, String>;
        fn run<G: dama_game::GameDef>(self) -> Self::Output {
            let spec = dama_game::OwnSpec::AlphaBeta(dama_game::AlphaBetaSpec {
                limit: dama_game::AlphaBetaLimit::Depth(1),
                tt_mb: 1,
                eval: Some(self.0.clone()),
                threads: 1,
            });
            let factory = G::own_players(&spec, &G::Tables::default())
                .map_err(|e| crate::error::chain(&e))?;
            Ok(factory
                .trained_rules()
                .and_then(dama_nn::GameRules::new::<G>))
        }
    }
    game.with(Load(source)).map_err(Error::Input)
}

impl BotSpec {
    /// The game of the bot's network, read from the checkpoint's sidecar or
    /// the bundle's `bundle.json` without loading the network; `None` for
    /// bots without a network (each game says which of the own players it
    /// has: [`dama_game::GameDef::check_own`]).
    ///
    /// # Errors
    ///
    /// A sidecar or `bundle.json` that cannot be read or is not this
    /// build's format.
    pub fn game(&self) -> Result<Option<dama_nn::GameName>, Error> {
        match self {
            BotSpec::Bundle(dir) => Ok(Some(crate::BundleContents::read(dir)?.game())),
            BotSpec::Checkpoint { path, .. } | BotSpec::Player(PlayerSpec::Policy { path }) => {
                Ok(Some(dama_nn::read_meta(path)?.game))
            }
            // The shipped network is the network of whichever game is
            // asked for (a game that ships none refuses it by name).
            BotSpec::AlphaBeta {
                eval: Some(dama_game::EvalSource::Shipped),
                ..
            } => Ok(None),
            // A learned evaluator file is the game's whose alpha-beta loads
            // it (its feature set); a file no game loads is the default
            // game's to refuse by name.
            BotSpec::AlphaBeta {
                eval: Some(source), ..
            } => Ok(Some(
                dama_nn::GameName::ALL
                    .iter()
                    .copied()
                    .find(|g| evaluator_rules(*g, source).is_some())
                    .unwrap_or_default(),
            )),
            _ => Ok(None),
        }
    }
}

/// Whether `source` is a learned evaluator of game `game` (its alpha-beta
/// engine loads it: the file reads and its feature set is the game's, or
/// the game ships a network), and if so the rules it was trained for, as
/// text (`None` inside: every rule set).
pub fn evaluator_rules(
    game: dama_nn::GameName,
    source: &dama_game::EvalSource,
) -> Option<Option<String>> {
    evaluator_trained(game, source)
        .ok()
        .map(|rules| rules.map(|r| r.text()))
}

impl FromStr for BotSpec {
    type Err = Error;

    /// `bundle:DIR`, a bundle directory, a `.safetensors` checkpoint, or any
    /// player spec of `dama_eval` (`ckpt:PATH[,sims=N][,search=puct|gumbel]`,
    /// `mcts:sims=N`, `alphabeta:depth=N|time=MS`, `greedy`, `random`,
    /// `policy:PATH`).
    fn from_str(s: &str) -> Result<Self, Error> {
        let s = s.trim();
        if let Some(dir) = s.strip_prefix("bundle:") {
            if dir.is_empty() {
                return Err(Error::Input(
                    "`bundle` needs a directory: bundle:DIR".into(),
                ));
            }
            return Ok(BotSpec::Bundle(dir.into()));
        }
        let path = Path::new(s);
        if path.join("bundle.json").is_file() {
            return Ok(BotSpec::Bundle(path.into()));
        }
        if s.ends_with(".safetensors") && !s.contains(':') {
            return Ok(BotSpec::Checkpoint {
                path: path.into(),
                limit: Limit::Sims(DEFAULT_SIMS),
                algorithm: DEFAULT_CKPT_SEARCH,
                inference: dama_eval::Inference::default(),
            });
        }
        let spec: PlayerSpec = s.parse()?;
        Ok(match spec {
            PlayerSpec::Checkpoint {
                path,
                budget,
                search,
                inference,
                ..
            } => BotSpec::Checkpoint {
                path,
                limit: budget,
                algorithm: search,
                inference,
            },
            PlayerSpec::Mcts { sims } => BotSpec::Rollout { sims },
            PlayerSpec::AlphaBeta {
                limit,
                tt_mb,
                eval,
                threads,
            } => BotSpec::AlphaBeta {
                limit,
                tt_mb,
                eval,
                threads,
            },
            other => BotSpec::Player(other),
        })
    }
}

impl BotSpec {
    /// The player spec of a bot that is a player of `dama_eval` (an
    /// alpha-beta engine, pure MCTS, a baseline); `None` for a network or a
    /// bundle.
    pub fn player_spec(&self) -> Option<PlayerSpec> {
        match self {
            BotSpec::Rollout { sims } => Some(PlayerSpec::Mcts { sims: *sims }),
            BotSpec::AlphaBeta {
                limit,
                tt_mb,
                eval,
                threads,
            } => Some(PlayerSpec::AlphaBeta {
                limit: *limit,
                tt_mb: *tt_mb,
                eval: eval.clone(),
                threads: *threads,
            }),
            BotSpec::Player(spec) => Some(spec.clone()),
            BotSpec::Bundle(_) | BotSpec::Checkpoint { .. } => None,
        }
    }
}

impl std::fmt::Display for BotSpec {
    /// The spec in the form [`BotSpec::from_str`] reads.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BotSpec::Bundle(dir) => write!(f, "bundle:{}", dir.display()),
            BotSpec::Checkpoint {
                path,
                limit,
                algorithm,
                inference,
            } => PlayerSpec::Checkpoint {
                path: path.clone(),
                budget: *limit,
                search: *algorithm,
                draw_score: 0.0,
                inference: *inference,
            }
            .fmt(f),
            other => match other.player_spec() {
                Some(spec) => spec.fmt(f),
                None => Ok(()),
            },
        }
    }
}

/// Options for building a bot that the spec does not carry.
#[derive(Clone, Debug)]
pub struct BotOptions {
    /// `auto`, `cpu`, `cuda` or `cuda:N` (default `cpu`).
    pub device: dama_run::DeviceSpec,
    /// Seed of the bot's random generator (default 0).
    pub seed: u64,
    /// Overrides the root search of network bots.
    pub algorithm: Option<Algorithm>,
    /// Endgame tables: a position they hold is played perfectly from them
    /// (fastest win, longest loss), and searches treat such positions as
    /// terminal with their exact result.
    pub tables: dama_game::AnyTables,
    /// Network copies (threads) a checkpoint bot evaluates with when its
    /// spec does not say (`threads=N`); `None`: one per core.
    pub lanes: Option<usize>,
}

impl Default for BotOptions {
    fn default() -> Self {
        BotOptions {
            device: dama_run::DeviceSpec::Cpu,
            seed: 0,
            algorithm: None,
            tables: dama_game::AnyTables::none(),
            lanes: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn specs_parse() {
        assert_eq!(
            "mcts:sims=30".parse::<BotSpec>().unwrap(),
            BotSpec::Rollout { sims: 30 }
        );
        assert!(matches!(
            "bundle:/x".parse::<BotSpec>().unwrap(),
            BotSpec::Bundle(_)
        ));
        assert!(matches!(
            "x/gen-0001.safetensors".parse::<BotSpec>().unwrap(),
            BotSpec::Checkpoint { .. }
        ));
        assert!(matches!(
            "ckpt:x.safetensors,sims=7,search=gumbel"
                .parse::<BotSpec>()
                .unwrap(),
            BotSpec::Checkpoint {
                limit: Limit::Sims(7),
                algorithm: Algorithm::Gumbel,
                ..
            }
        ));
        assert!(matches!(
            "ckpt:x.safetensors,time=80".parse::<BotSpec>().unwrap(),
            BotSpec::Checkpoint {
                limit: Limit::Time(d),
                ..
            } if d == Duration::from_millis(80)
        ));
        // A bare checkpoint and `ckpt:` have the same defaults.
        assert_eq!(
            "x/gen-0001.safetensors".parse::<BotSpec>().unwrap(),
            "ckpt:x/gen-0001.safetensors".parse::<BotSpec>().unwrap()
        );
        for text in [
            "bundle:/x",
            "ckpt:x.safetensors,sims=7,search=gumbel",
            "ckpt:x.safetensors,time=80",
            "mcts:sims=30",
            "alphabeta:depth=3",
            "alphabeta:time=50,threads=2",
            "greedy",
        ] {
            let spec: BotSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            assert_eq!(spec.to_string().parse::<BotSpec>().unwrap(), spec);
        }
        assert!("bundle:".parse::<BotSpec>().is_err());
        assert!("nonsense".parse::<BotSpec>().is_err());
    }
}
