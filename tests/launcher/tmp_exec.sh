# Programs and working directories under the host's /tmp still work in a simulated VM,
# whose /tmp is private: the /tmp entries holding the program and the working directory are
# kept visible, and a program whose path is hidden runs through ivcrun's descriptor.
. "$(dirname "$0")/lib.sh"
need_vms

dir=$(mktemp -d /tmp/ivcrun-tmp-exec.XXXXXX) || fail "mktemp under /tmp"
shm=/dev/shm/ivcrun-tmp-exec-$$
trap 'rm -rf "$SCRATCH" "$dir" "$shm.echo" "$shm.sh"' EXIT
mkdir "$dir/bin"
cp "$(type -P echo)" "$dir/bin/my-echo"
printf '#!/bin/sh\necho "script $PMI_RANK $0 $(cat "$(dirname "$0")/../data") $(ls -A /tmp)"\n' \
    >"$dir/bin/my-script"
chmod +x "$dir/bin/my-script"
echo here >"$dir/data"

cd "$dir" || fail "cd $dir"
run -n 2 ./bin/my-echo binary
expect_rc 0
expect_eq "binary under /tmp, relative path" "binary
binary" "$OUT"

# The script finds its data through $0, from elsewhere; the VM's /tmp shows only the
# program's tree.
cd / || fail "cd /"
run -n 2 sh -c 'ls -A /tmp; pwd'
expect_rc 0
expect_eq "VM's /tmp and working directory from /" "/
/" "$OUT"
run -n 2 "$dir/bin/my-script"
expect_rc 0
expect_eq "script under /tmp: \$0, its tree, the VM's /tmp" \
    "script 0 $dir/bin/my-script here $(basename "$dir")
script 1 $dir/bin/my-script here $(basename "$dir")" "$(echo "$OUT" | sort)"

cd "$dir" || fail "cd $dir"
run -n 1 sh -c 'ls -A /tmp; pwd; cat data'
expect_rc 0
expect_eq "VM's /tmp and working directory" "$(basename "$dir")
$dir
here" "$OUT"

# Found through PATH.
LAST="PATH=$dir/bin:\$PATH ivcrun -n 1 my-script"
OUT=$(PATH="$dir/bin:$PATH" "$IVCRUN" -n 1 my-script 2>"$SCRATCH/err")
RC=$?
expect_rc 0
expect_eq "script found in PATH" "script 0 $dir/bin/my-script here $(basename "$dir")" "$OUT"

# Hidden in the VM (its /dev/shm holds only the region): run through the descriptor.
cd / || fail "cd /"
cp "$(type -P echo)" "$shm.echo"
printf '#!/bin/sh\necho "hidden script $PMI_RANK"\n' >"$shm.sh"
chmod +x "$shm.sh"
if "$shm.echo" ok >/dev/null 2>&1; then
    run -n 2 "$shm.echo" hidden binary
    expect_rc 0
    expect_eq "binary hidden in the VM" "hidden binary
hidden binary" "$OUT"
    run -n 2 "$shm.sh"
    expect_rc 0
    expect_eq "script hidden in the VM" "hidden script 0
hidden script 1" "$(echo "$OUT" | sort)"
else
    echo "note: /dev/shm is noexec here; hidden-program case not checked"
fi

# Not executable: 126.
chmod -x "$dir/bin/my-script"
run -n 1 "$dir/bin/my-script"
expect_rc 126
echo PASS
