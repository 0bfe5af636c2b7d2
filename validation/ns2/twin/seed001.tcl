# seed001.tcl -- the ns-2.35 half of the seed 001 twins (Weigle, Jeffay, Smith 2006, §5):
# two-way PackMime HTTP/1.0 over a 10 Mbps dumbbell with PackMime DelayBoxes, Full-TCP Reno or
# SACK, and a drop-tail or Adaptive RED bottleneck. The aqmlab half is scenarios/ns2-twin/; both
# are generated from validation/ns2/twin/twins.toml, and twins.py prints this script's options
# for a twin:
#
#   ns seed001.tcl $(python twins.py --ns2 seed001_dt_80 --seed 2 --out /tmp/dt80)
#
# Options (all "-name value"; every one is required unless marked):
#   -bottleneck BPS -access BPS     link rates, bit/s (router-router; host-router)
#   -delay S                        propagation delay of every link, s
#   -access_limit N                 limit_ of the access-link DropTail queues
#   -queue droptail|ared|red -limit N   bottleneck queue (both directions) and its limit_
#   -targetdelay S                  (ared only; required there)
#   -units bytes|packets -mean_pktsize B      (ared and red; required there)
#   -thresh P -maxthresh P -q_weight W -max_p P -gentle 0|1  (red only; required there):
#                                   thresh_, maxthresh_ (packets, or units of -mean_pktsize
#                                   bytes), q_weight_, linterm_ = 1/max_p, gentle_
#   -use_mark_p 0|1 -mark_p P -bottom P  (optional, ared and red; defaults 1, 0.1 and 0 =
#                                   ns-2.35's: use_mark_p_ 0 brings back the forced drop at
#                                   ave >= maxthresh (2 maxthresh gentle) and marks every
#                                   early selection of an ECT packet; bottom_ 0 = automatic)
#   -tcp reno|sack -ecn 0|1         Full-TCP flavour; ECN in the TCPs and RED's setbit_
#   -mss B -iw SEGS -window SEGS -tick S -minrto S -rto0 S -maxrto S
#   -rate CONN_PER_S                new PackMime connections per second, each direction
#   -seed N -warmup S -duration S   seed (≥ 1), warm-up and measured time
#   -out DIR                        output directory (created)
#   -log_inputs 0|1                 (optional, default 0) also log every connection's inputs
#                                   (below), for compare.py --paired
#   -rtt_file FILE                  (optional) instead of PackMime's two DelayBox tables: one
#                                   draw per connection (both generators), at L only, of the
#                                   one-way delay in ms (the box applies it both ways, so the
#                                   base RTT is twice the draw) from FILE, a RandomVariable/
#                                   Empirical CDF ("value_ms 0 cdf" per line, interpolated)
#
# Model.
#  * Nodes: client cloud host C -- L (DelayBox router) == bottleneck == R (DelayBox router) --
#    server cloud host S. Access links -access bit/s, bottleneck -bottleneck bit/s, all with
#    -delay. Forward = R -> L (the responses of the forward cloud); reverse = L -> R.
#  * Two PackMimeHTTP generators, HTTP/1.0, each at -rate: "fwd" with its clients on C and its
#    servers on S, "rev" the other way round. Each selects substream -seed of its random
#    streams (set-run).
#  * DelayBoxes as ns-2's tcl/ex/packmime/pm-delaybox.tcl: for each generator, a
#    PackMimeHTTPXmit client-side variable (type 0) at the router of its clients and a
#    server-side one (type 1) at the router of its servers, each drawing RTT/2 once per
#    connection (at its SYN) and applying it in both directions (symmetric mode), so a
#    connection's base RTT = RTT_client + RTT_server. One RNG per variable, at substream -seed.
#  * DelayBox keys its flows by (source, destination, fid_), and PackMime gives fid_ = its
#    connection number, which both generators count from 1: this script gives connection n of
#    generator d (0 fwd, 1 rev) fid_ 2n + d, so the two generators never share a flow entry.
#  * Full-TCP (PackMime's own agents): -mss, -window, -iw, -tick, -minrto, -rto0 (rtxcur_init_),
#    -maxrto, no timestamps, Nagle off (nodelay_), segsperack_ 1 with the 100 ms delayed-ACK
#    tick: every full-sized in-order segment is ACKed at once, a shorter one (the last piece of
#    a request or response) waits for the tick. (segsperack_ 0, which ACKs every segment at
#    once, also makes Full-TCP send redundant pure ACKs: bench/ns2/README.md.)
#  * Queues: droptail = DropTail limit_ -limit (holds limit_ - 1 waiting). ared = Queue/RED with
#    adaptive_ 1 and ns-2.35's defaults written out below; -units bytes = bytes_/queue_in_bytes_
#    true (average, thresholds and limit in units of -mean_pktsize bytes), packets = false.
#
# Output.
#  * DIR/rt_fwd.dat, DIR/rt_rev.dat: PackMime's outfile (set-outfile): one line per response
#    completed whose connection started at or after floor(warm-up): time the last byte arrived,
#    request bytes, response bytes, response time in ms (from the client's first write, which
#    sends the SYN, to the last response byte), server address.port, active connections.
#  * DIR/req_fwd.dat, DIR/req_rev.dat: PackMime's samples file (every connection's start time,
#    request and response bytes).
#  * DIR/conns.dat: one line per connection started at or after the warm-up:
#    "fid dir start_s closed client_rexmit server_rexmit client_timeouts server_timeouts",
#    rexmit = Full-TCP's nrexmitpack_ (segments sent again after a timeout or duplicate ACKs),
#    timeouts = nrexmit_, read when the client reaches CLOSED (closed 1) or at the end (0).
#  * With -log_inputs 1, every connection's inputs, for replaying the same connections in
#    aqmlab (compare.py --paired): DIR/starts.dat "fid start_s" for every connection (start =
#    when PackMime opened it); DIR/delay_L.dat, DIR/delay_R.dat, the two DelayBoxes' delay files
#    ("src dst fid delay_ms" per flow entry: the one-way delay the box holds that flow's packets);
#    DIR/apps.dat "server-app NAME dir" (which generator owns each PackMime server application);
#    and both generators at PackMime debug level 2, whose stderr lines "server NAME (n)> waiting
#    D s before responding" give connection n's server delay (the caller keeps stderr).
#  * stdout: "link dir=fwd|rev arrivals departures drops early_drops bytes marks mean_q max_q"
#    over the measured window (counters are differences from the warm-up; the queue = packets
#    waiting, sampled every 3 ms), then "run sim_s wall_s".

