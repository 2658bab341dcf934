/* launcher_compat_rank APP [VAR...]: an MPI rank that reports what the launcher gave it,
 * for the Hydra and Open MPI compatibility tests. Each rank prints one line on stdout:
 *
 *   rank=R size=S app=APP host=HOSTNAME cwd=DIR cpus=LIST sum=ok VAR=value|<unset>...
 *
 * (cpus: Cpus_allowed_list from /proc/self/status, what the kernel enforces; sum: an
 * MPI_Allreduce of the ranks over MPI_COMM_WORLD came out right, so every program of an
 * MPMD job is in one world), and "err from rank R" on stderr. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void allowed_cpus(char *buf, size_t len)
{
    snprintf(buf, len, "?");
    FILE *f = fopen("/proc/self/status", "r");
    char line[512];
    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            char *v = line + 18;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = '\0';
            snprintf(buf, len, "%s", v);
        }
    }
    if (f != NULL)
        fclose(f);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine = rank, sum = -1;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    char host[256] = "?", cwd[4096] = "?", cpus[256];
    gethostname(host, sizeof(host));
    if (getcwd(cwd, sizeof(cwd)) == NULL)
        snprintf(cwd, sizeof(cwd), "?");
    allowed_cpus(cpus, sizeof(cpus));
    char line[8192];
    int n = snprintf(line, sizeof(line), "rank=%d size=%d app=%s host=%s cwd=%s cpus=%s sum=%s",
                     rank, size, argc > 1 ? argv[1] : "-", host, cwd, cpus,
                     sum == (long)size * (size - 1) / 2 ? "ok" : "WRONG");
    for (int i = 2; i < argc && n < (int)sizeof(line); i++) {
        const char *v = getenv(argv[i]);
        n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%s", argv[i], v ? v : "<unset>");
    }
    printf("%s\n", line);
    fprintf(stderr, "err from rank %d\n", rank);
    MPI_Finalize();
    return 0;
}
