#include "board.h"

#include <math.h>
#include <stdbool.h>

#include "avr_adc.h"
#include "avr_ioport.h"
#include <stddef.h>

#include "sim_cycle_timers.h"
#include "sim_time.h"

/* Must match native/firmware/src/config.h: this is the same robot seen from outside the chip. */
#define COUNTS_PER_REV 720     /* counted edges: both edges of channel A */
#define PHASES_PER_REV (COUNTS_PER_REV * 2)
#define NO_LOAD_RADPS 20.0
#define MOTOR_TIME_CONSTANT_S 0.08
#define TICK_US 100            /* one quadrature step per tick at most: up to 43 rad/s */
#define ADC_EVERY_TICKS 100    /* 10 ms */

/* ATmega328P data-space addresses (datasheet, register summary). */
enum { ADDR_PORTB = 0x25, ADDR_PORTD = 0x2B, ADDR_TCCR1A = 0x80, ADDR_OCR1AL = 0x88, ADDR_OCR1BL = 0x8A };
enum { COM1A1_BIT = 7, COM1B1_BIT = 5 };

typedef struct {
  double velocity_radps;
  double position_rad;
  long phase;           /* quadrature state count; pins follow phase mod 4 */
  int pin_a, pin_b;     /* port D pins */
} wheel_t;

static wheel_t wheels[2] = {{0, 0, 0, 2, 4}, {0, 0, 0, 3, 5}};
static avr_cycle_count_t tick_cycles;
static unsigned long tick_count;

/* Gray sequence of (A, B): A leads B when the wheel turns forward. */
static const int PHASE_A[4] = {0, 1, 1, 0};
static const int PHASE_B[4] = {0, 0, 1, 1};

static void set_pin(avr_t *avr, int pin, int level) {
  avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('D'), pin), level);
}

/* Signed duty -1..1 the H-bridge sees; zero when the timer is disconnected from the pin. */
static double pwm_duty(avr_t *avr, int wheel) {
  uint8_t tccr1a = avr->data[ADDR_TCCR1A];
  bool connected = wheel == 0 ? (tccr1a >> COM1A1_BIT) & 1 : (tccr1a >> COM1B1_BIT) & 1;
  if (!connected) return 0;
  double magnitude = avr->data[wheel == 0 ? ADDR_OCR1AL : ADDR_OCR1BL] / 255.0;
  bool reverse = wheel == 0 ? (avr->data[ADDR_PORTD] >> 7) & 1 : avr->data[ADDR_PORTB] & 1;
  return reverse ? -magnitude : magnitude;
}

static void step_encoder(avr_t *avr, wheel_t *wheel) {
  long target = (long)floor(wheel->position_rad / (2 * M_PI) * PHASES_PER_REV);
  if (target == wheel->phase) return;
  int before = (int)(((wheel->phase % 4) + 4) % 4);
  wheel->phase += target > wheel->phase ? 1 : -1;
  int after = (int)(((wheel->phase % 4) + 4) % 4);
  if (PHASE_A[after] != PHASE_A[before]) set_pin(avr, wheel->pin_a, PHASE_A[after]);
  if (PHASE_B[after] != PHASE_B[before]) set_pin(avr, wheel->pin_b, PHASE_B[after]);
}

static void update_analog(avr_t *avr, double load) {
  double time_s = tick_count * TICK_US * 1e-6;
  /* ADC0: a 7.4 V pack through a 1:2 divider, sagging under motor load. */
  uint32_t battery_mv = (uint32_t)(3700 - 150 * load);
  uint32_t spare_mv[2] = {1650, (uint32_t)(2500 + 500 * sin(2 * M_PI * 0.2 * time_s))};
  avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC0), battery_mv);
  avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC1), spare_mv[0]);
  avr_raise_irq(avr_io_getirq(avr, AVR_IOCTL_ADC_GETIRQ, ADC_IRQ_ADC2), spare_mv[1]);
}

static avr_cycle_count_t board_tick(avr_t *avr, avr_cycle_count_t when, void *param) {
  (void)param;
  const double dt_s = TICK_US * 1e-6;
  double load = 0;
  for (int i = 0; i < 2; i++) {
    wheel_t *wheel = &wheels[i];
    double duty = pwm_duty(avr, i);
    load += fabs(duty) / 2;
    wheel->velocity_radps += (duty * NO_LOAD_RADPS - wheel->velocity_radps) * dt_s / MOTOR_TIME_CONSTANT_S;
    wheel->position_rad += wheel->velocity_radps * dt_s;
    step_encoder(avr, wheel);
  }
  if (tick_count++ % ADC_EVERY_TICKS == 0) update_analog(avr, load);
  return when + tick_cycles;
}

void board_attach(avr_t *avr) {
  tick_cycles = avr_usec_to_cycles(avr, TICK_US);
  for (int i = 0; i < 2; i++) {
    set_pin(avr, wheels[i].pin_a, 0);
    set_pin(avr, wheels[i].pin_b, 0);
  }
  update_analog(avr, 0);
  avr_cycle_timer_register(avr, tick_cycles, board_tick, NULL);
}
