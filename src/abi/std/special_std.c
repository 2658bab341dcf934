/* The standard-ABI wrappers only this ABI needs by hand (gen_std.py's hand list beyond
 * ../special.c's): the ABI version query and the window attributes whose values it numbers
 * otherwise. */
#include "abi.h"
#include "generated/ivcn.h"

/* This library has the MPI-5.0 standard ABI, version 1.0 (IVC's own answers -1.-1). */
ABI_EXPORT(int, Abi_get_version, (int *abi_major, int *abi_minor))
int abi_PAbi_get_version(int *abi_major, int *abi_minor)
{
    if (abi_major == NULL || abi_minor == NULL)
        return abi_err_out(MPI_ERR_ARG);
    *abi_major = ABI_STD_VERSION;
    *abi_minor = ABI_STD_SUBVERSION;
    return MPI_SUCCESS;
}

/* MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL are pointers to ints holding constants this ABI
 * numbers otherwise: the program gets pointers to converted copies, one per window would be
 * more exact but the values of one process's windows are few: a small table keyed by the
 * value. */
static int flavor_val[4], model_val[2];

ABI_EXPORT(int, Win_get_attr, (abi_Win win, int win_keyval, void *attribute_val, int *flag))
int abi_PWin_get_attr(abi_Win win, int win_keyval, void *attribute_val, int *flag)
{
    int k = abi_keyval_in(win_keyval);
    int rc = IVCN_PMPI_Win_get_attr(abi_in(ABI_K_WIN, win), k, attribute_val, flag);
    if (rc == MPI_SUCCESS && flag != NULL && *flag && attribute_val != NULL) {
        int **v = attribute_val;
        if (k == MPI_WIN_CREATE_FLAVOR && **v >= 1 && **v <= 4) {
            int i = **v - 1;
            flavor_val[i] = abi_flavor_out(**v);
            *v = &flavor_val[i];
        } else if (k == MPI_WIN_MODEL && **v >= 1 && **v <= 2) {
            int i = **v - 1;
            model_val[i] = abi_model_out(**v);
            *v = &model_val[i];
        }
    }
    return abi_err_out(rc);
}
_Static_assert(MPI_WIN_FLAVOR_CREATE == 1 && MPI_WIN_FLAVOR_SHARED == 4 && MPI_WIN_SEPARATE == 1 &&
                   MPI_WIN_UNIFIED == 2,
               "the index of the copies above");
