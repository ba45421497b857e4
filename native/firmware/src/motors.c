#include "motors.h"

#include <avr/io.h>

#include "config.h"

static int16_t duty_left, duty_right;

void motors_init(void) {
  DDRB |= _BV(PB1) | _BV(PB2) | _BV(PB0);
  DDRD |= _BV(PD7);
  /* Fast PWM, 8 bit, prescaler 64: 977 Hz, what Arduino's analogWrite gives on these pins. */
  TCCR1A = _BV(WGM10);
  TCCR1B = _BV(WGM12) | _BV(CS11) | _BV(CS10);
  motors_stop();
}

static int16_t clamp_permille(int16_t value) {
  return value > 1000 ? 1000 : value < -1000 ? -1000 : value;
}

/* Zero duty disconnects the pin from the timer: fast PWM at OCR = 0 still emits a one-tick spike. */
static void set_channel(volatile uint8_t *ocr, uint8_t com_bit, int16_t permille) {
  uint16_t magnitude = (uint16_t)(permille < 0 ? -permille : permille);
  *ocr = (uint8_t)((magnitude * 255UL + 500) / 1000);
  if (magnitude == 0) TCCR1A &= (uint8_t)~_BV(com_bit);
  else TCCR1A |= _BV(com_bit);
}

void motors_set_duty(int16_t left_permille, int16_t right_permille) {
  duty_left = clamp_permille(left_permille);
  duty_right = clamp_permille(right_permille);
  if (duty_left < 0) PORTD |= _BV(PD7);
  else PORTD &= (uint8_t)~_BV(PD7);
  if (duty_right < 0) PORTB |= _BV(PB0);
  else PORTB &= (uint8_t)~_BV(PB0);
  set_channel(&OCR1AL, COM1A1, duty_left);
  set_channel(&OCR1BL, COM1B1, duty_right);
}

void motors_stop(void) { motors_set_duty(0, 0); }

int16_t motors_duty_left(void) { return duty_left; }
int16_t motors_duty_right(void) { return duty_right; }

static int16_t wheel_permille(float wheel_radps) {
  float permille = wheel_radps / MOTOR_NO_LOAD_RADPS * 1000.0f;
  if (permille > 1000.0f) return 1000;
  if (permille < -1000.0f) return -1000;
  return (int16_t)(permille + (permille >= 0 ? 0.5f : -0.5f));
}

void motors_drive(float linear_mps, float angular_radps) {
  float half_track_mps = angular_radps * TRACK_M * 0.5f;
  motors_set_duty(wheel_permille((linear_mps - half_track_mps) / WHEEL_RADIUS_M),
                  wheel_permille((linear_mps + half_track_mps) / WHEEL_RADIUS_M));
}
