/*
 * The commit the programs were built from: `git describe --always --dirty`
 * of the source tree at build time (in a release tarball: the commit it was
 * made from, else the version).  In every --version and in every result's
 * metadata ("commit").
 */
#ifndef RB_COMMIT_H
#define RB_COMMIT_H

const char *rb_commit(void);

#endif
