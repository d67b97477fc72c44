//! `ckpt:` and `policy:` players (pending the nn crate's checkpoint API).

use std::sync::Arc;

use crate::player::{BuildOptions, PlayerFactory};
use crate::spec::PlayerSpec;
use crate::Error;

pub(crate) fn factory(
    _spec: &PlayerSpec,
    name: String,
    _options: &BuildOptions,
) -> Result<Arc<dyn PlayerFactory>, Error> {
    Err(Error::Spec(format!(
        "`{name}`: checkpoint players are not available yet"
    )))
}
