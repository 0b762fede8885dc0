/* rb_mesh check: execs rb_mpi --check (mesh_check.c). */
#ifndef RB_MESH_CHECK_H
#define RB_MESH_CHECK_H

#include <stdio.h>

void mesh_check_usage(FILE *f);
/* argv[0] is "check"; returns only when rb_mpi could not be run (1) or on
 * --help (0) or a usage error (2). */
int mesh_check(int argc, char **argv);

#endif
