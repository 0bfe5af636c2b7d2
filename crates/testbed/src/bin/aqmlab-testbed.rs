//! `aqmlab-testbed SCENARIO --out DIR [--variant NAME] [--duration D] [--warmup D] [--pcap]
//! [--path router|veth] [--closest-linux] [--quiet]`: run a dumbbell scenario with real Linux TCP (crates/testbed)
//! and write `DIR/<variant>/` as `aqmlab run` does. `aqmlab testbed …` execs this binary.
//!
//! Exit status: 0 done; 2 a bad scenario or command line, missing privileges, or a failure
//! (one line `aqmlab testbed: error: …` on stderr, nothing left behind); 130 stopped by Ctrl-C
//! or SIGTERM (the namespaces are removed and what was measured is written).

use std::path::PathBuf;
use testbed::path::PathKind;
use testbed::run::{self, Options};

const USAGE: &str = "usage: aqmlab testbed SCENARIO --out DIR [--variant NAME] [--duration D] \
                     [--warmup D] [--pcap] [--path router|veth] [--closest-linux] [--quiet]";

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut scenario = None;
    let mut o = Options {
        scenario: PathBuf::new(),
        out: PathBuf::new(),
        variant: None,
        duration: None,
        warmup: None,
        pcap: false,
        path: PathKind::Router,
        closest_linux: false,
        quiet: false,
    };
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name}: expects a value ({USAGE})"))
        };
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(value("--out")?)),
            "--variant" => o.variant = Some(value("--variant")?),
            "--duration" => {
                let v = value("--duration")?;
                let d = units::parse_duration(&v).map_err(|e| format!("--duration: {e}"))?;
                if d.as_nanos() == 0 {
                    return Err("--duration: must be greater than 0".into());
                }
                o.duration = Some(d);
            }
            "--warmup" => {
                let v = value("--warmup")?;
                o.warmup = Some(units::parse_duration(&v).map_err(|e| format!("--warmup: {e}"))?);
            }
            "--pcap" => o.pcap = true,
            "--quiet" => o.quiet = true,
            "--closest-linux" => o.closest_linux = true,
            "--path" => {
                o.path = match value("--path")?.as_str() {
                    "router" => PathKind::Router,
                    "veth" => PathKind::Veth,
                    other => return Err(format!("--path: expected router or veth, got {other:?}")),
                }
            }
            "-h" | "--help" => return Err(USAGE.into()),
            s if s.starts_with('-') => return Err(format!("unknown option {s} ({USAGE})")),
            s => {
                if scenario.replace(PathBuf::from(s)).is_some() {
                    return Err(format!("one SCENARIO only ({USAGE})"));
                }
            }
        }
    }
    o.scenario = scenario.ok_or_else(|| USAGE.to_string())?;
    o.out = out.ok_or_else(|| format!("--out DIR is required ({USAGE})"))?;
    if o.pcap && o.path == PathKind::Veth {
        return Err("--pcap: the pcaps are the router's; not with --path veth".into());
    }
    Ok(o)
}

fn fail(msg: &str) -> ! {
    for line in msg.lines() {
        eprintln!("aqmlab testbed: error: {line}");
    }
    std::process::exit(2);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = parse_args(&args).unwrap_or_else(|e| fail(&e));
    // Scenario first (a bad file is reported the same with or without root), then privileges.
    let prepared = run::prepare(&o).unwrap_or_else(|e| fail(&e));
    for p in &prepared {
        run::check_target(&o.out, &p.name).unwrap_or_else(|e| fail(&e));
    }
    testbed::netns::check_privileges().unwrap_or_else(|e| fail(&e));
    testbed::netns::install_signal_handlers();
    for p in &prepared {
        let out = run::run_variant(p, &o).unwrap_or_else(|e| fail(&e));
        println!("{}: {}", p.name, out.dir.display());
        if !o.quiet {
            eprintln!("{}", out.summary_json);
        }
        if out.interrupted {
            eprintln!(
                "aqmlab testbed: interrupted: {} holds what was measured until then, not a complete run",
                out.dir.display()
            );
            std::process::exit(130);
        }
    }
}
