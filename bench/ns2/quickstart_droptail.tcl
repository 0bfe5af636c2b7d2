# quickstart_droptail.tcl -- ns-2 (2.35) counterpart of the aqmlab "quickstart"
# workload, drop-tail variant, for a side-by-side speed/behaviour comparison.
#
# Usage: ns quickstart_droptail.tcl [sim_seconds=60] [seed=1] [ack_mode=delack]
#                                   [warmup_seconds=0]
#   sim_seconds is the whole simulated time; statistics (completed, mean
#   response, offered load, utilization, drops) cover only connections that
#   arrive, and bytes that leave the queue, after warmup_seconds.  (The aqmlab
#   quickstart.toml uses a 60 s warm-up and 10 min measured: 660 60 here.)
#   ack_mode "delack" (default): segsperack_ 1, interval_ 0.1 -- every full
#            segment is ACKed at once; a short segment (only the last piece of
#            a response in this workload) waits for the delayed-ACK tick.
#   ack_mode "immediate": segsperack_ 0 -- every data segment ACKed at once,
#            but FullTcp then also sends ~2 redundant pure ACKs per connection.
#   (details at the TCP defaults below and in README.md)
#
# Prints at the end:
#   ns2 sim_seconds=<S> wall_seconds=<W> completed=<N> mean_response_s=<X>
#   ns2_load ...    offered / completed response payload rate
#   ns2_detail ...  bottleneck utilization, drops, agent-pool size, ...
# wall_seconds covers "$ns run" only (setup excluded; agent creation during
# the run included).
#
# Model:
#  * dumbbell: 20 client hosts -- L ==10 Mb/s, 10 ms== R -- 20 server hosts,
#    access links 100 Mb/s, 1 ms; L is a Node/DelayBox.
#  * per-connection extra RTT U[0,150] ms: DelayBox rule for every
#    (client, server) pair with a U[0,75] ms one-way delay, symmetric mode
#    (the SYN draws the delay, the SYN/ACK reuses it for the reverse direction).
#  * HTTP/1.0: Poisson arrivals, 225 connections/s in total, client and server
#    host picked uniformly; 300-byte request; bounded-Pareto response
#    (alpha 1.2, 1000 .. 2e6 bytes, rounded to whole bytes), server closes
#    after the response, client closes on the server's FIN.
#  * Agent/TCP/FullTcp/Newreno pairs driven by Application/TcpApp, recycled
#    through a global pool and re-attached per connection (as PackMime does),
#    so memory stays bounded.
#  * response time = connection arrival (client starts its SYN) to the
#    arrival of the last response byte at the client.

set sim_seconds 60.0
set seed 1
set ack_mode delack
if {$argc >= 1} { set sim_seconds [lindex $argv 0] }
if {$argc >= 2} { set seed [lindex $argv 1] }
if {$argc >= 3} { set ack_mode [lindex $argv 2] }
set warmup 0.0
if {$argc >= 4} { set warmup [lindex $argv 3] }
if {$warmup >= $sim_seconds} { puts stderr "warmup must be < sim_seconds"; exit 2 }

# ---------------------------------------------------------------- parameters
set n_hosts        20
set access_bw      100Mb
set access_delay   1ms
set bneck_bw       10Mb
set bneck_bw_bps   10000000.0
set bneck_delay    10ms
# ns-2 DropTail drops an arrival when (queue length + 1) >= limit_, i.e. it
# holds at most limit_-1 waiting packets (the packet being transmitted is not
# in the queue).  limit_ 121 therefore gives the aqmlab "120 waiting packets".
set bneck_qlimit   121
set access_qlimit  1000
set conn_rate      225.0
set req_bytes      300
set pareto_shape   1.2
set pareto_min     1000.0
set pareto_max     2000000.0
set extra_owd_max_ms 75.0  ;# one-way; RTT gets U[0,150] ms

