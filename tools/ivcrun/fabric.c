#define _GNU_SOURCE
#include "fabric.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs argv (an `ip` or `nsenter` command) and waits; 0 on success, else -1 with the
 * command and what it printed reported on ivcrun's stderr (unless quiet). Keeps what it
 * printed in out[len] (NUL-terminated). */
static int run_out(char *const argv[], char *out, size_t len, int quiet)
{
    int p[2];
    out[0] = '\0';
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    ssize_t n = pid > 0 ? read(p[0], out, len - 1) : 0;
    close(p[0]);
    out[n > 0 ? n : 0] = '\0';
    int ws = 0;
    if (pid < 0 || waitpid(pid, &ws, 0) < 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        if (quiet)
            return -1;
        fprintf(stderr, "ivcrun: the network of the simulated hosts: '");
        for (int i = 0; argv[i]; i++)
            fprintf(stderr, "%s%s", i ? " " : "", argv[i]);
        fprintf(stderr, "' failed%s%.*s", n > 0 ? ": " : "", n > 0 ? (int)n : 0, out);
        if (n <= 0 || out[n - 1] != '\n')
            fprintf(stderr, "\n");
        return -1;
    }
    return 0;
}

/* run_out() whose output matters only on failure. */
static int run(char *const argv[])
{
    char out[512];
    return run_out(argv, out, sizeof(out), 0);
}

static void ns_name(const job_t *job, char *buf, size_t len)
{
    snprintf(buf, len, "ivc-%" PRIu64, job->id);
}

int fabric_create(job_t *job)
{
    char ns[64], veth[16], pid[32], netns_path[64], addr[32];
    ns_name(job, ns, sizeof(ns));
    char *add_ns[] = {"ip", "netns", "add", ns, NULL};
    char *add_br[] = {"ip", "-n", ns, "link", "add", "br0", "type", "bridge", NULL};
    char *up_br[] = {"ip", "-n", ns, "link", "set", "br0", "up", NULL};
    if (run(add_ns) != 0)
        return -1;
    job->fabric = 1;
    if (run(add_br) != 0 || run(up_br) != 0)
        return -1;
    for (uint32_t k = 0; k < job->opts->nvms; k++) {
        /* The bridge's end: unique within the job's namespace, under IFNAMSIZ. */
        snprintf(veth, sizeof(veth), "vm%u", k);
        snprintf(pid, sizeof(pid), "%d", (int)job->vms[k].init);
        snprintf(netns_path, sizeof(netns_path), "--net=/proc/%d/ns/net", (int)job->vms[k].init);
        vm_net_addr(k, addr);
        strcat(addr, "/16");
        char *add[] = {"ip",   "link", "add",  veth,   "netns", ns,  "type",
                       "veth", "peer", "name", "eth0", "netns", pid, NULL};
        char *master[] = {"ip", "-n", ns, "link", "set", veth, "master", "br0", "up", NULL};
        char *ipaddr[] = {"nsenter", netns_path, "ip", "addr", "add", addr, "dev", "eth0", NULL};
        char *ipup[] = {"nsenter", netns_path, "ip", "link", "set", "eth0", "up", NULL};
        if (run(add) != 0 || run(master) != 0 || run(ipaddr) != 0 || run(ipup) != 0)
            return -1;
    }
    /* A veth pair reports its carrier a moment after both ends are up; a rank whose UCX
     * looked earlier found no usable eth0 (seen once on a loaded machine): wait for it. */
    for (uint32_t k = 0; k < job->opts->nvms; k++) {
        snprintf(netns_path, sizeof(netns_path), "--net=/proc/%d/ns/net", (int)job->vms[k].init);
        char *show[] = {"nsenter", netns_path, "ip", "link", "show", "dev", "eth0", NULL};
        char out[512];
        for (int tries = 0;; tries++) {
            if (run_out(show, out, sizeof(out), 1) == 0 && strstr(out, "LOWER_UP") != NULL)
                break;
            if (tries == 500) {
                fprintf(stderr, "ivcrun: the network of the simulated hosts: eth0 of VM %u has "
                                "no carrier after 5 s\n",
                        k);
                return -1;
            }
            usleep(10000);
        }
    }
    return 0;
}

void fabric_destroy(job_t *job)
{
    if (!job->fabric)
        return;
    char ns[64];
    ns_name(job, ns, sizeof(ns));
    char *del[] = {"ip", "netns", "del", ns, NULL};
    run(del);
    job->fabric = 0;
}
