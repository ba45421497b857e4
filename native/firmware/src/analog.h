/* Analog inputs ADC0..ADC(ANALOG_CHANNELS-1) against AVCC, in millivolts. */
#ifndef REINS_ANALOG_H
#define REINS_ANALOG_H
#include <stdint.h>

void analog_init(void);
/* One conversion, about 104 µs at the 125 kHz ADC clock. */
uint16_t analog_read_mv(uint8_t channel);

#endif
