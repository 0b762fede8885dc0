/*
 * One peer's probes, window by window (the watch agent's helper owns the
 * details; see mesh_window.c).  Pure: the caller passes times in ns.
 * It fills struct mesh_window_rec (mesh.h) for each closed window.
 */
#ifndef RB_MESH_WINDOW_H
#define RB_MESH_WINDOW_H
#include "prog/mesh/mesh.h"
#endif
