//! GFLOP/s of the bf16 kernel on one thread at the shapes of MiniLM's and bert-base's
//! layers (rows = tokens of a batch of 16 or 32 ~11-token sentences), for comparison with
//! oneDNN's matmul at the same shapes (scripts/bench-dnnl.sh; docs/benchmarks.md).
//!
//! Usage: cargo run --release -p lmbias-bf16 --example gflops

use std::time::Instant;

use lmbias_bf16::{Bf16Units, Linear};

fn main() {
    let Some(units) = Bf16Units::detect() else {
        eprintln!("this CPU has no AVX512-BF16: nothing to measure");
        std::process::exit(1);
    };
    println!("rows in out GFLOP/s us/call");
    for rows in [176, 352] {
        for (k, n) in [
            (384, 384),
            (384, 1536),
            (1536, 384),
            (768, 768),
            (768, 3072),
            (3072, 768),
        ] {
            let x: Vec<f32> = (0..rows * k)
                .map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5)
                .collect();
            let w: Vec<f32> = (0..k * n)
                .map(|i| ((i * 104_729) % 1000) as f32 / 1000.0 - 0.5)
                .collect();
            let bias = vec![0.1f32; n];
            let layer = Linear::new(units, &w, k, n, Some(&bias)).expect("shapes agree");
            let mut sink = 0f32;
            sink += layer.forward(&x)[0];
            let start = Instant::now();
            let mut calls = 0u32;
            while start.elapsed().as_secs_f64() < 0.5 {
                sink += layer.forward(&x)[0];
                calls += 1;
            }
            let per_call = start.elapsed().as_secs_f64() / f64::from(calls);
            let flops = 2.0 * (rows * k * n) as f64;
            println!(
                "{rows} {k} {n} {:.1} {:.1}",
                flops / per_call / 1e9,
                per_call * 1e6
            );
            std::hint::black_box(sink);
        }
    }
}
