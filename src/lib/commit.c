#include "lib/commit.h"

/* rb-commit.h is written by make (Makefile.am) at every build, from
 * scripts/dev/commit.sh: only this file is rebuilt when the commit changes. */
#include "rb-commit.h"

const char *rb_commit(void)
{
	return RB_COMMIT;
}
