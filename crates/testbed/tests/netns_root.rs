//! As root: a run's namespaces are made, configured from `[tcp]` and removed, and nothing in
//! the host namespace changes (its sysctls read the same before and after). Skipped when not
//! root, except under CI (CI set), where it must run.

use testbed::hop::NetnsHop;
use testbed::netns::{self, Namespaces, Side};
use testbed::path;
use testbed::tcp_settings::LinuxTcp;

fn root_or_skip() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root && std::env::var_os("CI").is_none() {
        eprintln!("skipped: not root");
        return false;
    }
    true
}

fn host_sysctl(key: &str) -> String {
    std::fs::read_to_string(format!("/proc/sys/{}", key.replace('.', "/")))
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn namespaces_sysctls_and_routes_stay_inside_and_go_away() {
    if !root_or_skip() {
        return;
    }
    netns::check_privileges().unwrap();
    let keys = [
        "net.ipv4.tcp_congestion_control",
        "net.ipv4.tcp_sack",
        "net.ipv4.tcp_timestamps",
        "net.ipv4.tcp_no_metrics_save",
    ];
    let host_before: Vec<String> = keys.iter().map(|k| host_sysctl(k)).collect();
    let host_routes = std::process::Command::new("ip")
        .args(["route"])
        .output()
        .unwrap()
        .stdout;
    let id = netns::new_run_id();
    let mut ns = Namespaces::create(&id).unwrap();
    assert!(netns::list().contains(&ns.client) && netns::list().contains(&ns.server));
    // The opposite of the host's value, so that a write to the wrong namespace would show.
    let want_ts = if host_before[2] == "1" { "0" } else { "1" };
    let want_sack = if host_before[1] == "1" { "0" } else { "1" };
    let tcp = LinuxTcp {
        sysctls: vec![
            ("net.ipv4.tcp_timestamps".into(), want_ts.into()),
            ("net.ipv4.tcp_sack".into(), want_sack.into()),
            ("net.ipv4.tcp_no_metrics_save".into(), "1".into()),
        ],
        route_opts: vec![
            "congctl cubic".into(),
            "initcwnd 4".into(),
            "rto_min 300ms".into(),
            "quickack 1".into(),
        ],
        mtu: 1400,
        notes: vec![],
        substitutions: vec![],
    };
    for side in [Side::Client, Side::Server] {
        netns::apply_sysctls(ns.of(side), &tcp.sysctls).unwrap();
        assert_eq!(
            netns::read_sysctl(ns.of(side), "net.ipv4.tcp_timestamps").unwrap(),
            want_ts
        );
        assert_eq!(
            netns::read_sysctl(ns.of(side), "net.ipv4.tcp_sack").unwrap(),
            want_sack
        );
    }
    path::create_veth(&ns.client, &ns.server).unwrap();
    path::configure(&ns, 3, 2, &tcp).unwrap();
    let route = std::process::Command::new("ip")
        .args(["-n", &ns.client, "route", "show", "10.2.0.0/16"])
        .output()
        .unwrap();
    let route = String::from_utf8_lossy(&route.stdout).to_string();
    for w in [
        "dev aqm0",
        "src 10.1.0.10",
        "congctl cubic",
        "rto_min lock 300ms",
        "initcwnd 4",
        "quickack 1",
    ] {
        assert!(
            route.contains(w) || route.contains(&w.replace(" lock", "")),
            "{w:?} not in {route:?}"
        );
    }
    let link = std::process::Command::new("ip")
        .args(["-n", &ns.server, "addr", "show", "aqm0"])
        .output()
        .unwrap();
    let link = String::from_utf8_lossy(&link.stdout).to_string();
    assert!(
        link.contains("mtu 1400") && link.contains("10.2.0.11/32"),
        "{link}"
    );
    // The host's settings and routes did not change.
    let host_after: Vec<String> = keys.iter().map(|k| host_sysctl(k)).collect();
    assert_eq!(host_before, host_after);
    let routes_after = std::process::Command::new("ip")
        .args(["route"])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(host_routes, routes_after);
    ns.teardown();
    assert!(!netns::list().contains(&ns.client) && !netns::list().contains(&ns.server));
}

#[test]
fn stale_namespaces_of_dead_processes_are_removed_and_live_ones_kept() {
    if !root_or_skip() {
        return;
    }
    // A pid that cannot run: above the kernel's pid_max limit (4194304).
    let dead = Namespaces::create("4194305-dead00").unwrap();
    let live = Namespaces::create(&netns::new_run_id()).unwrap();
    let removed = netns::remove_stale();
    assert!(
        removed.contains(&dead.client) && removed.contains(&dead.server),
        "{removed:?}"
    );
    assert!(
        netns::list().contains(&live.client),
        "a live run's namespace was removed"
    );
    drop(live);
    drop(dead);
}

#[test]
fn a_socket_made_through_the_hop_belongs_to_the_other_namespace() {
    if !root_or_skip() {
        return;
    }
    let id = netns::new_run_id();
    let mut ns = Namespaces::create(&id).unwrap();
    let tcp = LinuxTcp {
        sysctls: vec![],
        route_opts: vec![],
        mtu: 1500,
        notes: vec![],
        substitutions: vec![],
    };
    path::create_veth(&ns.client, &ns.server).unwrap();
    path::configure(&ns, 1, 1, &tcp).unwrap();
    let (client_ns, server_ns) = (ns.client.clone(), ns.server.clone());
    let r = std::thread::spawn(move || -> Result<(), String> {
        netns::enter(&client_ns).map_err(|e| e.to_string())?;
        let home = std::fs::metadata("/proc/thread-self/ns/net").unwrap();
        let hop = NetnsHop::open(&client_ns, &server_ns).map_err(|e| e.to_string())?;
        let server_addr = netns::host_addr(Side::Server, 0);
        let client_addr = netns::host_addr(Side::Client, 0);
        // Made through the hop: binds to the server side's address, not to the client's.
        let s = hop.socket_v4().map_err(|e| e.to_string())?;
        s.bind((server_addr, 0).into())
            .map_err(|e| format!("bind {server_addr}: {e}"))?;
        let s = hop.socket_v4().map_err(|e| e.to_string())?;
        if s.bind((client_addr, 0).into()).is_ok() {
            return Err(format!("{client_addr} bound in the server namespace"));
        }
        // The thread is home again: a plain socket is the client side's.
        let now = std::fs::metadata("/proc/thread-self/ns/net").unwrap();
        use std::os::unix::fs::MetadataExt;
        if now.ino() != home.ino() {
            return Err("the thread did not return to its namespace".into());
        }
        let s = tokio::net::TcpSocket::new_v4().unwrap();
        s.bind((client_addr, 0).into())
            .map_err(|e| format!("bind {client_addr} at home: {e}"))?;
        Ok(())
    })
    .join()
    .unwrap();
    ns.teardown();
    r.unwrap();
}
