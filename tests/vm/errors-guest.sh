#!/bin/sh
# Runs inside a guest: vm_job with launch settings that cannot work, so that the library's
# error messages about the ivshmem device can be checked on the console. Each run must
# fail; its messages are printed for the host to check.
PMI_RANK=0 PMI_SIZE=65536 IVC_JOB=3 vm_job && { echo "errors-guest: a 65536-rank job started"; exit 1; }
IVC_REGION=ivshmem:3 PMI_RANK=0 PMI_SIZE=2 IVC_JOB=3 vm_job && { echo "errors-guest: ivshmem:3 worked"; exit 1; }
echo "errors-guest: done"
