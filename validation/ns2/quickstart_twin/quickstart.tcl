# quickstart.tcl -- the ns-2.35 half of the quickstart twin: scenarios/quickstart.toml's
# drop-tail variant. A copy of bench/ns2/quickstart_droptail.tcl (the benchmark script, which
# stays as it is) that takes its parameters from quickstart_params.tcl (generated with the
# aqmlab half, quickstart.toml, from definition.toml by twin.py) and logs every response and
# the bottleneck queues, so that the two can be compared distribution against distribution.
#
# usage: ns quickstart.tcl SEED DURATION_S OUTDIR [WARMUP_S]
#   SEED       integer >= 1; DURATION_S measured seconds after the warm-up (default warm-up:
#              the definition's, 60 s); OUTDIR receives responses.dat.
#
# Model (bench/ns2/README.md describes the benchmark script; the differences here: window_ from
# the definition -- 44 segments, which is what aqmlab's 65535-byte window allows -- access
# queues of limit_ 1001, and always the "delack" ACK mode):
#  * dumbbell: P(hosts) client hosts -- L ==bottleneck== R -- P(hosts) server hosts; L is a
#    Node/DelayBox with a rule per (client, server) pair: one-way delay U[rtt_min/2, rtt_max/2]
#    drawn at the SYN and used in both directions (symmetric mode).
#  * HTTP/1.0: Poisson arrivals at P(rate) connections/s, client and server picked uniformly;
#    P(request)-byte request; bounded-Pareto response (inverse CDF, rounded, >= 1 byte); the
#    server closes after the response (close_on_empty_), the client on the server's FIN.
#  * Agent/TCP/FullTcp/Newreno pairs driven by Application/TcpApp from a global FIFO pool,
#    re-attached to the chosen hosts per connection, reused when both ends are CLOSED.
#  * TCP: segsize_, windowInit_, window_ (segments), minrto_, rtxcur_init_, maxrto_, tcpTick_,
#    tcprexmtthresh_ from the parameters; Nagle off; no timestamps; slow_start_restart_ off;
#    segsperack_ 1, interval_ 0.1: every full segment ACKed at once, a short one (the request,
#    whose ACK rides on the response, and a response's last piece) waits for the 100 ms tick.
#  * response time = the connection's arrival (the client writes its request, which sends the
#    SYN) to the arrival of the last response byte at the client.
#
# Output
#  * OUTDIR/responses.dat: "start_s end_s request_bytes response_bytes" per response whose
#    connection arrived at or after the warm-up and completed before the end.
#  * stdout (measured window; queue = packets waiting, sampled every 3 ms):
#      link dir=fwd|rev arrivals= departures= drops= bytes= mean_q= max_q=   (fwd = R -> L)
#      http started= completed= offered_bytes= retx_bytes= timeouts= conns_with_retx=
#        (connections arrived in the window; retx_bytes = data bytes sent again by either
#        end, Full-TCP ndatabytes_ minus new bytes; timeouts = nrexmit_ of both ends; read
#        when a pair is recycled, or at the end for connections still open)
#      run sim_s= wall_s= slots=

proc fail {msg} {
    puts stderr "quickstart.tcl: error: $msg"
    exit 2
}
if {$argc < 3 || $argc > 4} { fail "usage: ns quickstart.tcl SEED DURATION_S OUTDIR \[WARMUP_S\]" }
set seed [lindex $argv 0]
set duration [lindex $argv 1]
set outdir [lindex $argv 2]
if {![string is integer -strict $seed] || $seed < 1} { fail "SEED must be an integer >= 1, got \"$seed\"" }
if {![string is double -strict $duration] || $duration <= 0} {
    fail "DURATION_S must be a number > 0, got \"$duration\""
}
source [file join [file dirname [info script]] quickstart_params.tcl]
set warmup $P(warmup)
if {$argc == 4} {
    set warmup [lindex $argv 3]
    if {![string is double -strict $warmup] || $warmup < 0} {
        fail "WARMUP_S must be a number >= 0, got \"$warmup\""
    }
}
set stop [expr {$warmup + $duration}]
file mkdir $outdir

remove-all-packet-headers
add-packet-header IP TCP Flags

# ---------------------------------------------------------------- TCP
Agent/TCP set window_ $P(window)
Agent/TCP set windowInit_ $P(iw)
Agent/TCP set minrto_ $P(min_rto)
Agent/TCP set rtxcur_init_ $P(initial_rto)
Agent/TCP set maxrto_ $P(max_rto)
Agent/TCP set tcpTick_ $P(tick)
Agent/TCP set timestamps_ false
Agent/TCP set rfc2988_ true
Agent/TCP set slow_start_restart_ false
Agent/TCP/FullTcp set segsize_ $P(mss)
Agent/TCP/FullTcp set tcprexmtthresh_ $P(dupack_threshold)
Agent/TCP/FullTcp set nodelay_ true
Agent/TCP/FullTcp set segsperack_ 1
Agent/TCP/FullTcp set interval_ 0.1

