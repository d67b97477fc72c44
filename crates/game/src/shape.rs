//! [`Shape`]: the tensor shapes of one game's encoding, which the network,
//! the batches and the evaluators are built for.

use serde::{Deserialize, Serialize};

/// The shapes of a game's encoding: input planes `[C, H, W]` and a policy of
/// `P` planes over the same board, `[P, H, W]` flattened plane-major (the
/// network's convolutional policy head writes it directly).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Shape {
    /// Input planes `C`.
    pub planes: usize,
    /// Board height `H` (rows of the planes).
    pub height: usize,
    /// Board width `W`.
    pub width: usize,
    /// Policy planes `P`.
    pub policy_planes: usize,
}

/// A size of a [`Shape`] out of its bounds.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{name} {value} is not in 1..={max}")]
pub struct ShapeError {
    /// Which size (`input planes`, `board height`, …).
    pub name: &'static str,
    /// Its value.
    pub value: usize,
    /// Its bound.
    pub max: usize,
}

/// The largest board side a network is built for.
pub const MAX_SIDE: usize = 32;
/// The most input or policy planes a network is built for.
pub const MAX_PLANES: usize = 1024;

impl Shape {
    /// Squares of the board, `H · W`.
    pub const fn squares(&self) -> usize {
        self.height * self.width
    }

    /// Values per encoded position, `C · H · W`.
    pub const fn planes_len(&self) -> usize {
        self.planes * self.squares()
    }

    /// Length of the policy vector, `P · H · W`.
    pub const fn policy_size(&self) -> usize {
        self.policy_planes * self.squares()
    }

    /// Checks that every size is positive and bounded.
    ///
    /// # Errors
    ///
    /// [`ShapeError`] naming the size.
    pub fn validate(&self) -> Result<(), ShapeError> {
        for (name, v, max) in [
            ("input planes", self.planes, MAX_PLANES),
            ("board height", self.height, MAX_SIDE),
            ("board width", self.width, MAX_SIDE),
            ("policy planes", self.policy_planes, MAX_PLANES),
        ] {
            if v == 0 || v > max {
                return Err(ShapeError {
                    name,
                    value: v,
                    max,
                });
            }
        }
        Ok(())
    }
}

impl std::fmt::Display for Shape {
    /// `planes [13, 8, 8], policy [56, 8, 8]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "planes [{}, {}, {}], policy [{}, {}, {}]",
            self.planes, self.height, self.width, self.policy_planes, self.height, self.width
        )
    }
}
