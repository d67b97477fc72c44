//! Lanes: copies of a network, each owned by a thread of its own that runs
//! libtorch with one intra-op thread, so that the parts of one batch are
//! evaluated at the same time (see [`NnEvaluator`](crate::NnEvaluator)'s
//! "Lanes").
//!
//! The caller encodes the batch, sends each lane its rows and blocks on
//! plain channels for the answers: it never runs other work while it waits
//! (a rayon scope would, and inside an arena worker that means whole games
//! nested in one network call).

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;

use tch::Device;

use crate::error::{Error, Result};
use crate::evaluator::{infer_on, input_tensor, softmax_into, Precision, RawOutput};
use crate::model::Network;
use dama_game::Shape;

/// What a lane is asked to do.
enum Job {
    /// Run the network on `n` encoded positions.
    Infer { planes: Vec<f32>, n: usize },
    /// Run the network on `n` encoded positions and softmax each one's
    /// legal actions' logits: position `i`'s policy indices are
    /// `legal[ends[i - 1]..ends[i]]` (from 0 for the first).
    Priors {
        planes: Vec<f32>,
        n: usize,
        legal: Vec<u32>,
        ends: Vec<u32>,
    },
    /// Replace the lane's network (a copy made by the caller).
    Load(Box<Network>),
    /// Run every batch size from 1 to `max` twice.
    Warm { max: usize },
}

/// What a lane answers.
enum Answer {
    /// [`Job::Infer`]'s outputs.
    Raw(RawOutput),
    /// [`Job::Priors`]' outputs.
    Priors(Priors),
    /// Done (started, loaded, warmed up).
    Done,
}

/// A part of a batch evaluated by [`Lanes::priors`]: each position's
/// priors over its legal actions, one position after another, and the
/// win/draw/loss probabilities (`[n, 3]`).
#[derive(Debug)]
pub(crate) struct Priors {
    pub(crate) probs: Vec<f32>,
    pub(crate) wdl: Vec<f32>,
    /// The part's input, back to be reused for another.
    planes: Vec<f32>,
}

struct Lane {
    jobs: Option<Sender<Job>>,
    answers: Receiver<Result<Answer>>,
    thread: Option<JoinHandle<()>>,
}

/// `k` lanes (threads with a network copy each).
pub(crate) struct Lanes {
    lanes: Vec<Lane>,
    shape: Shape,
    /// Input buffers the lanes gave back, for the next parts: a fresh
    /// buffer of this size costs page faults on every call.
    spare: Mutex<Vec<Vec<f32>>>,
}

impl std::fmt::Debug for Lanes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lanes")
            .field("lanes", &self.lanes.len())
            .finish_non_exhaustive()
    }
}

fn stopped() -> Error {
    Error::Config("an inference lane stopped (its thread ended)".into())
}

