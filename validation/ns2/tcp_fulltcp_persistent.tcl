# tcp_fulltcp_persistent.tcl — two HTTP/1.1-style exchanges on one ns-2.35 Full-TCP connection,
# written at fixed instants, with a packet trace (aqmlab validation, issue 11; written for
# aqmlab). The twins' Full-TCP settings: segsize_ 1460, windowInit_ 2, segsperack_ 1,
# interval_ 0.1, nodelay_ true, slow_start_restart_ false, minrto_ 1; a 1 Gb/s duplex link with
# 30 ms one way.
#
# usage: ns tcp_fulltcp_persistent.tcl RSP1 RSP2 T3 T4 TRACEFILE
#   the client writes 300 B at 0 (connecting) and 300 B at T3 (s); the server writes RSP1 B at
#   0.095 s and RSP2 B with MSG_EOF at T4 (s).
# Rows the aqmlab test reads (crates/tcp/tests/data/ns2_fulltcp_persistent.txt): every packet
# as it leaves its sender ("-" events), printed by validation/ns2/tcp_fulltcp_persistent.sh.

if {$argc != 5} {
    puts stderr "usage: ns tcp_fulltcp_persistent.tcl RSP1 RSP2 T3 T4 TRACEFILE"
    exit 1
}
lassign $argv rsp1 rsp2 t3 t4 trace

Trace set show_tcphdr_ 1
set ns [new Simulator]
set tf [open $trace w]
$ns trace-all $tf
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1Gb 30ms DropTail

Agent/TCP/FullTcp set segsize_ 1460
Agent/TCP/FullTcp set window_ 44
Agent/TCP/FullTcp set segsperack_ 1
Agent/TCP/FullTcp set interval_ 0.1
Agent/TCP/FullTcp set nodelay_ true
Agent/TCP set slow_start_restart_ false
Agent/TCP set minrto_ 1
Agent/TCP set windowInit_ 2

set c [new Agent/TCP/FullTcp]
set s [new Agent/TCP/FullTcp]
$ns attach-agent $n0 $c
$ns attach-agent $n1 $s
$ns connect $c $s
$s listen
$ns at 0.0 "$c advance-bytes 300"
$ns at 0.095 "$s advance-bytes $rsp1"
$ns at $t3 "$c advance-bytes 300"
$ns at $t4 "$s sendmsg $rsp2 MSG_EOF"
$ns at 3.0 "close $tf; exit 0"
$ns run
