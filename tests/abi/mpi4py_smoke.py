# Run under ivcrun by mpi4py_wheel.sh with the PyPI mpi4py wheel: allreduce, send/recv of
# plain Python objects (pickled), a nonblocking exchange, Barrier, and the library's name.
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
assert MPI.Get_library_version().startswith("IVC"), MPI.Get_library_version()
total = comm.allreduce(rank + 1, op=MPI.SUM)
assert total == size * (size + 1) // 2, total
assert comm.allreduce(rank, op=MPI.MAX) == size - 1
peer = (rank + 1) % size
left = (rank - 1) % size
obj = {"rank": rank, "list": list(range(rank + 3)), "text": "x" * (rank * 1000 + 1)}
req = comm.isend(obj, dest=peer, tag=7)
status = MPI.Status()
got = comm.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status)
req.wait()
assert got["rank"] == left and got["list"] == list(range(left + 3)), got["rank"]
assert len(got["text"]) == left * 1000 + 1
assert status.Get_source() == left and status.Get_tag() == 7, (status.Get_source(), status.Get_tag())
assert comm.sendrecv(rank, dest=MPI.PROC_NULL, source=MPI.PROC_NULL) is None
data = comm.bcast({"root": "hello"} if rank == 0 else None, root=0)
assert data == {"root": "hello"}
gathered = comm.gather(rank * rank, root=size - 1)
if rank == size - 1:
    assert gathered == [i * i for i in range(size)], gathered
sub = comm.Split(rank % 2, rank)
assert sub.allreduce(1) == len(range(rank % 2, size, 2))
sub.Free()
comm.Barrier()
if rank == 0:
    print(f"mpi4py smoke ok {size}")
