#define _GNU_SOURCE
#include "pty_uart.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "avr_uart.h"

static void feed(pty_uart_t *bridge) {
  while (!bridge->input_blocked && bridge->input_length > 0) {
    uint8_t byte = bridge->input[bridge->input_start];
    bridge->input_start = (bridge->input_start + 1) % sizeof bridge->input;
    bridge->input_length--;
    /* May call on_xoff before returning, when this byte filled the UART's FIFO. */
    avr_raise_irq(bridge->input_irq, byte);
  }
}

static void on_output(avr_irq_t *irq, uint32_t value, void *param) {
  (void)irq;
  pty_uart_t *bridge = param;
  /* Nobody reading for 8 KiB: drop, like a UART with no one listening. */
  if (bridge->output_length < sizeof bridge->output) bridge->output[bridge->output_length++] = (uint8_t)value;
}

static void on_xon(avr_irq_t *irq, uint32_t value, void *param) {
  (void)irq;
  (void)value;
  pty_uart_t *bridge = param;
  bridge->input_blocked = false;
  feed(bridge);
}

static void on_xoff(avr_irq_t *irq, uint32_t value, void *param) {
  (void)irq;
  pty_uart_t *bridge = param;
  bridge->input_blocked = value != 0;
}

int pty_uart_open(pty_uart_t *bridge, avr_t *avr) {
  memset(bridge, 0, sizeof *bridge);
  bridge->avr = avr;
  bridge->input_blocked = true; /* until the firmware enables its receiver (XON) */
  if (openpty(&bridge->master_fd, &bridge->slave_fd, bridge->slave_path, NULL, NULL) < 0) return -1;
  struct termios raw;
  tcgetattr(bridge->slave_fd, &raw);
  cfmakeraw(&raw);
  tcsetattr(bridge->slave_fd, TCSANOW, &raw);
  fcntl(bridge->master_fd, F_SETFL, fcntl(bridge->master_fd, F_GETFL) | O_NONBLOCK);

  /* No console echo of the binary stream, and no usleep when firmware polls the UART flags. */
  uint32_t flags = 0;
  avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
  flags &= ~(uint32_t)(AVR_UART_FLAG_STDIO | AVR_UART_FLAG_POLL_SLEEP);
  avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);

  bridge->input_irq = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
  avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_output, bridge);
  avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON), on_xon, bridge);
  avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF), on_xoff, bridge);
  return 0;
}

static void read_input(pty_uart_t *bridge) {
  while (bridge->input_length < sizeof bridge->input) {
    size_t end = (bridge->input_start + bridge->input_length) % sizeof bridge->input;
    size_t room = end >= bridge->input_start ? sizeof bridge->input - end : bridge->input_start - end;
    ssize_t got = read(bridge->master_fd, bridge->input + end, room);
    if (got <= 0) return; /* EAGAIN: nothing more for now */
    bridge->input_length += (size_t)got;
  }
}

static void write_output(pty_uart_t *bridge) {
  if (bridge->output_length == 0) return;
  ssize_t written = write(bridge->master_fd, bridge->output, bridge->output_length);
  if (written <= 0) {
    /* The pty's buffer is full because nobody reads it: old bytes are worth less than new ones. */
    if (errno == EAGAIN) bridge->output_length = 0;
    return;
  }
  memmove(bridge->output, bridge->output + written, bridge->output_length - (size_t)written);
  bridge->output_length -= (size_t)written;
}

void pty_uart_service(pty_uart_t *bridge) {
  write_output(bridge);
  read_input(bridge);
  feed(bridge);
}

bool pty_uart_wait(pty_uart_t *bridge, int64_t timeout_ns) {
  struct pollfd poll_fd = {.fd = bridge->master_fd, .events = POLLIN};
  struct timespec timeout = {.tv_sec = timeout_ns / 1000000000, .tv_nsec = timeout_ns % 1000000000};
  return ppoll(&poll_fd, 1, &timeout, NULL) > 0 && (poll_fd.revents & POLLIN);
}

void pty_uart_close(pty_uart_t *bridge) {
  close(bridge->master_fd);
  close(bridge->slave_fd);
}
