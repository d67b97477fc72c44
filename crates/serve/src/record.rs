//! Game records as text, for every game: PDN-like tag lines (`[GameName
//! "tafl"]`, `[Rules "…"]`, `[Position "…"]` when the start is not the
//! rules' own), then numbered moves and the result. A draughts record reads
//! back with `dama_engine::GameRecord` too.

use dama_game::GameDef;
use dama_mcts::{Outcome, Player};

use crate::view::result_text;

/// Writes the record of `game`: `tags`, then the game's, the moves and
/// `result` (the game's own when `None`).
pub fn write<G: GameDef>(
    game: &G::Game,
    tags: &[(String, String)],
    result: Option<Outcome>,
) -> String {
    let mut out = String::new();
    for (k, v) in tags {
        out.push_str(&format!("[{k} \"{}\"]\n", v.replace('"', "'")));
    }
    out.push_str(&format!("[GameName \"{}\"]\n", G::NAME));
    let rules = G::rules(game);
    if rules != G::Rules::default() {
        out.push_str(&format!("[Rules \"{rules}\"]\n"));
    }
    let start = G::start_text(game);
    if start != G::position_text(&G::start(&rules)) {
        out.push_str(&format!("[Position \"{start}\"]\n"));
    }
    let second_first = G::parse_position(&rules, &start)
        .map(|g| G::to_play(&g) == Player::Second)
        .unwrap_or(false);
    let mut line = String::new();
    for (i, m) in G::history(game).iter().enumerate() {
        let ply = i + usize::from(second_first);
        let n = ply / 2 + 1;
        if ply % 2 == 0 {
            if !line.is_empty() {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            line.push_str(&format!("{n}. {m}"));
        } else if line.is_empty() {
            line.push_str(&format!("{n}... {m}"));
        } else {
            line.push_str(&format!(" {m}"));
        }
    }
    let result = result_text(result.or_else(|| G::outcome(game)));
    if line.is_empty() {
        out.push_str(result);
    } else {
        out.push_str(&format!("{line} {result}"));
    }
    out.push('\n');
    out
}

/// A record read back: its tags, the game and the result written.
#[derive(Debug)]
pub struct Record<G: GameDef> {
    /// Tags other than `GameName`, `Rules`, `Position`/`FEN` and `Result`.
    pub tags: Vec<(String, String)>,
    /// The game, every move played.
    pub game: G::Game,
    /// The result as written (`None`: `*` or none).
    pub result: Option<Outcome>,
}

/// The `GameName` tag of a record, if it has one.
pub fn game_tag(text: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| tag(l.trim()))
        .find(|(k, _)| k == "GameName")
        .map(|(_, v)| v)
}

fn tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let (k, v) = inner.split_once(' ')?;
    let v = v.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((k.to_owned(), v.to_owned()))
}

/// Reads a record of game `G` under `rules` unless it names its own.
///
/// # Errors
///
/// One sentence naming the line, tag or move that does not read.
pub fn read<G: GameDef>(text: &str, rules: Option<G::Rules>) -> Result<Record<G>, String> {
    let mut tags = Vec::new();
    let mut start = None;
    let mut rules = rules;
    let mut body = String::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            let (k, v) = tag(t).ok_or_else(|| {
                format!(
                    "line {}: `{}` is not a tag",
                    i + 1,
                    t.chars().take(60).collect::<String>()
                )
            })?;
            match k.as_str() {
                "Position" | "FEN" => start = Some(v),
                "Result" => {}
                "GameName" => {
                    if v.parse::<dama_nn::GameName>().map(|g| g.as_str()) != Ok(G::NAME) {
                        return Err(format!("the record is of game `{v}`, not {}", G::TITLE));
                    }
                }
                "Rules" => {
                    rules = Some(G::parse_rules(&v).map_err(|e| format!("rules `{v}`: {e}"))?);
                }
                _ => tags.push((k, v)),
            }
        } else {
            body.push_str(t);
            body.push('\n');
        }
    }
    let rules = rules.unwrap_or_default();
    let mut game = match &start {
        Some(s) => G::parse_position(&rules, s).map_err(|e| format!("position `{s}`: {e}"))?,
        None => G::start(&rules),
    };
    let mut clean = String::with_capacity(body.len());
    let mut depth = 0usize;
    for c in body.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    let mut result = None;
    let mut moves = 0usize;
    for token in clean.split_whitespace() {
        // Move numbers (`12.`, `12...`), alone or stuck to the move.
        let digits = token.trim_start_matches(|c: char| c.is_ascii_digit());
        let token = if digits.len() < token.len() && digits.starts_with('.') {
            digits.trim_start_matches('.')
        } else {
            token
        };
        match token {
            "" => continue,
            "*" => continue,
            "1-0" => result = Some(Outcome::Win(Player::First)),
            "0-1" => result = Some(Outcome::Win(Player::Second)),
            "1/2-1/2" => result = Some(Outcome::Draw),
            _ => {
                if result.is_some() {
                    return Err(format!("`{}` comes after the result", short(token)));
                }
                let m = G::parse_move(&game, token)
                    .map_err(|e| format!("move {}: `{}`: {e}", moves + 1, short(token)))?;
                G::play(&mut game, &m)
                    .map_err(|e| format!("move {}: `{}`: {e}", moves + 1, short(token)))?;
                moves += 1;
            }
        }
    }
    if moves == 0 && start.is_none() && tags.is_empty() && !text.contains('[') {
        return Err("no moves, tags or result".to_owned());
    }
    Ok(Record { tags, game, result })
}

fn short(s: &str) -> String {
    s.chars()
        .take(40)
        .collect::<String>()
        .escape_default()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dama_draughts::Draughts;
    use dama_tafl::Tafl;

    #[test]
    fn records_write_and_read_back() {
        let r = read::<Draughts>("1. d3-d4 d6-d5 2. d4xd6xd8 *", None).unwrap();
        assert_eq!(Draughts::plies(&r.game), 3);
        let text = write::<Draughts>(&r.game, &[("Event".into(), "x".into())], None);
        let engine: dama_engine::GameRecord = text.parse().unwrap();
        assert_eq!(engine.game.moves(), Draughts::history(&r.game));
        let back = read::<Draughts>(&text, None).unwrap();
        assert_eq!(Draughts::history(&back.game), Draughts::history(&r.game));
        for bad in ["1. d3-d5 *", "[Tag", "nonsense"] {
            assert!(read::<Draughts>(bad, None).is_err(), "{bad}");
        }
        let mut t = Tafl::start(&Default::default());
        let m = Tafl::parse_move(&t, "c5-c4").unwrap();
        Tafl::play(&mut t, &m).unwrap();
        let text = write::<Tafl>(&t, &[], None);
        assert_eq!(game_tag(&text).as_deref(), Some("tafl"));
        let back = read::<Tafl>(&text, None).unwrap();
        assert_eq!(Tafl::history(&back.game), Tafl::history(&t));
        assert!(read::<Draughts>(&text, None).is_err());
    }
}
