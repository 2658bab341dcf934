/* Reductions for the collectives: applying an operation to packed data, user-defined
 * operations (Op_create/Op_free/Op_commutative) and MPI_Reduce_local. */
#include "coll/coll_impl.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int coll_op_commutes(MPI_Op op)
{
    return op->id != OP_USER || op->commute;
}

/* Bytes spanned by count elements of dt and the displacement of element 0 from the start of
 * that span, so that a buffer of `span` bytes holds them. */
static void dt_span(MPI_Datatype dt, uint64_t count, uint64_t *span, int64_t *shift)
{
    int64_t last = (int64_t)(count - 1) * dt->map.extent;
    int64_t lo = (last < 0 ? last : 0) + dt->true_lb;
    int64_t hi = (last > 0 ? last : 0) + dt->true_ub;
    *span = (uint64_t)(hi - lo);
    *shift = -lo;
}

/* Calls the user's function over count elements in dt's layout, in pieces that fit an int. */
static void user_call(MPI_Op op, MPI_Datatype dt, void *in, void *inout, uint64_t count)
{
    if (op->bigcount && count > 0) { /* one call: len is an MPI_Count */
        MPI_Count len = (MPI_Count)count;
        MPI_Datatype d = dt;
        ((MPI_User_function_c *)(void (*)(void))op->fn)(in, inout, &len, &d);
        return;
    }
    while (count > 0) {
        int n = count > INT_MAX / 2 ? INT_MAX / 2 : (int)count;
        MPI_Datatype d = dt;
        if (op->fortran) {
            MPI_Fint fd = PMPI_Type_c2f(dt);
            ((void (*)(void *, void *, int *, MPI_Fint *))op->fn)(in, inout, &n, &fd);
        } else {
            op->fn(in, inout, &n, &d);
        }
        in = (char *)in + (int64_t)n * dt->map.extent;
        inout = (char *)inout + (int64_t)n * dt->map.extent;
        count -= (uint64_t)n;
    }
}

/* Native layout of the (value, index) pair kinds: packed, a pair is its value's bytes then
 * the int's, but in memory the int sits at its aligned offset (12 packed bytes of
 * MPI_DOUBLE_INT are 16 in a double_int_t). Returns the native size, 0 for other kinds. */
static size_t pair_native(int basic, size_t *ioff)
{
#define PAIR(K, T)                                                                                 \
    case K: *ioff = offsetof(T, i); return sizeof(T);
    switch (basic) {
        PAIR(B_FLOAT_INT, float_int_t)
        PAIR(B_DOUBLE_INT, double_int_t)
        PAIR(B_LONG_INT, long_int_t)
        PAIR(B_2INT, int2_t)
        PAIR(B_SHORT_INT, short_int_t)
        PAIR(B_LDOUBLE_INT, ldouble_int_t)
    default: return 0;
    }
#undef PAIR
}

/* MAXLOC/MINLOC on packed pairs: spread both operands into native pairs, apply, pack the
 * result back. */
static int pair_apply(MPI_Op op, int basic, const uint8_t *in, uint8_t *inout, uint64_t n,
                      size_t psz, size_t nsz, size_t ioff)
{
    size_t vsz = psz - sizeof(int);
    uint8_t *a = calloc(n ? 2 * n : 1, nsz);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    uint8_t *b = a + n * nsz;
    for (uint64_t i = 0; i < n; i++) {
        memcpy(a + i * nsz, in + i * psz, vsz);
        memcpy(a + i * nsz + ioff, in + i * psz + vsz, sizeof(int));
        memcpy(b + i * nsz, inout + i * psz, vsz);
        memcpy(b + i * nsz + ioff, inout + i * psz + vsz, sizeof(int));
    }
    int rc = ivc_mpi_op_apply(op, a, b, n, basic);
    for (uint64_t i = 0; rc == MPI_SUCCESS && i < n; i++) {
        memcpy(inout + i * psz, b + i * nsz, vsz);
        memcpy(inout + i * psz + vsz, b + i * nsz + ioff, sizeof(int));
    }
    free(a);
    return rc;
}

int coll_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, uint64_t count)
{
    if (count == 0)
        return MPI_SUCCESS;
    if (op->id != OP_USER) {
        size_t ioff = 0, nsz = pair_native(dt->basic, &ioff);
        uint64_t n = count * dt->nbasic;
        if (nsz != 0 && nsz != dt->basic_size)
            return pair_apply(op, dt->basic, in, inout, n, dt->basic_size, nsz, ioff);
        return ivc_mpi_op_apply(op, in, inout, n, dt->basic);
    }
    if (dt->map.contig) {
        user_call(op, dt, (void *)in, inout, count);
        return MPI_SUCCESS;
    }
    /* A user function sees elements in the datatype's own layout: unpack both operands
     * into scratch buffers of that layout, apply, pack the result back. */
    uint64_t span;
    int64_t shift;
    dt_span(dt, count, &span, &shift);
    char *a = malloc(span ? 2 * span : 1);
    if (a == NULL)
        return MPI_ERR_NO_MEM;
    char *b = a + span;
    ivc_data_t da, db;
    ivc_mpi_data(&da, a + shift, 0, dt);
    ivc_mpi_data(&db, b + shift, 0, dt);
    da.count = db.count = count;
    da.bytes = db.bytes = count * dt->map.size;
    ivc_data_unpack(&da, 0, in, da.bytes);
    ivc_data_unpack(&db, 0, inout, db.bytes);
    user_call(op, dt, a + shift, b + shift, count);
    ivc_data_pack(&db, 0, inout, db.bytes);
    free(a);
    return MPI_SUCCESS;
}

