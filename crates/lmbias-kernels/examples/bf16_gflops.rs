//! GFLOP/s of the bf16 kernel on one thread (or N) at the shapes of MiniLM's and bert-base's
//! layers (rows = tokens of a batch of 16 or 32 ~11-token sentences), for comparison with
//! oneDNN's matmul at the same shapes (scripts/bench-dnnl.sh; docs/benchmarks.md).
//!
//! With `--features onednn` the products are oneDNN's (the header line says which engine ran).
//! `--threads N`: N threads call the same layers at once, each its own products, as lmbias'
//! pool does; the GFLOP/s are all threads' together.
//!
//! Usage: cargo run --release -p lmbias-kernels [--features onednn] --example bf16_gflops [-- --threads N]

use std::time::Instant;

use lmbias_kernels::bf16::{Bf16Units, Linear};

fn main() {
    let Some(units) = Bf16Units::detect() else {
        eprintln!("this CPU has no AVX512-BF16: nothing to measure");
        std::process::exit(1);
    };
    let threads = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [] => 1,
        [flag, n] if flag == "--threads" => n.parse().expect("--threads takes a number"),
        _ => {
            eprintln!("usage: gflops [--threads N]");
            std::process::exit(2);
        }
    };
    let probe = Linear::new(units, &[0.0; 4], 2, 2, None).expect("shapes agree");
    println!("# {}, {threads} thread(s)", probe.engine());
    println!("rows in out GFLOP/s us/call engine");
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
            // Each thread: one call to warm up, then calls for 0.5 s; the time is the
            // slowest thread's.
            let run = || {
                let mut sink = layer.forward(&x)[0];
                let start = Instant::now();
                let mut calls = 0u32;
                while start.elapsed().as_secs_f64() < 0.5 {
                    sink += layer.forward(&x)[0];
                    calls += 1;
                }
                std::hint::black_box(sink);
                (calls, start.elapsed().as_secs_f64())
            };
            let results: Vec<(u32, f64)> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..threads).map(|_| scope.spawn(run)).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().expect("no panic"))
                    .collect()
            });
            let calls: u32 = results.iter().map(|r| r.0).sum();
            let elapsed = results.iter().map(|r| r.1).fold(0f64, f64::max);
            // Seconds per call of all threads together.
            let per_call = elapsed / f64::from(calls);
            let flops = 2.0 * (rows * k * n) as f64;
            // The last column: what ran this shape (oneDNN may choose per shape).
            println!(
                "{rows} {k} {n} {:.1} {:.1} {}",
                flops / per_call / 1e9,
                per_call * 1e6 * threads as f64,
                layer.engine()
            );
        }
    }
}
