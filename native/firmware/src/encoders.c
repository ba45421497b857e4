#include "encoders.h"

#include <avr/interrupt.h>
#include <avr/io.h>
#include <util/atomic.h>

static volatile int32_t left_count, right_count;

/* On an edge of A: A differing from B means the wheel turns forward. */
ISR(INT0_vect) {
  uint8_t pins = PIND;
  if (!(pins & _BV(PD2)) != !(pins & _BV(PD4))) left_count++;
  else left_count--;
}

ISR(INT1_vect) {
  uint8_t pins = PIND;
  if (!(pins & _BV(PD3)) != !(pins & _BV(PD5))) right_count++;
  else right_count--;
}

void encoders_init(void) {
  DDRD &= (uint8_t)~(_BV(PD2) | _BV(PD3) | _BV(PD4) | _BV(PD5));
  PORTD |= _BV(PD2) | _BV(PD3) | _BV(PD4) | _BV(PD5); /* pull-ups for open-collector encoders */
  EICRA = _BV(ISC00) | _BV(ISC10);                     /* any logical change */
  EIFR = _BV(INTF0) | _BV(INTF1);
  EIMSK = _BV(INT0) | _BV(INT1);
}

void encoders_read(int32_t *left_counts, int32_t *right_counts) {
  ATOMIC_BLOCK(ATOMIC_RESTORESTATE) {
    *left_counts = left_count;
    *right_counts = right_count;
  }
}
