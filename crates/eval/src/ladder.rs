//! Gauntlets and ladders: many matches, one Elo scale.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::arena::{play_match, MatchConfig, MatchProgress, MatchResult};
use crate::player::PlayerFactory;
use crate::rating::{fit_elo, FitConfig, RatingTable};
use crate::Error;
use dama_game::GameDef;

/// Which pairs of players meet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pairing {
    /// Every player against every other.
    RoundRobin,
    /// Each of the first `candidates` players against every later player
    /// (the opponents) and not against each other.
    Gauntlet {
        /// Number of candidates at the head of the player list.
        candidates: usize,
    },
    /// Each player against its neighbours in list order up to `span` places
    /// away (span 1 = a chain), which suits a run's checkpoints in order.
    Neighbours {
        /// How far apart two players may be in the list to meet.
        span: usize,
    },
    /// Explicit pairs of player indices.
    Pairs(Vec<(usize, usize)>),
}

impl Pairing {
    /// The pairs `(i, j)` for `n` players.
    pub fn pairs(&self, n: usize) -> Vec<(usize, usize)> {
        match self {
            Pairing::RoundRobin => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
            Pairing::Gauntlet { candidates } => {
                let c = (*candidates).min(n);
                (0..c).flat_map(|i| (c..n).map(move |j| (i, j))).collect()
            }
            Pairing::Neighbours { span } => (0..n)
                .flat_map(|i| (i + 1..n.min(i + 1 + span)).map(move |j| (i, j)))
                .collect(),
            Pairing::Pairs(p) => p
                .iter()
                .copied()
                .filter(|&(i, j)| i < n && j < n && i != j)
                .collect(),
        }
    }
}

/// Settings of a ladder of a game whose rules are `R`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "R: Deserialize<'de> + Default"
))]
pub struct LadderConfig<R> {
    /// Settings of every match (the seed is varied per match).
    pub matches: MatchConfig<R>,
    /// Which players meet.
    pub pairing: Pairing,
    /// The Elo fit.
    pub fit: FitConfig,
}

impl<R: Default> Default for LadderConfig<R> {
    fn default() -> Self {
        Self {
            matches: MatchConfig {
                games: 40,
                ..MatchConfig::default()
            },
            pairing: Pairing::RoundRobin,
            fit: FitConfig::default(),
        }
    }
}

/// Everything a ladder produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderResult {
    /// The matches, in the order played.
    pub matches: Vec<MatchResult>,
    /// The fitted scale.
    pub table: RatingTable,
}

impl LadderResult {
    /// Writes `<stem>.csv` (the table), `<stem>.json` (the table and the
    /// pairwise results) and `<stem>-matches.json` (every match in full).
    ///
    /// # Errors
    ///
    /// I/O and serialisation errors.
    pub fn save(&self, stem: &Path) -> Result<(), Error> {
        self.table.save(stem)?;
        let mut name = stem.file_name().unwrap_or_default().to_owned();
        name.push("-matches.json");
        let path = stem.with_file_name(name);
        crate::io::write_atomic(&path, |w| {
            serde_json::to_writer_pretty(w, &self.matches)?;
            Ok(())
        })
    }
}

/// Plays the matches of a ladder and fits one Elo scale to them.
///
/// `on_match` is called after each match (index, count, result) and
/// `on_progress` during it, as in [`play_match`].
/// The anchor named by `config.fit.anchor` (normally `random`) must be one
/// of the players.
///
/// # Errors
///
/// Errors of the matches and of the fit.
pub fn run_ladder<G: GameDef>(
    players: &[Arc<dyn PlayerFactory<G>>],
    config: &LadderConfig<G::Rules>,
    on_progress: &(dyn Fn(&MatchProgress) + Sync),
    on_match: &mut dyn FnMut(usize, usize, &MatchResult),
) -> Result<LadderResult, Error> {
    let mut names: Vec<&str> = players.iter().map(|p| p.name()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::Spec(
            "a ladder needs distinct player names".to_owned(),
        ));
    }
    let pairs = config.pairing.pairs(players.len());
    let mut matches = Vec::with_capacity(pairs.len());
    for (k, &(i, j)) in pairs.iter().enumerate() {
        let mut mc = config.matches.clone();
        mc.seed = config
            .matches
            .seed
            .wrapping_add((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let r = play_match(players[i].as_ref(), players[j].as_ref(), &mc, on_progress)?;
        on_match(k, pairs.len(), &r);
        matches.push(r);
    }
    let results: Vec<_> = matches.iter().map(MatchResult::pair_result).collect();
    let table = fit_elo(&results, &config.fit)?;
    Ok(LadderResult { matches, table })
}

/// The checkpoints of a run, oldest first: the `*.safetensors` weight files
/// under `<run_dir>/models/` (or `<run_dir>` itself if it has no
/// `models/`), in name order (the run names them `gen-0001.safetensors`, …);
/// optimizer states (`*.optim.safetensors`) are skipped, and so are weights
/// without their `.json` sidecar (a run killed between the two writes: not
/// a finished checkpoint).
///
/// # Errors
///
/// I/O errors, or no checkpoint found.
pub fn run_checkpoints(run_dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let models = dama_run::RunDir::new(run_dir).models();
    let dir = if models.is_dir() {
        models
    } else {
        run_dir.to_path_buf()
    };
    let mut found = Vec::new();
    let named = |e: std::io::Error| Error::Spec(format!("cannot list {}: {e}", dir.display()));
    for entry in std::fs::read_dir(&dir).map_err(named)? {
        let path = entry.map_err(named)?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".safetensors")
            && !name.ends_with(".optim.safetensors")
            && dama_run::sidecar_of(&path).is_file()
        {
            found.push(path);
        }
    }
    if found.is_empty() {
        return Err(Error::Spec(format!(
            "no .safetensors checkpoint in {}",
            dir.display()
        )));
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairings() {
        assert_eq!(Pairing::RoundRobin.pairs(3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(
            Pairing::Gauntlet { candidates: 2 }.pairs(4),
            vec![(0, 2), (0, 3), (1, 2), (1, 3)]
        );
        assert_eq!(
            Pairing::Neighbours { span: 1 }.pairs(4),
            vec![(0, 1), (1, 2), (2, 3)]
        );
        assert_eq!(
            Pairing::Pairs(vec![(0, 1), (1, 1), (0, 9)]).pairs(2),
            vec![(0, 1)]
        );
    }

    #[test]
    fn run_checkpoints_skip_optimizer_states() {
        let dir = std::env::temp_dir().join(format!("dama-eval-run-{}", std::process::id()));
        let models = dir.join("models");
        std::fs::create_dir_all(&models).unwrap();
        for f in [
            "gen-0002.safetensors",
            "gen-0001.safetensors",
            "gen-0001.optim.safetensors",
            "gen-0001.json",
            "gen-0002.json",
            // Issue 19: weights without a sidecar (killed mid-checkpoint).
            "gen-0003.safetensors",
        ] {
            std::fs::write(models.join(f), b"").unwrap();
        }
        let found = run_checkpoints(&dir).unwrap();
        let names: Vec<_> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["gen-0001.safetensors", "gen-0002.safetensors"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(run_checkpoints(&dir).is_err());
    }
}
