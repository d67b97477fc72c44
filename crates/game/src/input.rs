//! [`NnInput`]: what a network needs from a search state.

use crate::shape::Shape;

/// What the network needs from a search state: its input planes and the
/// policy index of each of its actions, in its game's [`Shape`].
pub trait NnInput {
    /// The action type (the search game's action).
    type Action: Copy;

    /// The shapes of the encoding (a network must be built for them).
    const SHAPE: Shape;

    /// Writes the `SHAPE.planes_len()` input values of this state into
    /// `out`.
    fn encode_planes(&self, out: &mut [f32]);

    /// The policy index (in `0..SHAPE.policy_size()`) of `action`, a legal
    /// action here. Distinct legal actions have distinct indices.
    fn policy_index(&self, action: Self::Action) -> usize;
}
