/* The robot around the chip: two DC motors driven by the firmware's PWM and direction pins, their
 * quadrature encoders fed back into its pins, and the voltages on its analog inputs. */
#ifndef REINS_BOARD_H
#define REINS_BOARD_H
#include "sim_avr.h"

/* Starts the board model on a cycle timer of the given AVR. */
void board_attach(avr_t *avr);

#endif
