# pm_sizes.tcl — draw ns-2.35's PackMime-HTTP random variables directly, no network (aqmlab
# validation, validation/ns2/packmime/README.md). Written for aqmlab; not an ns-2 example.
#
# usage: ns pm_sizes.tcl RATE RUN N OUT
# Writes N lines "interarrival_s request_bytes response_bytes" to OUT: the three variables
# PackMimeHTTP creates in `start` (FlowArrive, FileSize type 0 = request, FileSize type 1 =
# response), each on its own RNG advanced to substream RUN as `set-run RUN` does, created in
# the same order as PackMime creates them, and drawn in connection order.

if {$argc != 4} {
    puts stderr "usage: ns pm_sizes.tcl RATE RUN N OUT"
    exit 1
}
lassign $argv rate run n out

proc rng_at {run} {
    set r [new RNG]
    for {set i 0} {$i < $run} {incr i} { $r next-substream }
    return $r
}
set arrive [new RandomVariable/PackMimeHTTPFlowArrive $rate [rng_at $run]]
set req [new RandomVariable/PackMimeHTTPFileSize $rate 0 [rng_at $run]]
set rsp [new RandomVariable/PackMimeHTTPFileSize $rate 1 [rng_at $run]]

set f [open $out w]
for {set i 0} {$i < $n} {incr i} {
    # PackMime truncates sizes with (int) and sends 0 as 1 byte
    set q [expr {int([$req value])}]
    set s [expr {int([$rsp value])}]
    if {$q == 0} { set q 1 }
    if {$s == 0} { set s 1 }
    puts $f "[$arrive value] $q $s"
}
close $f
exit 0
