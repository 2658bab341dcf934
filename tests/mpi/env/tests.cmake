# Tests of the environment room (src/mpi/env, src/mpi/tool, src/mpi/session); see README.md.
ivc_mpi_test(env_errcodes SOURCES mpi/env/errcodes.c NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(env_errhandlers SOURCES mpi/env/errhandlers.c NP 2 CONFIGS vms plain hosts)
ivc_mpi_test(env_info SOURCES mpi/env/info.c NP 2 CONFIGS vms plain hosts ARGS alpha beta)
ivc_mpi_test(env_mpit SOURCES mpi/env/mpit.c NP 2 CONFIGS vms plain hosts
             ENV IVC_EAGER_LIMIT=2K IVC_COLL_SHM=no IVC_COLL_ROOTED_P2P=off)
ivc_mpi_test(env_sessions SOURCES mpi/env/sessions.c NP 4 CONFIGS vms plain hosts)
ivc_mpi_test(env_mixed SOURCES mpi/env/mixed.c NP 3 CONFIGS vms plain hosts)
ivc_mpi_test(env_mixed_serialized SOURCES mpi/env/mixed.c NP 3 CONFIGS vms
             ENV IVC_THREAD_MULTIPLE=no)