proc fail {msg} {
    puts stderr "seed001.tcl: error: $msg"
    exit 2
}

# ---------------------------------------------------------------- options
# name -> kind (posint, pos = number > 0, nonneg = number ≥ 0, bool01, a list of choices, dir)
array set kinds {
    bottleneck posint access posint delay nonneg access_limit posint
    queue {droptail ared red} limit posint targetdelay pos units {bytes packets}
    mean_pktsize posint thresh pos maxthresh pos q_weight pos max_p pos gentle bool01
    use_mark_p bool01 mark_p pos bottom nonneg
    tcp {reno sack} ecn bool01 mss posint iw posint window posint tick pos minrto pos rto0 pos
    maxrto pos rate pos seed posint warmup nonneg duration pos out dir log_inputs bool01
    rtt_file dir
}
# option -> the queues that take it (and need it, unless it is optional)
array set only_for {
    targetdelay ared units {ared red} mean_pktsize {ared red} thresh red maxthresh red
    q_weight red max_p red gentle red use_mark_p {ared red} mark_p {ared red} bottom {ared red}
}
set optional {log_inputs rtt_file use_mark_p mark_p bottom}

if {[llength $argv] % 2 != 0} { fail "options come in pairs (-name value); got: $argv" }
foreach {flag value} $argv {
    if {[string index $flag 0] ne "-"} { fail "expected an option such as -rate, got \"$flag\"" }
    set name [string range $flag 1 end]
    if {![info exists kinds($name)]} {
        fail "unknown option -$name (known: [join [lsort [array names kinds]] {, }])"
    }
    if {[info exists opt($name)]} { fail "-$name given twice" }
    set k $kinds($name)
    switch -- $k {
        posint {
            if {![string is integer -strict $value] || $value < 1} {
                fail "-$name: expected an integer >= 1, got \"$value\""
            }
        }
        pos {
            if {![string is double -strict $value] || $value <= 0} {
                fail "-$name: expected a number > 0, got \"$value\""
            }
        }
        nonneg {
            if {![string is double -strict $value] || $value < 0} {
                fail "-$name: expected a number >= 0, got \"$value\""
            }
        }
        bool01 {
            if {$value ne "0" && $value ne "1"} { fail "-$name: expected 0 or 1, got \"$value\"" }
        }
        dir {
            if {$value eq ""} { fail "-$name: expected a directory" }
        }
        default {
            if {[lsearch -exact $k $value] < 0} {
                fail "-$name: expected one of [join $k {, }], got \"$value\""
            }
        }
    }
    set opt($name) $value
}
if {![info exists opt(queue)]} { fail "missing option -queue" }
foreach name [lsort [array names kinds]] {
    set applies [expr {![info exists only_for($name)] || \
        [lsearch -exact $only_for($name) $opt(queue)] >= 0}]
    if {!$applies && [info exists opt($name)]} {
        fail "-$name applies only to -queue [join $only_for($name) { or }]"
    }
    if {$applies && [lsearch -exact $optional $name] < 0 && ![info exists opt($name)]} {
        fail "missing option -$name"
    }
}
if {$opt(ecn) && $opt(queue) eq "droptail"} { fail "-ecn 1 needs -queue ared or red (drop-tail never marks)" }
if {![info exists opt(log_inputs)]} { set opt(log_inputs) 0 }
if {[info exists opt(rtt_file)] && ![file readable $opt(rtt_file)]} {
    fail "-rtt_file: cannot read \"$opt(rtt_file)\""
}
if {$opt(queue) ne "droptail"} {
    foreach {name value} {use_mark_p 1 mark_p 0.1 bottom 0} {
        if {![info exists opt($name)]} { set opt($name) $value }
    }
}
set warmup $opt(warmup)
set stop [expr {$opt(warmup) + $opt(duration)}]
file mkdir $opt(out)
set outdir $opt(out)

