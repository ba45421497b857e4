#include "session.h"

#include <math.h>
#include <string.h>

#include "analog.h"
#include "clock.h"
#include "config.h"
#include "encoders.h"
#include "motors.h"

enum {
  TYPE_HELLO = 0x01,
  TYPE_HELLO_REPLY = 0x02,
  TYPE_HEARTBEAT = 0x03,
  TYPE_VELOCITY = 0x10,
  TYPE_ACK = 0x11,
  TYPE_SENSOR = 0x20,
  TYPE_ERROR = 0x7F,
  FIRST_VENDOR_TYPE = 0x80,
};
enum { ACK_APPLIED = 0, ACK_CLAMPED = 1, ACK_NOT_ARMED = 2, ACK_INVALID = 3 };
enum { ERR_CRC = 1, ERR_BAD_FRAME = 2, ERR_UNKNOWN_TYPE = 3, ERR_BAD_PAYLOAD = 4, ERR_VERSION = 5, ERR_RX_OVERFLOW = 6 };
enum { STATUS_ARMED = 1, STATUS_WATCHDOG_STOPPED = 2, STATUS_CLAMPED = 4 };
enum { CAP_WHEELS = 1, CAP_ANALOG = 2, CAP_IMU = 4, CAP_VELOCITY = 8 };
enum { BLOCK_WHEELS = 0x01, BLOCK_ANALOG = 0x02, BLOCK_STATUS = 0x04 };

static bool session_open;
static uint32_t host_heard_ms;
static uint32_t next_sensor_ms, next_heartbeat_ms, last_error_ms;
static bool error_sent_once;
static bool watchdog_stopped, last_clamped;
static int32_t counts_history[VELOCITY_WINDOW_SAMPLES][2];
static uint8_t history_index, history_filled;

/* Little-endian writers: AVR is little-endian, so a plain copy is the wire order. */
static uint8_t *put(uint8_t *at, const void *value, uint8_t size) {
  memcpy(at, value, size);
  return at + size;
}
static uint8_t *put_u8(uint8_t *at, uint8_t value) { return put(at, &value, 1); }
static uint8_t *put_u16(uint8_t *at, uint16_t value) { return put(at, &value, 2); }
static uint8_t *put_f32(uint8_t *at, float value) { return put(at, &value, 4); }

static bool armed(uint32_t now_ms) { return session_open && (uint32_t)(now_ms - host_heard_ms) < HEARTBEAT_TIMEOUT_MS; }

static uint8_t status_flags(uint32_t now_ms) {
  return (uint8_t)((armed(now_ms) ? STATUS_ARMED : 0) | (watchdog_stopped ? STATUS_WATCHDOG_STOPPED : 0) | (last_clamped ? STATUS_CLAMPED : 0));
}

static void send_error(uint8_t code, const char *text, uint32_t now_ms) {
  if (error_sent_once && (uint32_t)(now_ms - last_error_ms) < ERROR_MIN_INTERVAL_MS) return;
  uint8_t payload[1 + 64];
  uint8_t length = (uint8_t)strnlen(text, 64);
  payload[0] = code;
  memcpy(payload + 1, text, length);
  frames_send(TYPE_ERROR, payload, (uint8_t)(1 + length));
  last_error_ms = now_ms;
  error_sent_once = true;
}

static void send_hello_reply(void) {
  uint8_t payload[64];
  uint8_t *at = put_u8(payload, PROTOCOL_VERSION);
  at = put_u16(at, CAP_WHEELS | CAP_ANALOG | CAP_VELOCITY);
  at = put_u8(at, 2);
  at = put_u8(at, ANALOG_CHANNELS);
  at = put_u16(at, 1000 / SENSOR_PERIOD_MS);
  at = put_u16(at, HEARTBEAT_TIMEOUT_MS);
  at = put_u16(at, HEARTBEAT_PERIOD_MS);
  at = put_u16(at, ENCODER_COUNTS_PER_REV);
  at = put_f32(at, WHEEL_RADIUS_M);
  at = put_f32(at, TRACK_M);
  at = put_f32(at, MAX_LINEAR_MPS);
  at = put_f32(at, MAX_ANGULAR_RADPS);
  at = put_u8(at, sizeof DEVICE_NAME - 1);
  at = put(at, DEVICE_NAME, sizeof DEVICE_NAME - 1);
  at = put(at, FIRMWARE_VERSION, sizeof FIRMWARE_VERSION - 1);
  frames_send(TYPE_HELLO_REPLY, payload, (uint8_t)(at - payload));
}

static void send_ack(uint16_t seq, uint8_t result, float linear_mps, float angular_radps) {
  uint8_t payload[11];
  uint8_t *at = put_u16(payload, seq);
  at = put_u8(at, result);
  at = put_f32(at, linear_mps);
  put_f32(at, angular_radps);
  frames_send(TYPE_ACK, payload, sizeof payload);
}

static float clampf(float value, float limit, bool *clamped) {
  if (value > limit) {
    *clamped = true;
    return limit;
  }
  if (value < -limit) {
    *clamped = true;
    return -limit;
  }
  return value;
}

