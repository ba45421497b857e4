/* UART0 of the simulated chip on a pseudo-terminal: what the firmware sends appears on the pty,
 * what a program writes to the pty arrives at the firmware's receiver, paced by simavr's XON/XOFF. */
#ifndef REINS_PTY_UART_H
#define REINS_PTY_UART_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim_avr.h"

typedef struct {
  avr_t *avr;
  avr_irq_t *input_irq;
  int master_fd;
  int slave_fd; /* held open so the master never sees a hang-up while no program has the pty open */
  char slave_path[128];
  bool input_blocked;
  uint8_t input[4096];
  size_t input_start, input_length;
  uint8_t output[8192];
  size_t output_length;
} pty_uart_t;

/* Opens the pty pair and connects it to UART0; returns 0, or -1 with errno set. */
int pty_uart_open(pty_uart_t *bridge, avr_t *avr);
/* Moves bytes both ways without blocking. */
void pty_uart_service(pty_uart_t *bridge);
/* Waits up to timeout_ns for bytes from the program on the pty; true if some arrived. */
bool pty_uart_wait(pty_uart_t *bridge, int64_t timeout_ns);
void pty_uart_close(pty_uart_t *bridge);

#endif
