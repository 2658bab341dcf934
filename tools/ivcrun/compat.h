/* The command-line spellings of MPICH's Hydra (mpiexec.hydra) and Open MPI's mpirun, so
 * that their job scripts run unchanged, each mapped to its meaning in IVC, where every rank
 * runs on this machine:
 *
 *  - Host names (-host, -hosts, -H, hostfiles) become simulated VMs, one per distinct name
 *    in order of first appearance, all on one simulated host (one region: shared memory
 *    between all of them, as co-located VMs have in a real IVC deployment). With
 *    --host-map hosts each name is a simulated host of its own instead (one VM each, the
 *    network channel between them), as ivcrun --hosts makes them.
 *  - Ranks go to the hosts' slots in order, round robin over the list as Hydra does (Open
 *    MPI fills the same way when the slots suffice); -ppn P takes P per host per round,
 *    --map-by node one. IVC never runs out of slots: --oversubscribe is accepted silently.
 *  - Options that steer a remote launch (-launcher, -bootstrap, -iface, --mca, --prefix)
 *    have nothing to steer: each is accepted with a one-line note naming the IVC way.
 *
 * Everything here is parsing and layout; the launch applies the result (rank.c, bind.c). */
#ifndef IVCRUN_COMPAT_H
#define IVCRUN_COMPAT_H

#include "opts.h"

#include <stdint.h>

/* Parses one Hydra/Open MPI option at argv[*ip] (advancing *ip past its values) into `o`
 * or the section's `app`. Returns 1 when it was one, 0 when it is unknown (nothing
 * printed), -EINVAL after printing a usage error. */
int compat_parse_one(int argc, char **argv, int *ip, ivcrun_opts_t *o, ivcrun_app_t *app);

/* Adds the hosts of a "-host a,b:2" style list to o->hostv; `opt` names the option for
 * errors. Returns 0 or -EINVAL (printed). */
int compat_host_list(ivcrun_opts_t *o, const char *opt, const char *list);

/* The sum of the host list's slots. */
uint32_t compat_total_slots(const ivcrun_opts_t *o);

/* Lays ranks out by the host list or -ppn: sets o->nvms, o->rank_vm and, with --host-map
 * hosts, o->hosts. Returns 0 or -EINVAL (printed). */
int compat_place(ivcrun_opts_t *o);

/* --map-by node without a host list: rank r to VM r mod nvms, once nvms is known.
 * Returns 0 or -EINVAL (printed). */
int compat_place_round_robin(ivcrun_opts_t *o);

/* Checks what needs the whole command line (-wdir exists, ...). Returns 0 or -EINVAL. */
int compat_check(ivcrun_opts_t *o);

void compat_free(ivcrun_opts_t *o);

/* Shared with opts.c: a usage error (returns -EINVAL), and a bounded number. */
int ivcrun_opts_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int ivcrun_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* argv[*i] without its one or two dashes; whether it is -name or --name; whether it is
 * -name/--name with a value ("-name V" or "-name=V", *value NULL when missing). */
const char *ivcrun_opt_undash(const char *a);
int ivcrun_opt_is(const char *a, const char *name);
int ivcrun_opt_value(const char *name, int argc, char **argv, int *i, const char **value);

#endif
