//! Times a run's phases through `RunWriter`: the engine with the writer as observer, then
//! `finish`. Usage: `phases SCENARIO VARIANT DIR`.

use std::path::Path;
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let exps = scenario::load(Path::new(&a[1])).unwrap();
    let exp = &exps.iter().find(|n| n.name == a[2]).unwrap().experiment;
    let dir = Path::new(&a[3]);
    std::fs::create_dir_all(dir).unwrap();
    let t0 = Instant::now();
    let w = store::RunWriter::create(dir, exp.warmup.as_nanos()).unwrap();
    let end = sim::run_in(exp, &mut |_, _| {}, w, dir).unwrap();
    let t1 = Instant::now();
    let s = end.obs.finish(&end.fwd_link, &end.totals).unwrap();
    let t2 = Instant::now();
    std::hint::black_box(s);
    eprintln!(
        "run {:.3} s, finish {:.3} s",
        (t1 - t0).as_secs_f64(),
        (t2 - t1).as_secs_f64()
    );
}