static void on_velocity(const frame_t *frame, uint32_t now_ms) {
  float linear_mps, angular_radps;
  memcpy(&linear_mps, frame->payload, 4);
  memcpy(&angular_radps, frame->payload + 4, 4);
  if (!isfinite(linear_mps) || !isfinite(angular_radps)) {
    motors_stop();
    send_ack(frame->seq, ACK_INVALID, 0, 0);
    return;
  }
  if (!armed(now_ms)) {
    send_ack(frame->seq, ACK_NOT_ARMED, 0, 0);
    return;
  }
  bool clamped = false;
  linear_mps = clampf(linear_mps, MAX_LINEAR_MPS, &clamped);
  angular_radps = clampf(angular_radps, MAX_ANGULAR_RADPS, &clamped);
  motors_drive(linear_mps, angular_radps);
  watchdog_stopped = false;
  last_clamped = clamped;
  send_ack(frame->seq, clamped ? ACK_CLAMPED : ACK_APPLIED, linear_mps, angular_radps);
}

void session_on_frame(const frame_t *frame, uint32_t now_ms) {
  switch (frame->type) {
    case TYPE_HELLO:
      if (frame->length < 3) break;
      session_open = true;
      host_heard_ms = now_ms;
      next_sensor_ms = now_ms;
      next_heartbeat_ms = now_ms + HEARTBEAT_PERIOD_MS;
      send_hello_reply();
      return;
    case TYPE_HEARTBEAT:
      if (frame->length < 5) break;
      host_heard_ms = now_ms;
      return;
    case TYPE_VELOCITY:
      if (frame->length < 8) break;
      on_velocity(frame, now_ms);
      return;
    case TYPE_ERROR:
      return; /* never answer an ERROR with an ERROR */
    default:
      if (frame->type < FIRST_VENDOR_TYPE) send_error(ERR_UNKNOWN_TYPE, "unknown message type", now_ms);
      return;
  }
  send_error(ERR_BAD_PAYLOAD, "payload too short for its type", now_ms);
}

void session_on_fault(frame_status_t status, uint32_t now_ms) {
  switch (status) {
    case FRAME_BAD_CRC:
      send_error(ERR_CRC, "CRC mismatch", now_ms);
      break;
    case FRAME_BAD_VERSION:
      send_error(ERR_VERSION, "this device speaks protocol version 1", now_ms);
      break;
    default:
      send_error(ERR_BAD_FRAME, "malformed frame (COBS or length)", now_ms);
  }
}

void session_on_rx_overflow(uint32_t now_ms) { send_error(ERR_RX_OVERFLOW, "receive buffer overran", now_ms); }

static float window_radps(int32_t now_counts, uint8_t wheel) {
  if (history_filled < VELOCITY_WINDOW_SAMPLES) return 0.0f;
  int32_t delta = now_counts - counts_history[history_index][wheel];
  float revs = (float)delta / ENCODER_COUNTS_PER_REV;
  return revs * 6.2831853f * 1000.0f / (VELOCITY_WINDOW_SAMPLES * SENSOR_PERIOD_MS);
}

static void send_sensor(uint32_t now_ms) {
  int32_t counts[2];
  encoders_read(&counts[0], &counts[1]);
  int16_t duty[2] = {motors_duty_left(), motors_duty_right()};
  uint8_t payload[48];
  uint32_t now_us = clock_micros();
  uint8_t *at = put(payload, &now_us, 4);
  at = put_u8(at, BLOCK_WHEELS);
  at = put_u8(at, 1 + 2 * 10);
  at = put_u8(at, 2);
  for (uint8_t wheel = 0; wheel < 2; wheel++) {
    at = put(at, &counts[wheel], 4);
    at = put_f32(at, window_radps(counts[wheel], wheel));
    at = put(at, &duty[wheel], 2);
  }
  /* The oldest sample in the ring is the one the window is measured against; replace it now. */
  counts_history[history_index][0] = counts[0];
  counts_history[history_index][1] = counts[1];
  history_index = (uint8_t)((history_index + 1) % VELOCITY_WINDOW_SAMPLES);
  if (history_filled < VELOCITY_WINDOW_SAMPLES) history_filled++;

  at = put_u8(at, BLOCK_ANALOG);
  at = put_u8(at, 1 + 2 * ANALOG_CHANNELS);
  at = put_u8(at, ANALOG_CHANNELS);
  for (uint8_t channel = 0; channel < ANALOG_CHANNELS; channel++) at = put_u16(at, analog_read_mv(channel));
  at = put_u8(at, BLOCK_STATUS);
  at = put_u8(at, 1);
  at = put_u8(at, status_flags(now_ms));
  frames_send(TYPE_SENSOR, payload, (uint8_t)(at - payload));
}

static void send_heartbeat(uint32_t now_ms) {
  uint8_t payload[5];
  uint32_t now_us = clock_micros();
  uint8_t *at = put(payload, &now_us, 4);
  put_u8(at, status_flags(now_ms));
  frames_send(TYPE_HEARTBEAT, payload, sizeof payload);
}

void session_poll(uint32_t now_ms) {
  bool moving = motors_duty_left() != 0 || motors_duty_right() != 0;
  if (moving && !armed(now_ms)) {
    motors_stop();
    watchdog_stopped = true;
  }
  if (!session_open) return;
  if ((int32_t)(now_ms - next_sensor_ms) >= 0) {
    next_sensor_ms += SENSOR_PERIOD_MS;
    /* After a stall, sample now and keep the rate, rather than sending a burst to catch up. */
    if ((int32_t)(now_ms - next_sensor_ms) >= 0) next_sensor_ms = now_ms + SENSOR_PERIOD_MS;
    send_sensor(now_ms);
  }
  if ((int32_t)(now_ms - next_heartbeat_ms) >= 0) {
    next_heartbeat_ms = now_ms + HEARTBEAT_PERIOD_MS;
    send_heartbeat(now_ms);
  }
}
