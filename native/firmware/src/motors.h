/* Two DC motors on an H-bridge: Timer1 PWM on OC1A (left, D9) and OC1B (right, D10), direction on
 * PD7 (left, D7) and PB0 (right, D8). */
#ifndef REINS_MOTORS_H
#define REINS_MOTORS_H
#include <stdint.h>

void motors_init(void);
/* Signed duty per wheel, -1000..1000 (permille of full PWM). */
void motors_set_duty(int16_t left_permille, int16_t right_permille);
void motors_stop(void);
int16_t motors_duty_left(void);
int16_t motors_duty_right(void);
/* Body command to wheel duties (open loop, through MOTOR_NO_LOAD_RADPS). */
void motors_drive(float linear_mps, float angular_radps);

#endif
