/* The device side of the session (PROTOCOL.md §2): handshake, heartbeat watchdog, commands and
 * their acknowledgements, and the periodic SENSOR and HEARTBEAT frames. */
#ifndef REINS_SESSION_H
#define REINS_SESSION_H
#include <stdint.h>

#include "frames.h"

void session_on_frame(const frame_t *frame, uint32_t now_ms);
void session_on_fault(frame_status_t status, uint32_t now_ms);
void session_on_rx_overflow(uint32_t now_ms);
/* Watchdog and periodic frames; call every pass of the main loop. */
void session_poll(uint32_t now_ms);

#endif
