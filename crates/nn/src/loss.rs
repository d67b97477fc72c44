//! The training loss: masked log-policy, the policy and WDL
//! cross-entropies, and value accuracy.

use tch::{Kind, Tensor};

use crate::batch::Batch;
use crate::error::Result;

/// Logit given to illegal actions before the softmax. Finite, so that
/// `0 · log p` stays 0 for the zero targets of illegal actions.
pub const MASKED_LOGIT: f64 = -1.0e9;

/// Masked log-policy and the two cross-entropies.
pub(crate) struct Losses {
    pub(crate) logp: Tensor,
    pub(crate) policy: Tensor,
    pub(crate) value: Tensor,
}

impl Losses {
    pub(crate) fn new(
        policy_logits: &Tensor,
        wdl_logits: &Tensor,
        batch: &Batch,
    ) -> Result<Losses> {
        let illegal = batch.mask.f_logical_not()?;
        let logp = policy_logits
            .f_masked_fill(&illegal, MASKED_LOGIT)?
            .f_log_softmax(1, Kind::Float)?;
        let policy = batch
            .policy
            .f_mul(&logp)?
            .f_sum_dim_intlist([1i64].as_slice(), false, None::<Kind>)?
            .f_mean(None::<Kind>)?
            .f_neg()?;
        let value = batch
            .wdl
            .f_mul(&wdl_logits.f_log_softmax(1, Kind::Float)?)?
            .f_sum_dim_intlist([1i64].as_slice(), false, None::<Kind>)?
            .f_mean(None::<Kind>)?
            .f_neg()?;
        Ok(Losses {
            logp,
            policy,
            value,
        })
    }
}

pub(crate) fn value_accuracy(wdl_logits: &Tensor, target: &Tensor) -> Result<f64> {
    Ok(wdl_logits
        .f_argmax(1, false)?
        .f_eq_tensor(&target.f_argmax(1, false)?)?
        .f_to_kind(Kind::Float)?
        .f_mean(None::<Kind>)?
        .f_double_value(&[])?)
}
