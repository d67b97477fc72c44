//! Inspects an evaluator file: weight ranges, and how far the quantized
//! network is from the float one on a sample file's positions.
//!
//! ```text
//! cargo run --release -p dama-draughts --example inspect_nnue -- NET.nnue [SAMPLES]
//! ```

use std::path::PathBuf;

use dama_draughts::{DraughtsFeatures as D, Network};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).map(PathBuf::from);
    let net_path = args.next().ok_or("usage: inspect NET.nnue [SAMPLES]")?;
    let (float, meta) = dama_nnue::read_network::<D>(&net_path, None)?;
    println!("{}: rules `{}`, {meta:?}", net_path.display(), float.rules);
    let stats = |name: &str, v: &[f32]| {
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let mean = v.iter().map(|x| x.abs()).sum::<f32>() / v.len() as f32;
        println!(
            "  {name:<6} n={:<6} max|w|={max:.3} mean|w|={mean:.4}",
            v.len()
        );
    };
    stats("ft_w", &float.ft_w);
    stats("ft_b", &float.ft_b);
    stats("l1_w", &float.l1_w);
    stats("l1_b", &float.l1_b);
    stats("l2_w", &float.l2_w);
    stats("l2_b", &float.l2_b);
    stats("out_w", &float.out_w);
    println!("  out_b {}", float.out_b);
    if let Some(samples) = args.next() {
        let rules = float.check::<D>()?;
        let (_, samples) = dama_nnue::read_samples::<D>(&samples, Some(&rules), 50_000_000)?;
        let q = Network::from_float(&float)?;
        let (mut err, mut worst, mut abs, mut n) = (0f64, 0f32, 0f64, 0usize);
        let mut corr = (0f64, 0f64, 0f64, 0f64, 0f64);
        for s in samples.iter().step_by(50) {
            let pos = s.position;
            let f = float.evaluate::<D>(&pos);
            let i = q.evaluate_position(&pos) as f32;
            err += f64::from((f - i).abs());
            worst = worst.max((f - i).abs());
            abs += f64::from(f.abs());
            let (x, y) = (f64::from(f), f64::from(s.score.clamp(-3000, 3000)));
            corr.0 += x;
            corr.1 += y;
            corr.2 += x * x;
            corr.3 += y * y;
            corr.4 += x * y;
            n += 1;
        }
        let nf = n as f64;
        let cov = corr.4 / nf - corr.0 / nf * corr.1 / nf;
        let r = cov
            / ((corr.2 / nf - (corr.0 / nf).powi(2)).sqrt()
                * (corr.3 / nf - (corr.1 / nf).powi(2)).sqrt());
        println!(
            "  {n} positions: mean |float| {:.1}, mean |quantized - float| {:.2}, largest {worst:.1}; correlation with the search score {r:.3}",
            abs / nf,
            err / nf
        );
    }
    Ok(())
}
