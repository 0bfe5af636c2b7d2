# PI and REM side by side with aqmlab: long-lived FTP flows over a 10 Mb/s dumbbell.
#
# usage: ns pi_rem_side_by_side.tcl AQM [flows=20] [warmup_s=60] [measured_s=180] [seed=1]
#                                      [rem_mean_pktsize=1500]
#   AQM = pi | rem
#
# The same scenario as crates/sim/tests/aqm_pi_rem.rs (see README.md in this directory):
#   - N server hosts on router R and N client hosts on router L, each over a 100 Mb/s, 1 ms
#     duplex link (DropTail, 1000 packets);
#   - bottleneck R -> L: 10 Mb/s, 50 ms, the AQM under test; L -> R: 10 Mb/s, 50 ms, DropTail;
#   - flow i: server i -> client i, FTP over one-way TCP/Newreno, 1460-byte segments
#     (1500-byte packets), ACK per segment, window unlimited, started at 50 ms * i;
#   - PI: a = 1.822e-5, b = 1.816e-5, w = 170 Hz, qref = 100 packets, limit 400, packet mode;
#   - REM: gamma 0.001, phi 1.001, inw 1, pupdtime 2 ms, pbo = 20 packets,
#     mean_pktsize 1500 B (or the 6th argument; ns-2's default is 1000), limit 201 (ns-2's REM holds limit - 1 = 200), packet mode, drops.
#
# Prints one line of key=value pairs, measured after the warm-up:
#   arrivals, drops, drop_pct, departures, util (bytes out * 8 / (10 Mb/s * measured)),
#   mean_q (packets waiting, sampled every 3 ms), and the final p / price probability.

if {[llength $argv] < 1} {
    puts stderr "usage: ns pi_rem_side_by_side.tcl pi|rem \[flows\] \[warmup_s\] \[measured_s\] \[seed\] \[rem_mean_pktsize\]"
    exit 2
}
set aqm [lindex $argv 0]
set nflows 20
set warmup 60.0
set measured 180.0
set seed 1
set rem_mean_pktsize 1500
if {[llength $argv] > 1} { set nflows [lindex $argv 1] }
if {[llength $argv] > 2} { set warmup [expr double([lindex $argv 2])] }
if {[llength $argv] > 3} { set measured [expr double([lindex $argv 3])] }
if {[llength $argv] > 4} { set seed [lindex $argv 4] }
if {[llength $argv] > 5} { set rem_mean_pktsize [lindex $argv 5] }

set ns [new Simulator]
$defaultRNG seed $seed

# TCP as aqmlab's TcpConfig defaults: 1460-byte segments (+40 header), initial window 2,
# RTO floor 1 s, initial RTO 3 s, 10 ms tick, no window limit.
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 100000
Agent/TCP set windowInit_ 2
Agent/TCP set minrto_ 1.0
Agent/TCP set rtxcur_init_ 3.0
Agent/TCP set tcpTick_ 0.01
Agent/TCP set maxrto_ 60

Queue/PI set a_ 0.00001822
Queue/PI set b_ 0.00001816
Queue/PI set w_ 170
Queue/PI set qref_ 100
Queue/PI set bytes_ false
Queue/PI set queue_in_bytes_ false
Queue/PI set setbit_ false

Queue/REM set gamma_ 0.001
Queue/REM set phi_ 1.001
Queue/REM set inw_ 1
Queue/REM set mean_pktsize_ $rem_mean_pktsize
Queue/REM set pupdtime_ 0.002
Queue/REM set pbo_ 20.0
Queue/REM set markpkts_ false
Queue/REM set qib_ false

if {$aqm == "pi"} {
    set qtype PI
    set limit 400
} elseif {$aqm == "rem"} {
    set qtype REM
    set limit 201
} else {
    puts stderr "unknown AQM $aqm (pi or rem)"
    exit 2
}

set L [$ns node]
set R [$ns node]
$ns simplex-link $R $L 10Mb 50ms $qtype
$ns simplex-link $L $R 10Mb 50ms DropTail
$ns queue-limit $R $L $limit
$ns queue-limit $L $R 1000

for {set i 0} {$i < $nflows} {incr i} {
    set s($i) [$ns node]
    set c($i) [$ns node]
    $ns duplex-link $s($i) $R 100Mb 1ms DropTail
    $ns duplex-link $c($i) $L 100Mb 1ms DropTail
    $ns queue-limit $s($i) $R 1000
    $ns queue-limit $R $s($i) 1000
    $ns queue-limit $c($i) $L 1000
    $ns queue-limit $L $c($i) 1000
    set tcp($i) [new Agent/TCP/Newreno]
    set sink($i) [new Agent/TCPSink]
    $tcp($i) set fid_ $i
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $c($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr 0.05 * $i] "$ftp($i) start"
}

set qmon [$ns monitor-queue $R $L ""]
set bq [[$ns link $R $L] queue]

set qsum 0.0
set qn 0
proc sample {} {
    global ns qmon qsum qn
    set qsum [expr $qsum + [$qmon set pkts_]]
    incr qn
    $ns at [expr [$ns now] + 0.003] "sample"
}

proc start_measuring {} {
    global qmon
    $qmon reset
    sample
}

proc finish {} {
    global qmon qsum qn measured aqm bq nflows
    set arr [$qmon set parrivals_]
    set drops [$qmon set pdrops_]
    set dep [$qmon set pdepartures_]
    set bdep [$qmon set bdepartures_]
    set util [expr $bdep * 8.0 / (10e6 * $measured)]
    set meanq [expr $qsum / $qn]
    set pct [expr 100.0 * $drops / $arr]
    set p [$bq set prob_]
    puts [format "aqm=%s flows=%d arrivals=%d drops=%d drop_pct=%.3f departures=%d util=%.4f mean_q=%.2f final_prob=%.5f" \
        $aqm $nflows $arr $drops $pct $dep $util $meanq $p]
    exit 0
}

$ns at $warmup "start_measuring"
$ns at [expr $warmup + $measured] "finish"
$ns run