# ---------------------------------------------------------------- TCP
remove-all-packet-headers
add-packet-header IP TCP Flags
Agent/TCP set window_ $opt(window)
Agent/TCP set windowInit_ $opt(iw)
Agent/TCP set tcpTick_ $opt(tick)
Agent/TCP set minrto_ $opt(minrto)
Agent/TCP set rtxcur_init_ $opt(rto0)
Agent/TCP set maxrto_ $opt(maxrto)
Agent/TCP set timestamps_ false
Agent/TCP set rfc2988_ true
Agent/TCP set bugFix_ true
Agent/TCP set ecn_ $opt(ecn)
Agent/TCP/FullTcp set segsize_ $opt(mss)
Agent/TCP/FullTcp set nodelay_ true
Agent/TCP/FullTcp set segsperack_ 1
Agent/TCP/FullTcp set interval_ 0.1
Agent/TCP/FullTcp/Sack set sack_block_size_ 8
Agent/TCP/FullTcp/Sack set max_sack_blocks_ 3

# ---------------------------------------------------------------- queues
Queue set limit_ $opt(access_limit)
if {$opt(queue) ne "droptail"} {
    set inbytes [expr {$opt(units) eq "bytes" ? "true" : "false"}]
    Queue/RED set bytes_ $inbytes
    Queue/RED set queue_in_bytes_ $inbytes
    Queue/RED set mean_pktsize_ $opt(mean_pktsize)
    Queue/RED set setbit_ [expr {$opt(ecn) ? "true" : "false"}]
    # ns-2.35's defaults (tcl/lib/ns-default.tcl), written out: for ared automatic thresholds
    # and q_weight_; bottom_ 0 = automatic; gentle; the wait rule; use_mark_p_ (marks only while
    # p_b < mark_p_, no forced drop from the average); ARED's alpha, beta, interval and top.
    # -queue red sets its own thresholds, q_weight_, linterm_ and gentle_, without adaptation.
    if {$opt(queue) eq "ared"} {
        Queue/RED set adaptive_ 1
        Queue/RED set targetdelay_ $opt(targetdelay)
        Queue/RED set thresh_ 0
        Queue/RED set maxthresh_ 0
        Queue/RED set q_weight_ -1
        Queue/RED set linterm_ 10
        Queue/RED set gentle_ true
    } else {
        Queue/RED set adaptive_ 0
        Queue/RED set thresh_ $opt(thresh)
        Queue/RED set maxthresh_ $opt(maxthresh)
        Queue/RED set q_weight_ $opt(q_weight)
        Queue/RED set linterm_ [expr {1.0 / $opt(max_p)}]
        Queue/RED set gentle_ [expr {$opt(gentle) ? "true" : "false"}]
    }
    Queue/RED set bottom_ $opt(bottom)
    Queue/RED set top_ 0.5
    Queue/RED set alpha_ 0.01
    Queue/RED set beta_ 0.9
    Queue/RED set interval_ 0.5
    Queue/RED set wait_ true
    Queue/RED set use_mark_p_ [expr {$opt(use_mark_p) ? "true" : "false"}]
    Queue/RED set mark_p_ $opt(mark_p)
    Queue/RED set cautious_ 0
    Queue/RED set feng_adaptive_ 0
    Queue/RED set drop_tail_ true
    Queue/RED set drop_front_ false
    Queue/RED set drop_rand_ false
    set qtype RED
} else {
    set qtype DropTail
}

