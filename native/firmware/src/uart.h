/* UART0 with interrupt-driven ring buffers, so the main loop never waits on the line. */
#ifndef REINS_UART_H
#define REINS_UART_H
#include <stdbool.h>
#include <stdint.h>

void uart_init(void);
/* Next received byte into *byte; false when none is waiting. */
bool uart_read(uint8_t *byte);
/* Queues all `length` bytes, or none when they do not fit (a frame goes out whole or not at all). */
bool uart_write_all(const uint8_t *bytes, uint16_t length);
/* True once since the last call if received bytes were lost because the buffer was full. */
bool uart_take_overflow(void);
bool uart_rx_pending(void);

#endif
