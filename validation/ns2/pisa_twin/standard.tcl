# standard.tcl -- the ns-2.35 half of the seed 003 twin: Kim 2004 §4.7's standard experiment
# (scenarios/pisa/standard.toml) with Full-TCP NewReno, the aqmlab `pareto_web` model, FTP and a
# reverse CBR, Queue/PI or DropTail on the forward bottleneck. The aqmlab half is
# standard.toml beside this file; both come from definition.toml (twin.py --write), and every
# model parameter is read from the generated standard_params.tcl.
#
# usage: ns standard.tcl SEED DURATION_S QUEUE OUTDIR [WARMUP_S] [-NAME VALUE ...]
#   SEED      integer >= 1 (ns-2's default RNG seed for the queue's coin; substream SEED of the
#             object-size stream)
#   DURATION_S measured simulated seconds after the warm-up
#   QUEUE     pi | droptail (forward bottleneck B -> A)
#   OUTDIR    directory for objects.dat (created)
#   WARMUP_S  default: the definition's (0: the thesis counts from t = 0)
#   -NAME VALUE  replaces parameter P(NAME) of standard_params.tcl (a number; NAME must be one
#             of its keys), e.g. -bottleneck_bps 5000000 -pi_qref 80 for the study's other
#             tables (aqmlab.ns2grid.pisa writes them); -client_delays FILE: one line per
#             client host, an extra one-way delay in seconds added to its access link in both
#             directions (a per-client extra RTT of twice that; seed 003 §5.7's RTT groups)
#
# Model (README "Seed 003 twin: PI standard experiment" says what matches aqmlab and what not):
#  * Dumbbell: client hosts c(0..H-1) on router A, server hosts s(0..H-1) on router B; access
#    links duplex DropTail (limit_ P(access_limit)); bottleneck B -> A with the forward queue,
#    A -> B DropTail (P(reverse_limit)). "Forward" = server side to client side.
#  * Web flow f (0 <= f < P(web_flows)) between c(f) and s(f): open a new connection (the
#    client sends a SYN: Full-TCP active open with no data), the server sends one object of
#    x = k (1 - u)^(-1/shape) bytes, k = mean (shape - 1)/shape, clamped to [min, max] and
#    rounded (>= 1), then closes (FIN); P(web_off) s after the last byte reached the client,
#    the flow opens the next connection. All flows open their first at t = 0. The response
#    time runs from the SYN to the last byte at the client. The server's data is loaded into
#    its listening agent (seqno_ = object size) before the SYN arrives, so it leaves the moment
#    the handshake's ACK arrives -- aqmlab's server writes its response on the same event.
#  * Connections are Agent/TCP/FullTcp/Newreno pairs kept per flow and reused once both ends
#    have reached CLOSED (reset, listen), so a new object never shares state with the last.
#  * FTP flow i: c(first + i) <- s(first + i), opened at t = 0 like a web connection, with
#    P(ftp_bytes) bytes loaded (never finishes within a run).
#  * CBR: Agent/UDP on c(cbr) -> Agent/Null on s(cbr), P(cbr_size)-byte packets at P(cbr_rate)
#    from t = 0 (crosses the reverse bottleneck).
#  * TCP: segsize_ P(mss) (+40 B of header), windowInit_, window_ (segments), minrto_,
#    rtxcur_init_, maxrto_, tcpTick_ from the parameters; no timestamps, Nagle off,
#    slow_start_restart_ off (aqmlab has no idle restart); segsperack_ 1 with the 100 ms
#    delayed-ACK tick: every full segment is ACKed at once, a short one (the last piece of an
#    object) waits for the tick -- aqmlab ACKs every segment at once (README).
#
# Output
#  * OUTDIR/objects.dat: "flow start_s end_s bytes" for every object whose connection opened at
#    or after the warm-up and whose last byte arrived before the end.
#  * stdout, one line each (counters over the measured window; queue = packets waiting,
#    sampled every 3 ms):
#      link dir=fwd|rev arrivals= departures= drops= early_drops= bytes= mean_q= max_q=
#      http started= completed= retx_bytes= timeouts=   (connections opened in the window)
#      ftp delivered_bytes= retx_bytes= timeouts=       (delivered = bytes ACKed to the senders)
#      pi p_start= p_end= p_mean= p_zero_share= q_end=  (PI only: its drop probability at the
#                                  warm-up and the end, mean and share of 3 ms samples at 0)
#      run sim_s= wall_s= pairs=
#    retx_bytes = data bytes sent again (Full-TCP ndatabytes_ minus new bytes); timeouts =
#    nrexmit_ of both ends. (nrexmitpack_ is no retransmission count: it also counts the new
#    segments and pure ACKs that a duplicate ACK or a timeout lets out.)

