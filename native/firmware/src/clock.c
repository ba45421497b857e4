#include "clock.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

/* 16 MHz / 64 = 250 kHz: 4 µs per count, 250 counts per millisecond. */
#define TICKS_PER_MS 250
#define US_PER_TICK 4

static volatile uint32_t millis_count;

ISR(TIMER2_COMPA_vect) { millis_count++; }

void clock_init(void) {
  TCCR2A = _BV(WGM21); /* CTC: count to OCR2A, then start over */
  TCCR2B = _BV(CS22);  /* prescaler 64 */
  OCR2A = TICKS_PER_MS - 1;
  TIMSK2 = _BV(OCIE2A);
}

uint32_t clock_millis(void) {
  uint32_t ms;
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) { ms = millis_count; }
  return ms;
}

uint32_t clock_micros(void) {
  uint32_t ms;
  uint8_t ticks;
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
    ms = millis_count;
    ticks = TCNT2;
    /* The compare fired but its interrupt has not run yet (we hold interrupts off). */
    if ((TIFR2 & _BV(OCF2A)) && ticks < TICKS_PER_MS - 1) ms++;
  }
  return ms * 1000UL + (uint32_t)ticks * US_PER_TICK;
}
