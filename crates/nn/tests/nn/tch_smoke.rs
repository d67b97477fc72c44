//! tch smoke test (issue 2): libtorch links, a tiny network trains one step,
//! and its weights survive a safetensors round trip bit for bit.

use tch::nn::{self, Module, OptimizerConfig};
use tch::{Device, Kind, Tensor};

fn tiny(vs: &nn::Path) -> impl Module {
    nn::seq()
        .add(nn::linear(vs / "fc1", 8, 16, Default::default()))
        .add_fn(|x| x.relu())
        .add(nn::linear(vs / "fc2", 16, 3, Default::default()))
}

#[test]
fn one_step_then_save_and_reload_gives_identical_outputs() {
    tch::manual_seed(7);
    let vs = nn::VarStore::new(Device::Cpu);
    let net = tiny(&vs.root());
    let mut opt = nn::Sgd::default().build(&vs, 0.1).unwrap();
    let xs = Tensor::randn([32, 8], (Kind::Float, Device::Cpu));
    let ys = Tensor::randint(3, [32], (Kind::Int64, Device::Cpu));

    let before = net
        .forward(&xs)
        .cross_entropy_for_logits(&ys)
        .double_value(&[]);
    opt.backward_step(&net.forward(&xs).cross_entropy_for_logits(&ys));
    let after = net
        .forward(&xs)
        .cross_entropy_for_logits(&ys)
        .double_value(&[]);
    assert!(
        after < before,
        "one SGD step should lower the loss: {before} -> {after}"
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.safetensors");
    vs.save(&path).unwrap();

    let mut vs2 = nn::VarStore::new(Device::Cpu);
    let net2 = tiny(&vs2.root());
    vs2.load(&path).unwrap();
    let out1 = tch::no_grad(|| net.forward(&xs));
    let out2 = tch::no_grad(|| net2.forward(&xs));
    assert!(
        out1.equal(&out2),
        "reloaded weights must give identical outputs"
    );
}