proc fail {msg} {
    puts stderr "standard.tcl: error: $msg"
    exit 2
}

if {$argc < 4} {
    fail "usage: ns standard.tcl SEED DURATION_S pi|droptail OUTDIR \[WARMUP_S\] \[-NAME VALUE ...\]"
}
set seed [lindex $argv 0]
set duration [lindex $argv 1]
set qkind [lindex $argv 2]
set outdir [lindex $argv 3]
if {![string is integer -strict $seed] || $seed < 1} { fail "SEED must be an integer >= 1, got \"$seed\"" }
if {![string is double -strict $duration] || $duration <= 0} {
    fail "DURATION_S must be a number > 0, got \"$duration\""
}
if {$qkind ne "pi" && $qkind ne "droptail"} { fail "QUEUE must be pi or droptail, got \"$qkind\"" }

source [file join [file dirname [info script]] standard_params.tcl]
set warmup $P(warmup)
set opts [lrange $argv 4 end]
if {[llength $opts] % 2 == 1} {
    set warmup [lindex $opts 0]
    set opts [lrange $opts 1 end]
    if {![string is double -strict $warmup] || $warmup < 0} {
        fail "WARMUP_S must be a number >= 0, got \"$warmup\""
    }
}
set client_delays {}
foreach {name value} $opts {
    set key [string range $name 1 end]
    if {$name eq "-client_delays"} {
        if {[catch {open $value r} fd]} { fail "-client_delays: cannot read \"$value\"" }
        foreach line [split [string trim [read $fd]] "\n"] {
            if {![string is double -strict $line] || $line < 0} {
                fail "-client_delays: \"$line\" is not a delay in seconds >= 0"
            }
            lappend client_delays $line
        }
        close $fd
    } elseif {[string index $name 0] ne "-" || ![info exists P($key)] || $key eq "warmup"} {
        fail "unknown option \"$name\" (expected -NAME VALUE with NAME a key of standard_params.tcl)"
    } elseif {![string is double -strict $value] || $value < 0} {
        fail "$name: expected a number >= 0, got \"$value\""
    } else {
        set P($key) $value
    }
}
if {[llength $client_delays] > 0 && [llength $client_delays] != $P(hosts)} {
    fail "-client_delays: [llength $client_delays] lines for $P(hosts) client hosts"
}
set stop [expr {$warmup + $duration}]
set ftp_max_bytes [expr {$P(ftp_bytes) * 1.0}]
if {$stop * $P(bottleneck_bps) / 8.0 >= $ftp_max_bytes} {
    fail "FTP flows could finish: $P(ftp_bytes) bytes in $stop s at $P(bottleneck_bps) bit/s"
}
file mkdir $outdir

# ---------------------------------------------------------------- TCP and queues
remove-all-packet-headers
add-packet-header IP TCP Flags RTP

Agent/TCP set window_ $P(window)
Agent/TCP set windowInit_ $P(iw)
Agent/TCP set minrto_ $P(min_rto)
Agent/TCP set rtxcur_init_ $P(initial_rto)
Agent/TCP set maxrto_ $P(max_rto)
Agent/TCP set tcpTick_ $P(tick)
Agent/TCP set timestamps_ false
Agent/TCP set rfc2988_ true
Agent/TCP set slow_start_restart_ false
Agent/TCP set ecn_ 0
Agent/TCP/FullTcp set segsize_ $P(mss)
Agent/TCP/FullTcp set tcprexmtthresh_ $P(dupack_threshold)
Agent/TCP/FullTcp set nodelay_ true
Agent/TCP/FullTcp set segsperack_ 1
Agent/TCP/FullTcp set interval_ 0.1