impl Lanes {
    /// Starts `k` lanes running copies of `net` on `device` at `precision`.
    /// Returns once every lane has set up libtorch on its thread; the
    /// calling thread's libtorch thread count is kept.
    pub(crate) fn start(
        net: &Network,
        device: Device,
        precision: Precision,
        k: usize,
    ) -> Result<Lanes> {
        // libtorch keeps a process-wide thread count that a thread adopts
        // on its first parallel operation, besides each thread's own: each
        // lane sets 1, runs once (so that its own count is fixed), sets 1
        // again; the caller's count is put back once all lanes are up.
        let caller_threads = tch::get_num_threads();
        let shape = net.config().shape();
        let mut lanes = Vec::with_capacity(k);
        let mut failed = None;
        for i in 0..k {
            let copy = net.inference_copy(device, precision.kind())?;
            let (jobs, inbox) = channel::<Job>();
            let (outbox, answers) = channel::<Result<Answer>>();
            let thread = std::thread::Builder::new()
                .name(format!("dama-infer-{i}"))
                .spawn(move || lane_main(copy, precision, shape, &inbox, &outbox))
                .map_err(|e| Error::Config(format!("cannot start inference lane {i}: {e}")))?;
            let lane = Lane {
                jobs: Some(jobs),
                answers,
                thread: Some(thread),
            };
            // The lane's first answer says it is ready.
            match lane.answers.recv() {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => failed = Some(e),
                Err(_) => failed = Some(stopped()),
            }
            lanes.push(lane);
            if failed.is_some() {
                break;
            }
        }
        tch::set_num_threads(caller_threads);
        let lanes = Lanes {
            lanes,
            shape,
            spare: Mutex::new(Vec::new()),
        };
        match failed {
            Some(e) => Err(e),
            None => Ok(lanes),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lanes.len()
    }

    /// Runs the network on `n` positions (`planes` as
    /// [`NnEvaluator::infer`](crate::NnEvaluator::infer)), split into
    /// contiguous parts over the lanes (at most one lane per position), and
    /// returns the outputs in order.
    pub(crate) fn infer(&self, planes: &[f32], n: usize) -> Result<RawOutput> {
        let per = self.shape.planes_len();
        if planes.len() != n * per {
            return Err(Error::Shape(format!(
                "infer: {} plane values for {n} positions of {per}",
                planes.len()
            )));
        }
        for (lane, rows) in self.split(n) {
            let job = Job::Infer {
                planes: planes[rows.start * per..rows.end * per].to_vec(),
                n: rows.len(),
            };
            send(lane, job)?;
        }
        let parts = self.receive(self.split(n).count(), |answer| match answer {
            Answer::Raw(raw) => Ok(raw),
            _ => Err(out_of_step()),
        })?;
        let mut out = RawOutput {
            policy_logits: Vec::with_capacity(parts.iter().map(|p| p.policy_logits.len()).sum()),
            wdl: Vec::with_capacity(3 * n),
        };
        for raw in parts {
            out.policy_logits.extend_from_slice(&raw.policy_logits);
            out.wdl.extend_from_slice(&raw.wdl);
        }
        Ok(out)
    }

    /// The lanes that take a part of a batch of `n` positions, each with
    /// its rows: contiguous, in order, as equal as can be, at most one lane
    /// per position.
    fn split(&self, n: usize) -> impl Iterator<Item = (&Lane, std::ops::Range<usize>)> {
        let used = self.lanes.len().min(n);
        let (base, rest) = (n / used.max(1), n % used.max(1));
        let mut start = 0;
        self.lanes
            .iter()
            .take(used)
            .enumerate()
            .map(move |(k, lane)| {
                let len = base + usize::from(k < rest);
                start += len;
                (lane, start - len..start)
            })
    }

    /// Runs the network on `n` positions (`planes` as
    /// [`Lanes::infer`]) whose legal actions' policy indices are `legal`,
    /// position `i`'s ending at `ends[i]`, split into contiguous parts
    /// over the lanes; each lane softmaxes its positions' legal logits, so
    /// that neither the work nor the full policy rows land on the caller.
    /// Returns the parts in order.
    pub(crate) fn priors(
        &self,
        planes: &[f32],
        n: usize,
        legal: &[u32],
        ends: &[u32],
    ) -> Result<Vec<Priors>> {
        let per = self.shape.planes_len();
        let np = self.shape.policy_size();
        if planes.len() != n * per || ends.len() != n {
            return Err(Error::Shape(format!(
                "priors: {} plane values and {} positions' actions for {n} positions of {per}",
                planes.len(),
                ends.len()
            )));
        }
        if ends.windows(2).any(|w| w[0] > w[1])
            || ends.last().is_some_and(|&e| e as usize != legal.len())
            || legal.iter().any(|&i| i as usize >= np)
        {
            return Err(Error::Shape(format!(
                "priors: legal actions that are not {n} runs of policy indices below {np}"
            )));
        }
        for (lane, rows) in self.split(n) {
            let mut part = self
                .spare
                .lock()
                .ok()
                .and_then(|mut s| s.pop())
                .unwrap_or_default();
            part.clear();
            part.extend_from_slice(&planes[rows.start * per..rows.end * per]);
            let from = rows.start.checked_sub(1).map_or(0, |r| ends[r]);
            let to = ends[rows.end - 1];
            let job = Job::Priors {
                planes: part,
                n: rows.len(),
                legal: legal[from as usize..to as usize].to_vec(),
                ends: ends[rows].iter().map(|&e| e - from).collect(),
            };
            send(lane, job)?;
        }
        self.receive(self.split(n).count(), |answer| match answer {
            Answer::Priors(mut p) => {
                if let Ok(mut spare) = self.spare.lock() {
                    spare.push(std::mem::take(&mut p.planes));
                }
                Ok(p)
            }
            _ => Err(out_of_step()),
        })
    }

    /// The answers of the first `used` lanes, each through `take`. Every
    /// lane that was sent a part answers, even after an error in another,
    /// so the channels stay in step.
    fn receive<T>(&self, used: usize, take: impl Fn(Answer) -> Result<T>) -> Result<Vec<T>> {
        let mut parts = Vec::with_capacity(used);
        let mut first_error = None;
        for lane in self.lanes.iter().take(used) {
            match lane.answers.recv() {
                Ok(Ok(answer)) => match take(answer) {
                    Ok(part) => parts.push(part),
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                },
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(_) => {
                    first_error.get_or_insert_with(stopped);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(parts),
        }
    }

    /// Gives every lane a copy of `net`'s weights (all or, on an error,
    /// the error).
    pub(crate) fn load(&self, net: &Network, device: Device, precision: Precision) -> Result<()> {
        let copies = self
            .lanes
            .iter()
            .map(|_| net.inference_copy(device, precision.kind()))
            .collect::<Result<Vec<_>>>()?;
        for (lane, copy) in self.lanes.iter().zip(copies) {
            send(lane, Job::Load(Box::new(copy)))?;
        }
        self.wait_all()
    }

    /// Runs every lane at every batch size up to `max`, twice.
    pub(crate) fn warm_up(&self, max: usize) -> Result<()> {
        for lane in &self.lanes {
            send(lane, Job::Warm { max })?;
        }
        self.wait_all()
    }

    fn wait_all(&self) -> Result<()> {
        let mut first_error = None;
        for lane in &self.lanes {
            match lane.answers.recv() {
                Ok(Ok(Answer::Done)) => {}
                Ok(Ok(_)) => {
                    first_error.get_or_insert_with(out_of_step);
                }
                Ok(Err(e)) => {
                    first_error.get_or_insert(e);
                }
                Err(_) => {
                    first_error.get_or_insert_with(stopped);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        for lane in &mut self.lanes {
            // Closing the channel ends the lane's loop.
            lane.jobs.take();
            if let Some(t) = lane.thread.take() {
                let _ = t.join();
            }
        }
    }
}

fn out_of_step() -> Error {
    Error::Config("an inference lane answered another request than the one asked".into())
}

fn send(lane: &Lane, job: Job) -> Result<()> {
    lane.jobs
        .as_ref()
        .ok_or_else(stopped)?
        .send(job)
        .map_err(|_| stopped())
}

/// Runs `n` zero positions through `net` for every `n` in `1..=max`,
/// twice (libtorch prepares its kernels per batch size on first use).
pub(crate) fn warm(net: &Network, precision: Precision, shape: Shape, max: usize) -> Result<()> {
    for _ in 0..2 {
        for n in 1..=max.clamp(1, 256) {
            let planes = vec![0f32; n * shape.planes_len()];
            infer_on(net, precision, &planes, n)?;
        }
    }
    Ok(())
}

fn lane_main(
    mut net: Network,
    precision: Precision,
    shape: Shape,
    inbox: &Receiver<Job>,
    outbox: &Sender<Result<Answer>>,
) {
    batch_policy();
    crate::device::set_torch_threads(1);
    let ready = warm(&net, precision, shape, 1).map(|()| Answer::Done);
    crate::device::set_torch_threads(1);
    if outbox.send(ready).is_err() {
        return;
    }
    // The policy rows of the last call, kept between calls.
    let mut logits = Vec::new();
    while let Ok(job) = inbox.recv() {
        let answer = match job {
            Job::Infer { planes, n } => infer_on(&net, precision, &planes, n).map(Answer::Raw),
            Job::Priors {
                planes,
                n,
                legal,
                ends,
            } => priors_on(&net, precision, planes, n, &legal, &ends, &mut logits)
                .map(Answer::Priors),
            Job::Load(new) => {
                net = *new;
                Ok(Answer::Done)
            }
            Job::Warm { max } => warm(&net, precision, shape, max).map(|()| Answer::Done),
        };
        if outbox.send(answer).is_err() {
            return;
        }
    }
}

/// [`Job::Priors`] on `net`: the forward pass, its policy rows copied into
/// `logits` (reused), each position's legal logits softmaxed.
fn priors_on(
    net: &Network,
    precision: Precision,
    planes: Vec<f32>,
    n: usize,
    legal: &[u32],
    ends: &[u32],
    logits: &mut Vec<f32>,
) -> Result<Priors> {
    let shape = net.config().shape();
    let np = shape.policy_size();
    let Some(xs) = input_tensor(&planes, n, shape, net.device())? else {
        return Ok(Priors {
            probs: Vec::new(),
            wdl: Vec::new(),
            planes,
        });
    };
    let wdl = tch::no_grad(|| -> Result<Vec<f32>> {
        let xs = xs.f_to_kind(precision.kind())?;
        let out = net.f_forward_t(&xs, false)?;
        let policy = out.policy.f_to_kind(tch::Kind::Float)?.f_contiguous()?;
        logits.resize(n * np, 0.0);
        policy.f_copy_data(logits, n * np)?;
        let wdl = out
            .wdl
            .f_to_kind(tch::Kind::Float)?
            .f_softmax(1, tch::Kind::Float)?
            .f_contiguous()?;
        let mut wdl_v = vec![0f32; n * 3];
        wdl.f_copy_data(&mut wdl_v, n * 3)?;
        Ok(wdl_v)
    })?;
    let mut probs = Vec::with_capacity(legal.len());
    let mut from = 0;
    for (row, &end) in logits.chunks_exact(np).zip(ends) {
        let end = end as usize;
        softmax_into(
            row,
            legal[from..end].iter().map(|&i| i as usize),
            &mut probs,
        );
        from = end;
    }
    Ok(Priors { probs, wdl, planes })
}

/// Puts the calling thread (a lane) under Linux's `SCHED_BATCH` policy: the
/// scheduler then never lets it preempt the thread that woke it.
///
/// Without it, handing a lane its part of a batch often cost the caller its
/// core: the woken lane, having slept while the caller worked, preempted
/// it, and the caller waited (tens to hundreds of microseconds) before it
/// could wake the next lane, while a core idled. Measured on 2 cores,
/// `dama bench selfplay --config configs/quick.toml`: the caller spent 15%
/// of self-play in handing batches over, under 1% with this policy. Lanes are
/// CPU-bound threads that the caller waits for, which is what the policy is
/// for; it needs no privilege, and a failure leaves the default policy.
fn batch_policy() {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `sched_setscheduler` reads `param`, a valid
        // `sched_param` living across the call; pid 0 is the calling
        // thread. It touches no memory of ours.
        #[allow(unsafe_code)]
        let _ = unsafe { libc::sched_setscheduler(0, libc::SCHED_BATCH, &param) };
    }
}
