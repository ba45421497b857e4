/* The reference robot: an Arduino Uno class board (ATmega328P, 16 MHz) with two DC motors on an
 * H-bridge (PWM + direction) and two quadrature wheel encoders. Numbers a host needs are sent in
 * HELLO_REPLY (main/links/serial/PROTOCOL.md); pins are documented in native/README.md. */
#ifndef REINS_CONFIG_H
#define REINS_CONFIG_H

#define UART_BAUD 115200UL

#define DEVICE_NAME "reins-ref-uno"
#define FIRMWARE_VERSION "1.0.0"

#define SENSOR_PERIOD_MS 20          /* 50 Hz SENSOR frames */
#define HEARTBEAT_PERIOD_MS 500      /* device HEARTBEAT */
#define HEARTBEAT_TIMEOUT_MS 400     /* host silence after which the motors stop */
#define ERROR_MIN_INTERVAL_MS 200    /* line noise must not make the device flood the line */

#define ENCODER_COUNTS_PER_REV 720   /* 360-line encoder, both edges of channel A */
#define WHEEL_RADIUS_M 0.035f
#define TRACK_M 0.16f
#define MAX_LINEAR_MPS 0.4f
#define MAX_ANGULAR_RADPS 3.0f
/* Wheel speed at full PWM with no load: the open-loop feed-forward maps speed to duty with it. */
#define MOTOR_NO_LOAD_RADPS 20.0f

#define ANALOG_CHANNELS 3            /* ADC0 battery divider, ADC1 and ADC2 spare inputs */
#define ADC_REFERENCE_MV 5000UL      /* AVCC */

/* Velocity is counted over this many sensor periods: at 20 ms alone a slow wheel moves only a
 * few counts and the estimate would be mostly quantisation. */
#define VELOCITY_WINDOW_SAMPLES 5

#endif
