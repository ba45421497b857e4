/* Reference firmware for the Reins serial protocol (main/links/serial/PROTOCOL.md). */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>

#include "analog.h"
#include "clock.h"
#include "encoders.h"
#include "frames.h"
#include "motors.h"
#include "session.h"
#include "uart.h"

#ifdef SIMAVR
/* Tells simavr which chip and clock this ELF is for, so it needs no command-line flags. The section
 * is not loaded into flash (the Makefile strips it from the .hex). */
#include <avr/avr_mcu_section.h>
AVR_MCU(F_CPU, "atmega328p");
AVR_MCU_VOLTAGES(5000, 5000, 5000);
#endif

int main(void) {
  motors_init(); /* first: the outputs must be off before anything else can go wrong */
  clock_init();
  uart_init();
  encoders_init();
  analog_init();
  set_sleep_mode(SLEEP_MODE_IDLE);
  sei();

  for (;;) {
    uint32_t now_ms = clock_millis();
    uint8_t byte;
    while (uart_read(&byte)) {
      frame_t frame;
      frame_status_t status = frames_receive_byte(byte, &frame);
      if (status == FRAME_OK) session_on_frame(&frame, now_ms);
      else if (status != FRAME_NONE) session_on_fault(status, now_ms);
    }
    if (uart_take_overflow()) session_on_rx_overflow(now_ms);
    session_poll(now_ms);

    /* Idle until the next interrupt (the 1 kHz tick at the latest), unless a byte slipped in. */
    cli();
    if (!uart_rx_pending()) {
      sleep_enable();
      sei();
      sleep_cpu();
      sleep_disable();
    }
    sei();
  }
}