int coll_op_apply3(MPI_Op op, MPI_Datatype dt, const void *in, const void *in2, void *out,
                   uint64_t count)
{
    if (count == 0)
        return MPI_SUCCESS;
    if (op->id != OP_USER) {
        size_t ioff = 0, nsz = pair_native(dt->basic, &ioff);
        if (nsz == 0 || nsz == dt->basic_size)
            return ivc_mpi_op_apply3(op, in, in2, out, count * dt->nbasic, dt->basic);
    }
    if (out != in2)
        memcpy(out, in2, count * dt->map.size);
    return coll_op_apply(op, dt, in, out, count);
}

/* A user operation calling fn (an MPI_User_function, or an MPI_User_function_c when
 * bigcount). Returns MPI_SUCCESS or the raised error class. */
static int op_new(MPI_User_function *fn, int bigcount, int commute, MPI_Op *op, const char *name)
{
    int rc = ivc_mpi_check_init(name);
    if (rc != MPI_SUCCESS)
        return rc;
    if (fn == NULL || op == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_ARG, name, "NULL argument");
    MPI_Op o = calloc(1, sizeof(*o));
    if (o == NULL)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, name, "out of memory");
    o->magic = OP_MAGIC;
    o->id = OP_USER;
    o->commute = commute != 0;
    o->fn = fn;
    o->bigcount = bigcount;
    *op = o;
    return MPI_SUCCESS;
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_new(user_fn, 0, commute, op, "MPI_Op_create");
}
IVC_MPI_WEAK(Op_create)

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    /* Stored in the one function slot; user_call() casts it back by op->bigcount. */
    return op_new((MPI_User_function *)(void (*)(void))user_fn, 1, commute, op,
                  "MPI_Op_create_c");
}
IVC_MPI_WEAK(Op_create_c)

int PMPI_Op_free(MPI_Op *op)
{
    const char *fn = "MPI_Op_free";
    CHECK_NULL_ARG(MPI_COMM_WORLD, op, fn, "op");
    if (!ivc_mpi_op_valid(*op))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OP, fn, "invalid operation");
    if ((*op)->predefined)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OP, fn,
                             "predefined operations cannot be "
                             "freed");
    (*op)->magic = 0;
    free(*op);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Op_free)

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    if (!ivc_mpi_op_valid(op))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_commutative", "invalid operation");
    CHECK_NULL_ARG(MPI_COMM_WORLD, commute, "MPI_Op_commutative", "commute");
    *commute = coll_op_commutes(op);
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Op_commutative)

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    const char *fn = "MPI_Reduce_local";
    int rc = ivc_mpi_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count %d", count);
    if (!ivc_mpi_dt_valid(datatype) || !datatype->committed)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!ivc_mpi_op_valid(op))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_OP, fn, "invalid operation");
    /* NULL is also MPI_BOTTOM (dtype.h); MPI_IN_PLACE is not allowed here, and the two
     * buffers must not be the same (the standard makes both erroneous). */
    if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed");
    if (inbuf == inoutbuf && inbuf != MPI_BOTTOM && count > 0)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "inbuf and inoutbuf are the same");
    if (ivc_mpi_dt_null_buf(inbuf, count, datatype) ||
        ivc_mpi_dt_null_buf(inoutbuf, count, datatype))
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "NULL buffer for %d elements",
                             count);
    if (op->id == OP_USER) {
        user_call(op, datatype, (void *)inbuf, inoutbuf, (uint64_t)count);
        return MPI_SUCCESS;
    }
    if (datatype->basic == B_NONE)
        return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, fn,
                             "reductions need a datatype made of one basic type");
    if (datatype->map.contig) {
        rc = coll_op_apply(op, datatype, inbuf, inoutbuf, (uint64_t)count);
    } else {
        ivc_data_t di, dio;
        ivc_mpi_data(&di, inbuf, count, datatype);
        ivc_mpi_data(&dio, inoutbuf, count, datatype);
        char *tmp = malloc(di.bytes ? 2 * di.bytes : 1);
        if (tmp == NULL)
            return ivc_mpi_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "out of memory");
        ivc_data_pack(&di, 0, tmp, di.bytes);
        ivc_data_pack(&dio, 0, tmp + di.bytes, di.bytes);
        rc = coll_op_apply(op, datatype, tmp, tmp + di.bytes, (uint64_t)count);
        if (rc == MPI_SUCCESS)
            ivc_data_unpack(&dio, 0, tmp + di.bytes, di.bytes);
        free(tmp);
    }
    if (rc != MPI_SUCCESS)
        return ivc_mpi_raise(MPI_COMM_WORLD, rc, fn, "operation not defined on this datatype");
    return MPI_SUCCESS;
}
IVC_MPI_WEAK(Reduce_local)