# Only the headers used (common is always kept); cuts per-packet memory/time.
remove-all-packet-headers
add-packet-header IP TCP Flags

# ---------------------------------------------------------------- TCP defaults
Agent/TCP set window_        45     ;# 45 * 1460 = 65700 B ~ 64 KB receive window
Agent/TCP set windowInit_    2
Agent/TCP set minrto_        1.0
Agent/TCP set rtxcur_init_   3.0
Agent/TCP set tcpTick_       0.01
Agent/TCP set maxrto_        60
Agent/TCP/FullTcp set segsize_  1460   ;# + 40 B header = 1500-byte packets
Agent/TCP/FullTcp set nodelay_  true   ;# no Nagle
# ACKs.  FullTcp ACKs a received in-order data segment at once only if
# need_send() holds: (rcv_nxt - last_ack_sent) >= segsperack_ * segsize_.
# segsperack_ 1: every full segment is ACKed at once; a short segment waits
#   for the delayed-ACK timer, which ticks every interval_ s.  Here the short
#   segments are the request (its ACK rides on the response at once anyway)
#   and the last piece of a response, whose ACK therefore comes up to 0.1 s
#   late; that only postpones the server's FIN, not the response time.
#   interval_ cannot be 0 (no timer: the ACK of a short segment is never sent)
#   and a small interval_ costs a timer event per interval per open agent.
# segsperack_ 0: need_send() always true, so every data segment is ACKed at
#   once -- but FullTcp then also answers the handshake-completing ACK and
#   its own data burst with redundant pure ACKs (~2 per connection, server to
#   client), which occupy the bottleneck queue.
if {$ack_mode == "immediate"} {
    Agent/TCP/FullTcp set segsperack_ 0
} elseif {$ack_mode == "delack"} {
    Agent/TCP/FullTcp set segsperack_ 1
} else {
    puts stderr "ack_mode must be delack or immediate"; exit 2
}
Agent/TCP/FullTcp set interval_ 0.1

# ---------------------------------------------------------------- simulator
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed

# independent substreams of the ns-2 RNG
set rng_arrival [new RNG]; $rng_arrival seed $seed
set rng_pick    [new RNG]; $rng_pick seed $seed;    $rng_pick next-substream
set rng_size    [new RNG]; $rng_size seed $seed;    $rng_size next-substream; $rng_size next-substream
set rng_delay   [new RNG]; $rng_delay seed $seed
for {set k 0} {$k < 3} {incr k} { $rng_delay next-substream }

# ---------------------------------------------------------------- topology
Queue set limit_ $access_qlimit
set L [$ns DelayBox]
set R [$ns node]
for {set i 0} {$i < $n_hosts} {incr i} {
    set c($i) [$ns node]
    $ns duplex-link $c($i) $L $access_bw $access_delay DropTail
}
for {set i 0} {$i < $n_hosts} {incr i} {
    set s($i) [$ns node]
    $ns duplex-link $s($i) $R $access_bw $access_delay DropTail
}
$ns duplex-link $L $R $bneck_bw $bneck_delay DropTail
$ns queue-limit $L $R $bneck_qlimit
$ns queue-limit $R $L $bneck_qlimit

# queue monitor on the R->L (response) direction of the bottleneck
set qmon_rl [$ns monitor-queue $R $L ""]
set qmon_lr [$ns monitor-queue $L $R ""]

# ---------------------------------------------------------------- DelayBox
set owd_rv [new RandomVariable/Uniform]
$owd_rv set min_ 0
$owd_rv set max_ $extra_owd_max_ms   ;# DelayBox delays are in ms
$owd_rv use-rng $rng_delay
for {set i 0} {$i < $n_hosts} {incr i} {
    for {set j 0} {$j < $n_hosts} {incr j} {
        $L add-rule [$c($i) id] [$s($j) id] $owd_rv
    }
}

