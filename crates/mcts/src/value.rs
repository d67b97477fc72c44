//! Players, outcomes and win/draw/loss values with a typed point of view.
//!
//! # Sign convention
//!
//! A value is a [`Wdl`]: probabilities of win, draw and loss that sum to 1.
//! Its scalar form is `win - loss`, in `[-1, 1]`.
//! The type parameter says whose win it is:
//!
//! * [`Wdl<Pov>`]: from the point of view of the player to move in the
//!   position the value belongs to.
//!   Evaluators return this, and search results report the root value this way.
//! * [`Wdl<Abs>`]: absolute, from the point of view of [`Player::First`]
//!   (White in Turkish draughts).
//!
//! Converting between the two needs the player, so forgetting a sign flip
//! does not compile: [`Wdl::<Pov>::to_abs`] and [`Wdl::<Abs>::to_pov`].
//! Players need not alternate (a capture decided jump by jump lets one player
//! act several times in a row), so the search never flips a sign per ply:
//! it converts every backed-up value through the absolute frame.

use std::fmt;
use std::marker::PhantomData;

/// One of the two players.
///
/// [`Player::First`] moves first from the initial position (White in
/// Turkish draughts).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Player {
    /// The player who moves first (White).
    First,
    /// The player who moves second (Black).
    Second,
}

impl Player {
    /// The other player.
    #[inline]
    #[must_use]
    pub fn other(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// `+1.0` for [`Player::First`], `-1.0` for [`Player::Second`]:
    /// multiplying an absolute scalar value by it gives this player's view.
    #[inline]
    #[must_use]
    pub fn sign(self) -> f32 {
        match self {
            Player::First => 1.0,
            Player::Second => -1.0,
        }
    }
}

/// The result of a finished game, in absolute terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// This player won.
    Win(Player),
    /// Nobody won.
    Draw,
}

impl Outcome {
    /// The outcome as an absolute value (from [`Player::First`]'s view).
    #[inline]
    #[must_use]
    pub fn wdl(self) -> Wdl<Abs> {
        match self {
            Outcome::Win(Player::First) => Wdl::WIN,
            Outcome::Win(Player::Second) => Wdl::LOSS,
            Outcome::Draw => Wdl::DRAW,
        }
    }

    /// The outcome from `player`'s point of view.
    #[inline]
    #[must_use]
    pub fn wdl_for(self, player: Player) -> Wdl<Pov> {
        self.wdl().to_pov(player)
    }
}

/// Marker: a value from the point of view of the player to move in the
/// position it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pov;

/// Marker: an absolute value, from the point of view of [`Player::First`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Abs;

/// Win, draw and loss probabilities, whose point of view is the type `P`.
///
/// # Sign convention
///
/// * [`Wdl<Pov>`]: from the point of view of the player to move in the
///   position the value belongs to. Evaluators return this, and search
///   results report the root value this way.
/// * [`Wdl<Abs>`]: absolute, from the point of view of [`Player::First`]
///   (White in Turkish draughts). The tree stores values this way.
///
/// Converting needs the player ([`Wdl::<Pov>::to_abs`],
/// [`Wdl::<Abs>::to_pov`]), so a forgotten sign flip does not compile.
/// The scalar form is `win − loss` ([`Wdl::scalar`]).
pub struct Wdl<P> {
    /// Probability of a win.
    pub win: f32,
    /// Probability of a draw.
    pub draw: f32,
    /// Probability of a loss.
    pub loss: f32,
    _pov: PhantomData<P>,
}

// Manual impls so that `P` needs no bounds.
impl<P> Clone for Wdl<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P> Copy for Wdl<P> {}
impl<P> PartialEq for Wdl<P> {
    fn eq(&self, other: &Self) -> bool {
        self.win == other.win && self.draw == other.draw && self.loss == other.loss
    }
}
impl<P> fmt::Debug for Wdl<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pov = std::any::type_name::<P>()
            .rsplit("::")
            .next()
            .unwrap_or("?");
        write!(
            f,
            "Wdl<{pov}>(w={:.4}, d={:.4}, l={:.4})",
            self.win, self.draw, self.loss
        )
    }
}
impl<P> Default for Wdl<P> {
    /// A certain draw.
    fn default() -> Self {
        Self::DRAW
    }
}