Queue/PI set a_ $P(pi_a)
Queue/PI set b_ $P(pi_b)
Queue/PI set w_ $P(pi_w)
Queue/PI set qref_ $P(pi_qref)
Queue/PI set bytes_ false
Queue/PI set queue_in_bytes_ false
Queue/PI set setbit_ false

# ---------------------------------------------------------------- network
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed
set size_rng [new RNG]
for {set j 0} {$j < $seed} {incr j} { $size_rng next-substream }

set H $P(hosts)
Queue set limit_ $P(access_limit)
set A [$ns node]
set B [$ns node]
for {set i 0} {$i < $H} {incr i} {
    set c($i) [$ns node]
    set d $P(access_delay)
    if {[llength $client_delays] > 0} { set d [expr {$d + [lindex $client_delays $i]}] }
    $ns duplex-link $c($i) $A $P(client_access_bps) $d DropTail
}
for {set i 0} {$i < $H} {incr i} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $B $P(server_access_bps) $P(access_delay) DropTail
}
if {$qkind eq "pi"} {
    $ns simplex-link $B $A $P(bottleneck_bps) $P(bottleneck_delay) PI
    $ns queue-limit $B $A $P(pi_limit)
} else {
    $ns simplex-link $B $A $P(bottleneck_bps) $P(bottleneck_delay) DropTail
    $ns queue-limit $B $A $P(droptail_limit)
}
$ns simplex-link $A $B $P(bottleneck_bps) $P(bottleneck_delay) DropTail
$ns queue-limit $A $B $P(reverse_limit)

# Monitors on both bottleneck queues; QueueMonitor/ED counts PI's early drops apart.
set nullagent [$ns set nullAgent_]
foreach {dir from to} [list fwd $B $A rev $A $B] {
    set link [$ns link $from $to]
    set qm($dir) [new QueueMonitor/ED]
    $link attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qm($dir)
    if {$dir eq "fwd" && $qkind eq "pi"} {
        set eds [new SnoopQueue/EDrop]
        $eds set-monitor $qm($dir)
        [$link queue] early-drop-target $eds
        $eds target $nullagent
    }
    set qsum($dir) 0.0
    set qmax($dir) 0
}
set qn 0
set counters {parrivals_ pdepartures_ pdrops_ epdrops_ bdepartures_}
set fwdq [[$ns link $B $A] queue]

# ---------------------------------------------------------------- connections
# The client's application counts delivered bytes (Full-TCP calls recv for every in-order
# delivery) and reports the object complete when all of it is in.
Class Application/ObjectSink -superclass Application
Application/ObjectSink instproc recv {n} {
    global app_pair
    delivered $app_pair($self) $n
}

set npairs 0
proc new_pair {f ci si} {
    global ns c s ct st app app_pair pair_of pair_flow npairs
    set p [incr npairs]
    set ct($p) [new Agent/TCP/FullTcp/Newreno]
    set st($p) [new Agent/TCP/FullTcp/Newreno]
    $ns attach-agent $c($ci) $ct($p)
    $ns attach-agent $s($si) $st($p)
    $ns connect $ct($p) $st($p)
    $st($p) listen
    set pair_of($ct($p)) $p
    set pair_of($st($p)) $p
    set pair_flow($p) $f
    if {$f >= 0} {
        set app($p) [new Application/ObjectSink]
        $app($p) attach-agent $ct($p)
        set app_pair($app($p)) $p
        $app($p) start
    }
    return $p
}

# Open a connection on pair p that carries `bytes` from the server to the client.
proc open_conn {p bytes} {
    global ns ct st cdone sdone busy
    set cdone($p) 0
    set sdone($p) 0
    set busy($p) 1
    $st($p) set seqno_ $bytes
    $ct($p) advance-bytes 0
}