# ---------------------------------------------------------------- network
set ns [new Simulator]
$ns use-scheduler Heap
global defaultRNG
$defaultRNG seed $opt(seed)

set C [$ns node]
set S [$ns node]
set L [$ns DelayBox]
set R [$ns DelayBox]
$ns duplex-link $C $L $opt(access) $opt(delay) DropTail
$ns duplex-link $S $R $opt(access) $opt(delay) DropTail
$ns duplex-link $L $R $opt(bottleneck) $opt(delay) $qtype
$ns queue-limit $L $R $opt(limit)
$ns queue-limit $R $L $opt(limit)

# Monitors on both bottleneck queues: QueueMonitor/ED counts early drops apart.
set nullagent [$ns set nullAgent_]
foreach {dir from to} [list fwd $R $L rev $L $R] {
    set link [$ns link $from $to]
    set qm($dir) [new QueueMonitor/ED]
    $link attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qm($dir)
    if {$opt(queue) ne "droptail"} {
        set eds [new SnoopQueue/EDrop]
        $eds set-monitor $qm($dir)
        [$link queue] early-drop-target $eds
        $eds target $nullagent
    }
    set qsum($dir) 0.0
    set qmax($dir) 0
}
set qn 0
set counters {parrivals_ pdepartures_ pdrops_ epdrops_ bdepartures_ pmarks_}

# ---------------------------------------------------------------- DelayBoxes
# side 0 = client table, 1 = server table; generator d's clients sit on node(d) and its servers
# on node(1-d); router(x) is the router of host x.
set hosts [list $C $S]
set router([$C id]) $L
set router([$S id]) $R
proc xmit_rv {side} {
    global opt
    set rv [new RandomVariable/PackMimeHTTPXmit $opt(rate) $side]
    set rng [new RNG]
    for {set j 0} {$j < $opt(seed)} {incr j} { $rng next-substream }
    $rv use-rng $rng
    return $rv
}
if {[info exists opt(rtt_file)]} {
    # One rule on one box: a DelayBox rule matches its two hosts in either order, so this one
    # rule at L draws once for every connection of both generators (a second rule at R would
    # delay every connection a second time).
    set rv [new RandomVariable/Empirical]
    $rv set interpolation_ 1
    $rv loadCDF $opt(rtt_file)
    set rng [new RNG]
    for {set j 0} {$j < $opt(seed)} {incr j} { $rng next-substream }
    $rv use-rng $rng
    $L add-rule [$C id] [$S id] $rv
} else {
    foreach d {0 1} {
        set cl [lindex $hosts $d]
        set sv [lindex $hosts [expr {1 - $d}]]
        $router([$cl id]) add-rule [$cl id] [$sv id] [xmit_rv 0]
        $router([$sv id]) add-rule [$cl id] [$sv id] [xmit_rv 1]
    }
}
if {$opt(log_inputs)} {
    $L set-delay-file [file join $outdir delay_L.dat]
    $R set-delay-file [file join $outdir delay_R.dat]
}

# ---------------------------------------------------------------- PackMime
set dirname {fwd rev}
foreach d {0 1} {
    set pm [new PackMimeHTTP]
    $pm set-client [lindex $hosts $d]
    $pm set-server [lindex $hosts [expr {1 - $d}]]
    $pm set-TCP [expr {$opt(tcp) eq "sack" ? "Sack" : "Reno"}]
    $pm set-rate $opt(rate)
    $pm set-run $opt(seed)
    $pm set-warmup [expr {int(floor($warmup))}]
    $pm set-outfile [file join $outdir "rt_[lindex $dirname $d].dat"]
    $pm set-samples-outfile [file join $outdir "req_[lindex $dirname $d].dat"]
    set pm_dir($pm) $d
    set pms($d) $pm
    if {$opt(log_inputs)} { $pm set-debug 2 }
}

