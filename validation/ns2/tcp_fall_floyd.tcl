# Fall & Floyd 1996 in ns-2.35 Full-TCP: one flow, 64 segments of 1460 B, segments 15 … 14+k
# of the 16-segment window dropped on their first transmission (aqmlab: tests/fall_floyd.rs).
# Usage: ns tcp_fall_floyd.tcl VARIANT K DROP_BASE LINKTRACE CWNDTRACE (see tcp_fall_floyd.sh)
# VARIANT = reno | newreno | sack | tahoe, K = 0 … 4. Writes the n0→n1 link trace (every
# packet the sender puts on the link, with ns-2's byte sequence number) and the cwnd_/ssthresh_
# trace of the sender.
# Link: 1 Gb/s (serialization 12 us per 1500 B, negligible), 50 ms one way, as aqmlab's pipe.
set variant [lindex $argv 0]
set k [lindex $argv 1]
set ns [new Simulator]
set n0 [$ns node]
set n1 [$ns node]
$ns duplex-link $n0 $n1 1000Mb 50ms DropTail
$ns queue-limit $n0 $n1 1000

# TCP settings as aqmlab's defaults (crates/tcp/src/config.rs): MSS 1460, IW 2, ACK every
# segment, Nagle off, 10 ms tick, min RTO 1 s, initial RTO 3 s, window 44 segments
# (65535 B / 1460), dupACK threshold 3.
foreach cls {Agent/TCP/FullTcp} {
    $cls set segsize_ 1460
    $cls set segsperack_ 1
    $cls set interval_ 0
    $cls set nodelay_ true
}
Agent/TCP set windowInit_ 2
Agent/TCP set window_ 44
Agent/TCP set tcpTick_ 0.01
Agent/TCP set minrto_ 1
Agent/TCP set rtxcur_init_ 3
Agent/TCP set numdupacks_ 3
Agent/TCP set packetSize_ 1460

switch $variant {
    reno    { set cls Agent/TCP/FullTcp }
    newreno { set cls Agent/TCP/FullTcp/Newreno }
    sack    { set cls Agent/TCP/FullTcp/Sack }
    tahoe   { set cls Agent/TCP/FullTcp/Tahoe }
}
set src [new $cls]
set dst [new $cls]
$ns attach-agent $n0 $src
$ns attach-agent $n1 $dst
$ns connect $src $dst
$dst listen

# Drop data segments 15 … 14+k on their first transmission. ErrorModel/List drops by the
# count of packets that entered the link (0-based); the sender's packets before segment 15
# are the SYN, the handshake ACK… — DROP_BASE (the count of segment 15 in a loss-free run,
# run.sh checks it) + 0 … k−1, since segments 15 … 30 leave back to back.
set base [lindex $argv 2]
set drops {}
for {set i 0} {$i < $k} {incr i} { lappend drops [expr $base + $i] }
set em [new ErrorModel/List]
$em droplist $drops
$em drop-target [new Agent/Null]
$ns lossmodel $em $n0 $n1

set f [open [lindex $argv 3] w]
$ns trace-queue $n0 $n1 $f
set c [open [lindex $argv 4] w]
$src attach $c
$src trace cwnd_
$src trace ssthresh_

$ns at 0.0 "$src advance-bytes [expr 64 * 1460]"
$ns at 30.0 "close $f; close $c; exit 0"
$ns run
