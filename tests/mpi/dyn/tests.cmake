# Dynamic processes (src/mpi/comm/mpi_dyn.c, tools/ivcrun/dyn_server.c): see the top of each
# program. Spawned ranks run in new simulated VMs (vms) or as plain processes (plain).
ivc_mpi_test(dyn_spawn1  SOURCES mpi/dyn/spawn.c NP 1 ARGS 1 CONFIGS vms plain)
ivc_mpi_test(dyn_spawn4  SOURCES mpi/dyn/spawn.c NP 2 ARGS 4 CONFIGS vms plain)
ivc_mpi_test(dyn_spawn16 SOURCES mpi/dyn/spawn.c NP 1 ARGS 16 TIMEOUT 240 CONFIGS plain)
ivc_mpi_test(dyn_nest    SOURCES mpi/dyn/spawn.c NP 1 ARGS 2 nest CONFIGS vms plain)
