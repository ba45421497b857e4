#include "analog.h"

#include <avr/io.h>

#include "config.h"

void analog_init(void) {
  ADMUX = _BV(REFS0);                                  /* AVCC reference */
  ADCSRA = _BV(ADEN) | _BV(ADPS2) | _BV(ADPS1) | _BV(ADPS0); /* 16 MHz / 128 = 125 kHz */
  DIDR0 = (uint8_t)((1 << ANALOG_CHANNELS) - 1);       /* digital buffers off: less noise, less power */
}

uint16_t analog_read_mv(uint8_t channel) {
  ADMUX = (uint8_t)(_BV(REFS0) | (channel & 0x0f));
  ADCSRA |= _BV(ADSC);
  while (ADCSRA & _BV(ADSC)) {
  }
  uint16_t counts = ADC;
  return (uint16_t)(((uint32_t)counts * ADC_REFERENCE_MV + 512) / 1024);
}