if {$opt(log_inputs)} {
    set starts_f [open [file join $outdir starts.dat] w]
    set apps_f [open [file join $outdir apps.dat] w]
    # As tcl/packmime/packmime.tcl's, plus a note of the generator that owns the application.
    PackMimeHTTP instproc alloc-server-app {} {
        global apps_f pm_dir
        set app [new Application/PackMimeHTTP/Server]
        puts $apps_f "server-app $app $pm_dir($self)"
        return $app
    }
}

set conns_f [open [file join $outdir conns.dat] w]
puts $conns_f "# fid dir start_s closed client_rexmit server_rexmit client_timeouts server_timeouts"

# PackMime calls "setup-tcp AGENT N" for the server's agent, then the client's, when it opens
# connection N (the client writes its request, and so sends its SYN, at this same instant).
PackMimeHTTP instproc setup-tcp {tcp n} {
    global pm_dir ns srv_of cli_of start_of
    set fid [expr {2 * $n + $pm_dir($self)}]
    $tcp set fid_ $fid
    $tcp proc done {} "$self done $tcp"
    if {![info exists srv_of($fid)]} {
        set srv_of($fid) $tcp
    } else {
        set cli_of($fid) $tcp
        set start_of($fid) [$ns now]
        global opt starts_f
        if {$opt(log_inputs)} { puts $starts_f [format "%d %.9f" $fid $start_of($fid)] }
    }
}

proc log_conn {fid closed} {
    global conns_f srv_of cli_of start_of warmup
    if {$start_of($fid) >= $warmup} {
        set ctcp $cli_of($fid)
        set stcp $srv_of($fid)
        puts $conns_f [format "%d %d %.6f %d %d %d %d %d" $fid [expr {$fid % 2}] \
            $start_of($fid) $closed [$ctcp set nrexmitpack_] [$stcp set nrexmitpack_] \
            [$ctcp set nrexmit_] [$stcp set nrexmit_]]
    }
    unset srv_of($fid) cli_of($fid) start_of($fid)
}

# Full-TCP calls "done" on reaching CLOSED; PackMime recycles both agents when the client's
# agent is done (the server's "done" changes nothing), so the counters are read just before.
PackMimeHTTP instproc done {tcp} {
    global cli_of
    set fid [$tcp set fid_]
    if {[info exists cli_of($fid)] && $cli_of($fid) eq $tcp} {
        log_conn $fid 1
    }
    $self recycle $tcp
}

# ---------------------------------------------------------------- measurement
proc snapshot {} {
    global qm counters at_warmup
    foreach dir {fwd rev} {
        foreach c $counters { set at_warmup($dir,$c) [$qm($dir) set $c] }
    }
}
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
    snapshot
    sample
}

proc finish {} {
    global ns qm counters at_warmup qsum qmax qn opt conns_f wall0 stop
    foreach dir {fwd rev} {
        foreach c $counters { set v($c) [expr {[$qm($dir) set $c] - $at_warmup($dir,$c)}] }
        puts [format "link dir=%s arrivals=%d departures=%d drops=%d early_drops=%d bytes=%d marks=%d mean_q=%.4f max_q=%d" \
            $dir $v(parrivals_) $v(pdepartures_) $v(pdrops_) $v(epdrops_) $v(bdepartures_) \
            $v(pmarks_) [expr {$qn > 0 ? $qsum($dir) / $qn : 0.0}] $qmax($dir)]
    }
    # connections still open at the end: their agents still hold their counters
    global cli_of
    foreach fid [lsort -integer [array names cli_of]] { log_conn $fid 0 }
    close $conns_f
    if {$opt(log_inputs)} {
        global starts_f apps_f
        close $starts_f
        close $apps_f
    }
    puts [format "run sim_s=%s wall_s=%.2f" $stop [expr {([clock milliseconds] - $wall0) / 1000.0}]]
    flush stdout
    exit 0
}

$ns at 0.0 "$pms(0) start; $pms(1) start"
$ns at $warmup at_warmup
$ns at $stop finish
set wall0 [clock milliseconds]
$ns run
