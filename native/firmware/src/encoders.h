/* Two quadrature encoders: channel A on INT0 (PD2, left) and INT1 (PD3, right), channel B on PD4
 * (left) and PD5 (right). Both edges of A are counted; B gives the direction. */
#ifndef REINS_ENCODERS_H
#define REINS_ENCODERS_H
#include <stdint.h>

void encoders_init(void);
void encoders_read(int32_t *left_counts, int32_t *right_counts);

#endif