# ---------------------------------------------------------------- connections
# A slot is one reusable quad (client FullTcp, server FullTcp, client TcpApp,
# server TcpApp).  Free slots wait in one global FIFO pool and are re-attached
# to the chosen client and server host for each connection (as PackMime does).
# Creating a FullTcp agent costs ~5000 Tcl commands (~8 ms here), so the pool
# only grows to the peak number of simultaneous connections.
#
# Slot k always uses port k on whichever host it is attached to, so moving an
# agent between hosts is what Node::attach does, minus the bookkeeping that
# would grow without bound (the node's agents_ list, port allocation):
# set the agent's node/address/port, point its target at the node's entry and
# install it in the node's port demultiplexer; on release the port gets the
# null agent back.  "$ns connect" is replaced by setting dst_addr_/dst_port_.
set nullagent [$ns set nullAgent_]
for {set i 0} {$i < $n_hosts} {incr i} {
    foreach {arr} {c s} {
        set node [set ${arr}($i)]
        # a dummy agent on port 0 makes the node build its port demux
        $ns attach-agent $node [new Agent/Null]
        set h_entry($node) [$node entry]
        set h_dmux($node)  [$node demux]
        set h_addr($node)  [AddrParams addr2id [$node set address_]]
    }
}

set n_slots 0
set completed 0
set sum_resp 0.0
set arrivals 0
set conn_id 0
set offered_bytes 0
set slot_create_us 0
set completed_bytes 0
set free_slots {}