# ---------------------------------------------------------------- simulator and streams
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed
set rng_arrival [new RNG]; $rng_arrival seed $seed
set rng_pick    [new RNG]; $rng_pick seed $seed;    $rng_pick next-substream
set rng_size    [new RNG]; $rng_size seed $seed;    $rng_size next-substream; $rng_size next-substream
set rng_delay   [new RNG]; $rng_delay seed $seed
for {set k 0} {$k < 3} {incr k} { $rng_delay next-substream }

# ---------------------------------------------------------------- topology
set H $P(hosts)
Queue set limit_ $P(access_limit)
set L [$ns DelayBox]
set R [$ns node]
for {set i 0} {$i < $H} {incr i} {
    set c($i) [$ns node]
    $ns duplex-link $c($i) $L $P(access_bps) $P(access_delay) DropTail
}
for {set i 0} {$i < $H} {incr i} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $R $P(access_bps) $P(access_delay) DropTail
}
$ns duplex-link $L $R $P(bottleneck_bps) $P(bottleneck_delay) DropTail
$ns queue-limit $L $R $P(bottleneck_limit)
$ns queue-limit $R $L $P(bottleneck_limit)

set qm(fwd) [$ns monitor-queue $R $L ""]
set qm(rev) [$ns monitor-queue $L $R ""]
foreach dir {fwd rev} {
    set qsum($dir) 0.0
    set qmax($dir) 0
}
set qn 0
set counters {parrivals_ pdepartures_ pdrops_ bdepartures_}

# ---------------------------------------------------------------- DelayBox
set owd_rv [new RandomVariable/Uniform]
$owd_rv set min_ [expr {$P(rtt_min_ms) / 2.0}]
$owd_rv set max_ [expr {$P(rtt_max_ms) / 2.0}]   ;# DelayBox delays are in ms
$owd_rv use-rng $rng_delay
for {set i 0} {$i < $H} {incr i} {
    for {set j 0} {$j < $H} {incr j} {
        $L add-rule [$c($i) id] [$s($j) id] $owd_rv
    }
}

# ---------------------------------------------------------------- connections
# A slot is one reusable quad (client FullTcp, server FullTcp, client TcpApp, server TcpApp),
# kept in a global FIFO pool. Slot k always uses port k: moving its agents to other hosts does
# what Node attach does (node, address, target, port demux), and "$ns connect" is replaced by
# setting dst_addr_ / dst_port_ (bench/ns2/README.md, deviation 5).
set nullagent [$ns set nullAgent_]
for {set i 0} {$i < $H} {incr i} {
    foreach arr {c s} {
        set node [set ${arr}($i)]
        $ns attach-agent $node [new Agent/Null]
        set h_entry($node) [$node entry]
        set h_dmux($node)  [$node demux]
        set h_addr($node)  [AddrParams addr2id [$node set address_]]
    }
}

set n_slots 0
set conn_id 0
set free_slots {}
set started 0
set completed 0
set offered_bytes 0
set retx_bytes 0
set timeouts 0
set conns_with_retx 0
set rtf [open [file join $outdir responses.dat] w]
puts $rtf "# start_s end_s request_bytes response_bytes"

proc new_slot {} {
    global n_slots slot_c slot_s slot_ca slot_sa slot_of
    set k [incr n_slots]
    set ct [new Agent/TCP/FullTcp/Newreno]
    set st [new Agent/TCP/FullTcp/Newreno]
    foreach a [list $ct $st] {
        $a set agent_port_ $k
        $a set dst_port_ $k
    }
    $st listen
    set ca [new Application/TcpApp $ct]
    set sa [new Application/TcpApp $st]
    $ca connect $sa
    set slot_c($k) $ct
    set slot_s($k) $st
    set slot_ca($k) $ca
    set slot_sa($k) $sa
    set slot_of($ct) $k
    set slot_of($st) $k
    return $k
}

proc place {agent node port peer_node} {
    global h_entry h_dmux h_addr
    $agent set node_ $node
    $agent set agent_addr_ $h_addr($node)
    $agent set dst_addr_ $h_addr($peer_node)
    $agent target $h_entry($node)
    $h_dmux($node) install $port $agent
}

# Bounded Pareto on [min, max] by the inverse CDF, rounded to whole bytes (>= 1).
proc bounded_pareto {} {
    global rng_size P
    set a $P(response_shape)
    set La [expr {pow($P(response_min), $a)}]
    set Ha [expr {pow($P(response_max), $a)}]
    set u [$rng_size uniform 0.0 1.0]
    set x [expr {pow(-($u*$Ha - $u*$La - $Ha) / ($Ha*$La), -1.0/$a)}]
    set b [expr {round($x)}]
    return [expr {$b < 1 ? 1 : $b}]
}

