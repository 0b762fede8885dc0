/*
 * What of the engine touches the buffer's bytes from the CPU (touch.c),
 * checked once against the memory kind before a size runs.
 */
#ifndef RB_ENGINE_TOUCH_H
#define RB_ENGINE_TOUCH_H

struct rb_session;

/*
 * 0 when this test may run on s's buffer: its memory kind lets the CPU
 * touch it (mem.h), or the test touches no byte of it.  Else -EINVAL after
 * a message naming what needs the CPU and the kind that refuses it.
 */
int loop_check_memory(const struct rb_session *s);

#endif