proc pareto_size {} {
    global P size_rng
    set k [expr {$P(web_mean) * ($P(web_shape) - 1.0) / $P(web_shape)}]
    set u [$size_rng uniform 0.0 1.0]
    set x [expr {$k * pow(1.0 - $u, -1.0 / $P(web_shape))}]
    if {$x < $P(web_min)} { set x $P(web_min) }
    if {$x > $P(web_max)} { set x $P(web_max) }
    set b [expr {round($x)}]
    return [expr {$b < 1 ? 1 : $b}]
}

set http_started 0
set http_completed 0
set http_retx_bytes 0
set http_timeouts 0
set objf [open [file join $outdir objects.dat] w]
puts $objf "# flow start_s end_s bytes"

proc open_object {f} {
    global ns st free want got t0 obj_open http_started warmup
    if {[llength $free($f)] > 0} {
        set p [lindex $free($f) 0]
        set free($f) [lrange $free($f) 1 end]
    } else {
        set p [new_pair $f $f $f]
    }
    set n [pareto_size]
    set want($p) $n
    set got($p) 0
    set t0($p) [$ns now]
    set obj_open($p) 1
    if {$t0($p) >= $warmup} { incr http_started }
    $st($p) set close_on_empty_ true
    open_conn $p $n
}

proc delivered {p n} {
    global ns want got t0 obj_open pair_flow objf http_completed warmup P
    if {!$obj_open($p)} return
    incr got($p) $n
    if {$got($p) < $want($p)} return
    set obj_open($p) 0
    set now [$ns now]
    set f $pair_flow($p)
    if {$t0($p) >= $warmup} {
        incr http_completed
        puts $objf [format "%d %.9f %.9f %d" $f $t0($p) $now $want($p)]
    }
    $ns at [expr {$now + $P(web_off)}] "open_object $f"
}

# Full-TCP calls "done" when an agent reaches CLOSED; a pair is reused once both ends have.
Agent/TCP/FullTcp instproc done {} {
    global pair_of ct cdone sdone
    if {![info exists pair_of($self)]} return
    set p $pair_of($self)
    if {$ct($p) eq $self} { set cdone($p) 1 } else { set sdone($p) 1 }
    if {$cdone($p) && $sdone($p)} { recycle $p }
}

# Retransmitted bytes = data bytes sent (ndatabytes_) - new bytes sent (maxseq_ counts the SYN
# and FIN, one sequence number each); timeouts = nrexmit_ of both ends (the client's are SYN
# timeouts). Read when a pair is recycled, or at the end for pairs still open.
proc count_conn {p} {
    global ct st t0 want warmup http_retx_bytes http_timeouts
    if {$t0($p) < $warmup} return
    set new [expr {[$st($p) set maxseq_] - 1}]
    if {$new < 0} { set new 0 }
    if {$new > $want($p)} { set new $want($p) }
    incr http_retx_bytes [expr {[$st($p) set ndatabytes_] - $new}]
    incr http_timeouts [expr {[$ct($p) set nrexmit_] + [$st($p) set nrexmit_]}]
}

proc recycle {p} {
    global ct st free pair_flow cdone sdone busy
    count_conn $p
    set busy($p) 0
    set cdone($p) 0
    set sdone($p) 0
    $ct($p) reset
    $st($p) reset
    $st($p) listen
    lappend free($pair_flow($p)) $p
}

for {set f 0} {$f < $P(web_flows)} {incr f} {
    set free($f) {}
    $ns at 0.0 "open_object $f"
}

# FTP: one pair per flow, never reused.
set ftp_pairs {}
for {set i 0} {$i < $P(ftp_flows)} {incr i} {
    set h [expr {$P(ftp_first_host) + $i}]
    set p [new_pair -1 $h $h]
    lappend ftp_pairs $p
    $ns at 0.0 "open_conn $p $P(ftp_bytes)"
}

# CBR over UDP, client side -> server side.
set udp [new Agent/UDP]
set sink [new Agent/Null]
$ns attach-agent $c($P(cbr_host)) $udp
$ns attach-agent $s($P(cbr_host)) $sink
$ns connect $udp $sink
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ $P(cbr_size)
$cbr set rate_ $P(cbr_bps)
$cbr set random_ false
$cbr attach-agent $udp
$ns at 0.0 "$cbr start"