proc arrive {} {
    global ns rng_arrival rng_pick P H free_slots conn_id started offered_bytes warmup
    global c s slot_c slot_s slot_ca slot_hosts t_start rsp_size c_done s_done busy
    set now [$ns now]
    $ns at [expr {$now + [$rng_arrival exponential [expr {1.0 / $P(rate)}]]}] arrive
    set ci [$rng_pick integer $H]
    set si [$rng_pick integer $H]
    set size [bounded_pareto]
    if {$now >= $warmup} {
        incr started
        incr offered_bytes $size
    }
    if {[llength $free_slots] > 0} {
        set k [lindex $free_slots 0]
        set free_slots [lreplace $free_slots 0 0]
    } else {
        set k [new_slot]
    }
    place $slot_c($k) $c($ci) $k $s($si)
    place $slot_s($k) $s($si) $k $c($ci)
    set slot_hosts($k) [list $c($ci) $s($si)]
    set fid [incr conn_id]
    $slot_c($k) set fid_ $fid
    $slot_s($k) set fid_ $fid
    set t_start($k) $now
    set rsp_size($k) $size
    set c_done($k) 0
    set s_done($k) 0
    set busy($k) 1
    # the request; when all of it has arrived the server app runs "serve $k"
    $slot_ca($k) send $P(request) "serve $k"
}

proc serve {k} {
    global slot_s slot_sa rsp_size
    # close once the response has been sent (sendmsg ... MSG_EOF); set before the data so the
    # FIN can ride on the last segment
    $slot_s($k) set close_on_empty_ true
    $slot_sa($k) send $rsp_size($k) "response_done $k"
}

proc response_done {k} {
    global ns t_start completed rsp_size warmup rtf P
    if {$t_start($k) < $warmup} return
    incr completed
    puts $rtf [format "%.9f %.9f %d %d" $t_start($k) [$ns now] $P(request) $rsp_size($k)]
}

# Retransmitted bytes and timeouts of a connection (both ends); new bytes = maxseq_ - 1 (SYN)
# capped at what the end had to send (its FIN takes one more sequence number).
proc count_conn {k} {
    global slot_c slot_s t_start rsp_size warmup retx_bytes timeouts conns_with_retx P
    if {$t_start($k) < $warmup} return
    set r 0
    foreach a [list $slot_c($k) $slot_s($k)] want [list $P(request) $rsp_size($k)] {
        set new [expr {[$a set maxseq_] - 1}]
        if {$new < 0} { set new 0 }
        if {$new > $want} { set new $want }
        incr r [expr {[$a set ndatabytes_] - $new}]
        incr timeouts [$a set nrexmit_]
    }
    incr retx_bytes $r
    if {$r > 0 || [$slot_c($k) set nrexmit_] > 0 || [$slot_s($k) set nrexmit_] > 0} {
        incr conns_with_retx
    }
}

# FullTcp calls "$agent done" when it reaches CLOSED; a quad goes back to the pool once both
# ends have closed.
Agent/TCP/FullTcp instproc done {} {
    global slot_of slot_c c_done s_done
    set k $slot_of($self)
    if {$slot_c($k) == $self} { set c_done($k) 1 } else { set s_done($k) 1 }
    if {$c_done($k) && $s_done($k)} { recycle $k }
}

proc recycle {k} {
    global slot_c slot_s slot_hosts free_slots c_done s_done h_dmux nullagent busy
    count_conn $k
    set busy($k) 0
    set c_done($k) 0
    set s_done($k) 0
    foreach node $slot_hosts($k) { $h_dmux($node) install $k $nullagent }
    $slot_c($k) reset
    $slot_s($k) reset
    $slot_s($k) listen
    lappend free_slots $k
}

# ---------------------------------------------------------------- measurement
proc sample {} {
    global ns qm qsum qmax qn
    foreach dir {fwd rev} {
        set q [$qm($dir) set pkts_]
        set qsum($dir) [expr {$qsum($dir) + $q}]
        if {$q > $qmax($dir)} { set qmax($dir) $q }
    }
    incr qn
    $ns at [expr {[$ns now] + 0.003}] sample
}

proc at_warmup {} {
    global qm counters base
    foreach dir {fwd rev} {
        foreach x $counters { set base($dir,$x) [$qm($dir) set $x] }
    }
    sample
}

proc finish {} {
    global qm counters base qsum qmax qn rtf started completed offered_bytes retx_bytes timeouts
    global conns_with_retx n_slots busy stop wall0
    foreach dir {fwd rev} {
        foreach x $counters { set v($x) [expr {[$qm($dir) set $x] - $base($dir,$x)}] }
        puts [format "link dir=%s arrivals=%d departures=%d drops=%d bytes=%d mean_q=%.4f max_q=%d" \
            $dir $v(parrivals_) $v(pdepartures_) $v(pdrops_) $v(bdepartures_) \
            [expr {$qn > 0 ? $qsum($dir) / $qn : 0.0}] $qmax($dir)]
    }
    for {set k 1} {$k <= $n_slots} {incr k} {
        if {$busy($k)} { count_conn $k }
    }
    close $rtf
    puts [format "http started=%d completed=%d offered_bytes=%d retx_bytes=%d timeouts=%d conns_with_retx=%d" \
        $started $completed $offered_bytes $retx_bytes $timeouts $conns_with_retx]
    puts [format "run sim_s=%s wall_s=%.2f slots=%d" $stop [expr {([clock milliseconds] - $wall0) / 1000.0}] $n_slots]
    flush stdout
    exit 0
}

$ns at 0.0 arrive
$ns at $warmup at_warmup
$ns at $stop finish
set wall0 [clock milliseconds]
$ns run
