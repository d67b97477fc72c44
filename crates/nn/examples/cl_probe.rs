use std::time::Instant;
use tch::{Device, Kind, Tensor};

fn channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
}

fn main() {
    tch::set_num_threads(1);
    let args: Vec<String> = std::env::args().collect();
    let (blocks, ch) = if args.get(1).map(String::as_str) == Some("strong") {
        (4, 48)
    } else {
        (2, 32)
    };
    let mut cfg = dama_nn::ModelConfig::quick();
    cfg.blocks = blocks;
    cfg.channels = ch;
    let net = dama_nn::Network::new(&cfg, Device::Cpu).unwrap();
    for kind in [Kind::Float, Kind::BFloat16] {
        let a = net.copy_to(Device::Cpu, kind).unwrap();
        let b = net.copy_to(Device::Cpu, kind).unwrap();
        tch::no_grad(|| {
            for (name, v) in b.var_store().variables() {
                if v.dim() == 4 && name.ends_with("weight") {
                    let cl = channels_last(&v);
                    let mut v = v;
                    v.set_data(&cl);
                }
            }
        });
        let s = cfg.shape();
        let batch: i64 = std::env::args().nth(2).map_or(80, |b| b.parse().unwrap());
        let x = Tensor::randn(
            [batch, s.planes as i64, s.height as i64, s.width as i64],
            (kind, Device::Cpu),
        );
        let xcl = channels_last(&x);
        let mut ta = 0.0;
        let mut tb = 0.0;
        let mut diff = 0.0f64;
        for round in 0..12 {
            tch::no_grad(|| {
                let t = Instant::now();
                let mut oa = None;
                for _ in 0..20 {
                    oa = Some(a.forward_t(&x, false));
                }
                let da = t.elapsed().as_secs_f64();
                let t = Instant::now();
                let mut ob = None;
                for _ in 0..20 {
                    ob = Some(b.forward_t(&xcl, false));
                }
                let db = t.elapsed().as_secs_f64();
                if round >= 2 {
                    ta += da;
                    tb += db;
                }
                let (oa, ob) = (oa.unwrap(), ob.unwrap());
                diff = (oa.policy.to_kind(Kind::Float) - ob.policy.to_kind(Kind::Float))
                    .abs()
                    .max()
                    .double_value(&[]);
            });
        }
        println!("{kind:?} {blocks}x{ch} batch {batch}: nchw {:.0} pos/s, channels-last {:.0} pos/s, ratio {:.2}, max diff {diff:.2e}",
            10.0*20.0*batch as f64/ta, 10.0*20.0*batch as f64/tb, ta/tb);
    }
}
