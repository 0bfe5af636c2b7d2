"""The real-TCP testbed (`aqmlab testbed`) and its comparison with the simulator."""
