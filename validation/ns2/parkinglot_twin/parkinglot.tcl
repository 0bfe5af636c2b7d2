# parkinglot.tcl — the ns-2.35 half of the seed 002 parking-lot twin (one congested link,
# r1_r2). Written for aqmlab (validation/ns2/README.md, "Seed 002 twin"); every parameter comes
# from parkinglot_params.tcl, which twin.py generates from definition.toml together with the
# aqmlab half, parkinglot.toml.
#
# usage: ns parkinglot.tcl dt|pi|rem|mix SEED WARMUP_S DURATION_S OUTDIR [PARAMS]
#   PARAMS: a parameter file read instead of parkinglot_params.tcl (aqmlab.ns2grid.parkinglot
#   writes one per sweep point of studies/weigle-multi). Queue `mix`: P(link_queues) = a list of
#   {rI_rJ kind} (kind pi or rem) giving the queue of each router link direction named; every
#   other direction is DropTail. P(congested) still names the link the `link` lines measure.
#
# Network (as aqmlab's parking_lot builder): routers r0 … r(N-1) in a chain, each an ns-2
# DelayBox; every router link is a duplex link with a DropTail queue (limit_ P(router_limit)),
# except the congested link (both directions), which gets the variant's queue. Every cloud host
# hangs off its router by its own duplex link (DropTail, limit_ P(access_limit)).
#
# Traffic.
#  * HTTP workloads: one PackMimeHTTP per workload (HTTP/1.1, Full-TCP NewReno), its clients
#    on the hosts of its client cloud and its servers on its server cloud (PackMime pairs
#    client i with server i in turn), at the workload's rate, substream SEED (set-run). Every
#    PackMimeHTTP object and every DelayBox variable opens new RNG streams, so no two share one.
#  * DelayBoxes as ns-2's pm-delaybox example: for every (client host, server host) pair of a
#    workload, a rule at the client's router with a PackMimeHTTPXmit client-side variable
#    (type 0) and one at the server's router with a server-side variable (type 1), each drawing
#    RTT/2 once per connection (at its SYN) and applying it both ways, at the workload's rate.
#    DelayBox keys a flow by (source, destination, fid_): connection n of workload w gets
#    fid_ = 16·n + w, long-lived flow k of workload w fid_ 16·(10^6 + k) + w, so no two
#    flows share an entry.
#  * Long-lived workloads: one Full-TCP NewReno pair per flow; the client listens, the server
#    sends for ever (Application/FTP `start`, which opens the connection), from the warm-up on
#    (the preset starts them at its 60 s warm-up).
#  * TCP: Full-TCP NewReno, P(mss)-byte segments, window_ P(window) segments, windowInit_,
#    RTO floor/initial/ceiling, 10 ms tick, ECN (ecn_), no timestamps, Nagle off,
#    slow_start_restart_ false, segsperack_ 1 with the 100 ms delayed-ACK tick.
#
# Output (stdout; counters are differences from the warm-up; queue sampled every 3 ms):
#   link dir=fwd|rev arrivals= departures= drops= bytes= marks= mean_q= mean_qb=
#       (r1_r2 = fwd, r2_r1 = rev; mean_q in packets, mean_qb in bytes)
#   ll bytes= packets=            packets and bytes sent on r7 → r8 (the long-lived flows)
#   bulk wl= retx_bytes=          per long-lived workload: data bytes sent again (Full-TCP)
#   run sim_s= wall_s=
# and OUTDIR/rt.dat: PackMime's outfile of workload 0 (one line per exchange whose request
# was written at or after floor(WARMUP): end time, request B, response B, response time ms, …).

if {$argc != 5 && $argc != 6} {
    puts stderr "usage: ns parkinglot.tcl dt|pi|rem|mix SEED WARMUP_S DURATION_S OUTDIR \[PARAMS\]"
    exit 2
}
lassign $argv qkind seed warmup duration outdir params
if {[lsearch -exact {dt pi rem mix} $qkind] < 0} {
    puts stderr "parkinglot.tcl: queue must be dt, pi, rem or mix, got \"$qkind\""
    exit 2
}
if {![string is integer -strict $seed] || $seed < 1} {
    puts stderr "parkinglot.tcl: SEED must be an integer >= 1"
    exit 2
}
if {$argc == 6} {
    if {[catch {source $params} err]} {
        puts stderr "parkinglot.tcl: PARAMS: cannot read \"$params\": $err"
        exit 2
    }
} else {
    source [file join [file dirname [info script]] parkinglot_params.tcl]
}
if {($qkind eq "mix") != [info exists P(link_queues)]} {
    puts stderr "parkinglot.tcl: queue mix goes with P(link_queues) in PARAMS, and only it"
    exit 2
}
file mkdir $outdir
set stop [expr {$warmup + $duration}]

