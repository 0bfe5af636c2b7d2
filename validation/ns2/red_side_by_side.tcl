# RED, gentle RED and Adaptive RED side by side with aqmlab (see README.md here).
#
# Usage: ns red_side_by_side.tcl <red|gentle|ared> <nflows> <trace-file>
#
# Dumbbell: nflows sources --100 Mb/s, 1 ms-- r1 --10 Mb/s, 10 ms, RED-- r2 --100 Mb/s, 1 ms--
# nflows sinks; one long-lived FTP (one-way NewReno, 1460-byte segments = 1500-byte packets,
# no delayed ACKs) per pair, flow i starting at i ms. 80 s simulated, the first 20 s warm-up.
# Prints one line of results; the queue's traced variables go to <trace-file> for run.sh.

if {$argc != 3} {
    puts stderr "usage: ns red_side_by_side.tcl <red|gentle|ared> <nflows> <trace-file>"
    exit 1
}
set mode [lindex $argv 0]
set nflows [lindex $argv 1]
set tracefile [lindex $argv 2]
set warmup 20.0
set stop 80.0

# TCP like aqmlab's defaults (crates/tcp/src/config.rs): NewReno, IW 2, min RTO 1 s,
# initial RTO 3 s, 10 ms clock; a window large enough never to limit.
Agent/TCP set packetSize_ 1460
Agent/TCP set window_ 10000
Agent/TCP set windowInit_ 2
Agent/TCP set minrto_ 1.0
Agent/TCP set rtxcur_init_ 3.0
Agent/TCP set tcpTick_ 0.01

# RED in packet mode with forced drops (use_mark_p_ false restores them, see
# reference/aqm-defaults.md §2.4); ns-2's default wait_ rule is kept.
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set mean_pktsize_ 1500
Queue/RED set use_mark_p_ false
Queue/RED set setbit_ false
Queue/RED set wait_ true
Queue/RED set limit_ 100
if {$mode == "red" || $mode == "gentle"} {
    Queue/RED set thresh_ 5
    Queue/RED set maxthresh_ 15
    Queue/RED set q_weight_ 0.002
    Queue/RED set linterm_ 10
    Queue/RED set gentle_ [expr {$mode == "gentle"}]
} elseif {$mode == "ared"} {
    # As ns-2's own ARED tests switch it on: automatic thresholds and q_weight_ 0
    # (w = 1 - exp(-1/C)); bottom fixed at 0.01 as in seed 001 Table 3.
    Queue/RED set adaptive_ 1
    Queue/RED set thresh_ 0
    Queue/RED set maxthresh_ 0
    Queue/RED set q_weight_ 0
    Queue/RED set targetdelay_ 0.005
    Queue/RED set bottom_ 0.01
    Queue/RED set gentle_ true
    Queue/RED set linterm_ 10
} else {
    puts stderr "unknown mode $mode"
    exit 1
}

set ns [new Simulator]
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 10Mb 10ms RED
for {set i 0} {$i < $nflows} {incr i} {
    set s($i) [$ns node]
    set d($i) [$ns node]
    $ns duplex-link $s($i) $r1 100Mb 1ms DropTail
    $ns duplex-link $r2 $d($i) 100Mb 1ms DropTail
    $ns queue-limit $s($i) $r1 1000
    $ns queue-limit $r2 $d($i) 1000
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink]
    $ns attach-agent $s($i) $tcp($i)
    $ns attach-agent $d($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [new Application/FTP]
    $ftp($i) attach-agent $tcp($i)
    $ns at [expr {0.001 * $i}] "$ftp($i) start"
}

set link [$ns link $r1 $r2]
set redq [$link queue]

# Early drops counted apart: QueueMonitor/ED with an early-drop snoop.
set qmon [new QueueMonitor/ED]
set isnoop [new SnoopQueue/In]
set osnoop [new SnoopQueue/Out]
set dsnoop [new SnoopQueue/Drop]
$link attach-monitors $isnoop $osnoop $dsnoop $qmon
set edsnoop [new SnoopQueue/EDrop]
$edsnoop set-monitor $qmon
$redq early-drop-target $edsnoop
$edsnoop target [$ns set nullAgent_]

set tf [open $tracefile w]
$redq trace ave_
$redq trace curq_
$redq attach $tf

proc at_warmup {} {
    global qmon
    $qmon reset
}

proc finish {} {
    global qmon redq tf mode nflows warmup stop tcp
    set rto 0
    for {set i 0} {$i < $nflows} {incr i} {
        incr rto [$tcp($i) set nrexmit_]
    }
    flush $tf
    close $tf
    set arr [$qmon set parrivals_]
    set dep [$qmon set pdepartures_]
    set drops [$qmon set pdrops_]
    set early [$qmon set epdrops_]
    set bytes [$qmon set bdepartures_]
    set util [expr {$bytes * 8.0 / (10e6 * ($stop - $warmup))}]
    puts [format "ns2 mode=%s flows=%d arrivals=%d departures=%d drops=%d early=%d util=%.4f final_max_p=%.5f final_ave=%.3f nrexmit=%d" \
        $mode $nflows $arr $dep $drops $early $util [$redq set cur_max_p_] [$redq set ave_] $rto]
    exit 0
}

$ns at $warmup "at_warmup"
$ns at $stop "finish"
$ns run