proc new_slot {} {
    global n_slots slot_c slot_s slot_ca slot_sa slot_of
    set k [incr n_slots]
    set ct [new Agent/TCP/FullTcp/Newreno]
    set st [new Agent/TCP/FullTcp/Newreno]
    $ct set agent_port_ $k
    $st set agent_port_ $k
    $ct set dst_port_ $k
    $st set dst_port_ $k
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

proc bounded_pareto {} {
    global rng_size pareto_shape pareto_min pareto_max
    set a $pareto_shape
    set La [expr {pow($pareto_min, $a)}]
    set Ha [expr {pow($pareto_max, $a)}]
    set u [$rng_size uniform 0.0 1.0]
    set x [expr {pow(-($u*$Ha - $u*$La - $Ha) / ($Ha*$La), -1.0/$a)}]
    set b [expr {round($x)}]
    if {$b < 1} { set b 1 }
    return $b
}

proc arrive {} {
    global ns rng_arrival rng_pick conn_rate n_hosts req_bytes free_slots conn_id arrivals offered_bytes
    global c s slot_c slot_s slot_ca slot_sa slot_hosts t_start rsp_size c_done s_done
    set now [$ns now]
    $ns at [expr {$now + [$rng_arrival exponential [expr {1.0/$conn_rate}]]}] arrive
    set ci [$rng_pick integer $n_hosts]
    set si [$rng_pick integer $n_hosts]
    set size [bounded_pareto]
    global warmup
    if {$now >= $warmup} {
        incr arrivals
        incr offered_bytes $size
    }
    if {[llength $free_slots] > 0} {
        set k [lindex $free_slots 0]
        set free_slots [lreplace $free_slots 0 0]
    } else {
        set t0 [clock microseconds]
        set k [new_slot]
        global slot_create_us
        incr slot_create_us [expr {[clock microseconds] - $t0}]
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
    # the request; when all of it has arrived the server app runs "serve $k"
    $slot_ca($k) send $req_bytes "serve $k"
}

proc serve {k} {
    global slot_s slot_sa rsp_size
    # close once the response has been sent (= sendmsg ... MSG_EOF); must be
    # set before the data so the FIN can ride on the last segment
    $slot_s($k) set close_on_empty_ true
    $slot_sa($k) send $rsp_size($k) "response_done $k"
}

proc response_done {k} {
    global ns t_start completed sum_resp rsp_size completed_bytes warmup
    if {$t_start($k) < $warmup} return
    incr completed
    incr completed_bytes $rsp_size($k)
    set sum_resp [expr {$sum_resp + [$ns now] - $t_start($k)}]
}

# FullTcp calls "$agent done" when it reaches CLOSED.  A quad goes back to
# its pool once both ends have closed.
Agent/TCP/FullTcp instproc done {} {
    global slot_of slot_c c_done s_done
    set k $slot_of($self)
    if {$slot_c($k) == $self} { set c_done($k) 1 } else { set s_done($k) 1 }
    if {$c_done($k) && $s_done($k)} { recycle $k }
}

proc recycle {k} {
    global slot_c slot_s slot_hosts free_slots c_done s_done h_dmux nullagent
    set c_done($k) 0
    set s_done($k) 0
    foreach node $slot_hosts($k) { $h_dmux($node) install $k $nullagent }
    $slot_c($k) reset
    $slot_s($k) reset
    $slot_s($k) listen
    lappend free_slots $k
}

proc finish {} {
    global ns sim_seconds wall_t0 completed sum_resp arrivals n_slots
    global qmon_rl qmon_lr bneck_bw_bps ack_mode seed free_slots offered_bytes completed_bytes
    global slot_create_us
    set wall [expr {([clock milliseconds] - $wall_t0) / 1000.0}]
    set mean [expr {$completed > 0 ? $sum_resp / $completed : 0.0}]
    global warmup qm_at_warmup
    set span [expr {$sim_seconds - $warmup}]
    set bytes_rl [expr {[$qmon_rl set bdepartures_] - [lindex $qm_at_warmup 0]}]
    set bytes_lr [expr {[$qmon_lr set bdepartures_] - [lindex $qm_at_warmup 1]}]
    set util_rl [expr {8.0 * $bytes_rl / ($bneck_bw_bps * $span)}]
    set util_lr [expr {8.0 * $bytes_lr / ($bneck_bw_bps * $span)}]
    set drops_rl [expr {[$qmon_rl set pdrops_] - [lindex $qm_at_warmup 2]}]
    set arr_rl [expr {[$qmon_rl set parrivals_] - [lindex $qm_at_warmup 3]}]
    set nfree [llength $free_slots]
    puts [format "ns2 sim_seconds=%s wall_seconds=%.3f completed=%d mean_response_s=%.4f" \
        $sim_seconds $wall $completed $mean]
    puts [format "ns2_load offered_rsp_Mbps=%.3f completed_rsp_Mbps=%.3f" \
        [expr {8.0 * $offered_bytes / $span / 1e6}] \
        [expr {8.0 * $completed_bytes / $span / 1e6}]]
    puts [format "ns2_detail arrivals=%d util_R_to_L=%.4f util_L_to_R=%.4f drops_R_to_L=%d pkts_R_to_L=%d loss_R_to_L=%.4f slots=%d slots_free_at_end=%d slot_create_wall_s=%.3f ack_mode=%s seed=%s warmup_s=%s sim_per_wall=%.3f" \
        $arrivals $util_rl $util_lr $drops_rl $arr_rl \
        [expr {$arr_rl > 0 ? double($drops_rl)/$arr_rl : 0.0}] \
        $n_slots $nfree [expr {$slot_create_us / 1e6}] $ack_mode $seed $warmup \
        [expr {$wall > 0 ? $sim_seconds / $wall : 0.0}]]
    flush stdout
    exit 0
}

proc snapshot_queues {} {
    global qmon_rl qmon_lr qm_at_warmup
    set qm_at_warmup [list [$qmon_rl set bdepartures_] [$qmon_lr set bdepartures_] \
                          [$qmon_rl set pdrops_] [$qmon_rl set parrivals_]]
}
set qm_at_warmup {0 0 0 0}
if {$warmup > 0} { $ns at $warmup snapshot_queues }
$ns at 0.0 arrive
$ns at $sim_seconds finish
set wall_t0 [clock milliseconds]
$ns run