# ---------------------------------------------------------------- TCP
remove-all-packet-headers
add-packet-header IP TCP Flags
Agent/TCP set window_ $P(window)
Agent/TCP set windowInit_ $P(iw)
Agent/TCP set tcpTick_ $P(tick)
Agent/TCP set minrto_ $P(min_rto)
Agent/TCP set rtxcur_init_ $P(initial_rto)
Agent/TCP set maxrto_ $P(max_rto)
Agent/TCP set tcprexmtthresh_ $P(dupack_threshold)
Agent/TCP set timestamps_ false
Agent/TCP set ecn_ $P(ecn)
Agent/TCP set slow_start_restart_ false
Agent/TCP/FullTcp set segsize_ $P(mss)
Agent/TCP/FullTcp set nodelay_ true
Agent/TCP/FullTcp set segsperack_ 1
Agent/TCP/FullTcp set interval_ 0.1

# ---------------------------------------------------------------- queues
Queue/PI set a_ $P(pi_a)
Queue/PI set b_ $P(pi_b)
Queue/PI set w_ $P(pi_w)
Queue/PI set qref_ $P(pi_qref)
Queue/PI set mean_pktsize_ $P(pi_mean_pktsize)
Queue/PI set bytes_ $P(pi_bytes)
Queue/PI set queue_in_bytes_ $P(pi_queue_in_bytes)
Queue/PI set setbit_ $P(pi_setbit)
Queue/REM set gamma_ $P(rem_gamma)
Queue/REM set phi_ $P(rem_phi)
Queue/REM set inw_ $P(rem_inw)
Queue/REM set pupdtime_ $P(rem_pupdtime)
Queue/REM set pbo_ $P(rem_pbo)
Queue/REM set mean_pktsize_ $P(rem_mean_pktsize)
Queue/REM set qib_ $P(rem_qib)
Queue/REM set markpkts_ $P(rem_markpkts)
array set qtype_of {dt DropTail pi PI rem REM}
array set qlimit_of [list dt $P(router_limit) pi $P(pi_limit) rem $P(rem_limit)]

# ---------------------------------------------------------------- network
set ns [new Simulator]
$ns use-scheduler Heap
global defaultRNG
$defaultRNG seed $seed

for {set i 0} {$i < $P(routers)} {incr i} { set r($i) [$ns DelayBox] }
lassign [split $P(congested) _] ca cb
set ca [string range $ca 1 end]
set cb [string range $cb 1 end]
if {$qkind eq "mix"} {
    foreach lq $P(link_queues) {
        lassign $lq name kind
        if {![regexp {^r([0-9]+)_r([0-9]+)$} $name -> a b] || abs($a - $b) != 1 \
                || max($a, $b) >= $P(routers) || [lsearch -exact {pi rem} $kind] < 0} {
            puts stderr "parkinglot.tcl: P(link_queues): \"$lq\" is not {rI_rJ pi|rem} of a router link"
            exit 2
        }
        set kind_of($name) $kind
    }
}
proc kind_on {i j} {
    global kind_of
    return [expr {[info exists kind_of(r${i}_r$j)] ? $kind_of(r${i}_r$j) : "dt"}]
}
for {set i 0} {$i + 1 < $P(routers)} {incr i} {
    set j [expr {$i + 1}]
    if {$qkind eq "mix"} {
        # each direction its own queue (a duplex link is two simplex links)
        foreach {a b} [list $i $j $j $i] {
            set k [kind_on $a $b]
            $ns simplex-link $r($a) $r($b) $P(link_bps) $P(link_delay) $qtype_of($k)
            $ns queue-limit $r($a) $r($b) $qlimit_of($k)
        }
    } elseif {$i == $ca && $j == $cb} {
        $ns duplex-link $r($i) $r($j) $P(link_bps) $P(link_delay) $qtype_of($qkind)
        $ns queue-limit $r($i) $r($j) $qlimit_of($qkind)
        $ns queue-limit $r($j) $r($i) $qlimit_of($qkind)
    } else {
        $ns duplex-link $r($i) $r($j) $P(link_bps) $P(link_delay) DropTail
        $ns queue-limit $r($i) $r($j) $P(router_limit)
        $ns queue-limit $r($j) $r($i) $P(router_limit)
    }
}
# clouds: name router hosts access_bps access_delay
foreach c $P(clouds) {
    lassign $c name rt n bps dly
    set hosts($name) {}
    for {set h 0} {$h < $n} {incr h} {
        set node [$ns node]
        $ns duplex-link $node $r($rt) $bps $dly DropTail
        $ns queue-limit $node $r($rt) $P(access_limit)
        $ns queue-limit $r($rt) $node $P(access_limit)
        lappend hosts($name) $node
    }
    set router_of($name) $rt
}

# ---------------------------------------------------------------- DelayBoxes
proc xmit_rv {rate side} {
    global seed
    set rv [new RandomVariable/PackMimeHTTPXmit $rate $side]
    set rng [new RNG]
    for {set j 0} {$j < $seed} {incr j} { $rng next-substream }
    $rv use-rng $rng
    return $rv
}
proc add_rules {ccloud scloud rate} {
    global hosts router_of r
    set cv [xmit_rv $rate 0]
    set sv [xmit_rv $rate 1]
    foreach cl $hosts($ccloud) {
        foreach sh $hosts($scloud) {
            $r($router_of($ccloud)) add-rule [$cl id] [$sh id] $cv
            $r($router_of($scloud)) add-rule [$cl id] [$sh id] $sv
        }
    }
}

