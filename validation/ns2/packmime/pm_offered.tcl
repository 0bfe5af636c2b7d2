# pm_offered.tcl — offered load of ns-2.35 PackMimeHTTP on an uncongested link (aqmlab
# validation, validation/ns2/packmime/README.md). Written for aqmlab; not an ns-2 example.
#
# usage: ns pm_offered.tcl RATE RUN DURATION WARMUP HTTP SEGSIZE OUTPREFIX [twin]
#   RATE      new connections per second (PackMime `set-rate`)
#   RUN       substream index (PackMime `set-run`; the model's seed)
#   DURATION  seconds after WARMUP during which link bytes are counted
#   WARMUP    seconds before counting starts (connections start at 0)
#   HTTP      1.0 or 1.1
#   SEGSIZE   Full-TCP segment size (payload bytes; ns-2 default 536, aqmlab 1460)
#   OUTPREFIX files written: OUTPREFIX.req (every request as issued by the client:
#             time reqsize rspsize dst), OUTPREFIX.rsp (every completed response:
#             time reqsize rspsize response_time_ms dst active), OUTPREFIX.link (bytes and
#             packets per direction counted between WARMUP and WARMUP+DURATION);
#             run with `2> OUTPREFIX.err`: PackMime's connection counter at both ends of
#             the window goes to stderr (see `snap`)
#
# Topology: client cloud c -- server cloud s, one 1 Gbps, 1 ms duplex link with a
# 100000-packet drop-tail queue in each direction (never congested, never drops),
# so every byte PackMime offers crosses it.

if {$argc != 7 && $argc != 8} {
    puts stderr "usage: ns pm_offered.tcl RATE RUN DURATION WARMUP HTTP SEGSIZE OUTPREFIX \[twin\]"
    exit 1
}
lassign $argv rate run duration warmup http segsize out tcpset

remove-all-packet-headers
add-packet-header IP TCP
set ns [new Simulator]
$ns use-scheduler Heap

set c [$ns node]
set s [$ns node]
$ns duplex-link $c $s 1Gb 1ms DropTail
$ns queue-limit $c $s 100000
$ns queue-limit $s $c 100000

Agent/TCP/FullTcp set segsize_ $segsize
# "twin": the Full-TCP settings of the ns-2 twins (validation/ns2/README.md), which aqmlab's
# `ns2_fulltcp` reproduces packet for packet: Nagle off, no slow-start restart after idle.
if {$tcpset == "twin"} {
    Agent/TCP/FullTcp set nodelay_ true
    Agent/TCP set slow_start_restart_ false
}
# a receive window of about 64 KB so that no transfer is window-starved on the 2 ms RTT
Agent/TCP/FullTcp set window_ [expr {65535 / $segsize}]

set pm [new PackMimeHTTP]
$pm set-client $c
$pm set-server $s
$pm set-rate $rate
$pm set-run $run
if {$http == "1.1"} { $pm set-http-1.1 }
$pm set-samples-outfile "$out.req"
$pm set-outfile "$out.rsp"

# link counters: QueueMonitor per direction; snapshot at WARMUP and at the end
set qcs [$ns monitor-queue $c $s 0]
set qsc [$ns monitor-queue $s $c 0]
# PackMime's `total-connections` prints the manager's connection counter to stderr only, so
# it is written there after a marker ("SNAP start N", "SNAP end N"): run with
# `2> OUTPREFIX.err`; connections opened in the window = N(end) - N(start).
proc snap {tag} {
    global qcs qsc snapv pm
    puts -nonewline stderr "SNAP $tag "
    flush stderr
    $pm total-connections
    puts stderr ""
    set snapv($tag) [list [$qcs set barrivals_] [$qcs set parrivals_] \
                         [$qsc set barrivals_] [$qsc set parrivals_] \
                         [$qcs set bdrops_] [$qsc set bdrops_]]
}
proc finish {} {
    global snapv out warmup duration rate run http segsize
    snap end
    set f [open "$out.link" w]
    puts $f "rate run http segsize warmup duration cs_bytes cs_pkts sc_bytes sc_pkts cs_drop_bytes sc_drop_bytes"
    set d {}
    foreach a $snapv(end) b $snapv(start) { lappend d [expr {$a - $b}] }
    puts $f "$rate $run $http $segsize $warmup $duration [join $d { }]"
    close $f
    exit 0
}

$ns at 0.0 "$pm start"
$ns at $warmup "snap start"
$ns at [expr {$warmup + $duration}] "finish"
$ns run