# ---------------------------------------------------------------- measurement
# FTP senders: bytes ACKed, retransmitted bytes (as above; no FIN), timeouts of both ends.
proc ftp_counts {} {
    global ftp_pairs ct st
    set acked 0
    set retx 0
    set tmo 0
    foreach p $ftp_pairs {
        set a [$st($p) set ack_]
        if {$a > 1} { incr acked [expr {$a - 1}] }
        set new [expr {[$st($p) set maxseq_] - 1}]
        if {$new < 0} { set new 0 }
        incr retx [expr {[$st($p) set ndatabytes_] - $new}]
        incr tmo [expr {[$ct($p) set nrexmit_] + [$st($p) set nrexmit_]}]
    }
    return [list $acked $retx $tmo]
}

# PI's drop probability is sampled with the queue: its mean, and the share of samples at 0
# (where the controller's integral is clamped).
set psum 0.0
set pzero 0
proc sample {} {
    global ns qm qsum qmax qn qkind fwdq psum pzero
    foreach dir {fwd rev} {
        set q [$qm($dir) set pkts_]
        set qsum($dir) [expr {$qsum($dir) + $q}]
        if {$q > $qmax($dir)} { set qmax($dir) $q }
    }
    if {$qkind eq "pi"} {
        set p [$fwdq set prob_]
        set psum [expr {$psum + $p}]
        if {$p <= 0} { incr pzero }
    }
    incr qn
    $ns at [expr {[$ns now] + 0.003}] sample
}

proc at_warmup {} {
    global qm counters base ftp_base p_start qkind fwdq
    set p_start [expr {$qkind eq "pi" ? [$fwdq set prob_] : 0}]
    foreach dir {fwd rev} {
        foreach k $counters { set base($dir,$k) [$qm($dir) set $k] }
    }
    set ftp_base [ftp_counts]
    sample
}

proc finish {} {
    global qm counters base qsum qmax qn ftp_base objf http_started http_completed http_retx_bytes http_timeouts
    global ct st pair_flow npairs busy stop wall0 qkind fwdq p_start psum pzero
    foreach dir {fwd rev} {
        foreach k $counters { set v($k) [expr {[$qm($dir) set $k] - $base($dir,$k)}] }
        puts [format "link dir=%s arrivals=%d departures=%d drops=%d early_drops=%d bytes=%d mean_q=%.4f max_q=%d" \
            $dir $v(parrivals_) $v(pdepartures_) $v(pdrops_) $v(epdrops_) $v(bdepartures_) \
            [expr {$qn > 0 ? $qsum($dir) / $qn : 0.0}] $qmax($dir)]
    }
    if {$qkind eq "pi"} {
        puts [format "pi p_start=%.6g p_end=%.6g p_mean=%.6g p_zero_share=%.4f q_end=%d" $p_start \
            [$fwdq set prob_] [expr {$qn > 0 ? $psum / $qn : 0.0}] [expr {$qn > 0 ? double($pzero) / $qn : 0.0}] \
            [$qm(fwd) set pkts_]]
    }
    # web connections still open: their server agents still hold their counters
    for {set p 1} {$p <= $npairs} {incr p} {
        if {$pair_flow($p) >= 0 && $busy($p)} {
            count_conn $p
        }
    }
    puts [format "http started=%d completed=%d retx_bytes=%d timeouts=%d" \
        $http_started $http_completed $http_retx_bytes $http_timeouts]
    set now [ftp_counts]
    puts [format "ftp delivered_bytes=%d retx_bytes=%d timeouts=%d" \
        [expr {[lindex $now 0] - [lindex $ftp_base 0]}] [expr {[lindex $now 1] - [lindex $ftp_base 1]}] \
        [expr {[lindex $now 2] - [lindex $ftp_base 2]}]]
    close $objf
    puts [format "run sim_s=%s wall_s=%.2f pairs=%d" $stop [expr {([clock milliseconds] - $wall0) / 1000.0}] $npairs]
    flush stdout
    exit 0
}

$ns at $warmup at_warmup
$ns at $stop finish
set wall0 [clock milliseconds]
$ns run