# ---------------------------------------------------------------- workloads
# http: index client_cloud server_cloud rate ; bulk: index client_cloud server_cloud box_rate flows
PackMimeHTTP instproc setup-tcp {tcp n} {
    global wl_of
    $tcp set fid_ [expr {16 * $n + $wl_of($self)}]
    $tcp proc done {} "$self done $tcp"
}
foreach w $P(http) {
    lassign $w idx ccloud scloud rate
    add_rules $ccloud $scloud $rate
    set pm [new PackMimeHTTP]
    set wl_of($pm) $idx
    foreach h $hosts($ccloud) { $pm set-client $h }
    foreach h $hosts($scloud) { $pm set-server $h }
    $pm set-TCP Newreno
    $pm set-rate $rate
    $pm set-run $seed
    $pm set-http-1.1
    if {$idx == 0} {
        $pm set-warmup [expr {int(floor($warmup))}]
        $pm set-outfile [file join $outdir rt.dat]
    }
    $ns at 0.0 "$pm start"
}
foreach w $P(bulk) {
    lassign $w idx ccloud scloud boxrate flows
    add_rules $ccloud $scloud $boxrate
    set k 0
    foreach f $flows {
        lassign $f ci si
        set cli [new Agent/TCP/FullTcp/Newreno]
        set srv [new Agent/TCP/FullTcp/Newreno]
        set fid [expr {16 * (1000000 + $k) + $idx}]
        $cli set fid_ $fid
        $srv set fid_ $fid
        $ns attach-agent [lindex $hosts($ccloud) $ci] $cli
        $ns attach-agent [lindex $hosts($scloud) $si] $srv
        $ns connect $srv $cli
        $cli listen
        lappend bulk_senders($idx) $srv
        set ftp [new Application/FTP]
        $ftp attach-agent $srv
        $ns at $warmup "$ftp start"
        incr k
    }
}

# ---------------------------------------------------------------- measurement
set counters {parrivals_ pdepartures_ pdrops_ bdepartures_ pmarks_}
foreach {dir from to} [list fwd $ca $cb rev $cb $ca] {
    set qm($dir) [$ns monitor-queue $r($from) $r($to) 0]
    set qsum($dir) 0.0
    set qbsum($dir) 0.0
}
set llm [$ns monitor-queue $r([expr {$P(routers) - 2}]) $r([expr {$P(routers) - 1}]) 0]
set qn 0

proc sample {} {
    global ns qm qsum qbsum qn
    foreach dir {fwd rev} {
        set qsum($dir) [expr {$qsum($dir) + [$qm($dir) set pkts_]}]
        set qbsum($dir) [expr {$qbsum($dir) + [$qm($dir) set size_]}]
    }
    incr qn
    $ns at [expr {[$ns now] + 0.003}] sample
}
proc at_warmup {} {
    global qm counters w0 llm ll0
    foreach dir {fwd rev} {
        foreach c $counters { set w0($dir,$c) [$qm($dir) set $c] }
    }
    set ll0 [list [$llm set bdepartures_] [$llm set pdepartures_]]
    sample
}
proc finish {} {
    global qm counters w0 qsum qbsum qn llm ll0 stop wall0
    foreach dir {fwd rev} {
        foreach c $counters { set v($c) [expr {[$qm($dir) set $c] - $w0($dir,$c)}] }
        puts [format "link dir=%s arrivals=%d departures=%d drops=%d bytes=%d marks=%d mean_q=%.4f mean_qb=%.1f" \
            $dir $v(parrivals_) $v(pdepartures_) $v(pdrops_) $v(bdepartures_) $v(pmarks_) \
            [expr {$qsum($dir) / $qn}] [expr {$qbsum($dir) / $qn}]]
    }
    puts [format "ll bytes=%d packets=%d" [expr {[$llm set bdepartures_] - [lindex $ll0 0]}] \
        [expr {[$llm set pdepartures_] - [lindex $ll0 1]}]]
    # per long-lived workload (its flows start at the warm-up): data bytes its senders sent
    # again = Full-TCP ndatabytes_ minus the new bytes (maxseq_ counts the SYN)
    global bulk_senders
    foreach idx [lsort -integer [array names bulk_senders]] {
        set retx 0
        foreach a $bulk_senders($idx) {
            set new [expr {max([$a set maxseq_] - 1, 0)}]
            incr retx [expr {[$a set ndatabytes_] - $new}]
        }
        puts [format "bulk wl=%d retx_bytes=%d" $idx $retx]
    }
    puts [format "run sim_s=%s wall_s=%.2f" $stop [expr {([clock milliseconds] - $wall0) / 1000.0}]]
    flush stdout
    exit 0
}
$ns at $warmup at_warmup
$ns at $stop finish
set wall0 [clock milliseconds]
$ns run
