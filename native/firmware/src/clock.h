/* Device time: a 1 kHz tick from Timer2, and microseconds interpolated from the timer count. */
#ifndef REINS_CLOCK_H
#define REINS_CLOCK_H
#include <stdint.h>

void clock_init(void);
uint32_t clock_millis(void);
/* Wraps every 71.6 minutes, as HEARTBEAT and SENSOR carry it. */
uint32_t clock_micros(void);

#endif