impl<P> Wdl<P> {
    /// A certain win.
    pub const WIN: Wdl<P> = Wdl::new(1.0, 0.0, 0.0);
    /// A certain draw.
    pub const DRAW: Wdl<P> = Wdl::new(0.0, 1.0, 0.0);
    /// A certain loss.
    pub const LOSS: Wdl<P> = Wdl::new(0.0, 0.0, 1.0);

    /// Builds a value from its three probabilities (not normalized).
    #[inline]
    #[must_use]
    pub const fn new(win: f32, draw: f32, loss: f32) -> Self {
        Wdl {
            win,
            draw,
            loss,
            _pov: PhantomData,
        }
    }

    /// Builds a value from a scalar `v = win - loss` in `[-1, 1]` and a
    /// draw probability `d` in `[0, 1]`; the inputs are clamped so that the
    /// three probabilities are non-negative and sum to 1.
    #[must_use]
    pub fn from_scalar(v: f32, d: f32) -> Self {
        let d = if d.is_finite() {
            d.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let room = 1.0 - d;
        let v = if v.is_finite() {
            v.clamp(-room, room)
        } else {
            0.0
        };
        Wdl::new((room + v) * 0.5, d, (room - v) * 0.5)
    }

    /// The scalar value `win - loss`, in `[-1, 1]`.
    #[inline]
    #[must_use]
    pub fn scalar(self) -> f32 {
        self.win - self.loss
    }

    /// The value rescaled so that win + draw + loss = 1; a value with a
    /// non-positive or non-finite sum becomes a certain draw.
    #[must_use]
    pub fn normalized(self) -> Self {
        let (w, d, l) = (self.win.max(0.0), self.draw.max(0.0), self.loss.max(0.0));
        let s = w + d + l;
        if s.is_finite() && s > 0.0 {
            Wdl::new(w / s, d / s, l / s)
        } else {
            Wdl::DRAW
        }
    }

    /// The same probabilities seen by the other player (win and loss swap)
    /// with the same point-of-view type; used where the caller knows the
    /// player changed, e.g. [`Wdl::<Pov>::to_abs`].
    #[inline]
    fn swapped(self) -> Self {
        Wdl::new(self.loss, self.draw, self.win)
    }
}

impl Wdl<Pov> {
    /// The absolute value of a value seen by `pov`, the player to move in
    /// the position it belongs to.
    #[inline]
    #[must_use]
    pub fn to_abs(self, pov: Player) -> Wdl<Abs> {
        let same = Wdl::new(self.win, self.draw, self.loss);
        match pov {
            Player::First => same,
            Player::Second => same.swapped(),
        }
    }
}

impl Wdl<Abs> {
    /// This absolute value seen by `player`.
    #[inline]
    #[must_use]
    pub fn to_pov(self, player: Player) -> Wdl<Pov> {
        let same = Wdl::new(self.win, self.draw, self.loss);
        match player {
            Player::First => same,
            Player::Second => same.swapped(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pov_round_trip() {
        let v: Wdl<Pov> = Wdl::new(0.6, 0.3, 0.1);
        assert_eq!(v.to_abs(Player::First).to_pov(Player::First), v);
        assert_eq!(v.to_abs(Player::Second).to_pov(Player::Second), v);
        assert_eq!(v.to_abs(Player::Second).win, 0.1);
        assert_eq!(
            Outcome::Win(Player::Second).wdl_for(Player::Second),
            Wdl::WIN
        );
        assert_eq!(
            Outcome::Win(Player::Second).wdl_for(Player::First),
            Wdl::LOSS
        );
    }

    #[test]
    fn from_scalar_is_a_distribution() {
        for (v, d) in [(1.0, 0.0), (-0.3, 0.2), (0.9, 0.5), (f32::NAN, 0.1)] {
            let w: Wdl<Abs> = Wdl::from_scalar(v, d);
            assert!((w.win + w.draw + w.loss - 1.0).abs() < 1e-6);
            assert!(w.win >= 0.0 && w.loss >= 0.0);
        }
        let w: Wdl<Abs> = Wdl::from_scalar(-0.3, 0.2);
        assert!((w.scalar() + 0.3).abs() < 1e-6);
    }
}
